"""Files made by older code still open, and every timestamp is an aware UTC datetime.

The SQLite files in tests/fixtures/ were made by `tests/fixtures/make_storage_fixtures.py` with
the code of December 2026 (before `scopa.database.UtcDateTime`): one single-match database, one
tournament database (the two stores share table names, so they are two files). Both hold their
timestamps naive, as SQLite keeps them; the tests open copies, never the fixtures themselves.
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
from scopa.database import UtcDateTime, utcnow
from scopa.storage import MatchRepository
from scopa.tournament import TournamentService

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
