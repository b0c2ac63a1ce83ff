"""Provisional scoring of an incomplete hand: which categories the missing cards can still change.

A photo may miss some cards. For each category this module decides whether some placement of the
missing cards (each to any side it may go to) gives some side different points in it, and which
missing cards can make that difference (a card "decides" a category when moving it alone, with
the others placed somehow, changes some side's points there).

The analysis works per category on the few quantities that category depends on: how many cards
each side ends with (carte, denari), each side's best card per suit (primiera), the run from the
asso (napola), who holds one card (settebello, re bello). Quick witness placements settle most
questions; the rest is enumerated over those quantities rather than over placements. Up to
EXACT_PLACEMENTS placements of the missing cards every answer is exact. Past that, each category
has a work budget, and when it runs out the answer falls back to sound bounds: a category is
reported as settled only when it provably is, and its deciding cards may include some that cannot
change it (``ProvisionalResult.exact`` is then False).

Placements that would leave a side with fewer than two cards per scopa are not excluded: the
scope a side reports is checked against the cards it could end up with, not used to constrain
where the missing cards go.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
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

#: Up to this many placements of the missing cards, the analysis is exact whatever it costs.
EXACT_PLACEMENTS = 50_000
#: Past that, the most elementary steps (about a microsecond each) one category's analysis may
#: take before it falls back to sound bounds: a provisional score stays within tens of
#: milliseconds even with 40 cards missing.
WORK_BUDGET = 100_000
#: Random placements tried as quick witnesses before any exhaustive search.
RANDOM_WITNESSES = 12

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
    #: False when some answer fell back to sound bounds (only past EXACT_PLACEMENTS placements):
    #: a category reported at stake might then be settled, or a deciding card not decide.
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

    ``placements`` restricts the sides a missing card may go to (default: any side), for
    example when the photo flow knows a card lies in one of two piles.
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
        placements = 1
        for choices in self.free.values():
            placements = min(placements * len(choices), EXACT_PLACEMENTS + 1)
        self.steps = math.inf if placements <= EXACT_PLACEMENTS else WORK_BUDGET

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

    def _counts(self, counted: Callable[[Card], bool]) -> _Outcome:
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
        if len(groups) == 1:
            return self._counts_one_group(base, *next(iter(groups.items())))

        sizes = {targets: len(cards) for targets, cards in groups.items()}
        budget = _Budget(self.steps)
        reachable = _count_vectors(tuple(base), sizes, budget)
        if reachable is None:
            return self._counts_by_bounds(base, groups)
        outcomes = {_strict_top(vector) for vector in reachable}
        if len(outcomes) == 1:
            return _Outcome(self._points(outcomes.pop()), frozenset(), True)

        deciding: set[Card] = set()
        for targets, cards in groups.items():
            # Cards of one group are interchangeable: test one of them, moved between its sides,
            # on every spread of the other cards.
            others = _count_vectors(tuple(base), {**sizes, targets: sizes[targets] - 1}, budget)
            if others is None:
                every = frozenset(card for group in groups.values() for card in group)
                return _Outcome(None, every, False)
            if any(_moving_one_changes(vector, targets) for vector in others):
                deciding.update(cards)
        return _Outcome(None, frozenset(deciding), True)

    def _counts_one_group(
        self, base: list[int], targets: tuple[int, ...], cards: list[Card]
    ) -> _Outcome:
        """All free cards may go to the same sides (the usual case).

        Any placement turns into any other by moving one card at a time, so if the winner can
        change, some single move changes it; the cards being interchangeable, each of them then
        decides.
        """
        outcomes: set[int | None] = set()
        for spread in _compositions(len(cards), len(targets)):
            vector = list(base)
            for side, extra in zip(targets, spread, strict=True):
                vector[side] += extra
            outcomes.add(_strict_top(vector))
            if len(outcomes) > 1:
                return _Outcome(None, frozenset(cards), True)
        return _Outcome(self._points(outcomes.pop()), frozenset(), True)

    def _counts_by_bounds(
        self, base: list[int], groups: Mapping[tuple[int, ...], list[Card]]
    ) -> _Outcome:
        """Settled only when one side's fewest possible cards beat every other side's most."""
        high = list(base)
        for targets, cards in groups.items():
            for side in targets:
                high[side] += len(cards)
        for side in range(self.n):
            if all(base[side] > high[other] for other in range(self.n) if other != side):
                return _Outcome(self._points(side), frozenset(), True)  # a proof: exact
        return _Outcome(None, frozenset(card for group in groups.values() for card in group), False)

    # napola: the run of denari from the asso -------------------------------------------------

    def _run_lengths(self, holder: int | None) -> set[int]:
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
        holders: tuple[int | None, ...] = self.free.get(asso, (self.owner.get(asso),))
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
            other == card
            or (holder in self.free[other] if other in self.free else self.owner[other] == holder)
            for other in needed
        )

    def napoleone(self) -> _Outcome:
        """Who can hold all ten denari (only with the napoleone option on)."""
        if not self.rules.napoleone_counts:
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
        # A free card matters only if some side it may go to has nothing as good in its suit.
        # Higher cards first: sides' bests settle early, which keeps the state sets small.
        relevant: dict[Suit, list[_FreeCard]] = {suit: [] for suit in _SUITS}
        for card, targets in sorted(self.free.items(), key=lambda item: -item[0].primiera_value):
            if any(known[card.suit][side] < card.primiera_value for side in targets):
                relevant[card.suit].append((card.primiera_value, targets, card))
        cards = [item for suit in _SUITS for item in relevant[suit]]
        proven, winner = _primiera_bounds(known, relevant, lose, self.n)
        if proven:
            return _Outcome(self._points(winner), frozenset(), True)

        # Cheap witnesses first: a few placements that often already score differently.
        rows = [known[suit] for suit in _SUITS]
        witnesses = _witnesses(cards, self.n)
        outcomes = {_winner_of(rows, cards, witness, lose) for witness in witnesses}
        budget = _Budget(self.steps)
        if len(outcomes) == 1:
            settled = _primiera_outcomes_differ(known, relevant, lose, self.n, budget)
            if settled is None:
                return _Outcome(None, frozenset(card for _, _, card in cards), False)
            if not settled:
                return _Outcome(self._points(outcomes.pop()), frozenset(), True)

        deciding: set[Card] = set()
        exact = True
        others_by_suit: dict[Suit, set[MergedState] | None] = {}
        verdicts: dict[tuple[Suit, int, tuple[int, ...]], bool | None] = {}
        for position, item in enumerate(cards):
            value, targets, card = item
            key = (card.suit, value, targets)  # same suit, value and sides: interchangeable cards
            if key not in verdicts:
                verdicts[key] = _moving_changes_winner(rows, cards, position, witnesses, lose) or (
                    self._card_decides_exhaustively(
                        known, relevant, item, lose, others_by_suit, budget
                    )
                )
            if verdicts[key] is None:
                exact = False  # could not tell within the budget: counted as deciding, to be safe
            if verdicts[key] is not False:
                deciding.add(card)
        return _Outcome(None, frozenset(deciding), exact)

    def _card_decides_exhaustively(
        self,
        known: Mapping[Suit, list[int]],
        relevant: Mapping[Suit, list[_FreeCard]],
        item: _FreeCard,
        lose: bool,
        others_by_suit: dict[Suit, set[MergedState] | None],
        budget: _Budget,
    ) -> bool | None:
        """Over every placement of the other cards, can moving ``item`` change the winner?"""
        value, targets, card = item
        suit = card.suit
        if suit not in others_by_suit:
            per_suit = []
            for other_suit in _SUITS:
                if other_suit is not suit:
                    states = _best_card_states(
                        tuple(known[other_suit]), relevant[other_suit], budget
                    )
                    if states is None:
                        others_by_suit[suit] = None
                        return None
                    per_suit.append(states)
            others_by_suit[suit] = _merge(per_suit, lose, self.n, budget)
        others = others_by_suit[suit]
        if others is None:
            return None
        rest_of_suit = [other for other in relevant[suit] if other is not item]
        without = _best_card_states(tuple(known[suit]), rest_of_suit, budget)
        if without is None:
            return None
        return _card_decides(value, targets, without, others, lose, budget)


class _Budget:
    """A count of elementary steps left; analyses give up (and fall back) when it runs out."""

    def __init__(self, steps: float) -> None:
        self.left = steps

    def spend(self, steps: int) -> bool:
        self.left -= steps
        return self.left >= 0


def _strict_top(values: Sequence[int]) -> int | None:
    """Index of the strictly highest value; None when the highest is shared."""
    top = max(values)
    first = values.index(top)
    return None if top in values[first + 1 :] else first


def _count_vectors(
    base: tuple[int, ...], groups: Mapping[tuple[int, ...], int], budget: _Budget
) -> set[tuple[int, ...]] | None:
    """Every per-side count reachable by spreading each group's cards over its sides.

    None when the budget runs out.
    """
    states = {base}
    for targets, size in groups.items():
        if size == 0:
            continue
        spreads = _compositions(size, len(targets))
        if not budget.spend(len(states) * len(spreads) * len(targets)):
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


@cache
def _compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    """Every way of writing ``total`` as an ordered sum of ``parts`` non-negative integers."""
    if parts == 1:
        return ((total,),)
    return tuple(
        (first, *rest)
        for first in range(total + 1)
        for rest in _compositions(total - first, parts - 1)
    )


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


# Primiera. A free card that may matter is (its primiera value, the sides it may go to, card).
# A suit state is each side's best primiera value in that suit (0: none). A merged state, over
# some suits, is each side's primiera sum so far, or -1 once the side lacks a suit under the
# `lose` rule. In a complete hand every suit is held by someone, so under `lose` exactly the
# sides holding all four suits compete; a side at -1 can never win, and when all are at -1 the
# strict top is a tie, so nobody scores, as it must be.
_FreeCard = tuple[int, tuple[int, ...], Card]
SuitState = tuple[int, ...]
MergedState = tuple[int, ...]


def _witnesses(cards: Sequence[_FreeCard], sides: int) -> list[tuple[int, ...]]:
    """Placements (a side for each card) likely to show a difference if there is one.

    For each side, the placement giving it every card it may have (the others to their first
    allowed side); then a few random placements, from a fixed seed so results are reproducible.
    """
    placements = [
        tuple(side if side in targets else targets[0] for _, targets, _ in cards)
        for side in range(sides)
    ]
    rng = random.Random(len(cards))
    placements.extend(
        tuple(rng.choice(targets) for _, targets, _ in cards) for _ in range(RANDOM_WITNESSES)
    )
    return placements


def _best_rows(
    rows: Sequence[list[int]], cards: Sequence[_FreeCard], placement: Sequence[int], skip: int = -1
) -> list[list[int]]:
    """Each suit's best value per side once the cards (but ``skip``) are placed."""
    best = [list(row) for row in rows]
    for position, (value, _, card) in enumerate(cards):
        if position != skip:
            row = best[card.index // 10]  # the suit's position: cards run suit by suit
            side = placement[position]
            if value > row[side]:
                row[side] = value
    return best


def _top_of_rows(best: Sequence[Sequence[int]], lose: bool) -> int | None:
    """Primiera winner of a complete hand from each suit's best value per side."""
    totals = []
    for side in range(len(best[0])):
        total = 0
        for row in best:
            if lose and row[side] == 0:
                total = -1
                break
            total += row[side]
        totals.append(total)
    return _strict_top(totals)


def _winner_of(
    rows: Sequence[list[int]], cards: Sequence[_FreeCard], placement: Sequence[int], lose: bool
) -> int | None:
    return _top_of_rows(_best_rows(rows, cards, placement), lose)


def _moving_changes_winner(
    rows: Sequence[list[int]],
    cards: Sequence[_FreeCard],
    position: int,
    witnesses: Sequence[Sequence[int]],
    lose: bool,
) -> bool:
    """A quick witness: on some witness placement of the others, does moving this card matter?"""
    value, targets, card = cards[position]
    suit = card.index // 10
    for witness in witnesses:
        best = _best_rows(rows, cards, witness, skip=position)
        row = best[suit]
        winners = set()
        for side in targets:
            best[suit] = row[:side] + [max(row[side], value)] + row[side + 1 :]
            winners.add(_top_of_rows(best, lose))
        if len(winners) > 1:
            return True
    return False


def _primiera_bounds(
    known: Mapping[Suit, list[int]],
    relevant: Mapping[Suit, list[_FreeCard]],
    lose: bool,
    sides: int,
) -> tuple[bool, int | None]:
    """(True, winner) when bounds prove who wins primiera whatever happens; (False, None) else.

    A side's sum is at least that of its known cards and at most that with every card it may
    get; under ``lose`` it can win only if it surely holds all four suits, and it can be
    challenged only by sides that may hold all four.
    """
    low = [sum(known[suit][side] for suit in _SUITS) for side in range(sides)]
    high = [
        sum(
            max([known[suit][side]] + [v for v, targets, _ in relevant[suit] if side in targets])
            for suit in _SUITS
        )
        for side in range(sides)
    ]
    surely_all = [all(known[suit][side] for suit in _SUITS) for side in range(sides)]
    maybe_all = [
        all(
            known[suit][side] or any(side in targets for _, targets, _ in relevant[suit])
            for suit in _SUITS
        )
        for side in range(sides)
    ]
    if lose and not any(maybe_all):
        return True, None
    for side in range(sides):
        if lose and not surely_all[side]:
            continue
        if all(
            (lose and not maybe_all[other]) or high[other] < low[side]
            for other in range(sides)
            if other != side
        ):
            return True, side
    return False, None


def _primiera_outcomes_differ(
    known: Mapping[Suit, list[int]],
    relevant: Mapping[Suit, list[_FreeCard]],
    lose: bool,
    sides: int,
    budget: _Budget,
) -> bool | None:
    """Do two placements give different primiera winners? None when the budget runs out."""
    per_suit = []
    for suit in _SUITS:
        states = _best_card_states(tuple(known[suit]), relevant[suit], budget)
        if states is None:
            return None
        per_suit.append(states)
    # Merge the smaller state sets first and go through the largest one lazily.
    per_suit.sort(key=len)
    rest = _merge(per_suit[:-1], lose, sides, budget)
    if rest is None or not budget.spend(len(rest) * len(per_suit[-1]) * sides * 2):
        return None
    outcomes: set[int | None] = set()
    for state in rest:
        outcomes.update(_strict_top(_add_suit(state, last, lose)) for last in per_suit[-1])
        if len(outcomes) > 1:
            return True
    return False


def _best_card_states(
    known: SuitState, cards: Sequence[_FreeCard], budget: _Budget
) -> set[SuitState] | None:
    """Each side's best value in one suit, over every placement of its free cards."""
    states = {known}
    for value, targets, _ in cards:
        if not budget.spend(len(states) * len(targets) * 2):
            return None
        states = {
            state[:side] + (max(state[side], value),) + state[side + 1 :]
            for state in states
            for side in targets
        }
    return states


def _merge(
    per_suit: Iterable[set[SuitState]], lose: bool, sides: int, budget: _Budget
) -> set[MergedState] | None:
    """Every merged state reachable over these suits; None when the budget runs out."""
    merged: set[MergedState] = {(0,) * sides}
    for states in per_suit:
        if not budget.spend(len(merged) * len(states) * sides):
            return None
        merged = {_add_suit(state, suit_state, lose) for state in merged for suit_state in states}
    return merged


def _add_suit(state: MergedState, suit_state: SuitState, lose: bool) -> MergedState:
    if lose:
        return tuple(
            -1 if total < 0 or best == 0 else total + best
            for total, best in zip(state, suit_state, strict=True)
        )
    return tuple(total + best for total, best in zip(state, suit_state, strict=True))


def _card_decides(
    value: int,
    targets: tuple[int, ...],
    without: set[SuitState],
    others: set[MergedState],
    lose: bool,
    budget: _Budget,
) -> bool | None:
    """Can moving one card (of ``value``, over ``targets``) change the primiera winner?

    ``without``: the states of its suit without it; ``others``: the other suits merged.
    None when the budget runs out.
    """
    for suit_state in without:
        placed = {
            suit_state[:side] + (max(suit_state[side], value),) + suit_state[side + 1 :]
            for side in targets
        }
        if len(placed) == 1:
            continue
        if not budget.spend(len(others) * len(placed) * len(suit_state) * 2):
            return None
        for state in others:
            if len({_strict_top(_add_suit(state, p, lose)) for p in placed}) > 1:
                return True
    return False
