"""Tournament storage: the SQLAlchemy tables and the engine, SQLite by default, PostgreSQL by URL.

Every write runs in `Database.write`, a transaction that is retried when the database reports a
conflict with a concurrent one (PostgreSQL serialization failure or deadlock, SQLite busy):
callers write plain code and never see those errors. On SQLite the file runs in WAL mode with a
busy timeout, and a write transaction starts with `BEGIN IMMEDIATE`, so two writers queue for the
lock instead of both reading and then failing to upgrade. On PostgreSQL the service takes a row
lock (`SELECT ... FOR UPDATE`) on the match it changes.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    ForeignKey,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    NoSuchModuleError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from scopa.database import WRITE, UtcDateTime, make_engine, utcnow
from scoring.errors import ScopaError

from .records import SCHEDULED

DEFAULT_DB_PATH = Path("data") / "tournament.sqlite"
DB_URL_ENV = "SCOPA_TOURNAMENT_DB"

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
    __tablename__ = "matches"

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

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("match_id", "number"),
        # The idempotency key: a retried submission finds its hand instead of adding another.
        UniqueConstraint("match_id", "submission_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), index=True)
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
    """Photo bytes, addressed by their SHA-256: a retried upload stores nothing twice."""

    __tablename__ = "photo_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Photo(Base):
    __tablename__ = "photos"

    id: Mapped[int] = mapped_column(primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id"), index=True)
    side: Mapped[str] = mapped_column(String(8))
    position: Mapped[int]
    sha256: Mapped[str] = mapped_column(ForeignKey("photo_blobs.sha256"))
    filename: Mapped[str] = mapped_column(String(255), default="")
    recognition: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # PhotoResult.to_dict()


class HandDraftRow(Base):
    """The hand a table is entering now: photos, recognition, corrections, scope, as JSON.

    Kept in the database so that a closed tab or a restarted server loses nothing; deleted in
    the transaction that records the hand. Photo bytes are in `photo_blobs` already.
    """

    __tablename__ = "hand_drafts"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    submission_id: Mapped[str] = mapped_column(String(100))
    data: Mapped[dict[str, Any]]
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class AuditEvent(Base):
    """Append-only log: who did what, when. Never updated or deleted by the application."""

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"), index=True)
    hand_id: Mapped[int | None] = mapped_column(ForeignKey("hands.id"), index=True)
    at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    actor: Mapped[str] = mapped_column(String(40))  # "table 3", "referee", "system"
    action: Mapped[str] = mapped_column(String(40))
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    note: Mapped[str] = mapped_column(Text, default="")


def default_url() -> str:
    """The database URL: $SCOPA_TOURNAMENT_DB, else the SQLite file data/tournament.sqlite."""
    return os.environ.get(DB_URL_ENV) or f"sqlite:///{DEFAULT_DB_PATH}"


class Transactions(Protocol):
    """What callers of a database need: a `Database`, or a desk's checked door to one."""

    def read(self, work: Callable[[Session], R]) -> R: ...

    def write(self, work: Callable[[Session], R]) -> R: ...


class Database:
    """An engine plus the transaction helpers every service call goes through."""

    RETRIES = 8

    def __init__(self, url: str | None = None, *, echo: bool = False) -> None:
        self.url = url or default_url()
        self.engine = make_engine(self.url, echo=echo)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # Connections of this engine open write transactions with BEGIN IMMEDIATE on SQLite.
        self._write_sessions = sessionmaker(
            self.engine.execution_options(**{WRITE: True}), expire_on_commit=False
        )

    def create_schema(self) -> None:
        """Create the tables that do not exist yet."""
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
    shown = url or default_url()
    try:
        db = Database(url)
        db.create_schema()
    except (ArgumentError, NoSuchModuleError) as exc:
        raise ScopaError(
            f"database URL {shown!r}: not a usable URL ({_first_line(exc)}); "
            "expected e.g. sqlite:///data/tournament.sqlite or postgresql://user@host/name"
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
