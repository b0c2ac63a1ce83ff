"""Many tables submitting at the same moment, with retries: no hand lost, none counted twice.

Runs on SQLite always, and on a real PostgreSQL server when SCOPA_TEST_POSTGRES_URL is set
(`.ci/postgres.sh` starts one on loopback).
"""

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from tournament_helpers import PASSWORD, small_hand, submission

from scopa.tournament import (
    PairSetup,
    PhotoUpload,
    TournamentService,
    TournamentSetup,
)

PAIRS = 8  # 4 tables
HANDS_PER_TABLE = 5
COPIES = 3  # each submission sent three times at once, as a client retrying after a drop


def run_simultaneous_submissions(service: TournamentService) -> None:
    tournament = service.create_tournament(
        TournamentSetup(name="Carico", pairs=[PairSetup(f"P{i}") for i in range(PAIRS)]),
        PASSWORD,
    )
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    codes = [code for _, code in referee.table_codes(1)]

    jobs = []
    for table_number, code in enumerate(codes):
        for hand in range(HANDS_PER_TABLE):
            sent = submission(
                small_hand("a" if hand % 2 == 0 else "b", scope=hand % 3),
                submission_id=str(uuid.uuid4()),
                photos=[PhotoUpload("a", f"table {table_number} hand {hand}".encode())],
            )
            jobs += [(code, sent)] * COPIES
    # One thread per request, all released at the same instant.
    start = threading.Barrier(len(jobs))

    def submit(job):
        code, sent = job
        start.wait(timeout=30)
        return sent.submission_id, service.table(code).submit_hand(sent)

    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(submit, jobs))

    # Every copy of a submission got the one same hand back.
    by_submission: dict[str, set[int]] = {}
    for submission_id, hand in results:
        by_submission.setdefault(submission_id, set()).add(hand.id)
    assert len(by_submission) == len(codes) * HANDS_PER_TABLE
    assert all(len(ids) == 1 for ids in by_submission.values())

    expected_points = {"a": 0, "b": 0}
    for hand in range(HANDS_PER_TABLE):
        expected_points["a" if hand % 2 == 0 else "b"] += 2 + hand % 3
    for match, code in referee.table_codes(1):
        hands = service.table(code).hands()
        assert [h.number for h in hands] == list(range(1, HANDS_PER_TABLE + 1))
        assert len({h.submission_id for h in hands}) == HANDS_PER_TABLE
        view = service.table(code).match()
        assert (view.score_a, view.score_b) == (expected_points["a"], expected_points["b"])
        assert view.hands_counted == HANDS_PER_TABLE
        recorded = [e for e in referee.audit(match_id=match.id) if e.action == "hand-recorded"]
        assert len(recorded) == HANDS_PER_TABLE


def test_simultaneous_submissions(any_service):
    run_simultaneous_submissions(any_service)
