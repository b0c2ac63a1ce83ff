"""Verification: what do a hand's stored photos say, and does the recorded score agree?

For each hand checked, the stored photos are read back (their SHA-256 checked against the one
recorded at submission), recognised again, and reconciled with the recorded scope and without
any of the table's manual corrections; the hand is then scored as those photos show it. A hand
is listed when:

- `score-differs`: the photos give other points than those recorded;
- `inconclusive`: the photos miss cards that can change the score, so they cannot confirm it;
- `corrected`: the table corrected the recognition by hand when entering it;
- `incomplete`: it was scored with cards missing (that could not change the score);
- `no-photos`: it has no photos to check against;
- `photo-altered` / `photo-unreadable`: a stored photo no longer matches its SHA-256, or cannot
  be decoded.

Recognition and reconciliation are injectable (`recognize`, `reconcile`) so that the logic is
tested without the models; by default they are `vision.get_recognizer(...).recognize` and
`vision.reconcile.reconcile`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from scoring import Card, Rules, SideInput
from scoring.errors import ScopaError

from . import queries
from .db import AuditEvent, Hand, MatchRow, Photo, PhotoBlob, Transactions
from .hand_scoring import score_sides
from .records import SIDES, HandView, MatchView

if TYPE_CHECKING:  # vision (and its models) load only when a hand has photos to read
    from vision import PhotoResult
    from vision.reconcile import Reconciliation

Recognizer = Callable[[bytes], "PhotoResult"]  # photo bytes -> recognition
Reconciler = Callable[..., "Reconciliation"]  # vision.reconcile.reconcile

#: Why a hand is listed (see the module's docstring).
FindingKind = Literal[
    "score-differs",
    "inconclusive",
    "corrected",
    "incomplete",
    "no-photos",
    "photo-altered",
    "photo-unreadable",
]


@dataclass(frozen=True)
class Finding:
    """One reason a hand is listed; `details` holds the data behind `message`.

    `message` is English (the command line, the exports); the pages word a finding in their own
    language from `tour.finding.<kind>.detail`, filled with `params`.
    """

    kind: FindingKind
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "details": self.details}


@dataclass(frozen=True)
class HandCheck:
    """The verification of one hand."""

    hand: HandView
    match: MatchView
    findings: tuple[Finding, ...]
    photo_cards: dict[str, list[str]] | None = None  # per side, as the photos show them
    photo_points: dict[str, int] | None = None  # None when the photos cannot tell

    @property
    def flagged(self) -> bool:
        return bool(self.findings)

    def kinds(self) -> list[FindingKind]:
        return [finding.kind for finding in self.findings]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_id": self.hand.id,
            "match_id": self.match.id,
            "round": self.match.round_number,
            "table": self.match.table_number,
            "pair_a": self.match.pair_a.name,
            "pair_b": self.match.pair_b.name if self.match.pair_b else None,
            "hand": self.hand.number,
            "review": self.hand.review,
            "recorded_points": self.hand.points,
            "photo_points": self.photo_points,
            "photo_cards": self.photo_cards,
            "findings": [finding.to_dict() for finding in self.findings],
        }


@dataclass(frozen=True)
class VerificationReport:
    checks: list[HandCheck]

    @property
    def flagged(self) -> list[HandCheck]:
        return [check for check in self.checks if check.flagged]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands_checked": len(self.checks),
            "hands_flagged": len(self.flagged),
            "flagged": [check.to_dict() for check in self.flagged],
        }


def verify(
    db: Transactions,
    tournament_id: int,
    *,
    match_id: int | None = None,
    hand_id: int | None = None,
    recognize: Recognizer | None = None,
    reconcile: Reconciler | None = None,
    deck: str | None = None,
) -> VerificationReport:
    """Verify one hand, one match, or (neither given) every counted hand of the tournament.

    `deck` overrides the tournament's deck for the default recognizer.
    """
    hands = db.read(lambda s: _load(s, tournament_id, match_id, hand_id))
    deck = deck or db.read(lambda s: queries.get_tournament(s, tournament_id).deck)
    # The models load only when some hand has photos to read.
    with_photos = any(item.photos for item in hands)
    if with_photos and recognize is None:
        from vision import get_recognizer
        from vision.pipeline import ModelsMissingError

        try:
            recognize = get_recognizer(deck=deck).recognize
        except ModelsMissingError as exc:
            raise ScopaError(f"verification needs the recognition models: {exc}") from exc
    if with_photos and reconcile is None:
        from vision.reconcile import reconcile as default_reconcile

        reconcile = default_reconcile
    checks = [_check(item, recognize, reconcile) for item in hands]
    return VerificationReport(checks=checks)


@dataclass
class _Loaded:
    hand: HandView
    match: MatchView
    rules: Rules
    photos: list[tuple[Photo, bytes]]
    corrections: list[dict[str, Any]]


def _load(
    session: Session, tournament_id: int, match_id: int | None, hand_id: int | None
) -> list[_Loaded]:
    queries.get_tournament(session, tournament_id)
    rules = queries.tournament_rules(session, tournament_id)
    pairs = queries.pairs(session, tournament_id)
    query = (
        select(Hand, MatchRow)
        .join(MatchRow, Hand.match_id == MatchRow.id)
        .where(MatchRow.tournament_id == tournament_id, Hand.status == "counted")
        .order_by(MatchRow.round_id, MatchRow.position, Hand.number)
    )
    if match_id is not None:
        query = query.where(MatchRow.id == match_id)
    if hand_id is not None:
        query = query.where(Hand.id == hand_id)
    rows = session.execute(query).all()
    if hand_id is not None and not rows:
        raise ScopaError(f"hand {hand_id}: no counted hand with this id in the tournament")
    if match_id is not None and session.get(MatchRow, match_id) is None:
        raise ScopaError(f"match {match_id}: no such match")
    loaded = []
    for hand, match in rows:
        photos = session.execute(
            select(Photo, PhotoBlob.data)
            .join(PhotoBlob, Photo.sha256 == PhotoBlob.sha256)
            .where(Photo.hand_id == hand.id)
            .order_by(Photo.position)
        ).all()
        corrections = [
            event.details
            for event in session.scalars(
                select(AuditEvent)
                .where(AuditEvent.hand_id == hand.id, AuditEvent.action == "correction")
                .order_by(AuditEvent.id)
            )
        ]
        loaded.append(
            _Loaded(
                hand=queries.hand_view(session, hand),
                match=queries.match_view(session, match, pairs),
                rules=rules,
                photos=[(photo, data) for photo, data in photos],
                corrections=corrections,
            )
        )
    return loaded


def _check(item: _Loaded, recognize: Recognizer | None, reconcile: Reconciler | None) -> HandCheck:
    hand = item.hand
    findings: list[Finding] = []
    if hand.corrections:
        findings.append(
            Finding(
                "corrected",
                f"entered with {hand.corrections} manual correction(s) of the recognition",
                {"corrections": item.corrections},
                {"count": hand.corrections},
            )
        )
    if hand.missing:
        findings.append(
            Finding(
                "incomplete",
                f"scored with {len(hand.missing)} card(s) missing: {', '.join(hand.missing)}",
                {"missing": hand.missing},
                {"count": len(hand.missing), "cards": ", ".join(hand.missing)},
            )
        )
    if not item.photos:
        findings.append(Finding("no-photos", "no photos stored for this hand"))
        return HandCheck(hand=hand, match=item.match, findings=tuple(findings))
    # verify() sets both whenever a hand has photos.
    assert recognize is not None and reconcile is not None

    by_side: dict[str, list[PhotoResult]] = {side: [] for side in SIDES}
    for photo, data in item.photos:
        actual = hashlib.sha256(data).hexdigest()
        if actual != photo.sha256:
            findings.append(
                Finding(
                    "photo-altered",
                    f"photo {photo.position + 1} ({photo.side}) no longer matches its SHA-256",
                    {"photo_id": photo.id, "recorded": photo.sha256, "actual": actual},
                    {"number": photo.position + 1, "side": photo.side},
                )
            )
            continue
        try:
            by_side[photo.side].append(recognize(data))
        except Exception as exc:  # noqa: BLE001 - one bad photo must not stop the whole run
            reason = str(exc) if isinstance(exc, ScopaError) else f"{type(exc).__name__}: {exc}"
            findings.append(
                Finding(
                    "photo-unreadable",
                    f"photo {photo.position + 1} ({photo.side}): {_first_line(reason)}",
                    {"photo_id": photo.id},
                    {
                        "number": photo.position + 1,
                        "side": photo.side,
                        "reason": _first_line(reason),
                    },
                )
            )

    scope = {side: int(hand.sides[side]["scope"]) for side in SIDES}
    reconciliation = reconcile(by_side, item.rules, scope=scope, complement=hand.complement)
    photo_cards = {
        side: [card.code for card in sorted(_card(c) for c in reconciliation.sides.get(side, ()))]
        for side in SIDES
    }
    inputs = {
        side: SideInput(
            cards=frozenset(Card.parse(c) for c in photo_cards[side]), scope=scope[side]
        )
        for side in SIDES
    }
    differences = _card_differences(hand.sides, photo_cards)
    try:
        photo_points: dict[str, int] | None = score_sides(inputs, item.rules).points
    except ScopaError as exc:
        photo_points = None
        findings.insert(
            0,
            Finding(
                "inconclusive",
                f"the photos cannot confirm the score: {exc}",
                {"differences": differences},
                {"reason": str(exc)},
            ),
        )
    if photo_points is not None and photo_points != hand.points:
        # A reading of the photos other than the likeliest could score differently: the table
        # may have settled that doubt rightly, and the referee should know it.
        certain = bool(getattr(reconciliation, "determinate", True))
        doubt = "" if certain else " (the photos leave some cards in doubt)"
        findings.insert(
            0,
            Finding(
                "score-differs",
                "recorded {ra}-{rb}, the photos show {pa}-{pb}{doubt}".format(
                    ra=hand.points_a,
                    rb=hand.points_b,
                    pa=photo_points["a"],
                    pb=photo_points["b"],
                    doubt=doubt,
                ),
                {
                    "recorded": hand.points,
                    "photos": photo_points,
                    "differences": differences,
                    "photos_certain": certain,
                },
                {
                    "ra": hand.points_a,
                    "rb": hand.points_b,
                    "pa": photo_points["a"],
                    "pb": photo_points["b"],
                    "certain": certain,
                },
            ),
        )
    return HandCheck(
        hand=hand,
        match=item.match,
        findings=tuple(findings),
        photo_cards=photo_cards,
        photo_points=photo_points,
    )


def _card(card: Card | str) -> Card:
    return card if isinstance(card, Card) else Card.parse(card)


def _card_differences(
    recorded: Mapping[str, Mapping[str, Any]], photos: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, list[str]]]:
    """Per side: cards recorded but not in the photos ("recorded_only") and the reverse."""
    result = {}
    for side in SIDES:
        on_record = set(recorded[side]["cards"])
        seen = set(photos[side])
        result[side] = {
            "recorded_only": sorted(on_record - seen, key=lambda c: Card.parse(c).index),
            "photos_only": sorted(seen - on_record, key=lambda c: Card.parse(c).index),
        }
    return result


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]
