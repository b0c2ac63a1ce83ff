"""Scoring one hand ("smazzata") between 2 to 4 sides, as RULES.md defines it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.cards import DECK, RE_BELLO, SETTEBELLO, Card, Suit, parse_cards
from scoring.errors import ScopaError
from scoring.rules import Rules

#: The point categories of a hand, in the order RULES.md lists them.
CATEGORIES: tuple[str, ...] = (
    "scope",
    "carte",
    "denari",
    "primiera",
    "settebello",
    "napola",
    "re_bello",
)

#: A hand is scored between this many sides (two pairs, two players, or 3-4 players alone).
MIN_SIDES = 2
MAX_SIDES = 4

_DENARI_RUN: tuple[Card, ...] = tuple(card for card in DECK if card.suit is Suit.DENARI)


@dataclass
class SideInput:
    """What one side brings to the scoring: the cards it captured and the scope it made.

    ``cards`` may be given as any iterable of codes or Cards; it is stored as a frozenset.
    """

    cards: frozenset[Card]
    scope: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.cards, frozenset) or not all(
            isinstance(c, Card) for c in self.cards
        ):
            self.cards = parse_cards(self.cards)

    @classmethod
    def from_spec(cls, spec: Any, *, side: str | None = None) -> SideInput:
        """A side from its JSON shape ``{"cards": ["1D", ...], "scope": 1}`` (scope defaults to 0)."""
        where = f"side {side!r}" if side is not None else "side"
        if isinstance(spec, SideInput):
            return spec
        if not isinstance(spec, Mapping):
            raise ScopaError(
                f'{where}: expected an object like {{"cards": ["1D", ...], "scope": 0}}, '
                f"got {type(spec).__name__}"
            )
        unknown = sorted(str(key) for key in spec if key not in ("cards", "scope"))
        if unknown:
            raise ScopaError(
                f"{where}: unknown field {unknown[0]!r} (expected 'cards' and 'scope')"
            )
        if "cards" not in spec:
            raise ScopaError(f"{where}: missing field 'cards'")
        scope = spec.get("scope", 0)
        _check_scope_type(scope, side)
        return cls(cards=parse_cards(spec["cards"], side=side), scope=scope)


@dataclass(frozen=True)
class SideResult:
    """One side's score of a hand, with the breakdown of every category."""

    name: str
    cards: tuple[Card, ...]
    scope: int
    points: dict[str, int]
    total: int
    cards_count: int
    denari_count: int
    #: The primiera sum when this side may win primiera; None when it may not (it lacks a suit
    #: under the ``lose`` rule).
    primiera: int | None
    #: The sum of the best card of each suit this side holds, eligible or not.
    primiera_sum: int
    #: The best card of each suit this side holds (the cards that make its primiera).
    primiera_cards: dict[Suit, Card]
    #: Length of the run of denari from the asso upward; 0 when shorter than 3 or napola is off.
    napola_run: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": dict(self.points),
            "total": self.total,
            "scope": self.scope,
            "cards_count": self.cards_count,
            "denari_count": self.denari_count,
            "primiera": self.primiera,
            "primiera_sum": self.primiera_sum,
            "primiera_cards": {suit.value: card.code for suit, card in self.primiera_cards.items()},
            "napola_run": self.napola_run,
            "cards": [card.code for card in self.cards],
        }


@dataclass(frozen=True)
class HandResult:
    """The score of one hand: each side's result (in input order) and who made the napoleone."""

    sides: dict[str, SideResult]
    #: The side holding all ten denari when the ``napoleone`` option is on (it wins the match
    #: at once); None otherwise, and always None when the option is off.
    napoleone: str | None
    rules: Rules
    #: Who scored each single-winner category (None: nobody).
    winners: dict[str, str | None] = field(default_factory=dict)
    #: False for the partial score of an incomplete hand (see score_provisional).
    complete: bool = True

    @property
    def totals(self) -> dict[str, int]:
        return {name: side.total for name, side in self.sides.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "sides": {name: side.to_dict() for name, side in self.sides.items()},
            "napoleone": self.napoleone,
            "winners": dict(self.winners),
            "totals": self.totals,
            "complete": self.complete,
        }


def normalize_sides(sides: Any) -> dict[str, SideInput]:
    """Check the shape of ``sides`` and turn each value into a SideInput (input order kept).

    Checks: 2 to 4 sides, names are non-empty strings, every card known and listed once in all,
    scope a non-negative integer. The "at most half the cards" bound on scope is left to the
    caller, since it depends on whether the hand is complete.
    """
    if not isinstance(sides, Mapping):
        raise ScopaError(
            f"sides must be an object mapping each side's name to its cards, got {type(sides).__name__}"
        )
    if not MIN_SIDES <= len(sides) <= MAX_SIDES:
        raise ScopaError(f"a hand has 2 to 4 sides, got {len(sides)}")
    result: dict[str, SideInput] = {}
    owner: dict[Card, str] = {}
    for name, spec in sides.items():
        if not isinstance(name, str) or not name.strip():
            raise ScopaError(f"side names must be non-empty text, got {name!r}")
        side = SideInput.from_spec(spec, side=name)
        _check_scope_type(side.scope, name)
        for card in sorted(side.cards):
            if card in owner:
                raise ScopaError(f"card {card.code} is in two sides: {owner[card]!r} and {name!r}")
            owner[card] = name
        result[name] = side
    return result


def missing_cards(sides: Mapping[str, SideInput]) -> tuple[Card, ...]:
    """The cards of the deck that no side holds, in deck order."""
    held = set().union(*(side.cards for side in sides.values()))
    return tuple(card for card in DECK if card not in held)


def check_scope_bound(name: str, scope: int, cards_count: int) -> None:
    """A scopa puts at least two cards in the pile: scope <= floor(cards / 2)."""
    if scope > cards_count // 2:
        raise ScopaError(
            f"side {name!r}: {scope} scope is impossible with {cards_count} cards "
            f"(each scopa takes at least 2 cards, so at most {cards_count // 2})"
        )


def score_hand(sides: Mapping[str, SideInput | Mapping[str, Any]], rules: Rules) -> HandResult:
    """Score a complete hand (all 40 cards among the sides) under ``rules``."""
    if not isinstance(rules, Rules):
        raise ScopaError(f"rules must be a Rules object, got {type(rules).__name__}")
    inputs = normalize_sides(sides)
    missing = missing_cards(inputs)
    if missing:
        shown = ", ".join(card.code for card in missing[:8]) + (", ..." if len(missing) > 8 else "")
        raise ScopaError(
            f"the hand is incomplete: {len(missing)} card{'s' if len(missing) > 1 else ''} "
            f"missing ({shown}); score it with score_provisional (CLI: --provisional)"
        )
    for name, side in inputs.items():
        check_scope_bound(name, side.scope, len(side.cards))
    return score_piles(inputs, rules)


def score_piles(
    sides: Mapping[str, SideInput], rules: Rules, *, complete: bool = True
) -> HandResult:
    """Score validated sides as they are, whether or not they hold all 40 cards."""
    piles = {name: side.cards for name, side in sides.items()}
    best = {name: best_by_suit(cards) for name, cards in piles.items()}
    sums = {
        name: sum(card.primiera_value for card in cards.values()) for name, cards in best.items()
    }
    # Under "lose" a side must hold every suit some side holds: suits nobody holds are left out
    # of everybody's sum, to which they add nothing anyway. Under "count" every side competes.
    held_suits = {suit for cards in best.values() for suit in cards}
    eligible = {
        name: rules.primiera_missing_suit == "count" or held_suits <= cards.keys()
        for name, cards in best.items()
    }
    runs = {name: denari_run(cards) for name, cards in piles.items()}
    napola = {name: napola_points_of(run) if rules.napola else 0 for name, run in runs.items()}
    winners: dict[str, str | None] = {
        "carte": _strict_top({name: len(cards) for name, cards in piles.items()}),
        "denari": _strict_top({name: _denari_count(cards) for name, cards in piles.items()}),
        "primiera": _strict_top({name: total for name, total in sums.items() if eligible[name]}),
        "settebello": _holder(piles, SETTEBELLO),
        "napola": next((name for name, points in napola.items() if points), None),
        "re_bello": _holder(piles, RE_BELLO) if rules.re_bello else None,
    }
    napoleone = None
    if rules.napoleone_counts:
        napoleone = next((name for name, run in runs.items() if run == len(_DENARI_RUN)), None)

    results: dict[str, SideResult] = {}
    for name, side in sides.items():
        points = {category: int(winners.get(category) == name) for category in CATEGORIES}
        points["scope"] = side.scope
        points["napola"] = napola[name]
        results[name] = SideResult(
            name=name,
            cards=tuple(sorted(piles[name])),
            scope=side.scope,
            points=points,
            total=sum(points.values()),
            cards_count=len(piles[name]),
            denari_count=_denari_count(piles[name]),
            primiera=sums[name] if eligible[name] else None,
            primiera_sum=sums[name],
            primiera_cards=dict(sorted(best[name].items(), key=lambda item: item[0].order)),
            napola_run=runs[name] if napola[name] else 0,
        )
    return HandResult(
        sides=results, napoleone=napoleone, rules=rules, winners=winners, complete=complete
    )


def best_by_suit(cards: Iterable[Card]) -> dict[Suit, Card]:
    """The card of highest primiera value of each suit held (the lowest rank among equals)."""
    best: dict[Suit, Card] = {}
    for card in cards:
        current = best.get(card.suit)
        if (
            current is None
            or card.primiera_value > current.primiera_value
            or (card.primiera_value == current.primiera_value and card.rank < current.rank)
        ):
            best[card.suit] = card
    return best


def denari_run(cards: frozenset[Card]) -> int:
    """Length of the unbroken run of denari from the asso upward (0 without the asso)."""
    run = 0
    for card in _DENARI_RUN:
        if card not in cards:
            break
        run += 1
    return run


def napola_points_of(run: int) -> int:
    """Napola points of a denari run: 3 for asso-2-3, one more per further card of the run."""
    return run if run >= 3 else 0


def _check_scope_type(scope: Any, side: str | None) -> None:
    where = f"side {side!r}: " if side is not None else ""
    if type(scope) is not int:
        raise ScopaError(f"{where}scope must be a whole number, got {scope!r}")
    if scope < 0:
        raise ScopaError(f"{where}scope cannot be negative, got {scope}")


def _strict_top(values: Mapping[str, int]) -> str | None:
    """The key with the strictly highest value; None when empty or tied at the top."""
    if not values:
        return None
    top = max(values.values())
    leaders = [name for name, value in values.items() if value == top]
    return leaders[0] if len(leaders) == 1 else None


def _holder(piles: Mapping[str, frozenset[Card]], card: Card) -> str | None:
    return next((name for name, cards in piles.items() if card in cards), None)


def _denari_count(cards: Iterable[Card]) -> int:
    return sum(1 for card in cards if card.suit is Suit.DENARI)
