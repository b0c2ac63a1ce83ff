"""Recording a submitted hand: checks, the hand row, its photos, the match replayed, the log.

`record_hand` is idempotent on the submission id: a retried submission finds its hand. Callers
hold the match's lock (`lock_match`) so that two submissions to one match queue.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from scopa.corrections import CORRECTION_ACTIONS
from scoring import parse_card
from scoring.errors import ScopaError

from . import audit
from .db import Hand, MatchRow, Photo, PhotoBlob, utcnow
from .hand_scoring import rebuild_match, score_sides, side_inputs, sides_json
from .queries import tournament_rules
from .records import SIDES, ManualCorrection, TableHandSubmission
from .security import AccessDenied


def check_correction(correction: ManualCorrection) -> None:
    if correction.action not in CORRECTION_ACTIONS:
        raise ScopaError(f"correction: unknown action {correction.action!r}")
    parse_card(correction.card)
    if correction.side not in SIDES or correction.to_side not in (None, *SIDES):
        raise ScopaError(f"correction of {correction.card}: sides must be 'a' or 'b'")


def check_submission(submission: TableHandSubmission) -> None:
    """Check a submission's photos, corrections, complement and id (its sides are scored)."""
    for photo in submission.photos:
        if photo.side not in SIDES:
            raise ScopaError(
                f"photo {photo.filename or ''}: side must be 'a' or 'b', not {photo.side!r}"
            )
        if not photo.data:
            raise ScopaError(f"photo {photo.filename or ''}: empty file")
    for correction in submission.corrections:
        check_correction(correction)
    if submission.complement is not None:
        side, count = submission.complement
        if side not in SIDES or not isinstance(count, int) or count < 0:
            raise ScopaError(
                f"complement: expected (side 'a' or 'b', card count), got {submission.complement!r}"
            )
    if not submission.submission_id or len(submission.submission_id) > 100:
        raise ScopaError("submission id: must be 1 to 100 characters")


def record_hand(
    session: Session, match: MatchRow, submission: TableHandSubmission, actor: str
) -> Hand:
    """Score and store a hand of `match`, or return the hand its submission id already made."""
    fingerprint = submission.fingerprint()
    existing = session.scalar(
        select(Hand).where(
            Hand.match_id == match.id, Hand.submission_id == submission.submission_id
        )
    )
    if existing is not None:
        if existing.payload_sha256 != fingerprint:
            raise ScopaError(
                f"submission {submission.submission_id}: already used for a different hand"
            )
        return existing
    if match.pair_b_id is None:
        raise ScopaError("hand: a bye has no hands")
    check_submission(submission)
    rules = tournament_rules(session, match.tournament_id)
    inputs = side_inputs(submission.sides)
    scored = score_sides(inputs, rules)
    actor = actor or f"table {match.table_number}"

    number = 1 + (
        session.scalar(select(func.max(Hand.number)).where(Hand.match_id == match.id)) or 0
    )
    hand = Hand(
        match_id=match.id,
        number=number,
        submission_id=submission.submission_id,
        payload_sha256=fingerprint,
        submitted_by=actor,
        submitted_at=utcnow(),
        sides=sides_json(inputs),
        complement=list(submission.complement) if submission.complement else None,
        missing=scored.missing,
        result=scored.result,
        points_a=scored.points["a"],
        points_b=scored.points["b"],
        recognition=dict(submission.recognition) if submission.recognition else None,
        corrections=len(submission.corrections),
    )
    session.add(hand)
    session.flush()
    # Adding a hand to a decided match raises here, and the transaction leaves no trace.
    rebuild_match(session, match, rules)

    for position, photo in enumerate(submission.photos):
        store_blob(session, photo.sha256, photo.data)
        session.add(
            Photo(
                hand_id=hand.id,
                side=photo.side,
                position=position,
                sha256=photo.sha256,
                filename=photo.filename[:255],
                recognition=dict(photo.recognition) if photo.recognition else None,
            )
        )
    audit.log(
        session,
        match.tournament_id,
        actor,
        "hand-recorded",
        {
            "number": number,
            "submission_id": submission.submission_id,
            "sides": hand.sides,
            "missing": scored.missing,
            "points": scored.points,
            "photos": [{"side": p.side, "sha256": p.sha256} for p in submission.photos],
        },
        match_id=match.id,
        hand_id=hand.id,
    )
    for correction in submission.corrections:
        audit.log(
            session,
            match.tournament_id,
            actor,
            "correction",
            correction.to_dict(),
            match_id=match.id,
            hand_id=hand.id,
        )
    return hand


def store_blob(session: Session, sha256: str, data: bytes) -> None:
    """Insert a photo's bytes unless a photo with the same SHA-256 is already stored."""
    values = {"sha256": sha256, "size": len(data), "data": data}
    dialect = session.get_bind().dialect.name
    statement: postgresql.Insert | sqlite.Insert
    if dialect == "postgresql":
        statement = postgresql.insert(PhotoBlob).values(**values).on_conflict_do_nothing()
    elif dialect == "sqlite":
        statement = sqlite.insert(PhotoBlob).values(**values).on_conflict_do_nothing()
    else:  # pragma: no cover - only the two backends above are supported
        if session.get(PhotoBlob, sha256) is not None:
            return
        session.add(PhotoBlob(**values))
        return
    session.execute(statement)


def lock_match(session: Session, match_id: int, code: str | None) -> MatchRow:
    """Load a match holding a row lock (PostgreSQL), re-checking the table code under the lock."""
    match = session.scalar(
        select(MatchRow)
        .where(MatchRow.id == match_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if match is None:
        raise ScopaError(f"match {match_id}: no such match")
    if code is not None and match.table_code != code:
        raise AccessDenied("table code: no longer valid for this match, ask the referee")
    return match
