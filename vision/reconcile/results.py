"""What a reconciliation reports: the result types and their JSON.

`Reconciliation` is the whole report (``scopa score-photos --json`` is its `to_dict`); the
other types are its parts. `Correction`, a player's manual fix, is given to `reconcile` and
comes back in the report as one of the corrections applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring import Card, HandResult, ProvisionalResult, Rules, ScopaError, parse_card

from .messages import Advice

ACTIONS = ("add", "remove", "move", "confirm")
#: What each detection turned out to be, for drawing it (see `Reconciliation.states`).
#: "unused" is a doubtful box (`PhotoResult.doubtful`) that was not needed for any card.
DETECTION_STATES = ("ok", "uncertain", "conflict", "extra", "unused")


@dataclass(frozen=True)
class DetectionRef:
    """Where a detection is: its side, the photo's position among that side's photos, its index."""

    side: str
    photo: int
    detection: int

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "photo": self.photo, "detection": self.detection}


@dataclass(frozen=True)
class Correction:
    """A manual fix, applied as a constraint before the assignment is solved.

    ``add``: the card is in ``side`` (whatever the photos show). ``remove``: it is not in
    ``side``. ``move``: it is not in ``side`` but in ``to_side``. ``confirm``: the card read in
    ``side`` is right (its doubt is settled). Later corrections of a card override earlier ones.
    """

    action: str
    card: Card
    side: str
    to_side: str | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ScopaError(
                f"correction: unknown action {self.action!r} (one of {', '.join(ACTIONS)})"
            )
        object.__setattr__(self, "card", parse_card(self.card))
        if self.action == "move":
            if self.to_side is None or self.to_side == self.side:
                raise ScopaError(
                    f"correction: moving {self.card.code} needs a destination side other than {self.side!r}"
                )
        elif self.to_side is not None:
            raise ScopaError(
                f"correction: only 'move' takes a destination side, not {self.action!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "card": self.card.code,
            "side": self.side,
            "to_side": self.to_side,
        }


@dataclass(frozen=True)
class ReadingConflict:
    """A card that two readings claim: in two sides (``sides``) or twice in one photo (``photo``)."""

    card: Card
    kind: str
    #: The sides whose photos claim the card.
    sides: tuple[str, ...]
    #: Each claiming detection, with its probability for the card.
    claims: tuple[tuple[DetectionRef, float], ...]
    #: The side the assignment gave the card to.
    owner: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card.code,
            "kind": self.kind,
            "sides": list(self.sides),
            "owner": self.owner,
            "claims": [{**ref.to_dict(), "probability": round(p, 4)} for ref, p in self.claims],
        }


@dataclass(frozen=True)
class UncertainReading:
    """A card read in a side whose photo could plausibly be read otherwise."""

    side: str
    card: Card
    #: Other cards the detection could be, most likely first.
    alternatives: tuple[Card, ...]
    #: How likely each alternative reading of the photos is, relative to the chosen one (0..1].
    odds: tuple[float, ...]
    #: The same for "this is no card at all" (None: not plausible).
    not_a_card_odds: float | None
    detections: tuple[DetectionRef, ...]

    @property
    def alternative(self) -> Card | None:
        """The most likely other card, if any."""
        return self.alternatives[0] if self.alternatives else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "card": self.card.code,
            "alternative": self.alternative.code if self.alternative else None,
            "alternatives": [
                {"card": c.code, "odds": round(o, 4)}
                for c, o in zip(self.alternatives, self.odds, strict=True)
            ],
            "not_a_card_odds": None
            if self.not_a_card_odds is None
            else round(self.not_a_card_odds, 4),
            "detections": [ref.to_dict() for ref in self.detections],
        }


@dataclass(frozen=True)
class Extra:
    """A detection that fits no card: not a card, or a card whose every reading is taken."""

    side: str
    detections: tuple[DetectionRef, ...]
    #: The identifier's top card for it, with its probability.
    best: Card
    probability: float
    box_confidence: float
    #: Cards it could plausibly be after all, most likely first, and their odds.
    candidates: tuple[Card, ...] = ()
    odds: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "detections": [ref.to_dict() for ref in self.detections],
            "best": self.best.code,
            "probability": round(self.probability, 4),
            "box_confidence": round(self.box_confidence, 4),
            "candidates": [
                {"card": c.code, "odds": round(o, 4)}
                for c, o in zip(self.candidates, self.odds, strict=True)
            ],
        }


@dataclass(frozen=True)
class ComplementCheck:
    """Complement mode: the side not photographed, the cards it should have and those left for it."""

    side: str
    expected: int
    found: int

    @property
    def matches(self) -> bool:
        return self.expected == self.found

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "expected": self.expected,
            "found": self.found,
            "matches": self.matches,
        }


@dataclass(frozen=True)
class Reconciliation:
    """The cards of every side after the joint assignment, what is wrong with them, and the score."""

    rules: Rules
    #: The final card set of each side (deck order), in the order the sides were given.
    sides: dict[str, list[Card]]
    scope: dict[str, int]
    #: Per side, per photo, per detection (`PhotoResult.detections`: the cards, then the
    #: doubtful boxes): the card it was assigned, or None (extra, or unused).
    assignments: dict[str, list[list[Card | None]]]
    #: Per side, per photo, per detection: one of DETECTION_STATES.
    states: dict[str, list[list[str]]]
    photo_paths: dict[str, list[str | None]]
    missing: tuple[Card, ...]
    conflicts: tuple[ReadingConflict, ...]
    uncertain: tuple[UncertainReading, ...]
    extra: tuple[Extra, ...]
    complement: ComplementCheck | None
    corrections: tuple[Correction, ...]
    #: A HandResult when all 40 cards are placed, else a ProvisionalResult.
    score: HandResult | ProvisionalResult
    #: Per category (and "napoleone" when that option is on): could a plausible reading of the
    #: photos, or a placement of the missing cards, change some side's points in it?
    at_stake: dict[str, bool]
    #: Per category at stake: the cards whose reading or placement decides it.
    deciding: dict[str, tuple[Card, ...]]
    advice: tuple[Advice, ...]
    #: True only when nothing the photos leave open can change any side's points.
    determinate: bool

    @property
    def complete(self) -> bool:
        """Every card is placed in a side (and, in complement mode, the count matches)."""
        return not self.missing and (self.complement is None or self.complement.matches)

    @property
    def hand(self) -> HandResult:
        """The score of the cards as placed (partial when cards are missing)."""
        return self.score if isinstance(self.score, HandResult) else self.score.result

    @property
    def napoleone(self) -> str | None:
        return self.hand.napoleone

    def advice_text(self, lang: str = "it") -> list[str]:
        return [item.text[lang] for item in self.advice]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``scopa score-photos --json``."""
        return {
            "rules": self.rules.to_dict(),
            "sides": {name: side.to_dict() for name, side in self.hand.sides.items()},
            "reconciliation": {
                "complete": self.complete,
                "missing": [card.code for card in self.missing],
                "conflicts": [item.to_dict() for item in self.conflicts],
                "uncertain": [item.to_dict() for item in self.uncertain],
                "extra": [item.to_dict() for item in self.extra],
                "complement": self.complement.to_dict() if self.complement else None,
                "corrections": [item.to_dict() for item in self.corrections],
                "photos": {
                    side: [
                        {
                            "path": path,
                            "cards": [card.code if card else None for card in cards],
                            "states": list(states),
                        }
                        for path, cards, states in zip(
                            self.photo_paths[side],
                            self.assignments[side],
                            self.states[side],
                            strict=True,
                        )
                    ]
                    for side in self.assignments
                },
            },
            "provisional": isinstance(self.score, ProvisionalResult),
            "determinate": self.determinate,
            "at_stake": dict(self.at_stake),
            "deciding": {
                category: [card.code for card in cards] for category, cards in self.deciding.items()
            },
            "advice": [item.to_dict() for item in self.advice],
            "napoleone": self.napoleone,
        }
