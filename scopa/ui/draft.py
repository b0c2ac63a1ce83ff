"""The hand being entered: its state, where it is kept, and what it scores so far.

Nothing here imports Streamlit, so the logic of the page is testable on its own. A hand is
entered either from photos (recognition, then `vision.reconcile`) or by picking cards from the
40-card grid (manual mode, scored with `scoring` directly). Either way the page shows one
`HandEvaluation`: the cards per side, what is missing or doubtful, and the (provisional) score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from scopa.storage import MatchRepository, StoredCorrection, StoredHand, StoredPhoto
from scoring import (
    DECK,
    Card,
    HandResult,
    ProvisionalResult,
    Rules,
    ScopaError,
    SideInput,
    parse_card,
    score_hand,
    score_provisional,
)

if TYPE_CHECKING:
    from vision import PhotoResult

PHOTOS = "photos"
MANUAL = "manual"
MODES = (PHOTOS, MANUAL)


@dataclass(frozen=True)
class DraftPhoto:
    """A stored photo of one side and what the recognition found in it."""

    id: int
    side: str
    filename: str
    sha256: str
    result: PhotoResult


@dataclass(frozen=True)
class DraftCorrection:
    """A manual fix of the recognised cards (the shape of `vision.reconcile.Correction`)."""

    id: int
    action: str
    card: Card
    side: str
    to_side: str | None = None


@dataclass(frozen=True)
class HandDraft:
    """Everything entered so far for one hand.

    `manual` holds the cards picked from the grid (manual mode). `complement` is (side, card
    count) when that side's pile was not photographed: it gets the rest of the deck, checked
    against the count the players give (photo mode).
    """

    sides: tuple[str, ...]
    mode: str = PHOTOS
    scope: Mapping[str, int] = field(default_factory=dict)
    manual: Mapping[str, frozenset[Card]] = field(default_factory=dict)
    complement: tuple[str, int] | None = None
    #: Who deals this hand (None: not known, e.g. a match begun before dealers were kept).
    dealer: str | None = None
    photos: tuple[DraftPhoto, ...] = ()
    corrections: tuple[DraftCorrection, ...] = ()

    def scope_of(self, side: str) -> int:
        return int(self.scope.get(side, 0))

    def manual_of(self, side: str) -> frozenset[Card]:
        return self.manual.get(side, frozenset())

    def photos_of(self, side: str) -> tuple[DraftPhoto, ...]:
        return tuple(photo for photo in self.photos if photo.side == side)

    def with_scope(self, side: str, scope: int) -> HandDraft:
        return replace(self, scope={**self.scope, side: max(0, scope)})

    def with_manual(self, side: str, cards: frozenset[Card]) -> HandDraft:
        return replace(self, manual={**self.manual, side: frozenset(cards)})

    def entry(self) -> dict[str, Any]:
        """The JSON kept in storage (photos and corrections are stored on their own)."""
        return {
            "mode": self.mode,
            "scope": {side: int(n) for side, n in self.scope.items()},
            "manual": {side: sorted(c.code for c in cards) for side, cards in self.manual.items()},
            "complement": list(self.complement) if self.complement else None,
            **({"dealer": self.dealer} if self.dealer else {}),
        }

    @classmethod
    def from_entry(
        cls,
        sides: Sequence[str],
        entry: Mapping[str, Any],
        photos: Sequence[DraftPhoto] = (),
        corrections: Sequence[DraftCorrection] = (),
    ) -> HandDraft:
        complement = entry.get("complement")
        mode = entry.get("mode", PHOTOS)
        return cls(
            sides=tuple(sides),
            mode=mode if mode in MODES else PHOTOS,
            scope={side: int(n) for side, n in (entry.get("scope") or {}).items()},
            manual={
                side: frozenset(parse_card(code) for code in codes)
                for side, codes in (entry.get("manual") or {}).items()
            },
            complement=(str(complement[0]), int(complement[1])) if complement else None,
            dealer=entry.get("dealer") if entry.get("dealer") in sides else None,
            photos=tuple(photos),
            corrections=tuple(corrections),
        )


class HandDraftStore(Protocol):
    """Where a hand entry keeps its draft; every method persists at once."""

    def load(self) -> HandDraft: ...

    def save_entry(self, draft: HandDraft) -> None: ...

    def add_photo(self, side: str, data: bytes, filename: str, result: PhotoResult) -> None: ...

    def remove_photo(self, photo_id: int) -> None: ...

    def photo_bytes(self, photo_id: int) -> bytes: ...

    def add_correction(self, action: str, card: Card, side: str, to_side: str | None) -> None: ...

    def remove_correction(self, correction_id: int) -> None: ...


def photo_result_to_json(result: PhotoResult) -> list[dict[str, Any]]:
    """The detections of a photo, probabilities included, so reconciliation can be re-run;
    the doubtful boxes come last, marked."""
    return [
        {
            "card": det.card,
            "confidence": round(float(det.confidence), 6),
            "probs": [round(float(p), 6) for p in det.probs],
            "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in det.quad],
            "box_confidence": round(float(det.box_confidence), 6),
            **({"doubtful": True} if index >= len(result.cards) else {}),
        }
        for index, det in enumerate(result.detections)
    ]


def photo_result_from_json(
    detections: Sequence[Mapping[str, Any]], *, width: int, height: int, path: str | None = None
) -> PhotoResult:
    import numpy as np

    from vision import DetectedCard, PhotoResult

    found = [
        DetectedCard(
            card=det["card"],
            confidence=float(det["confidence"]),
            probs=np.asarray(det["probs"], dtype=np.float64),
            quad=np.asarray(det["quad"], dtype=np.float64).reshape(4, 2),
            box_confidence=float(det["box_confidence"]),
        )
        for det in detections
    ]
    doubtful = [bool(det.get("doubtful")) for det in detections]
    return PhotoResult(
        path=path,
        width=width,
        height=height,
        cards=[det for det, weak in zip(found, doubtful, strict=True) if not weak],
        doubtful=[det for det, weak in zip(found, doubtful, strict=True) if weak],
    )


class RepositoryDraftStore:
    """A draft hand kept in the match database (`MatchRepository`), by hand id."""

    def __init__(self, repository: MatchRepository, hand_id: int, sides: Sequence[str]) -> None:
        self.repository = repository
        self.hand_id = hand_id
        self.sides = tuple(sides)

    def load(self) -> HandDraft:
        return draft_from_stored(self.repository.get_hand(self.hand_id), self.sides)

    def save_entry(self, draft: HandDraft) -> None:
        self.repository.save_entry(self.hand_id, draft.entry())

    def add_photo(self, side: str, data: bytes, filename: str, result: PhotoResult) -> None:
        self.repository.add_photo(
            self.hand_id,
            side,
            data,
            filename=filename,
            width=result.width,
            height=result.height,
            detections=photo_result_to_json(result),
        )

    def remove_photo(self, photo_id: int) -> None:
        self.repository.delete_photo(photo_id)

    def photo_bytes(self, photo_id: int) -> bytes:
        return self.repository.photo_data(photo_id)

    def add_correction(self, action: str, card: Card, side: str, to_side: str | None) -> None:
        self.repository.add_correction(self.hand_id, action, card.code, side, to_side)

    def remove_correction(self, correction_id: int) -> None:
        self.repository.delete_correction(correction_id)


class MemoryDraftStore:
    """A draft kept in memory (tests, or a caller that persists hands its own way)."""

    def __init__(self, sides: Sequence[str], draft: HandDraft | None = None) -> None:
        self._draft = draft or HandDraft(sides=tuple(sides))
        self._bytes: dict[int, bytes] = {}
        self._next_id = 1

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def load(self) -> HandDraft:
        return self._draft

    def save_entry(self, draft: HandDraft) -> None:
        self._draft = replace(draft, photos=self._draft.photos, corrections=self._draft.corrections)

    def add_photo(self, side: str, data: bytes, filename: str, result: PhotoResult) -> None:
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        if any(p.side == side and p.sha256 == digest for p in self._draft.photos):
            return
        photo = DraftPhoto(self._new_id(), side, filename, digest, result)
        self._bytes[photo.id] = data
        self._draft = replace(self._draft, photos=(*self._draft.photos, photo))

    def remove_photo(self, photo_id: int) -> None:
        photos = tuple(p for p in self._draft.photos if p.id != photo_id)
        self._draft = replace(self._draft, photos=photos)

    def photo_bytes(self, photo_id: int) -> bytes:
        return self._bytes[photo_id]

    def add_correction(self, action: str, card: Card, side: str, to_side: str | None) -> None:
        fix = DraftCorrection(self._new_id(), action, card, side, to_side)
        self._draft = replace(self._draft, corrections=(*self._draft.corrections, fix))

    def remove_correction(self, correction_id: int) -> None:
        kept = tuple(c for c in self._draft.corrections if c.id != correction_id)
        self._draft = replace(self._draft, corrections=kept)


def draft_from_stored(hand: StoredHand, sides: Sequence[str]) -> HandDraft:
    return HandDraft.from_entry(
        sides,
        hand.entry,
        photos=[_draft_photo(photo) for photo in hand.photos],
        corrections=[_draft_correction(fix) for fix in hand.corrections],
    )


def _draft_photo(photo: StoredPhoto) -> DraftPhoto:
    result = photo_result_from_json(
        photo.detections, width=photo.width, height=photo.height, path=photo.filename
    )
    return DraftPhoto(photo.id, photo.side, photo.filename, photo.sha256, result)


def _draft_correction(fix: StoredCorrection) -> DraftCorrection:
    return DraftCorrection(fix.id, fix.action, parse_card(fix.card), fix.side, fix.to_side)


# -- evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    """A card two sides claim (`kind` "sides"), or two detections of one photo that both look
    like it ("photo"); in manual mode, a card picked for two sides."""

    card: Card
    sides: tuple[str, ...]
    kind: str = "sides"
    #: Photo mode: the side the card is counted in now, and for each other claiming side the
    #: card its box is shown as (None: no card), so the message names what the page shows.
    owner: str | None = None
    shown: tuple[tuple[str, Card | None], ...] = ()


@dataclass(frozen=True)
class Uncertain:
    """A card read in a side whose photo could plausibly be read as another card."""

    card: Card
    side: str
    alternatives: tuple[Card, ...] = ()


@dataclass(frozen=True)
class HandEvaluation:
    """What the page shows for a hand in progress.

    `result` is the final score, set only when all 40 cards are placed without conflict and the
    scope are valid; `provisional` is the partial score while cards are missing; `partial` the
    score of the cards as placed when an `error` (message key and fields, e.g. more scope than a
    pile allows) prevents a real one. `determinate` is False while something still open could
    change the points. Photo mode adds, per photo id, the card each detection was assigned
    (None: no card) and its state ("ok", "uncertain", "conflict", "extra"), and the
    reconciliation's advice (`vision.reconcile.Advice`, with its text in each language).
    """

    cards: dict[str, tuple[Card, ...]]
    missing: tuple[Card, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    uncertain: tuple[Uncertain, ...] = ()
    extra: int = 0
    deciding: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    result: HandResult | None = None
    provisional: ProvisionalResult | None = None
    partial: HandResult | None = None
    complement_count: tuple[str, int, int] | None = None
    determinate: bool = False
    advice: tuple[Any, ...] = ()
    error: tuple[str, dict[str, Any]] | None = None
    assigned: dict[int, tuple[Card | None, ...]] = field(default_factory=dict)
    states: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: Categories whose points the cards still open can change: a provisional score shows no
    #: points for them.
    open_categories: frozenset[str] = frozenset()

    def photo_cards(self, photo: DraftPhoto) -> tuple[Card, ...]:
        """The cards of `photo` that are in its side's final set: the one count of a photo."""
        held = set(self.cards.get(photo.side, ()))
        shown = {card for card in self.assigned.get(photo.id, ()) if card in held}
        return tuple(sorted(shown))

    @property
    def ready(self) -> bool:
        return self.result is not None

    @property
    def score(self) -> HandResult | None:
        """The score to show: final if ready, else the partial one on the cards known."""
        if self.result is not None:
            return self.result
        if self.provisional is not None:
            return self.provisional.result
        return self.partial

    def side_inputs(self, scope: Mapping[str, int]) -> dict[str, SideInput]:
        return {
            side: SideInput(cards=frozenset(cards), scope=int(scope.get(side, 0)))
            for side, cards in self.cards.items()
        }


def evaluate(draft: HandDraft, rules: Rules) -> HandEvaluation:
    """Score what is entered so far, by photos (reconciliation) or by the manual grid."""
    if draft.mode == MANUAL:
        return evaluate_manual(draft, rules)
    return evaluate_photos(draft, rules)


def evaluate_manual(draft: HandDraft, rules: Rules) -> HandEvaluation:
    picked = {side: draft.manual_of(side) for side in draft.sides}
    holders: dict[Card, list[str]] = {}
    for side, cards in picked.items():
        for card in cards:
            holders.setdefault(card, []).append(side)
    conflicts = tuple(
        Conflict(card, tuple(names)) for card, names in sorted(holders.items()) if len(names) > 1
    )
    by_side = {side: tuple(sorted(picked[side])) for side in draft.sides}
    missing = tuple(card for card in DECK if card not in holders)
    evaluation = HandEvaluation(cards=by_side, missing=missing, conflicts=conflicts)
    if conflicts:
        return evaluation
    return _scored(evaluation, draft, rules)


def evaluate_photos(draft: HandDraft, rules: Rules) -> HandEvaluation:
    from vision.reconcile import Correction, reconcile

    photos = {side: [p.result for p in draft.photos_of(side)] for side in draft.sides}
    corrections = [
        Correction(action=c.action, card=c.card, side=c.side, to_side=c.to_side)
        for c in draft.corrections
    ]
    scope = {side: draft.scope_of(side) for side in draft.sides}
    error = None
    try:
        recon = reconcile(
            photos,
            rules,
            scope=scope,
            complement=draft.complement,
            corrections=corrections,
            keep_readings=True,  # a fix changes only the cards it names
        )
    except ScopaError as exc:
        # Most often more scope than the cards allow: still show the cards, and say why.
        error = ("check.invalid", {"detail": str(exc)})
        try:
            recon = reconcile(
                photos,
                rules,
                complement=draft.complement,
                corrections=corrections,
                keep_readings=True,
            )
        except ScopaError:
            return HandEvaluation(cards={side: () for side in draft.sides}, error=error)
    cards = {side: tuple(recon.sides.get(side, ())) for side in draft.sides}
    assigned: dict[int, tuple[Card | None, ...]] = {}
    states: dict[int, tuple[str, ...]] = {}
    for side in draft.sides:
        for index, photo in enumerate(draft.photos_of(side)):
            assigned[photo.id] = tuple(recon.assignments[side][index])
            states[photo.id] = tuple(recon.states[side][index])
    complement_count = None
    if recon.complement is not None and not recon.complement.matches:
        check = recon.complement
        complement_count = (check.side, check.expected, check.found)
    if error is None:
        error = _scope_error(cards, recon.missing, scope)
    complete = recon.complete and not recon.conflicts and error is None
    conflicts = []
    for conflict in recon.conflicts:
        shown = tuple(
            (ref.side, recon.assignments[ref.side][ref.photo][ref.detection])
            for ref, _ in conflict.claims
            if ref.side != conflict.owner
        )
        conflicts.append(
            Conflict(conflict.card, tuple(conflict.sides), conflict.kind, conflict.owner, shown)
        )
    return HandEvaluation(
        cards=cards,
        missing=tuple(recon.missing),
        conflicts=tuple(conflicts),
        uncertain=tuple(Uncertain(u.card, u.side, tuple(u.alternatives)) for u in recon.uncertain),
        extra=len(recon.extra),
        deciding={category: cards for category, cards in recon.deciding.items() if cards},
        result=recon.score if complete and isinstance(recon.score, HandResult) else None,
        provisional=recon.score if isinstance(recon.score, ProvisionalResult) else None,
        partial=None if error is None else recon.hand,
        complement_count=complement_count,
        determinate=recon.determinate,
        advice=tuple(recon.advice),
        error=error,
        assigned=assigned,
        states=states,
        open_categories=frozenset(c for c, at_stake in recon.at_stake.items() if at_stake),
    )


def _scope_error(
    cards: Mapping[str, Sequence[Card]], missing: Sequence[Card], scope: Mapping[str, int]
) -> tuple[str, dict[str, Any]] | None:
    """A scopa puts at least two cards in the pile (RULES.md); missing cards may still come."""
    for side, held in cards.items():
        most = len(held) + len(missing)
        if scope.get(side, 0) * 2 > most:
            return ("check.scope_too_many", {"side": side, "scope": scope[side], "cards": most})
    return None


def _scored(evaluation: HandEvaluation, draft: HandDraft, rules: Rules) -> HandEvaluation:
    scope = {side: draft.scope_of(side) for side in draft.sides}
    error = _scope_error(evaluation.cards, evaluation.missing, scope)
    if error is not None:
        return replace(evaluation, error=error)
    sides = evaluation.side_inputs(scope)
    try:
        if evaluation.missing:
            provisional = score_provisional(sides, rules)
            deciding = {cat: cards for cat, cards in provisional.deciding.items() if cards}
            if provisional.napoleone_deciding:
                deciding["napoleone"] = provisional.napoleone_deciding
            open_categories = {cat for cat, at_stake in provisional.at_stake.items() if at_stake}
            if provisional.napoleone_at_stake:
                open_categories.add("napoleone")
            return replace(
                evaluation,
                provisional=provisional,
                deciding=deciding,
                determinate=provisional.determinate,
                open_categories=frozenset(open_categories),
            )
        return replace(evaluation, result=score_hand(sides, rules), determinate=True)
    except ScopaError as exc:
        return replace(evaluation, error=("check.invalid", {"detail": str(exc)}))
