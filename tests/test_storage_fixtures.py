"""Files made by older code still open, every timestamp is an aware UTC datetime, and one
database holds single matches and tournaments at once.

The SQLite files in tests/fixtures/ were made by `tests/fixtures/make_storage_fixtures.py` with
the code of December 2026 (before `scopa.database.UtcDateTime`): one single-match database, one
tournament database (the two stores then shared table names, so they are two files). Both hold
their timestamps naive, as SQLite keeps them; the tests open copies, never the fixtures
themselves. The tournament file's clashing tables are renamed when the tournament store opens it.
"""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Column, MetaData, Table, create_engine, insert, select
from sqlalchemy.exc import StatementError

from scopa.cli import main
from scopa.database import DB_URL_ENV, UtcDateTime, utcnow
from scopa.storage import MatchRepository
from scopa.storage import PhotoBlobRow as MatchPhotoBlob
from scopa.tournament import (
    PairSetup,
    PhotoUpload,
    TableHandSubmission,
    TournamentService,
    TournamentSetup,
)
from scopa.tournament.db import PhotoBlob as TournamentPhotoBlob
from scopa.tournament.db import rename_old_tables
from scoring import DECK

FIXTURES = Path(__file__).parent / "fixtures"
PASSWORD = "arbitro-2024"


def copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def stored(path: Path, sql: str) -> dt.datetime:
    """The naive text SQLite holds, as a datetime, and checked to be naive."""
    with sqlite3.connect(path) as connection:
        (text,) = connection.execute(sql).fetchone()
    value = dt.datetime.fromisoformat(text)
    assert value.tzinfo is None
    return value


def aware_utc(value: dt.datetime) -> bool:
    return value.tzinfo is not None and value.utcoffset() == dt.timedelta(0)


def test_a_single_match_file_of_2026_opens_with_aware_utc_times(tmp_path):
    path = copy("match_2026.sqlite", tmp_path)
    created = stored(path, "SELECT created_at FROM matches")
    repo = MatchRepository(f"sqlite:///{path}")
    try:
        (match,) = repo.list_matches()
        assert (match.sides, match.status, match.winner) == (("Noi", "Loro"), "won", "Noi")
        (hand,) = match.hands
        assert hand.number == 1 and hand.result == {"totals": {"Noi": 11, "Loro": 1}}
        assert [p.filename for p in hand.photos] == ["noi.jpg"]
        assert [(c.action, c.card, c.side) for c in hand.corrections] == [("add", "7D", "Noi")]
        times = [match.created_at, match.updated_at, hand.created_at, hand.updated_at]
        times += [hand.photos[0].created_at, hand.corrections[0].created_at]
        assert all(aware_utc(t) for t in times)
        assert match.created_at == created.replace(tzinfo=dt.UTC)

        # New rows in the old file: aware in, aware out, ordered with the old ones.
        newer = repo.create_match({"preset": "classica"}, ["A", "B"])
        assert aware_utc(newer.created_at) and newer.created_at > match.created_at
        assert [m.id for m in repo.list_matches()] == [newer.id, match.id]
    finally:
        repo.close()
    # Still stored naive (UTC), as the older code reads and writes them.
    assert stored(path, f"SELECT created_at FROM matches WHERE id = {newer.id}") == (
        newer.created_at.replace(tzinfo=None)
    )


def test_a_tournament_file_of_2026_opens_with_aware_utc_times(tmp_path):
    path = copy("tournament_2026.sqlite", tmp_path)
    submitted = stored(path, "SELECT submitted_at FROM hands")
    service = TournamentService.open(f"sqlite:///{path}")
    try:
        (tournament,) = service.tournaments()
        assert (tournament.name, tournament.stage) == ("Torneo 2026", "group")
        referee = service.referee(tournament.id, PASSWORD)
        (match,) = service.matches(tournament.id)
        (hand,) = referee.hands(match.id)
        assert (hand.number, hand.points_a, hand.points_b) == (1, 3, 0)
        assert hand.submitted_at == submitted.replace(tzinfo=dt.UTC)
        events = referee.audit()
        assert "hand-recorded" in [e.action for e in events]
        assert all(aware_utc(t) for t in [hand.submitted_at, *(e.at for e in events)])
    finally:
        service.db.dispose()


def test_the_command_line_reads_a_tournament_file_of_2026(tmp_path, capsys):
    url = f"sqlite:///{copy('tournament_2026.sqlite', tmp_path)}"
    assert main(["tournament", "list", "--db", url]) == 0
    assert "Torneo 2026" in capsys.readouterr().out
    assert main(["tournament", "audit", "--db", url]) == 0
    assert "hand-recorded" in capsys.readouterr().out


def test_utc_datetime_converts_to_utc_and_refuses_naive_times():
    engine = create_engine("sqlite://")
    table = Table(
        "t",
        MetaData(),
        Column("aware", UtcDateTime()),
        Column("naive", UtcDateTime(timezone=False)),
    )
    table.metadata.create_all(engine)
    rome = dt.timezone(dt.timedelta(hours=2))
    at = dt.datetime(2026, 7, 1, 20, 30, tzinfo=rome)
    with engine.begin() as connection:
        connection.execute(insert(table).values(aware=at, naive=at))
        row = connection.execute(select(table)).one()
        raw = connection.exec_driver_sql("SELECT aware, naive FROM t").one()
    assert row.aware == row.naive == at
    assert row.aware.tzinfo is dt.UTC and row.naive.tzinfo is dt.UTC
    assert raw == ("2026-07-01 18:30:00.000000", "2026-07-01 18:30:00.000000")
    assert aware_utc(utcnow())
    with pytest.raises(StatementError, match="naive datetime"), engine.begin() as connection:
        connection.execute(insert(table).values(aware=dt.datetime(2026, 7, 1)))


# -- one database for both stores -------------------------------------------------------------

OLD_NAMES = {"matches", "hands", "photos", "photo_blobs"}
NEW_NAMES = {
    "tournament_matches",
    "tournament_hands",
    "tournament_photos",
    "tournament_photo_blobs",
}
EVEN = [card.code for card in DECK if card.index % 2 == 0]
ODD = [card.code for card in DECK if card.index % 2 == 1]


def schema(path: Path) -> dict[str, set[str]]:
    """The tables and the indexes of an SQLite file, by name."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT type, name FROM sqlite_master").fetchall()
    return {
        kind: {name for row_kind, name in rows if row_kind == kind} for kind in ("table", "index")
    }


def single_match(repo: MatchRepository, photo: bytes) -> int:
    """A single match with one scored hand, whose one photo is `photo`; its id."""
    match = repo.create_match({"preset": "classica", "target": 11}, ["Noi", "Loro"])
    draft = repo.open_draft(match.id, entry={"mode": "photos"})
    repo.add_photo(draft.id, "Noi", photo, filename="noi.jpg", width=4, height=3)
    repo.commit_hand(
        draft.id,
        {"Noi": {"cards": EVEN, "scope": 0}, "Loro": {"cards": ODD, "scope": 0}},
        {"totals": {"Noi": 3, "Loro": 0}},
        outcome=("in-progress", None),
    )
    return match.id


def tournament_hand(service: TournamentService, photo: bytes) -> tuple[int, int]:
    """A started tournament of two pairs with one hand recorded, with `photo` on side a; the
    tournament's id and the hand's photo id."""
    setup = TournamentSetup(name="Coppa Condivisa", pairs=[PairSetup("P1"), PairSetup("P2")])
    tournament = service.create_tournament(setup, PASSWORD)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    (_, code), *_ = referee.table_codes()
    hand = service.table(code).submit_hand(
        TableHandSubmission(
            submission_id="one",
            sides={"a": {"cards": EVEN, "scope": 0}, "b": {"cards": ODD, "scope": 0}},
            photos=[PhotoUpload("a", photo)],
        )
    )
    (stored_photo,) = hand.photos
    return tournament, stored_photo.id


def test_a_tournament_file_of_2026_gets_its_new_table_names_and_takes_single_matches(tmp_path):
    path = copy("tournament_2026.sqlite", tmp_path)
    assert schema(path)["table"] >= OLD_NAMES
    url = f"sqlite:///{path}"
    service = TournamentService.open(url)
    try:
        tables = schema(path)
        assert tables["table"] >= NEW_NAMES and not OLD_NAMES & tables["table"]
        # The indexes carry the new names, as a new database has them, so that the single-match
        # tables can have theirs (ix_hands_match_id, ix_photos_hand_id).
        assert {"ix_tournament_hands_match_id", "ix_tournament_photos_hand_id"} <= tables["index"]
        assert {"ix_tournament_matches_round_id", "ix_tournament_matches_tournament_id"} <= (
            tables["index"]
        )
        assert not any(name.startswith(("ix_hands_", "ix_photos_")) for name in tables["index"])
        with sqlite3.connect(path) as connection:
            (sql,) = connection.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'audit_events'"
            ).fetchone()
            assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        assert '"tournament_matches"' in sql and '"tournament_hands"' in sql  # foreign keys follow
        assert rename_old_tables(service.db.engine) is False  # done once

        (tournament,) = service.tournaments()
        referee = service.referee(tournament.id, PASSWORD)
        (match,) = service.matches(tournament.id)
        (hand,) = referee.hands(match.id)
        assert (hand.number, hand.points_a, hand.points_b) == (1, 3, 0)
        assert "hand-recorded" in [e.action for e in referee.audit()]

        # A single match in the same file, and both read back.
        repo = MatchRepository(url)
        try:
            match_id = single_match(repo, b"single photo")
            (stored_match,) = repo.list_matches()
            assert stored_match.id == match_id and stored_match.sides == ("Noi", "Loro")
            (single_hand,) = stored_match.hands
            assert repo.photo_data(single_hand.photos[0].id) == b"single photo"
        finally:
            repo.close()
        assert [t.name for t in service.tournaments()] == ["Torneo 2026"]
        assert [h.number for h in referee.hands(match.id)] == [1]
    finally:
        service.db.dispose()
    assert {"matches", "hands", "photos", "photo_blobs"} <= schema(path)["table"]  # the single ones


def test_a_single_match_file_of_2026_takes_a_tournament(tmp_path):
    path = copy("match_2026.sqlite", tmp_path)
    url = f"sqlite:///{path}"
    service = TournamentService.open(url, scrypt_n=2**10)
    try:
        assert {"matches", "hands", "photos", "photo_blobs"} <= schema(path)["table"]  # not renamed
        tournament, _ = tournament_hand(service, b"tournament photo")
        assert [t.id for t in service.tournaments()] == [tournament]
    finally:
        service.db.dispose()
    repo = MatchRepository(url)
    try:
        (match,) = repo.list_matches()
        assert (match.sides, match.winner) == (("Noi", "Loro"), "Noi")
        assert repo.photo_data(match.hands[0].photos[0].id) == b"jpeg bytes"
    finally:
        repo.close()


def test_one_new_database_holds_matches_and_tournaments_with_their_photos(tmp_path, monkeypatch):
    path = tmp_path / "data" / "scopa.sqlite"
    monkeypatch.setenv(DB_URL_ENV, f"sqlite:///{path}")
    repo = MatchRepository()  # both stores open $SCOPA_DB_URL when given no URL
    service = TournamentService.open(scrypt_n=2**10)
    try:
        assert repo.url == service.db.url == f"sqlite:///{path}"
        shared = b"the same photo in both stores"
        match_id = single_match(repo, shared)
        tournament, photo_id = tournament_hand(service, shared)
        assert repo.photo_data(repo.get_match(match_id).hands[0].photos[0].id) == shared
        referee = service.referee(tournament, PASSWORD)
        assert referee.photo(photo_id) == shared
        # Each store keeps its own blobs: undoing the single match's hand drops its blob, and the
        # tournament's photo stays.
        assert repo.undo_last_hand(match_id) is not None
        with repo.engine.connect() as connection:
            assert connection.scalar(select(MatchPhotoBlob.sha256)) is None
            assert connection.scalar(select(TournamentPhotoBlob.data)) == shared
        assert referee.photo(photo_id) == shared
    finally:
        repo.close()
        service.db.dispose()
    assert schema(path)["table"] >= OLD_NAMES | NEW_NAMES
    # The commands read the same database when given no --db.
    assert main(["tournament", "list"]) == 0


def test_both_metadatas_create_their_tables_in_one_database_in_either_order(tmp_path):
    from scopa.storage import Base as MatchBase
    from scopa.tournament.db import Base as TournamentBase

    for order in ((MatchBase, TournamentBase), (TournamentBase, MatchBase)):
        engine = create_engine(f"sqlite:///{tmp_path / f'{order[0].__module__}.sqlite'}")
        for base in order:
            base.metadata.create_all(engine)
        assert not set(MatchBase.metadata.tables) & set(TournamentBase.metadata.tables)
        engine.dispose()
