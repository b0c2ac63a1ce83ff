"""Persistence of matches, their hands, photos and manual corrections (SQLAlchemy).

Every write commits at once, so a process killed mid-hand loses nothing that was entered.
The database is the one both stores share (`scopa.database.resolve_db_url`): the `url` argument,
else `SCOPA_DB_URL`, else an SQLite file; e.g. `postgresql+psycopg://user@host/scopa`. The engine
is the one both stores make (`scopa.database.make_engine`); every transaction here begins with
the write lock on SQLite.
Timestamps are aware UTC datetimes (`scopa.database.UtcDateTime`), naive ones of older files
read as UTC.

A hand is a `draft` while it is being entered (its photos, scope and corrections are stored as
they arrive) and becomes `scored` when the players confirm it. Editing a scored hand works on a
draft copy that replaces the original only when saved, so an abandoned edit changes nothing.
Photo bytes are stored once per SHA-256 in `photo_blobs`, whatever the number of hands using them
(the tournament's photos have their own `tournament_photo_blobs`: unused blobs are dropped here).

The repository knows nothing of the rules: callers pass the input and result of a hand as JSON
and the match outcome they computed with `scoring.Match`.

A match has two ids: the integer `id`, sequential and internal, and `public_id`, a random token
(`secrets.token_urlsafe`) that is the only one to appear in a URL, so that knowing one match's
address does not give the others'.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
    func,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)

from scopa.corrections import CORRECTION_ACTIONS
from scopa.database import WRITE, UtcDateTime, make_engine, resolve_db_url, utcnow
from scoring.errors import ScopaError
from scoring.match import IN_PROGRESS, UNFINISHED, MatchStatus

DRAFT = "draft"
SCORED = "scored"
DEFAULT_DECK = "napoletane"
PUBLIC_ID_BYTES = 12  # 96 random bits: 16 URL-safe characters
PUBLIC_ID_LENGTH = 32  # the column's width, room for longer tokens later


def new_public_id() -> str:
    """An unguessable match id for URLs: 96 random bits, URL-safe base64 (16 characters)."""
    return secrets.token_urlsafe(PUBLIC_ID_BYTES)


class Base(DeclarativeBase):
    # Timestamps are aware UTC datetimes, kept in `timestamp without time zone` columns on
    # PostgreSQL as the databases made before `UtcDateTime` have them.
    type_annotation_map = {
        dict[str, Any]: JSON,
        list[Any]: JSON,
        datetime: UtcDateTime(timezone=False),
    }


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The id shown in URLs (`?match=...`); the integer id is sequential, so never shown there.
    public_id: Mapped[str] = mapped_column(
        String(PUBLIC_ID_LENGTH), unique=True, index=True, default=new_public_id
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    rules: Mapped[dict[str, Any]]
    sides: Mapped[list[Any]]
    # The card design the players use, which selects the recognition model.
    deck: Mapped[str] = mapped_column(String(16), default=DEFAULT_DECK)
    status: Mapped[str] = mapped_column(String(16), default=IN_PROGRESS)  # a MatchStatus
    winner: Mapped[str | None] = mapped_column(String(200))

    hands: Mapped[list[HandRow]] = relationship(
        back_populates="match", cascade="all, delete-orphan", order_by="HandRow.id"
    )


class HandRow(Base):
    __tablename__ = "hands"
    # Two saves can never give the same number to two hands (drafts have none: NULLs differ).
    __table_args__ = (UniqueConstraint("match_id", "number", name="uq_hands_match_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    # 1-based position in the match once scored; None while a draft.
    number: Mapped[int | None]
    state: Mapped[str] = mapped_column(String(8), default=DRAFT)
    # A draft that edits a scored hand points at it; saving the draft replaces that hand.
    replaces_id: Mapped[int | None] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), index=True
    )
    # What the page needs to resume the entry: input mode, scope per side, manual cards...
    entry: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # The final input ({side: {"cards": [...], "scope": n}}) and its result, once scored.
    sides: Mapped[dict[str, Any] | None]
    result: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    match: Mapped[MatchRow] = relationship(back_populates="hands")
    photos: Mapped[list[PhotoRow]] = relationship(
        back_populates="hand", cascade="all, delete-orphan", order_by="PhotoRow.id"
    )
    corrections: Mapped[list[CorrectionRow]] = relationship(
        back_populates="hand", cascade="all, delete-orphan", order_by="CorrectionRow.id"
    )


class PhotoBlobRow(Base):
    __tablename__ = "photo_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class PhotoRow(Base):
    __tablename__ = "photos"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"), index=True)
    side: Mapped[str] = mapped_column(String(200))
    filename: Mapped[str] = mapped_column(String(300))
    sha256: Mapped[str] = mapped_column(ForeignKey("photo_blobs.sha256"), index=True)
    size: Mapped[int]
    width: Mapped[int]
    height: Mapped[int]
    # What the recognition found, so a resumed hand needs no second recognition pass.
    detections: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    hand: Mapped[HandRow] = relationship(back_populates="photos")


class CorrectionRow(Base):
    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"), index=True)
    action: Mapped[str] = mapped_column(String(8))
    card: Mapped[str] = mapped_column(String(3))
    side: Mapped[str] = mapped_column(String(200))
    to_side: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    hand: Mapped[HandRow] = relationship(back_populates="corrections")


@dataclass(frozen=True)
class StoredPhoto:
    """A photo's record; its bytes come from `MatchRepository.photo_data`."""

    id: int
    hand_id: int
    side: str
    filename: str
    sha256: str
    size: int
    width: int
    height: int
    detections: list[Any]
    created_at: datetime


@dataclass(frozen=True)
class StoredCorrection:
    id: int
    hand_id: int
    action: str
    card: str
    side: str
    to_side: str | None
    created_at: datetime


@dataclass(frozen=True)
class StoredHand:
    id: int
    match_id: int
    number: int | None
    state: str
    replaces_id: int | None
    entry: dict[str, Any]
    sides: dict[str, Any] | None
    result: dict[str, Any] | None
    photos: tuple[StoredPhoto, ...]
    corrections: tuple[StoredCorrection, ...]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class StoredMatch:
    """A match and its scored hands in play order (drafts are fetched with `draft`).

    `id` is internal (sequential); `public_id` is the unguessable one to put in URLs.
    """

    id: int
    public_id: str
    created_at: datetime
    updated_at: datetime
    rules: dict[str, Any]
    sides: tuple[str, ...]
    deck: str
    status: str  # a scoring.MatchStatus
    winner: str | None
    hands: tuple[StoredHand, ...]

    @property
    def finished(self) -> bool:
        return self.status not in UNFINISHED


def _photo(row: PhotoRow) -> StoredPhoto:
    return StoredPhoto(
        id=row.id,
        hand_id=row.hand_id,
        side=row.side,
        filename=row.filename,
        sha256=row.sha256,
        size=row.size,
        width=row.width,
        height=row.height,
        detections=list(row.detections),
        created_at=row.created_at,
    )


def _correction(row: CorrectionRow) -> StoredCorrection:
    return StoredCorrection(
        id=row.id,
        hand_id=row.hand_id,
        action=row.action,
        card=row.card,
        side=row.side,
        to_side=row.to_side,
        created_at=row.created_at,
    )


def _hand(row: HandRow) -> StoredHand:
    return StoredHand(
        id=row.id,
        match_id=row.match_id,
        number=row.number,
        state=row.state,
        replaces_id=row.replaces_id,
        entry=dict(row.entry or {}),
        sides=row.sides,
        result=row.result,
        photos=tuple(_photo(p) for p in row.photos),
        corrections=tuple(_correction(c) for c in row.corrections),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _match(row: MatchRow) -> StoredMatch:
    scored = sorted((h for h in row.hands if h.state == SCORED), key=lambda h: h.number or 0)
    return StoredMatch(
        id=row.id,
        public_id=row.public_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        rules=dict(row.rules),
        sides=tuple(row.sides),
        deck=row.deck,
        status=row.status,
        winner=row.winner,
        hands=tuple(_hand(h) for h in scored),
    )


class MatchRepository:
    """Matches, hands, photos and corrections in one database; each method is one transaction."""

    def __init__(self, url: str | None = None) -> None:
        self.url = resolve_db_url(url)
        # Every transaction here may write: all begin with the write lock on SQLite, so that two
        # sessions saving hands of one match queue instead of both reading the same draft.
        self.engine = make_engine(self.url).execution_options(**{WRITE: True})
        Base.metadata.create_all(self.engine)
        _add_hand_number_constraint(self.engine)
        _add_public_ids(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # -- matches -------------------------------------------------------------------------------

    def create_match(
        self, rules: Mapping[str, Any], sides: Sequence[str], *, deck: str = DEFAULT_DECK
    ) -> StoredMatch:
        """Start a match between 2-4 sides with distinct, non-empty names."""
        names = [str(name).strip() for name in sides]
        if not 2 <= len(names) <= 4:
            raise ScopaError(f"a match needs 2 to 4 sides, got {len(names)}")
        if any(not name for name in names):
            raise ScopaError("every side needs a name")
        if len(set(names)) != len(names):
            raise ScopaError(f"side names must differ: {', '.join(names)}")
        with self._transaction() as session:
            row = MatchRow(rules=dict(rules), sides=names, deck=deck)
            session.add(row)
            session.flush()
            return _match(row)

    def get_match(self, match_id: int) -> StoredMatch:
        with self._transaction() as session:
            return _match(self._match_row(session, match_id))

    def get_match_by_public_id(self, public_id: str) -> StoredMatch:
        """The match whose URL id is `public_id`; ScopaError for any other string (an integer
        id included: those are never looked up here)."""
        if not public_id or len(public_id) > PUBLIC_ID_LENGTH:
            raise ScopaError("no match with this id")
        with self._transaction() as session:
            row = session.scalars(select(MatchRow).where(MatchRow.public_id == public_id)).first()
            if row is None:
                raise ScopaError("no match with this id")
            return _match(row)

    def list_matches(self, limit: int = 20) -> list[StoredMatch]:
        """The most recently updated matches first."""
        with self._transaction() as session:
            rows = session.scalars(
                select(MatchRow)
                .order_by(MatchRow.updated_at.desc(), MatchRow.id.desc())
                .limit(limit)
            )
            return [_match(row) for row in rows]

    def latest_unfinished_match(self) -> StoredMatch | None:
        """The unfinished match touched last, the one a returning player wants to resume."""
        with self._transaction() as session:
            row = session.scalars(
                select(MatchRow)
                .where(MatchRow.status.in_(UNFINISHED))
                .order_by(MatchRow.updated_at.desc(), MatchRow.id.desc())
                .limit(1)
            ).first()
            return _match(row) if row else None

    def set_outcome(self, match_id: int, status: MatchStatus, winner: str | None) -> None:
        with self._transaction() as session:
            row = self._match_row(session, match_id)
            row.status, row.winner, row.updated_at = status, winner, utcnow()

    # -- hands -------------------------------------------------------------------------------

    def get_hand(self, hand_id: int) -> StoredHand:
        with self._transaction() as session:
            return _hand(self._hand_row(session, hand_id))

    def draft(self, match_id: int, *, replaces: int | None = None) -> StoredHand | None:
        """The draft of the next hand (or of the edit of hand id `replaces`), if one was started."""
        with self._transaction() as session:
            row = self._draft_row(session, match_id, replaces)
            return _hand(row) if row else None

    def open_draft(
        self,
        match_id: int,
        *,
        replaces: int | None = None,
        entry: Mapping[str, Any] | None = None,
    ) -> StoredHand:
        """The existing draft, or a new one; editing copies the hand's entry, photos, corrections."""
        with self._transaction() as session:
            match = self._lock_match(session, match_id)
            row = self._draft_row(session, match_id, replaces)
            if row is not None:
                return _hand(row)
            original = self._hand_row(session, replaces) if replaces is not None else None
            row = HandRow(match=match, state=DRAFT, entry=dict(entry or {}), replaces_id=replaces)
            session.add(row)
            if original is not None:
                if original.match_id != match_id or original.state != SCORED:
                    raise ScopaError(f"hand {replaces} is not a scored hand of match {match_id}")
                row.entry = dict(original.entry or {}) | dict(entry or {})
                row.photos = [
                    PhotoRow(
                        side=p.side,
                        filename=p.filename,
                        sha256=p.sha256,
                        size=p.size,
                        width=p.width,
                        height=p.height,
                        detections=list(p.detections),
                    )
                    for p in original.photos
                ]
                row.corrections = [
                    CorrectionRow(action=c.action, card=c.card, side=c.side, to_side=c.to_side)
                    for c in original.corrections
                ]
            session.flush()
            return _hand(row)

    def save_entry(self, hand_id: int, entry: Mapping[str, Any]) -> None:
        """Replace a draft's entry state (mode, scope, manual cards, complement...)."""
        with self._transaction() as session:
            row = self._draft_hand_row(session, hand_id)
            row.entry, row.updated_at = dict(entry), utcnow()

    def discard_draft(self, hand_id: int) -> None:
        with self._transaction() as session:
            row = self._draft_hand_row(session, hand_id)
            session.delete(row)
            session.flush()
            self._drop_unused_blobs(session)

    def commit_hand(
        self,
        hand_id: int,
        sides: Mapping[str, Any],
        result: Mapping[str, Any],
        *,
        outcome: tuple[str, str | None] | None = None,
    ) -> StoredHand:
        """Turn a draft into a scored hand: the next one, or the one it edits, in its place.

        `outcome` is the match's (status, winner) after this hand, stored in the same
        transaction so that the match list never disagrees with its hands.
        """
        with self._transaction() as session:
            # Lock the match first, then read the draft and the last number under the lock: a
            # concurrent save of the same draft then finds it scored and is refused.
            match = self._lock_match(session, self._hand_row(session, hand_id).match_id)
            row = self._hand_row(session, hand_id, refresh=True)
            if row.state != DRAFT:
                raise ScopaError(
                    f"hand {hand_id}: already saved (by another session?); reload the match"
                )
            if row.replaces_id is not None:
                original = self._hand_row(session, row.replaces_id)
                number = original.number
                row.replaces_id = None
                session.delete(original)
                session.flush()  # free the number before the edit takes it
                row.number = number
            else:
                last = session.scalar(
                    select(func.max(HandRow.number)).where(
                        HandRow.match_id == match.id, HandRow.state == SCORED
                    )
                )
                row.number = (last or 0) + 1
            row.state, row.sides, row.result = SCORED, dict(sides), dict(result)
            row.updated_at = match.updated_at = utcnow()
            if outcome is not None:
                match.status, match.winner = outcome
            session.flush()
            self._drop_unused_blobs(session)
            return _hand(row)

    def undo_last_hand(
        self, match_id: int, *, outcome: tuple[str, str | None] | None = None
    ) -> StoredHand | None:
        """Delete the match's last scored hand (and any edit of it); None if it has no hands."""
        with self._transaction() as session:
            match = self._match_row(session, match_id)
            row = session.scalars(
                select(HandRow)
                .where(HandRow.match_id == match_id, HandRow.state == SCORED)
                .order_by(HandRow.number.desc())
                .limit(1)
            ).first()
            if row is None:
                return None
            removed = _hand(row)
            session.delete(row)
            match.updated_at = utcnow()
            if outcome is not None:
                match.status, match.winner = outcome
            session.flush()
            self._drop_unused_blobs(session)
            return removed

    # -- photos and corrections ------------------------------------------------------------------

    def add_photo(
        self,
        hand_id: int,
        side: str,
        data: bytes,
        *,
        filename: str,
        width: int,
        height: int,
        detections: Sequence[Any] = (),
    ) -> StoredPhoto:
        """Store a photo of one side of a draft; the same bytes twice for a side are one photo."""
        digest = hashlib.sha256(data).hexdigest()
        with self._transaction() as session:
            hand = self._draft_hand_row(session, hand_id)
            if side not in hand.match.sides:
                raise ScopaError(f"unknown side {side!r}")
            for existing in hand.photos:
                if existing.side == side and existing.sha256 == digest:
                    return _photo(existing)
            if session.get(PhotoBlobRow, digest) is None:
                session.add(PhotoBlobRow(sha256=digest, size=len(data), data=data))
            row = PhotoRow(
                side=side,
                filename=filename,
                sha256=digest,
                size=len(data),
                width=width,
                height=height,
                detections=list(detections),
            )
            hand.photos.append(row)
            hand.updated_at = utcnow()
            session.flush()
            return _photo(row)

    def photo_data(self, photo_id: int) -> bytes:
        with self._transaction() as session:
            row = session.get(PhotoRow, photo_id)
            if row is None:
                raise ScopaError(f"no photo with id {photo_id}")
            blob = session.get(PhotoBlobRow, row.sha256)
            assert blob is not None  # the foreign key guarantees it
            return blob.data

    def delete_photo(self, photo_id: int) -> None:
        with self._transaction() as session:
            row = session.get(PhotoRow, photo_id)
            if row is None:
                return
            self._draft_hand_row(session, row.hand_id)
            session.delete(row)
            session.flush()
            self._drop_unused_blobs(session)

    def add_correction(
        self, hand_id: int, action: str, card: str, side: str, to_side: str | None = None
    ) -> StoredCorrection:
        if action not in CORRECTION_ACTIONS:
            raise ScopaError(f"unknown correction {action!r}")
        with self._transaction() as session:
            hand = self._draft_hand_row(session, hand_id)
            for name in (side, to_side):
                if name is not None and name not in hand.match.sides:
                    raise ScopaError(f"unknown side {name!r}")
            row = CorrectionRow(action=action, card=card, side=side, to_side=to_side)
            hand.corrections.append(row)
            hand.updated_at = utcnow()
            session.flush()
            return _correction(row)

    def delete_correction(self, correction_id: int) -> None:
        with self._transaction() as session:
            row = session.get(CorrectionRow, correction_id)
            if row is not None:
                self._draft_hand_row(session, row.hand_id)
                session.delete(row)

    # -- helpers ---------------------------------------------------------------------------------

    @staticmethod
    def _match_row(session: Session, match_id: int) -> MatchRow:
        row = session.get(MatchRow, match_id)
        if row is None:
            raise ScopaError(f"no match with id {match_id}")
        return row

    @staticmethod
    def _hand_row(session: Session, hand_id: int, *, refresh: bool = False) -> HandRow:
        options = {"populate_existing": True} if refresh else {}
        row = session.get(HandRow, hand_id, execution_options=options)
        if row is None:
            raise ScopaError(f"no hand with id {hand_id}")
        return row

    @staticmethod
    def _lock_match(session: Session, match_id: int) -> MatchRow:
        """The match row, locked until the transaction ends (PostgreSQL; SQLite's transactions
        hold the database's write lock from their start)."""
        row = session.scalar(
            select(MatchRow)
            .where(MatchRow.id == match_id)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        if row is None:
            raise ScopaError(f"no match with id {match_id}")
        return row

    def _draft_hand_row(self, session: Session, hand_id: int) -> HandRow:
        row = self._hand_row(session, hand_id)
        if row.state != DRAFT:
            raise ScopaError(f"hand {hand_id} is already scored; edit it to change it")
        return row

    @staticmethod
    def _draft_row(session: Session, match_id: int, replaces: int | None) -> HandRow | None:
        query = select(HandRow).where(HandRow.match_id == match_id, HandRow.state == DRAFT)
        query = query.where(
            HandRow.replaces_id.is_(None) if replaces is None else HandRow.replaces_id == replaces
        )
        return session.scalars(query.order_by(HandRow.id.desc()).limit(1)).first()

    @staticmethod
    def _drop_unused_blobs(session: Session) -> None:
        used = select(PhotoRow.sha256).distinct()
        for blob in session.scalars(select(PhotoBlobRow).where(PhotoBlobRow.sha256.not_in(used))):
            session.delete(blob)


def _add_hand_number_constraint(engine: Engine) -> None:
    """Give a database made before the constraint existed its unique index on hand numbers."""
    indexes = inspect(engine).get_indexes("hands") + inspect(engine).get_unique_constraints("hands")
    if any(set(i["column_names"]) == {"match_id", "number"} for i in indexes):
        return
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(
                "CREATE UNIQUE INDEX uq_hands_match_number ON hands (match_id, number)"
            )
    except (IntegrityError, OperationalError):
        # A database whose hands already repeat a number (saved before this fix) keeps working;
        # the lock taken by every save still prevents new repeats.
        pass


def _add_public_ids(engine: Engine) -> None:
    """Give a database made before public ids existed its `public_id` column, a new random id
    for every match, and the column's unique index."""
    inspector = inspect(engine)
    if "public_id" in {c["name"] for c in inspector.get_columns("matches")} and any(
        i["column_names"] == ["public_id"] for i in inspector.get_indexes("matches")
    ):
        return
    with engine.begin() as connection:
        # Inspected again inside the transaction: on SQLite it holds the write lock, so a second
        # process opening the same old file waits here and then finds the column added.
        if "public_id" not in {c["name"] for c in inspect(connection).get_columns("matches")}:
            connection.exec_driver_sql(
                f"ALTER TABLE matches ADD COLUMN public_id VARCHAR({PUBLIC_ID_LENGTH})"
            )
        missing = connection.execute(select(MatchRow.id).where(MatchRow.public_id.is_(None)))
        for (match_id,) in missing.all():
            connection.execute(
                update(MatchRow).where(MatchRow.id == match_id).values(public_id=new_public_id())
            )
        connection.exec_driver_sql(
            "CREATE UNIQUE INDEX IF NOT EXISTS ix_matches_public_id ON matches (public_id)"
        )
