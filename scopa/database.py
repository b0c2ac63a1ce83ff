"""The one database setting and the one SQLAlchemy engine factory of both stores: single matches
(`scopa.storage`) and tournaments (`scopa.tournament.db`).

Both stores keep their tables in one database, the URL `resolve_db_url` gives: the `url` argument
(a command's `--db`), else `$SCOPA_DB_URL`, else the SQLite file `$XDG_DATA_HOME/scopa/scopa.sqlite`
(`~/.local/share/scopa/scopa.sqlite`). Their table names differ (the tournament's clashing ones
carry a `tournament_` prefix), so one file holds matches and tournaments at once.

SQLite by default, PostgreSQL by URL (`postgresql://...` runs on psycopg 3, the `postgres`
extra). On SQLite every connection runs in WAL mode with a 30 s busy timeout and foreign keys
on; the sqlite3 module's own transaction handling is off, and a transaction begins with
`BEGIN IMMEDIATE` (the write lock at once, so that two writers queue instead of both reading and
then failing to upgrade) when its connection carries the execution option `WRITE`, else with a
plain `BEGIN`. An in-memory database is one connection shared by every thread.

Time is stored in UTC and is always an aware UTC datetime in Python: `UtcDateTime` is the column
type of every timestamp of both stores, and `utcnow` their clock. SQLite keeps no time zone, so a
naive value read back (every value in an SQLite file, whichever code wrote it) is taken as UTC.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, create_engine, event
from sqlalchemy.engine import Dialect, Engine, make_url
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

from scoring.errors import ScopaError

#: The execution option that makes an SQLite transaction begin with BEGIN IMMEDIATE:
#: `engine.execution_options(**{WRITE: True})`.
WRITE = "scopa_write"
BUSY_TIMEOUT_S = 30
#: The environment variable that names the database of both stores.
DB_URL_ENV = "SCOPA_DB_URL"


def default_db_path() -> Path:
    """The SQLite file used when no URL is configured: `$XDG_DATA_HOME/scopa/scopa.sqlite`."""
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "scopa" / "scopa.sqlite"


def resolve_db_url(url: str | None = None) -> str:
    """The database URL of both stores: `url`, else `$SCOPA_DB_URL`, else the default SQLite
    file (`default_db_path`)."""
    return url or os.environ.get(DB_URL_ENV) or f"sqlite:///{default_db_path()}"


def utcnow() -> dt.datetime:
    """Now, as an aware UTC datetime: the default of every stored timestamp."""
    return dt.datetime.now(dt.UTC)


class UtcDateTime(TypeDecorator[dt.datetime]):
    """A timestamp column that takes and gives aware UTC datetimes on every backend.

    A naive datetime is refused on write (its zone is unknown); one read back is taken as UTC.
    `timezone` is the column's SQL type on PostgreSQL: `timestamp with time zone` (the
    tournament's tables) or, with `timezone=False`, `timestamp without time zone` holding UTC
    (the single-match tables, as their existing databases have it); SQLite stores both alike.
    """

    impl = DateTime
    cache_ok = True

    def __init__(self, timezone: bool = True) -> None:
        super().__init__(timezone=timezone)
        self.timezone = timezone

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value.isoformat()}: timestamps are stored as UTC")
        value = value.astimezone(dt.UTC)
        return value if self.timezone else value.replace(tzinfo=None)

    def process_result_value(
        self, value: dt.datetime | None, dialect: Dialect
    ) -> dt.datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine for `url`, with the conventions above; the folder of an SQLite file is created."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite"):
        try:
            return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=20)
        except ModuleNotFoundError as exc:
            raise ScopaError(
                f"database URL {url.split('://')[0]}: driver {exc.name} not installed "
                "(pip install 'scopa-assistant[postgres]')"
            ) from exc

    database = parsed.database
    if database and database != ":memory:":
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        # Streamlit runs each session's script in its own thread.
        engine = create_engine(
            url, echo=echo, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
        )
    else:
        # One shared connection, or every session would see its own empty in-memory database.
        engine = create_engine(
            url, echo=echo, connect_args={"check_same_thread": False}, poolclass=StaticPool
        )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below issue BEGIN instead of the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        write = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine
