"""Tournament storage: the SQLAlchemy tables and the engine, SQLite by default, PostgreSQL by URL.

The database is the one of single matches (`scopa.database.resolve_db_url`: `--db`, else
`$SCOPA_DB_URL`, else an SQLite file); the tables whose names the single-match store uses too
carry a `tournament_` prefix (`tournament_matches`, `tournament_hands`, `tournament_photos`,
`tournament_photo_blobs`). A tournament database made before that is renamed when it is opened
(`rename_old_tables`).

Every write runs in `Database.write`, a transaction that is retried when the database reports a
conflict with a concurrent one (PostgreSQL serialization failure or deadlock, SQLite busy):
callers write plain code and never see those errors. On SQLite the file runs in WAL mode with a
busy timeout, and a write transaction starts with `BEGIN IMMEDIATE`, so two writers queue for the
lock instead of both reading and then failing to upgrade. On PostgreSQL the service takes a row
lock (`SELECT ... FOR UPDATE`) on the match it changes.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    Inspector,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    inspect,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from scopa.database import WRITE, UtcDateTime, make_engine, resolve_db_url, utcnow
from scoring.errors import ScopaError

from .records import SCHEDULED

R = TypeVar("R")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, dt.datetime: UtcDateTime}


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    date: Mapped[dt.date | None] = mapped_column(Date)
    rules: Mapped[dict[str, Any]]
    format: Mapped[str] = mapped_column(String(20))  # "round-robin" | "swiss"
    groups: Mapped[int] = mapped_column(default=1)
    swiss_rounds: Mapped[int] = mapped_column(default=0)
    knockout_size: Mapped[int] = mapped_column(default=0)  # 0: no knockout
    deck: Mapped[str] = mapped_column(String(40), default="napoletane")  # for recognition
    stage: Mapped[str] = mapped_column(String(20), default="setup")
    referee_password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Pair(Base):
    __tablename__ = "pairs"
    __table_args__ = (UniqueConstraint("tournament_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    seed: Mapped[int]
    name: Mapped[str] = mapped_column(String(120))
    player1: Mapped[str] = mapped_column(String(120), default="")
    player2: Mapped[str] = mapped_column(String(120), default="")
    group_index: Mapped[int | None]


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    number: Mapped[int]
    stage: Mapped[str] = mapped_column(String(20))  # "group" | "swiss" | "knockout"


class MatchRow(Base):
    __tablename__ = "tournament_matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    position: Mapped[int]  # order in the round; for the knockout, the bracket slot
    table_number: Mapped[int | None]
    table_code: Mapped[str | None] = mapped_column(String(32), unique=True)
    group_index: Mapped[int | None]
    pair_a_id: Mapped[int] = mapped_column(ForeignKey("pairs.id"))
    pair_b_id: Mapped[int | None] = mapped_column(ForeignKey("pairs.id"))  # None: a bye
    status: Mapped[str] = mapped_column(String(20), default=SCHEDULED)  # TournamentMatchStatus
    score_a: Mapped[int] = mapped_column(default=0)
    score_b: Mapped[int] = mapped_column(default=0)
    winner_id: Mapped[int | None] = mapped_column(ForeignKey("pairs.id"))
    napoleone: Mapped[bool] = mapped_column(Boolean, default=False)
    hands_counted: Mapped[int] = mapped_column(default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Hand(Base):
    """One scored hand; `sides` holds the cards as now counted (after any referee correction)."""

    __tablename__ = "tournament_hands"
    __table_args__ = (
        UniqueConstraint("match_id", "number"),
        # The idempotency key: a retried submission finds its hand instead of adding another.
        UniqueConstraint("match_id", "submission_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("tournament_matches.id"), index=True)
    number: Mapped[int]
    submission_id: Mapped[str] = mapped_column(String(100))
    payload_sha256: Mapped[str] = mapped_column(String(64))
    submitted_by: Mapped[str] = mapped_column(String(40))
    submitted_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    sides: Mapped[dict[str, Any]]  # {"a": {"cards": [...], "scope": n}, "b": {...}}
    complement: Mapped[list[Any] | None] = mapped_column(JSON)  # [side, card count] or None
    missing: Mapped[list[Any]]  # cards absent from a hand scored incomplete
    result: Mapped[dict[str, Any]]  # the score breakdown, HandResult.to_dict()
    points_a: Mapped[int]
    points_b: Mapped[int]
    recognition: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # reconciliation at the table
    corrections: Mapped[int] = mapped_column(default=0)  # manual corrections when entered
    status: Mapped[str] = mapped_column(String(20), default="counted")  # "counted" | "void"
    review: Mapped[str] = mapped_column(String(20), default="none")  # none|accepted|corrected


class PhotoBlob(Base):
    """Photo bytes, addressed by their SHA-256: a retried upload stores nothing twice.

    The single-match store's `photo_blobs` has the same columns but is its own: that store
    drops the blobs its photos no longer use, which would take the tournament's too.
    """

    __tablename__ = "tournament_photo_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Photo(Base):
    __tablename__ = "tournament_photos"

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("tournament_hands.id"), index=True)
    side: Mapped[str] = mapped_column(String(8))
    position: Mapped[int]
    sha256: Mapped[str] = mapped_column(ForeignKey("tournament_photo_blobs.sha256"))
    filename: Mapped[str] = mapped_column(String(255), default="")
    recognition: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # PhotoResult.to_dict()


class HandDraftRow(Base):
    """The hand a table is entering now: photos, recognition, corrections, scope, as JSON.

    Kept in the database so that a closed tab or a restarted server loses nothing; deleted in
    the transaction that records the hand. Photo bytes are in `tournament_photo_blobs` already.
    """

    __tablename__ = "hand_drafts"

    match_id: Mapped[int] = mapped_column(ForeignKey("tournament_matches.id"), primary_key=True)
    submission_id: Mapped[str] = mapped_column(String(100))
    data: Mapped[dict[str, Any]]
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class AuditEvent(Base):
    """Append-only log: who did what, when. Never updated or deleted by the application."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("tournament_matches.id"), index=True)
    hand_id: Mapped[int | None] = mapped_column(ForeignKey("tournament_hands.id"), index=True)
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    actor: Mapped[str] = mapped_column(String(40))  # "table 3", "referee", "system"
    action: Mapped[str] = mapped_column(String(40))
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    note: Mapped[str] = mapped_column(Text, default="")


#: The tables that had the single-match store's names before the two stores shared a database:
#: (old name, new name), each before the tables that refer to it.
RENAMED_TABLES = (
    ("matches", "tournament_matches"),
    ("hands", "tournament_hands"),
    ("photo_blobs", "tournament_photo_blobs"),
    ("photos", "tournament_photos"),
)


def _needs_renaming(inspector: Inspector) -> bool:
    """A tournament database of the old names: `tournaments`, and a `matches` table that is the
    tournament's (it has `tournament_id`, the single-match one has not), and no new names yet."""
    tables = set(inspector.get_table_names())
    return (
        {"tournaments", "matches"} <= tables
        and "tournament_matches" not in tables
        and "tournament_id" in {c["name"] for c in inspector.get_columns("matches")}
    )


def rename_old_tables(engine: Engine) -> bool:
    """Give a tournament database made before the shared database its new table names, in one
    transaction; True if it did. Runs before `create_all`, on every open (a cheap check).

    ALTER TABLE ... RENAME TO keeps the rows, and the foreign keys of the other tables
    (`hand_drafts`, `audit_events`, ...) follow the renamed table (SQLite >= 3.26 rewrites them,
    PostgreSQL refers to tables by id). The indexes named after an old table (`ix_hands_match_id`)
    are dropped and made again under the new name (`ix_tournament_hands_match_id`), as a new
    database has them: the single-match tables created next in the same database need the old
    names.
    """
    if not _needs_renaming(inspect(engine)):
        return False
    with engine.execution_options(**{WRITE: True}).begin() as connection:
        # Checked again inside the transaction: on SQLite it holds the write lock, so a second
        # process opening the same old file waits here and then finds the tables renamed.
        inspector = inspect(connection)
        if not _needs_renaming(inspector):
            return False
        tables = set(inspector.get_table_names())
        for old, new in RENAMED_TABLES:
            if old not in tables:
                continue
            for index in inspector.get_indexes(old):
                name = index["name"]
                if name and name.startswith(f"ix_{old}_"):
                    connection.exec_driver_sql(f"DROP INDEX {name}")
            connection.exec_driver_sql(f"ALTER TABLE {old} RENAME TO {new}")
            for new_index in Base.metadata.tables[new].indexes:
                new_index.create(connection, checkfirst=True)
    return True


class Transactions(Protocol):
    """What callers of a database need: a `Database`, or a desk's checked door to one."""

    def read(self, work: Callable[[Session], R]) -> R: ...

    def write(self, work: Callable[[Session], R]) -> R: ...


class Database:
    """An engine plus the transaction helpers every service call goes through."""

    RETRIES = 8

    def __init__(self, url: str | None = None, *, echo: bool = False) -> None:
        self.url = resolve_db_url(url)
        self.engine = make_engine(self.url, echo=echo)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Connections of this engine open write transactions with BEGIN IMMEDIATE on SQLite.
        self._write_sessions = sessionmaker(
            self.engine.execution_options(**{WRITE: True}), expire_on_commit=False
        )

    def create_schema(self) -> None:
        """Rename the tables of an older tournament database, create those that do not exist."""
        rename_old_tables(self.engine)
        Base.metadata.create_all(self.engine)

    def read(self, work: Callable[[Session], R]) -> R:
        """Run `work` in a read-only transaction."""
        with self._sessions() as session, session.begin():
            return work(session)

    def write(self, work: Callable[[Session], R]) -> R:
        """Run `work` in a write transaction, retried on a conflict with a concurrent one."""
        for attempt in range(self.RETRIES):
            try:
                with self._write_sessions() as session, session.begin():
                    return work(session)
            except (OperationalError, DBAPIError) as exc:
                if attempt == self.RETRIES - 1 or not _is_transient(exc):
                    raise
            # Back off with jitter so that the conflicting writers do not collide again.
            time.sleep(random.uniform(0, 0.01 * 2**attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def dispose(self) -> None:
        self.engine.dispose()


def open_database(url: str | None = None) -> Database:
    """`Database(url)` with its tables created; a URL that names no usable database is a
    ScopaError saying why (no scheme, unknown dialect, not a database, server unreachable)."""
    shown = resolve_db_url(url)
    try:
        db = Database(url)
        db.create_schema()
    except (ArgumentError, NoSuchModuleError) as exc:
        raise ScopaError(
            f"database URL {shown!r}: not a usable URL ({_first_line(exc)}); "
            "expected e.g. sqlite:///path/to/scopa.sqlite or postgresql://user@host/name"
        ) from None
    except (SQLAlchemyError, OSError) as exc:
        reason = getattr(exc, "orig", None) or exc
        raise ScopaError(f"database {shown!r}: cannot open it: {_first_line(reason)}") from None
    return db


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _is_transient(exc: DBAPIError) -> bool:
    """Serialization failure or deadlock (PostgreSQL), busy or locked database (SQLite)."""
    sqlstate = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if sqlstate in ("40001", "40P01"):
        return True
    message = str(exc.orig).lower()
    return "database is locked" in message or "database is busy" in message
