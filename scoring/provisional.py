"""Provisional scoring of an incomplete hand: which categories the missing cards can still change.

A photo may miss some cards. For each category this module decides whether some placement of the
missing cards (each to any side it may go to) gives some side different points in it, and which
missing cards can make that difference. The analysis works per category on the few quantities that
category depends on (counts for carte and denari, each side's best card per suit for primiera, the
run from the asso for napola), so it is exact and fast in the cases the photo flow meets. When a
case is too large to enumerate within a fixed budget, it falls back to bounds that are sound: a
category is reported as settled only when it provably is, and the deciding cards may then include
cards that cannot in fact change it (``ProvisionalResult.exact`` is then False).

Placements that would leave a side with fewer than two cards per scopa are not excluded: the
scope a side reports is checked against the cards it could end up with, not used to constrain
where the missing cards go.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.cards import DECK, RE_BELLO, SETTEBELLO, Card, Suit, parse_card
from scoring.errors import ScopaError
from scoring.hand import (
    CATEGORIES,
    HandResult,
    SideInput,
    check_scope_bound,
    missing_cards,
    normalize_sides,
    score_piles,
)
from scoring.rules import Rules

#: Most elementary steps one category's exact analysis may take before falling back to bounds.
#: It keeps a provisional score in the tens of milliseconds even with all 40 cards missing.
WORK_BUDGET = 60_000

_SUITS: tuple[Suit, ...] = tuple(Suit)
_DENARI: tuple[Card, ...] = tuple(card for card in DECK if card.suit is Suit.DENARI)

# An outcome is the tuple of each side's points in one category (sides in input order).
Outcome = tuple[int, ...]


@dataclass(frozen=True)
class ProvisionalResult:
    """What an incomplete hand scores so far and what the missing cards can still change."""

    #: The score of the cards known, as they are (``complete`` is False when cards are missing).
    result: HandResult
    missing: tuple[Card, ...]
    #: Per category: can some placement of the missing cards change some side's points in it?
    at_stake: dict[str, bool]
    #: Per category: the missing cards whose placement can change it (empty when not at stake).
    deciding: dict[str, tuple[Card, ...]]
    #: Per category not at stake: each side's points in it, whatever the missing cards do.
    settled: dict[str, dict[str, int]]
    #: With the ``napoleone`` option on: can the missing cards decide who (if anyone) makes it?
    napoleone_at_stake: bool
    napoleone_deciding: tuple[Card, ...]
    #: True when every category was analysed exactly (no fallback to bounds).
    exact: bool

    @property
    def determinate(self) -> bool:
        """No placement of the missing cards can change any side's points (nor the napoleone)."""
        return not any(self.at_stake.values()) and not self.napoleone_at_stake

    @property
    def complete(self) -> bool:
        return not self.missing

    def to_dict(self) -> dict[str, Any]:
        return {
            "provisional": True,
            "missing": [card.code for card in self.missing],
            "determinate": self.determinate,
            "exact": self.exact,
            "at_stake": dict(self.at_stake),
            "deciding": {
                category: [card.code for card in cards] for category, cards in self.deciding.items()
            },
            "settled": {category: dict(points) for category, points in self.settled.items()},
            "napoleone_at_stake": self.napoleone_at_stake,
            "napoleone_deciding": [card.code for card in self.napoleone_deciding],
            "result": self.result.to_dict(),
        }


def score_provisional(
    sides: Mapping[str, SideInput | Mapping[str, Any]],
    rules: Rules,
    *,
    placements: Mapping[Card | str, Collection[str]] | None = None,
) -> ProvisionalResult:
    """Score the cards known and tell, per category, whether the missing cards can change it.

    ``placements`` restricts the sides a missing card may go to (default: any side); for
    example the photo flow knows a card was on the table of side A's photo but not whose it is.
    """
    if not isinstance(rules, Rules):
        raise ScopaError(f"rules must be a Rules object, got {type(rules).__name__}")
    inputs = normalize_sides(sides)
    names = tuple(inputs)
    missing = missing_cards(inputs)
    allowed = _allowed_sides(inputs, missing, placements)
    for name, side in inputs.items():
        reachable = sum(1 for card in missing if name in allowed[card])
        check_scope_bound(name, side.scope, len(side.cards) + reachable)

    partial = score_piles(inputs, rules, complete=not missing)
    analysis = _Analysis(names, inputs, allowed, rules)
    at_stake: dict[str, bool] = {}
    deciding: dict[str, tuple[Card, ...]] = {}
    settled: dict[str, dict[str, int]] = {}
    exact = True
    for category in CATEGORIES:
        outcome = analysis.category(category)
        exact = exact and outcome.exact
        at_stake[category] = outcome.settled is None
        deciding[category] = tuple(sorted(outcome.deciding)) if outcome.settled is None else ()
        if outcome.settled is not None:
            settled[category] = dict(zip(names, outcome.settled, strict=True))
    napoleone = analysis.napoleone()
    return ProvisionalResult(
        result=partial,
        missing=missing,
        at_stake=at_stake,
        deciding=deciding,
        settled=settled,
        napoleone_at_stake=napoleone.settled is None,
        napoleone_deciding=tuple(sorted(napoleone.deciding)) if napoleone.settled is None else (),
        exact=exact and napoleone.exact,
    )


def _allowed_sides(
    sides: Mapping[str, SideInput],
    missing: Sequence[Card],
    placements: Mapping[Card | str, Collection[str]] | None,
) -> dict[Card, tuple[str, ...]]:
    """Each missing card's allowed sides (input order), after checking ``placements``."""
    names = tuple(sides)
    allowed = {card: names for card in missing}
    if placements is None:
        return allowed
    if not isinstance(placements, Mapping):
        raise ScopaError(
            f"placements must map cards to side names, got {type(placements).__name__}"
        )
    for key, targets in placements.items():
        card = parse_card(key)
        if card not in allowed:
            owner = next(name for name, side in sides.items() if card in side.cards)
            raise ScopaError(f"placements: card {card.code} is not missing, side {owner!r} has it")
        if isinstance(targets, str) or not isinstance(targets, Iterable):
            raise ScopaError(f"placements: card {card.code}: expected a list of side names")
        targets = set(targets)
        unknown = sorted(str(t) for t in targets if t not in names)
        if unknown:
            raise ScopaError(f"placements: card {card.code}: unknown side {unknown[0]!r}")
        if not targets:
            raise ScopaError(f"placements: card {card.code} has no side it may go to")
        allowed[card] = tuple(name for name in names if name in targets)
    return allowed


@dataclass(frozen=True)
class _Outcome:
    #: The category's points per side when every placement gives the same; None otherwise.
    settled: Outcome | None
    deciding: frozenset[Card]
    exact: bool


class _Analysis:
    """The per-category reasoning over one incomplete hand.

    Missing cards that may go to one side only are folded into that side's known cards first;
    the rest ("free" cards, two or more sides each) are what the analysis reasons about.
    """

    def __init__(
        self,
        names: tuple[str, ...],
        sides: Mapping[str, SideInput],
        allowed: Mapping[Card, tuple[str, ...]],
        rules: Rules,
    ) -> None:
        self.n = len(names)
        self.rules = rules
        self.scopes = tuple(sides[name].scope for name in names)
        index = {name: i for i, name in enumerate(names)}
        self.owner: dict[Card, int] = {}
        for name, side in sides.items():
            for card in side.cards:
                self.owner[card] = index[name]
        self.free: dict[Card, tuple[int, ...]] = {}
        for card, targets in allowed.items():
            if len(targets) == 1:
                self.owner[card] = index[targets[0]]
            else:
                self.free[card] = tuple(index[name] for name in targets)

    def category(self, category: str) -> _Outcome:
        if category == "scope":
            return _Outcome(self.scopes, frozenset(), True)
        if category == "carte":
            return self._counts(lambda card: True)
        if category == "denari":
            return self._counts(lambda card: card.suit is Suit.DENARI)
        if category == "settebello":
            return self._single_card(SETTEBELLO)
        if category == "re_bello":
            if not self.rules.re_bello:
                return self._nothing()
            return self._single_card(RE_BELLO)
        if category == "napola":
            if not self.rules.napola:
                return self._nothing()
            return self._napola()
        if category == "primiera":
            return self._primiera()
        raise ValueError(f"unknown category {category!r}")

    def _nothing(self) -> _Outcome:
        return _Outcome((0,) * self.n, frozenset(), True)

    def _points(self, winner: int | None, value: int = 1) -> Outcome:
        return tuple(value if i == winner else 0 for i in range(self.n))

    # settebello, re bello ------------------------------------------------------------------

    def _single_card(self, card: Card) -> _Outcome:
        if card in self.free:
            return _Outcome(None, frozenset((card,)), True)
        return _Outcome(self._points(self.owner[card]), frozenset(), True)

    # carte, denari: only how many cards each side ends with matters -------------------------

    def _counts(self, counted: Any) -> _Outcome:
        base = [0] * self.n
        for card, side in self.owner.items():
            if counted(card):
                base[side] += 1
        groups: dict[tuple[int, ...], list[Card]] = defaultdict(list)
        for card, targets in self.free.items():
            if counted(card):
                groups[targets].append(card)
        if not groups:
            return _Outcome(self._points(_strict_top(base)), frozenset(), True)

        sizes = {targets: len(cards) for targets, cards in groups.items()}
        reachable = _count_vectors(tuple(base), sizes)
        if reachable is None:
            return self._counts_by_bounds(base, groups)
        outcomes = {_strict_top(vector) for vector in reachable}
        if len(outcomes) == 1:
            return _Outcome(self._points(outcomes.pop()), frozenset(), True)

        deciding: set[Card] = set()
        for targets, cards in groups.items():
            # Cards of a group are interchangeable: test one of them, moved between its sides,
            # on every spread of the other cards.
            others = _count_vectors(tuple(base), {**sizes, targets: sizes[targets] - 1})
            if others is None:
                return _Outcome(None, frozenset(self._all_free(counted)), False)
            if any(_moving_one_changes(vector, targets) for vector in others):
                deciding.update(cards)
        return _Outcome(None, frozenset(deciding), True)

    def _counts_by_bounds(
        self, base: list[int], groups: Mapping[tuple[int, ...], list[Card]]
    ) -> _Outcome:
        """Settled only when one side's fewest possible cards beat every other side's most."""
        low = list(base)
        high = list(base)
        for targets, cards in groups.items():
            for side in targets:
                high[side] += len(cards)
        cards = frozenset(card for group in groups.values() for card in group)
        for side in range(self.n):
            if all(low[side] > high[other] for other in range(self.n) if other != side):
                return _Outcome(self._points(side), frozenset(), False)
        return _Outcome(None, cards, False)

    def _all_free(self, counted: Any) -> set[Card]:
        return {card for card in self.free if counted(card)}

    # napola: the run of denari from the asso -------------------------------------------------

    def _run_lengths(self, holder: int) -> set[int]:
        """The run lengths reachable when ``holder`` has the asso di denari."""
        lengths: set[int] = set()
        for card in _DENARI[1:]:
            if card in self.free:
                if holder not in self.free[card]:
                    lengths.add(card.rank - 1)
                    return lengths
                lengths.add(card.rank - 1)  # the card may go elsewhere and end the run here
            elif self.owner[card] != holder:
                lengths.add(card.rank - 1)
                return lengths
        lengths.add(len(_DENARI))
        return lengths

    def _napola(self) -> _Outcome:
        asso = _DENARI[0]
        holders = self.free.get(asso, (self.owner.get(asso),))
        runs = {holder: self._run_lengths(holder) for holder in holders}
        outcomes = {
            self._points(holder, length) if length >= 3 else self._points(None)
            for holder, lengths in runs.items()
            for length in lengths
        }
        if len(outcomes) == 1:
            return _Outcome(outcomes.pop(), frozenset(), True)
        deciding: set[Card] = set()
        if asso in self.free and any(max(lengths) >= 3 for lengths in runs.values()):
            # Put the others so that the holder's run reaches 3 or more; moving the asso away
            # then changes who scores napola.
            deciding.add(asso)
        for card in _DENARI[1:]:
            if card in self.free and any(
                self._run_can_reach(holder, card) for holder in holders if holder in self.free[card]
            ):
                deciding.add(card)
        return _Outcome(None, frozenset(deciding), True)

    def _run_can_reach(self, holder: int, card: Card) -> bool:
        """Can ``card``, with the asso at ``holder``, be what makes the run score or score more?

        Moving it to or away from the holder changes the run from at least its rank to one less,
        which changes the points when the run with it can be 3 or more.
        """
        needed = _DENARI[1 : max(card.rank, 3)]
        return all(
            other is card
            or (holder in self.free[other] if other in self.free else self.owner[other] == holder)
            for other in needed
        )

    def napoleone(self) -> _Outcome:
        """Who can hold all ten denari (only with the napoleone option on)."""
        if not self.rules.napoleone:
            return _Outcome((0,) * self.n, frozenset(), True)
        possible = [
            side
            for side in range(self.n)
            if all(
                side in self.free[card] if card in self.free else self.owner[card] == side
                for card in _DENARI
            )
        ]
        free_denari = frozenset(card for card in _DENARI if card in self.free)
        if not free_denari:
            return _Outcome(self._points(possible[0] if possible else None), frozenset(), True)
        if not possible:
            return _Outcome(self._points(None), frozenset(), True)
        # With every other denaro at a possible side, moving any free denaro away breaks it.
        return _Outcome(None, free_denari, True)

    # primiera: each side's best card per suit -------------------------------------------------

    def _primiera(self) -> _Outcome:
        lose = self.rules.primiera_missing_suit == "lose"
        known: dict[Suit, list[int]] = {suit: [0] * self.n for suit in _SUITS}
        for card, side in self.owner.items():
            best = known[card.suit]
            best[side] = max(best[side], card.primiera_value)
        # A free card matters only if some side it may go to has nothing better in its suit.
        relevant: dict[Suit, list[tuple[int, tuple[int, ...], Card]]] = {
            suit: [] for suit in _SUITS
        }
        for card, targets in self.free.items():
            value = card.primiera_value
            if any(known[card.suit][side] < value for side in targets):
                relevant[card.suit].append((value, targets, card))
        relevant_cards = frozenset(card for items in relevant.values() for _, _, card in items)
        if not relevant_cards:
            return _Outcome(
                self._points(
                    _primiera_top(
                        _merge_all(
                            [{tuple(known[suit])} for suit in _SUITS], lose, self.n, WORK_BUDGET
                        ),
                        lose,
                    )
                ),
                frozenset(),
                True,
            )

        budget = _Budget(WORK_BUDGET)
        per_suit = []
        for suit in _SUITS:
            states = _best_card_states(tuple(known[suit]), relevant[suit], budget)
            if states is None:
                return self._primiera_by_bounds(known, relevant, lose)
            per_suit.append(states)
        merged = _merge_all(per_suit, lose, self.n, budget.left)
        if merged is None:
            return self._primiera_by_bounds(known, relevant, lose)
        outcomes = {_primiera_top({state}, lose) for state in merged}
        if len(outcomes) == 1:
            return _Outcome(self._points(outcomes.pop()), frozenset(), True)

        deciding: set[Card] = set()
        for position, suit in enumerate(_SUITS):
            if not relevant[suit]:
                continue
            rest = _merge_all(
                per_suit[:position] + per_suit[position + 1 :], lose, self.n, WORK_BUDGET
            )
            if rest is None:
                return _Outcome(None, relevant_cards, False)
            checked: dict[tuple[int, tuple[int, ...]], bool] = {}
            for i, (value, targets, card) in enumerate(relevant[suit]):
                key = (value, targets)  # cards of one value and the same sides are interchangeable
                if key not in checked:
                    others = relevant[suit][:i] + relevant[suit][i + 1 :]
                    without = _best_card_states(tuple(known[suit]), others, _Budget(WORK_BUDGET))
                    if without is None:
                        return _Outcome(None, relevant_cards, False)
                    checked[key] = _primiera_card_decides(value, targets, without, rest, lose)
                    if checked[key] is None:
                        return _Outcome(None, relevant_cards, False)
                if checked[key]:
                    deciding.add(card)
        return _Outcome(None, frozenset(deciding), True)

    def _primiera_by_bounds(
        self,
        known: Mapping[Suit, list[int]],
        relevant: Mapping[Suit, list[tuple[int, tuple[int, ...], Card]]],
        lose: bool,
    ) -> _Outcome:
        """Settled only when one side surely beats every side that could challenge it."""
        low = [sum(known[suit][side] for suit in _SUITS) for side in range(self.n)]
        high = [
            sum(
                max(
                    [known[suit][side]] + [v for v, targets, _ in relevant[suit] if side in targets]
                )
                for suit in _SUITS
            )
            for side in range(self.n)
        ]
        surely_all_suits = [all(known[suit][side] for suit in _SUITS) for side in range(self.n)]
        maybe_all_suits = [
            all(
                known[suit][side] or any(side in targets for _, targets, _ in relevant[suit])
                for suit in _SUITS
            )
            for side in range(self.n)
        ]
        cards = frozenset(card for items in relevant.values() for _, _, card in items)
        if lose and not any(maybe_all_suits):
            return _Outcome(self._points(None), frozenset(), False)
        for side in range(self.n):
            if lose and not surely_all_suits[side]:
                continue
            if all(
                (lose and not maybe_all_suits[other]) or high[other] < low[side]
                for other in range(self.n)
                if other != side
            ):
                return _Outcome(self._points(side), frozenset(), False)
        return _Outcome(None, cards, False)


class _Budget:
    """A count of elementary steps left; analyses give up (and fall back) when it runs out."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self, steps: int) -> bool:
        self.left -= steps
        return self.left >= 0


def _strict_top(values: Sequence[int]) -> int | None:
    top = max(values)
    leaders = [i for i, value in enumerate(values) if value == top]
    return leaders[0] if len(leaders) == 1 else None


def _count_vectors(
    base: tuple[int, ...], groups: Mapping[tuple[int, ...], int]
) -> set[tuple[int, ...]] | None:
    """Every per-side count reachable by spreading each group's cards over its sides.

    None when that takes more than WORK_BUDGET steps.
    """
    states = {base}
    steps = 0
    for targets, size in groups.items():
        if size == 0:
            continue
        spreads = list(_compositions(size, len(targets)))
        steps += len(states) * len(spreads)
        if steps > WORK_BUDGET:
            return None
        next_states = set()
        for state in states:
            for spread in spreads:
                vector = list(state)
                for side, extra in zip(targets, spread, strict=True):
                    vector[side] += extra
                next_states.add(tuple(vector))
        states = next_states
    return states


def _compositions(total: int, parts: int) -> Iterable[tuple[int, ...]]:
    """Every way of writing ``total`` as an ordered sum of ``parts`` non-negative integers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _moving_one_changes(vector: tuple[int, ...], targets: tuple[int, ...]) -> bool:
    """Does adding one card to one side of ``targets`` rather than another change the winner?"""
    winners = set()
    for side in targets:
        grown = list(vector)
        grown[side] += 1
        winners.add(_strict_top(grown))
        if len(winners) > 1:
            return True
    return False


# Primiera states. A suit state is each side's best primiera value in that suit (0: none).
# A merged state is (each side's sum so far, whether each side holds every suit so far).
SuitState = tuple[int, ...]
MergedState = tuple[tuple[int, ...], tuple[bool, ...]]


def _best_card_states(
    known: SuitState, cards: Sequence[tuple[int, tuple[int, ...], Card]], budget: _Budget
) -> set[SuitState] | None:
    states = {known}
    for value, targets, _ in cards:
        if not budget.spend(len(states) * len(targets)):
            return None
        states = {
            state[:side] + (max(state[side], value),) + state[side + 1 :]
            for state in states
            for side in targets
        }
    return states


def _merge_all(
    per_suit: Sequence[set[SuitState]], lose: bool, sides: int, steps: int
) -> set[MergedState] | None:
    """Combine suits into (sums, holds-every-suit) states; None past ``steps`` steps."""
    merged: set[MergedState] = {((0,) * sides, (True,) * sides)}
    spent = 0
    for states in per_suit:
        spent += len(merged) * len(states)
        if spent > steps:
            return None
        merged = {_add_suit(state, suit_state, lose) for state in merged for suit_state in states}
    return merged


def _add_suit(state: MergedState, suit_state: SuitState, lose: bool) -> MergedState:
    sums, holds = state
    return (
        tuple(total + best for total, best in zip(sums, suit_state, strict=True)),
        tuple(h and (best > 0 or not lose) for h, best in zip(holds, suit_state, strict=True)),
    )


def _primiera_top(merged: set[MergedState], lose: bool) -> int | None:
    """Primiera winner of a single merged state of a complete hand.

    Every suit is held by someone in a complete hand, so under ``lose`` the sides that may win
    are exactly those holding all four suits.
    """
    ((sums, holds),) = merged
    eligible = {side: total for side, total in enumerate(sums) if holds[side] or not lose}
    if not eligible:
        return None
    top = max(eligible.values())
    leaders = [side for side, total in eligible.items() if total == top]
    return leaders[0] if len(leaders) == 1 else None


def _primiera_card_decides(
    value: int,
    targets: tuple[int, ...],
    without: set[SuitState],
    rest: set[MergedState],
    lose: bool,
) -> bool | None:
    """Can moving one card (of ``value``, over ``targets``) change the primiera winner?"""
    budget = _Budget(WORK_BUDGET)
    for suit_state in without:
        placed = [
            suit_state[:side] + (max(suit_state[side], value),) + suit_state[side + 1 :]
            for side in targets
        ]
        if len(set(placed)) == 1:
            continue
        if not budget.spend(len(rest) * len(placed)):
            return None
        for state in rest:
            winners = {_primiera_top({_add_suit(state, p, lose)}, lose) for p in placed}
            if len(winners) > 1:
                return True
    return False
