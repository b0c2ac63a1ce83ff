"""Concurrent saves of one single match never lose or repeat an acknowledged hand (issue 17, 7).

Several threads and processes save hands of the same match at once, sharing the draft as two
phones on one match do. Every save the repository acknowledged must be there exactly once, and
the hand numbers must run 1..n without a gap or a repeat. On SQLite, and on the PostgreSQL
server named by SCOPA_TEST_POSTGRES_URL (`.ci/postgres.sh` starts one).
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from scopa.storage import MatchRepository
from scoring.errors import ScopaError

SAVES = 12


def save_hands(url: str, match_id: int, worker: str, saves: int) -> list[str]:
    """Open (or join) the match's draft and save it as a hand, `saves` times; the acknowledged
    markers."""
    repo = MatchRepository(url)
    acknowledged = []
    try:
        for i in range(saves):
            marker = f"{worker}-{i}"
            draft = repo.open_draft(match_id)
            try:
                repo.commit_hand(draft.id, {"marker": marker}, {})
            except ScopaError:
                continue  # lost the race for this draft, and was told so
            acknowledged.append(marker)
    finally:
        repo.close()
    return acknowledged


# A process runs the same loop from this file's source (pytest's importlib mode leaves the test
# module unimportable by name in a child process).
PROCESS_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from scopa.storage import MatchRepository
from scoring.errors import ScopaError
exec(sys.argv[2])
print(json.dumps(save_hands(sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))))
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path) -> str:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'matches.sqlite'}"
        return
    url = os.environ.get("SCOPA_TEST_POSTGRES_URL", "")
    if not url:
        pytest.skip("SCOPA_TEST_POSTGRES_URL is not set (.ci/postgres.sh starts a server)")
    repo = MatchRepository(url)
    from scopa.storage import Base

    Base.metadata.drop_all(repo.engine)
    repo.close()
    yield url
    repo = MatchRepository(url)
    Base.metadata.drop_all(repo.engine)
    repo.close()


def test_concurrent_saves_keep_every_acknowledged_hand_once(url):
    repo = MatchRepository(url)
    match = repo.create_match({"preset": "classica"}, ["Noi", "Loro"])
    acknowledged: list[str] = []
    lock = threading.Lock()

    def thread_worker(name: str) -> None:
        saved = save_hands(url, match.id, name, SAVES)
        with lock:
            acknowledged.extend(saved)

    source = inspect.getsource(save_hands)
    root = str(Path(__file__).resolve().parents[1])
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS_SCRIPT, root, source, url, str(match.id), f"p{n}"]
            + [str(SAVES)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    threads = [threading.Thread(target=thread_worker, args=(f"t{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for process in processes:
        out, _ = process.communicate(timeout=300)
        assert process.returncode == 0
        acknowledged.extend(json.loads(out))
    for thread in threads:
        thread.join(timeout=300)

    hands = repo.get_match(match.id).hands
    markers = [hand.sides["marker"] for hand in hands]
    assert sorted(markers) == sorted(acknowledged)  # each acknowledged hand exactly once
    assert [hand.number for hand in hands] == list(range(1, len(hands) + 1))
    assert len(acknowledged) >= SAVES  # the workers did overlap and still saved
    repo.close()


def test_a_second_save_of_the_same_draft_is_refused(tmp_path):
    repo = MatchRepository(f"sqlite:///{tmp_path / 'm.sqlite'}")
    match = repo.create_match({"preset": "classica"}, ["Noi", "Loro"])
    draft = repo.open_draft(match.id)
    repo.commit_hand(draft.id, {"marker": "first"}, {})
    with pytest.raises(ScopaError, match="already saved"):
        repo.commit_hand(draft.id, {"marker": "second"}, {})
    assert [h.sides["marker"] for h in repo.get_match(match.id).hands] == ["first"]
    repo.close()


def test_the_database_refuses_a_repeated_hand_number(tmp_path):
    from sqlalchemy.exc import IntegrityError

    from scopa.storage import SCORED, HandRow

    repo = MatchRepository(f"sqlite:///{tmp_path / 'm.sqlite'}")
    match = repo.create_match({"preset": "classica"}, ["Noi", "Loro"])
    repo.commit_hand(repo.open_draft(match.id).id, {}, {})
    with pytest.raises(IntegrityError), repo._transaction() as session:
        session.add(HandRow(match_id=match.id, number=1, state=SCORED, entry={}))
    repo.close()
