"""The match repository: every change committed at once, drafts, edits, undo, photo blobs."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import inspect

from scopa.database import DB_URL_ENV, default_db_path, resolve_db_url
from scopa.storage import MatchRepository
from scoring.errors import ScopaError

RULES = {"preset": "classica", "target": 11}


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'nested' / 'scopa.sqlite'}"


@pytest.fixture
def repo(db_url: str) -> MatchRepository:
    repository = MatchRepository(db_url)
    yield repository
    repository.close()


def test_url_comes_from_argument_then_environment_then_default(monkeypatch, tmp_path):
    monkeypatch.delenv(DB_URL_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "scopa" / "scopa.sqlite"
    assert resolve_db_url() == f"sqlite:///{tmp_path / 'scopa' / 'scopa.sqlite'}"
    monkeypatch.setenv(DB_URL_ENV, "sqlite:///elsewhere.sqlite")
    assert resolve_db_url() == "sqlite:///elsewhere.sqlite"
    assert resolve_db_url("sqlite://") == "sqlite://"


def test_creates_the_database_directory(db_url, tmp_path):
    MatchRepository(db_url).close()
    assert (tmp_path / "nested" / "scopa.sqlite").is_file()


@pytest.mark.parametrize(
    ("sides", "message"),
    [(["Solo"], "2 to 4 sides"), (["A", "B", "C", "D", "E"], "2 to 4"), (["A", " "], "name")],
)
def test_create_match_rejects_bad_sides(repo, sides, message):
    with pytest.raises(ScopaError, match=message):
        repo.create_match(RULES, sides)


def test_create_match_rejects_duplicate_names(repo):
    with pytest.raises(ScopaError, match="differ"):
        repo.create_match(RULES, ["Noi", "Noi"])


def test_everything_survives_a_new_repository_on_the_same_file(db_url):
    first = MatchRepository(db_url)
    match = first.create_match(RULES, ["Noi", "Loro"])
    draft = first.open_draft(match.id, entry={"mode": "manual"})
    first.save_entry(draft.id, {"mode": "manual", "scope": {"Noi": 2}})
    photo = first.add_photo(
        draft.id, "Noi", b"jpeg bytes", filename="noi.jpg", width=4, height=3, detections=[]
    )
    first.add_correction(draft.id, "add", "7D", "Noi")
    first.engine.dispose()  # as if the process had been killed

    second = MatchRepository(db_url)
    resumed = second.latest_unfinished_match()
    assert resumed is not None and resumed.id == match.id
    assert resumed.sides == ("Noi", "Loro")
    kept = second.draft(match.id)
    assert kept is not None and kept.entry == {"mode": "manual", "scope": {"Noi": 2}}
    assert [p.filename for p in kept.photos] == ["noi.jpg"]
    assert kept.photos[0].sha256 == hashlib.sha256(b"jpeg bytes").hexdigest()
    assert second.photo_data(photo.id) == b"jpeg bytes"
    assert [(c.action, c.card, c.side) for c in kept.corrections] == [("add", "7D", "Noi")]
    second.close()


def test_hands_are_numbered_and_undone_in_order(repo):
    match = repo.create_match(RULES, ["A", "B"])
    for total in (3, 5):
        draft = repo.open_draft(match.id)
        repo.commit_hand(draft.id, {"A": {"cards": [], "scope": 0}}, {"total": total})
    assert [h.number for h in repo.get_match(match.id).hands] == [1, 2]
    assert repo.draft(match.id) is None

    removed = repo.undo_last_hand(match.id, outcome=("in-progress", None))
    assert removed is not None and removed.result == {"total": 5}
    assert [h.result for h in repo.get_match(match.id).hands] == [{"total": 3}]
    repo.undo_last_hand(match.id)
    assert repo.undo_last_hand(match.id) is None


def test_outcome_is_stored_with_the_hand_and_ends_the_match(repo):
    match = repo.create_match(RULES, ["A", "B"])
    draft = repo.open_draft(match.id)
    repo.commit_hand(draft.id, {}, {}, outcome=("won", "A"))
    stored = repo.get_match(match.id)
    assert (stored.status, stored.winner, stored.finished) == ("won", "A", True)
    assert repo.latest_unfinished_match() is None


def test_latest_unfinished_match_is_the_one_touched_last(repo):
    older = repo.create_match(RULES, ["A", "B"])
    newer = repo.create_match(RULES, ["C", "D"])
    assert repo.latest_unfinished_match().id == newer.id
    repo.commit_hand(repo.open_draft(older.id).id, {}, {})
    assert repo.latest_unfinished_match().id == older.id
    assert [m.id for m in repo.list_matches()] == [older.id, newer.id]


def test_an_edit_replaces_the_hand_only_when_saved(repo):
    match = repo.create_match(RULES, ["A", "B"])
    draft = repo.open_draft(match.id, entry={"mode": "photos"})
    repo.add_photo(draft.id, "A", b"photo", filename="a.jpg", width=1, height=1)
    repo.add_correction(draft.id, "remove", "1C", "A")
    first = repo.commit_hand(draft.id, {"A": {"scope": 1}}, {"total": 1})
    repo.commit_hand(repo.open_draft(match.id).id, {}, {"total": 2})

    edit = repo.open_draft(match.id, replaces=first.id)
    assert edit.entry == {"mode": "photos"}
    assert [p.filename for p in edit.photos] == ["a.jpg"]
    assert [c.card for c in edit.corrections] == ["1C"]
    assert repo.open_draft(match.id, replaces=first.id).id == edit.id
    assert repo.draft(match.id) is None  # the edit is not the next hand's draft

    repo.discard_draft(edit.id)
    assert repo.get_match(match.id).hands[0].id == first.id

    edit = repo.open_draft(match.id, replaces=first.id)
    repo.commit_hand(edit.id, {"A": {"scope": 0}}, {"total": 7})
    hands = repo.get_match(match.id).hands
    assert [(h.number, h.result) for h in hands] == [(1, {"total": 7}), (2, {"total": 2})]
    assert hands[0].photos[0].sha256 == hashlib.sha256(b"photo").hexdigest()


def test_undoing_a_hand_drops_its_pending_edit(repo):
    match = repo.create_match(RULES, ["A", "B"])
    hand = repo.commit_hand(repo.open_draft(match.id).id, {}, {})
    repo.open_draft(match.id, replaces=hand.id)
    repo.undo_last_hand(match.id)
    assert repo.draft(match.id, replaces=hand.id) is None


def test_the_same_photo_twice_for_a_side_is_stored_once(repo):
    match = repo.create_match(RULES, ["A", "B"])
    draft = repo.open_draft(match.id)
    first = repo.add_photo(draft.id, "A", b"same", filename="1.jpg", width=1, height=1)
    again = repo.add_photo(draft.id, "A", b"same", filename="2.jpg", width=1, height=1)
    other_side = repo.add_photo(draft.id, "B", b"same", filename="3.jpg", width=1, height=1)
    assert again.id == first.id
    assert other_side.id != first.id
    assert len(repo.get_hand(draft.id).photos) == 2


def test_photo_bytes_are_dropped_when_no_photo_uses_them(repo):
    match = repo.create_match(RULES, ["A", "B"])
    draft = repo.open_draft(match.id)
    photo = repo.add_photo(draft.id, "A", b"gone soon", filename="a.jpg", width=1, height=1)
    repo.delete_photo(photo.id)
    with pytest.raises(ScopaError, match="no photo"):
        repo.photo_data(photo.id)
    from sqlalchemy import func, select

    from scopa.storage import PhotoBlobRow

    with repo.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(PhotoBlobRow)) == 0


def test_scored_hands_cannot_be_changed_in_place(repo):
    match = repo.create_match(RULES, ["A", "B"])
    hand = repo.commit_hand(repo.open_draft(match.id).id, {}, {})
    with pytest.raises(ScopaError, match="already scored"):
        repo.add_correction(hand.id, "add", "7D", "A")
    with pytest.raises(ScopaError, match="already scored"):
        repo.save_entry(hand.id, {})


def test_unknown_sides_and_actions_are_refused(repo):
    match = repo.create_match(RULES, ["A", "B"])
    draft = repo.open_draft(match.id)
    with pytest.raises(ScopaError, match="unknown side 'C'"):
        repo.add_photo(draft.id, "C", b"x", filename="c.jpg", width=1, height=1)
    with pytest.raises(ScopaError, match="unknown side 'C'"):
        repo.add_correction(draft.id, "move", "7D", "A", "C")
    with pytest.raises(ScopaError, match="unknown correction"):
        repo.add_correction(draft.id, "swap", "7D", "A")
    with pytest.raises(ScopaError, match="no match"):
        repo.get_match(999)


def test_in_memory_database_is_shared_between_calls():
    repository = MatchRepository("sqlite://")
    match = repository.create_match(RULES, ["A", "B"])
    assert repository.get_match(match.id).sides == ("A", "B")
    repository.close()


def test_public_ids_are_long_random_and_distinct(repo):
    matches = [repo.create_match(RULES, ["A", "B"]) for _ in range(50)]
    ids = [m.public_id for m in matches]
    assert len(set(ids)) == len(ids)
    # 16 URL-safe characters (96 random bits): nothing to read from them, nothing to count up.
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{16,}", public_id) for public_id in ids)
    assert len(set("".join(ids))) > 40  # spread over the alphabet, not a counter or a date
    assert not any(public_id.isdigit() for public_id in ids)
    assert repo.get_match_by_public_id(ids[7]).id == matches[7].id


@pytest.mark.parametrize("asked", ["1", "", "no-such-match", "x" * 500])
def test_an_integer_or_unknown_public_id_finds_no_match(repo, asked):
    repo.create_match(RULES, ["A", "B"])
    with pytest.raises(ScopaError, match="no match"):
        repo.get_match_by_public_id(asked)


def test_a_database_from_before_public_ids_gets_them_on_open(db_url, tmp_path):
    # The file as the previous version left it: the same tables, no public_id column or index.
    first = MatchRepository(db_url)
    old_ids = [first.create_match(RULES, ["Noi", "Loro"]).id for _ in range(3)]
    draft = first.open_draft(old_ids[0], entry={"mode": "manual"})
    first.commit_hand(draft.id, {"Noi": {}, "Loro": {}}, {"totals": {}})
    first.close()
    path = tmp_path / "nested" / "scopa.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("DROP INDEX ix_matches_public_id")
        connection.execute("ALTER TABLE matches DROP COLUMN public_id")
    connection.close()
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(matches)")]
    connection.close()
    assert "public_id" not in columns

    second = MatchRepository(db_url)
    stored = [second.get_match(match_id) for match_id in old_ids]
    public_ids = [m.public_id for m in stored]
    assert len(set(public_ids)) == 3 and all(len(public_id) >= 16 for public_id in public_ids)
    assert [second.get_match_by_public_id(p).id for p in public_ids] == old_ids
    assert len(stored[0].hands) == 1  # nothing else touched
    indexes = inspect(second.engine).get_indexes("matches")
    assert any(i["column_names"] == ["public_id"] and i["unique"] for i in indexes)
    new = second.create_match(RULES, ["A", "B"])
    assert new.public_id not in public_ids
    second.close()

    third = MatchRepository(db_url)  # opening again keeps every id
    assert [third.get_match(match_id).public_id for match_id in old_ids] == public_ids
    third.close()


def test_a_file_from_before_the_shared_engine_still_opens(db_url, tmp_path):
    # Files made before scopa.database ran in SQLite's default rollback journal, not WAL.
    repository = MatchRepository(db_url)
    match = repository.create_match({"preset": "classica"}, ["Noi", "Loro"])
    repository.close()
    path = tmp_path / "nested" / "scopa.sqlite"
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    reopened = MatchRepository(db_url)
    assert reopened.get_match(match.id).public_id == match.public_id
    assert len(reopened.list_matches()) == 1
    reopened.close()
