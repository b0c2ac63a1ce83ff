"""From the photos of every side to card sets, a report and a score that says whether it can be trusted.

See the package docstring for the model; this module builds the assignment problem from the
photos, reads the report off its solution, and decides `determinate` by scoring every plausible
alternative reading of the photos. The report's types are in `results`, its sentences are made
by `advice`.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from scoring import (
    CATEGORIES,
    DECK,
    Card,
    HandResult,
    ProvisionalResult,
    Rules,
    ScopaError,
    SideInput,
    score_hand,
    score_provisional,
)

from ..geometry import polygon_iou
from ..types import DetectedCard, PhotoResult
from .advice import DecidingDoubt, ordered, reconciliation_advice
from .assignment import EXTRA, AssignmentProblem, Solution, Unit
from .results import (
    ComplementCheck,
    Correction,
    DetectionRef,
    Extra,
    ReadingConflict,
    Reconciliation,
    UncertainReading,
)

_MIN_SIDES, _MAX_SIDES = 2, 4


@dataclass(frozen=True)
class ReconcileSettings:
    """The thresholds of reconciliation (the defaults suit the committed models)."""

    #: A card is a possible reading of a detection the detector is sure of when its probability
    #: is at least this; for a detection of box confidence b the bar is this ** b, so a doubtful
    #: box is sooner declared extra (not a card).
    min_card_probability: float = 1e-3
    #: An alternative reading of the photos at least this likely, relative to the best one,
    #: makes the cards it changes uncertain (and is scored, to decide `determinate`), where it
    #: reads a box as another card. The identifier's odds between two cards are less sure than
    #: right (fitted temperature about 0.8, models/README.md), so 0.1 here is about 0.05 in
    #: calibrated odds.
    uncertain_ratio: float = 0.1
    #: The same, where the alternative reads a box as no card or a box held to be no card as a
    #: card: that doubt rests on the detector's box confidence, not on the identifier's odds,
    #: and it is what guards against false cards.
    no_card_ratio: float = 0.02
    #: A detection whose top card has at least this probability but which was given another
    #: card (because that card is taken elsewhere) is a conflict, and the hand is not
    #: determinate. One read under it is overruled quietly: the doubts it leaves are still
    #: weighed. At 0.8, a second box on no card of its own, read as a card another box reads
    #: surely, stopped hands that were otherwise settled (models/README.md, fourteenth session).
    conflict_confidence: float = 0.9
    #: Two detections of one photo whose outlines overlap this much (intersection over union)
    #: are one card found twice, not two cards.
    duplicate_iou: float = 0.7
    #: At most this many combinations of alternative readings are scored; beyond it the score
    #: is not determinate.
    max_scenarios: int = 128


def reconcile(
    sides: Mapping[str, Sequence[PhotoResult]],
    rules: Rules,
    *,
    scope: Mapping[str, int] | None = None,
    complement: tuple[str, int] | None = None,
    corrections: Sequence[Correction] = (),
    settings: ReconcileSettings | None = None,
    keep_readings: bool = False,
) -> Reconciliation:
    """Assign every detection of every photo to the 40 cards jointly, report, and score.

    ``sides`` maps each side's name to its photos' recognition results (any number of photos;
    none for a side that captured nothing). ``scope`` gives each side's scope (default 0).
    ``complement=(side, count)``: that side was not photographed and holds the rest of the
    deck, which the players counted as ``count`` cards; the side may be absent from ``sides``
    or present with no photos. ``corrections`` are the players' manual fixes.
    ``keep_readings=True``: a correction changes only what it names. Every detection keeps the
    card it was read as before any correction, unless a correction takes that card from its
    side or names a card it reads as more likely; only those detections are solved again, and
    only among the cards the corrections name (or no card).
    Raises ScopaError on bad input (an unknown side, an impossible scope...).
    """
    if not isinstance(rules, Rules):
        raise ScopaError(f"rules must be a Rules object, got {type(rules).__name__}")
    return _Reconciler(
        sides,
        rules,
        scope,
        complement,
        tuple(corrections),
        settings or ReconcileSettings(),
        keep_readings=keep_readings,
    ).run()


@dataclass(frozen=True)
class _Sighting:
    """One unit of the assignment (a card seen in one photo) with what the report needs of it."""

    unit: Unit
    #: The detections it is made of (several when their outlines coincide).
    members: tuple[DetectionRef, ...]
    #: The identifier's top card for it (a DECK index) and that card's probability.
    top: int
    top_probability: float
    #: The detector's box confidence (the largest of its detections'), clipped to 0..1.
    box: float
    #: Made only of doubtful boxes: never a conflict, never reported as extra.
    doubtful: bool


@dataclass(frozen=True)
class _World:
    """One reading of the photos as card sets: what each side holds, and what is missing."""

    cards: dict[str, frozenset[Card]]
    missing: tuple[Card, ...]
    #: The sides each missing card may still be in, when not all of them (keyed by card; the
    #: key type is the one `score_provisional` takes).
    placements: dict[Card | str, tuple[str, ...]]
    #: Complement mode: the cards left for the complement side (None otherwise).
    complement_found: int | None

    def key(self) -> tuple[Any, ...]:
        return tuple(sorted((name, tuple(sorted(cards))) for name, cards in self.cards.items()))


@dataclass(frozen=True)
class _Verdict:
    """The score of one world: per category, each side's points when settled, else the deciding cards."""

    score: HandResult | ProvisionalResult
    settled: dict[str, tuple[int, ...]]
    deciding: dict[str, frozenset[Card]]

    def differs(self, other: _Verdict, category: str) -> bool:
        if (category in self.settled) != (category in other.settled):
            return True
        if category in self.settled:
            return self.settled[category] != other.settled[category]
        return self.deciding[category] != other.deciding[category]


@dataclass(frozen=True)
class _Alternative:
    option: int
    #: How much less likely than the best reading, in nats.
    delta: float
    solution: Solution
    #: A card no unit reads in this alternative. Set when the unit drops its card and another
    #: box of the same side would take it up (the same world, so no doubt by itself): the
    #: doubt weighed is then whether the card is in the photos at all.
    unread_card: int | None = None

    @property
    def odds(self) -> float:
        return math.exp(-self.delta)


@dataclass
class _CardConstraints:
    """The corrections folded into, per card, the side it must be in and the sides it may not."""

    names: tuple[str, ...]
    forced: dict[Card, str] = field(default_factory=dict)
    forbidden: dict[Card, set[str]] = field(default_factory=lambda: defaultdict(set))
    confirmed: set[tuple[Card, str]] = field(default_factory=set)

    def apply(self, correction: Correction) -> None:
        card = correction.card
        for side in (correction.side, correction.to_side):
            if side is not None and side not in self.names:
                raise ScopaError(f"correction of {card.code}: unknown side {side!r}")
        if correction.action in ("remove", "move"):
            self.forbidden[card].add(correction.side)
            if self.forced.get(card) == correction.side:
                del self.forced[card]
            self.confirmed.discard((card, correction.side))
        if correction.action in ("add", "confirm", "move"):
            side = correction.side
            if correction.action == "move":
                assert correction.to_side is not None  # Correction requires it for a move
                side = correction.to_side
            self.forced[card] = side
            self.forbidden[card].discard(side)
            self.confirmed = {(c, s) for c, s in self.confirmed if c != card}
            if correction.action == "confirm":
                self.confirmed.add((card, side))
        if all(side in self.forbidden[card] for side in self.names):
            raise ScopaError(f"correction: {card.code} has been removed from every side")

    def allowed(self, side: str, card: Card) -> bool:
        forced = self.forced.get(card)
        return (forced is None or forced == side) and side not in self.forbidden.get(card, ())

    def sides_allowed(self, card: Card) -> tuple[str, ...]:
        return tuple(side for side in self.names if self.allowed(side, card))


class _Reconciler:
    def __init__(
        self,
        sides: Mapping[str, Sequence[PhotoResult]],
        rules: Rules,
        scope: Mapping[str, int] | None,
        complement: tuple[str, int] | None,
        corrections: tuple[Correction, ...],
        settings: ReconcileSettings,
        *,
        keep_readings: bool = False,
    ) -> None:
        self.rules = rules
        self.settings = settings
        self.corrections = corrections
        self.photos, self.complement = _check_sides(sides, complement)
        self.names = tuple(self.photos)
        self.scope = _check_scope(scope, self.names)
        self.constraints = _CardConstraints(self.names)
        for correction in corrections:
            if not isinstance(correction, Correction):
                raise ScopaError(
                    f"corrections must be Correction objects, got {type(correction).__name__}"
                )
            self.constraints.apply(correction)
        self.categories = CATEGORIES + (("napoleone",) if rules.napoleone else ())
        #: The units of the assignment problem, in its order.
        self.sightings: list[_Sighting] = []
        self._build_units()
        self.problem = self._problem()
        #: Units held to their reading in every solve (confirmed by a correction).
        self.frozen: dict[int, int] = {}
        #: Units held to their reading before any correction, unless a solve varies them.
        self.pins: dict[int, int] = {}
        if keep_readings and corrections:
            self._pin_uncorrected_readings(sides, complement)

    # -- the assignment problem ------------------------------------------------------------

    def _build_units(self) -> None:
        floor = -math.log(self.settings.min_card_probability)
        no_card_margin = -math.log(self.settings.no_card_ratio)
        photo_id = 0
        for side_index, name in enumerate(self.names):
            allowed = np.array([self.constraints.allowed(name, card) for card in DECK])
            for photo_index, photo in enumerate(self.photos[name]):
                found = photo.detections
                for group in _duplicate_groups(found, self.settings.duplicate_iou):
                    detections = [found[i] for i in group]
                    probs = np.mean([_probs_of(d, name, photo_index) for d in detections], axis=0)
                    probs = probs / probs.sum()
                    costs = -np.log(np.clip(probs, 1e-12, None))
                    box = float(np.clip(max(d.box_confidence for d in detections), 0.0, 1.0))
                    extra_cost = box * floor
                    doubtful = all(i >= len(photo.cards) for i in group)
                    if doubtful:
                        # Never read as a card beyond doubt: "no card" stays within the no-card
                        # margin (a hair inside, against rounding), so the card is uncertain.
                        extra_cost = min(extra_cost, 0.99 * no_card_margin)
                    order = np.argsort(costs, kind="stable")
                    options = tuple(int(c) for c in order if costs[c] < extra_cost and allowed[c])
                    self.sightings.append(
                        _Sighting(
                            unit=Unit(side_index, photo_id, costs, extra_cost, options),
                            members=tuple(DetectionRef(name, photo_index, i) for i in group),
                            top=int(order[0]),
                            top_probability=float(probs[order[0]]),
                            box=box,
                            doubtful=doubtful,
                        )
                    )
                photo_id += 1
        self._leave_doubtful_boxes_the_unread_cards()

    def _leave_doubtful_boxes_the_unread_cards(self) -> None:
        """A doubtful box may stand only for a card that the other detections, read jointly,
        leave unread: it fills a gap, and neither competes with the cards found nor casts
        doubt on them."""
        if not any(sighting.doubtful for sighting in self.sightings):
            return
        sure = [sighting.unit for sighting in self.sightings if not sighting.doubtful]
        found = AssignmentProblem(sure).solve()
        read = {option for option in found.choice if option != EXTRA} if found else set()
        for index, sighting in enumerate(self.sightings):
            if sighting.doubtful:
                options = tuple(option for option in sighting.unit.options if option not in read)
                self._set_options(index, options)

    def _set_options(self, index: int, options: tuple[int, ...]) -> None:
        sighting = self.sightings[index]
        self.sightings[index] = replace(sighting, unit=replace(sighting.unit, options=options))

    def _problem(self, unread: Collection[int] = ()) -> AssignmentProblem:
        """The assignment of every sighting, none of them allowed to read the `unread` cards."""
        units = (sighting.unit for sighting in self.sightings)
        if unread:
            units = (
                replace(unit, options=tuple(o for o in unit.options if o not in unread))
                for unit in units
            )
        return AssignmentProblem(list(units))

    def _pin_uncorrected_readings(
        self, sides: Mapping[str, Sequence[PhotoResult]], complement: tuple[str, int] | None
    ) -> None:
        """Hold each unit to its reading before any correction, except those a correction frees:
        its card is no longer allowed in its side, or a card a correction names is a likelier
        reading of it. A freed unit may read only as its old card or a named one (or no card),
        so a fix never turns an untouched box into a card nobody mentioned."""
        as_read = _Reconciler(sides, self.rules, None, complement, (), self.settings).run_base()
        named = {DECK.index(correction.card) for correction in self.corrections}
        for index, sighting in enumerate(self.sightings):
            unit = sighting.unit
            read = as_read.choice[index]
            freed = (read != EXTRA and read not in unit.options) or any(
                option in named and unit.cost(option) < unit.cost(read) for option in unit.options
            )
            if not freed:
                self.pins[index] = read
                continue
            kept = tuple(option for option in unit.options if option in named or option == read)
            self._set_options(index, kept)
        self.problem = self._problem()

    def run_base(self) -> Solution:
        """The best joint reading alone, without the report."""
        base = self._solve({})
        if base is None:  # unreachable: every unit may always be extra
            raise RuntimeError("the assignment has no solution")
        return base

    def _solve(self, fixed: Mapping[int, int], unread: Collection[int] = ()) -> Solution | None:
        """The best joint reading with some units held, and none reading the `unread` cards."""
        problem = self._problem(unread) if unread else self.problem
        return problem.solve({**self.pins, **self.frozen, **fixed})

    # -- worlds and their scores -------------------------------------------------------------

    def _world(self, choice: Sequence[int]) -> _World:
        held: dict[str, set[Card]] = {name: set() for name in self.names}
        for card, side in self.constraints.forced.items():
            held[side].add(card)
        for sighting, option in zip(self.sightings, choice, strict=True):
            if option != EXTRA:
                held[self.names[sighting.unit.side]].add(DECK[option])
        found = None
        if self.complement is not None:
            side, expected = self.complement
            taken = set().union(*(cards for name, cards in held.items() if name != side))
            rest = {
                card for card in DECK if card not in taken and self.constraints.allowed(side, card)
            }
            found = len(rest)
            if found == expected:
                held[side] = rest
            # Otherwise the photos or the count are wrong: the cards left stay missing.
        placed = set().union(*held.values())
        missing = tuple(card for card in DECK if card not in placed)
        placements: dict[Card | str, tuple[str, ...]] = {}
        for card in missing:
            allowed = self.constraints.sides_allowed(card)
            if len(allowed) < len(self.names):
                placements[card] = allowed
        return _World(
            {name: frozenset(cards) for name, cards in held.items()}, missing, placements, found
        )

    def _verdict(self, world: _World) -> _Verdict:
        inputs = {name: SideInput(world.cards[name], self.scope[name]) for name in self.names}
        if not world.missing:
            hand = score_hand(inputs, self.rules)
            settled = {c: tuple(hand.sides[n].points[c] for n in self.names) for c in CATEGORIES}
            if self.rules.napoleone:
                settled["napoleone"] = tuple(int(hand.napoleone == n) for n in self.names)
            return _Verdict(hand, settled, {})
        provisional = score_provisional(inputs, self.rules, placements=world.placements or None)
        settled = {
            c: tuple(points[n] for n in self.names) for c, points in provisional.settled.items()
        }
        deciding = {c: frozenset(provisional.deciding[c]) for c in CATEGORIES if c not in settled}
        if self.rules.napoleone:
            if provisional.napoleone_at_stake:
                deciding["napoleone"] = frozenset(provisional.napoleone_deciding)
            else:
                settled["napoleone"] = tuple(
                    int(provisional.result.napoleone == n) for n in self.names
                )
        return _Verdict(provisional, settled, deciding)

    # -- the report ------------------------------------------------------------------------

    def _conflicts(self, base: Solution) -> tuple[list[ReadingConflict], dict[int, int]]:
        """Confident readings the joint assignment overruled, grouped by card."""
        holders: dict[int, list[int]] = defaultdict(list)
        for index, option in enumerate(base.choice):
            if option != EXTRA:
                holders[option].append(index)
        overruled: dict[int, int] = {}
        for index, sighting in enumerate(self.sightings):
            card = sighting.top
            if (
                sighting.top_probability >= self.settings.conflict_confidence
                and not sighting.doubtful
                and base.choice[index] != card
                and card in sighting.unit.options  # not settled by a correction
                and index not in self.frozen
                and holders[card]
            ):
                overruled[index] = card
        by_card: dict[int, list[int]] = defaultdict(list)
        for index, card in overruled.items():
            by_card[card].append(index)
        units = [sighting.unit for sighting in self.sightings]
        conflicts = []
        for card, losers in sorted(by_card.items()):
            winner = holders[card][0]
            claimants = sorted({winner, *holders[card], *losers})
            other_side = any(units[i].side != units[winner].side for i in losers)
            side_names = [self.names[s] for s in sorted({units[i].side for i in claimants})]
            claims = tuple(
                (ref, float(math.exp(-units[i].costs[card])))
                for i in claimants
                for ref in self.sightings[i].members
            )
            conflicts.append(
                ReadingConflict(
                    card=DECK[card],
                    kind="sides" if other_side else "photo",
                    sides=tuple(side_names),
                    claims=claims,
                    owner=self.names[units[winner].side],
                )
            )
        return conflicts, overruled

    def _alternatives(self, base: Solution, base_world: _World) -> dict[int, list[_Alternative]]:
        """Per unit: its other readings whose best joint assignment is within the doubt margin.

        A joint reading costs more than the best one by the sum of what each unit it changes
        costs more; were every such change dearer than the margin, so would be the sum. So a
        reading within the margin changes some unit to an option within the margin of that
        unit's own reading: only those options need the exact (re-solved) check. The margin is
        that of the unit's change: `uncertain_ratio`'s from one card to another, `no_card_ratio`'s
        to or from no card. A reading that leaves every side's cards as they are (a box that
        may be a card its side holds anyway) is no doubt at all, and is not counted.
        """
        base_key = base_world.key()
        reading_margin = -math.log(self.settings.uncertain_ratio)
        no_card_margin = -math.log(self.settings.no_card_ratio)
        found: dict[int, list[_Alternative]] = {}
        for index, sighting in enumerate(self.sightings):
            unit = sighting.unit
            if index in self.frozen:
                continue
            current = base.choice[index]
            for option in (*unit.options, EXTRA):
                margin = no_card_margin if EXTRA in (option, current) else reading_margin
                if option == current or unit.cost(option) - unit.cost(current) > margin:
                    continue
                solution = self._solve({index: option})
                unread = None
                if (
                    option == EXTRA
                    and solution is not None
                    and self._world(solution.choice).key() == base_key
                ):
                    # Another box took its card up (two doubtful boxes of a heap may both
                    # read as it): weigh the reading in which neither is that card.
                    unread = current
                    solution = self._solve({index: EXTRA}, unread=(current,))
                if (
                    solution is not None
                    and solution.cost - base.cost <= margin
                    and self._world(solution.choice).key() != base_key
                ):
                    found.setdefault(index, []).append(
                        _Alternative(option, solution.cost - base.cost, solution, unread)
                    )
        for alternatives in found.values():
            alternatives.sort(key=lambda alt: alt.delta)
        return found

    # -- everything together ---------------------------------------------------------------

    def run(self) -> Reconciliation:
        base = self.run_base()
        self.frozen = {
            index: option
            for index, option in enumerate(base.choice)
            if option != EXTRA
            and (DECK[option], self.names[self.sightings[index].unit.side])
            in self.constraints.confirmed
        }
        base_world = self._world(base.choice)
        base_verdict = self._verdict(base_world)
        conflicts, overruled = self._conflicts(base)
        alternatives = self._alternatives(base, base_world)
        for index, card in overruled.items():
            if not any(alt.option == card for alt in alternatives.get(index, ())):
                solution = self._solve({index: card})
                if solution is not None:
                    alternatives.setdefault(index, []).append(
                        _Alternative(card, solution.cost - base.cost, solution)
                    )

        complement_check = None
        if self.complement is not None:
            assert base_world.complement_found is not None  # set in complement mode
            complement_check = ComplementCheck(
                self.complement[0], self.complement[1], base_world.complement_found
            )

        combinations = math.prod(len(alts) + 1 for alts in alternatives.values())
        exhaustive = combinations <= self.settings.max_scenarios
        at_stake, deciding, alternative_categories = self._weigh(
            base, base_world, base_verdict, alternatives, complement_check, exhaustive
        )
        uncertain, extra = self._doubts(base, alternatives, overruled)
        advice = reconciliation_advice(
            categories=self.categories,
            conflicts=conflicts,
            complement=complement_check,
            exhaustive=exhaustive,
            doubts=self._deciding_doubts(base, overruled, alternatives, alternative_categories),
            missing=base_world.missing,
            missing_deciding=base_verdict.deciding,
        )
        determinate = (
            not conflicts
            and exhaustive
            and (complement_check is None or complement_check.matches)
            and not any(at_stake.values())
        )
        assignments, states = self._per_detection(base, conflicts, uncertain, extra)
        return Reconciliation(
            rules=self.rules,
            sides={name: sorted(base_world.cards[name]) for name in self.names},
            scope=dict(self.scope),
            assignments=assignments,
            states=states,
            photo_paths={name: [photo.path for photo in self.photos[name]] for name in self.names},
            missing=base_world.missing,
            conflicts=tuple(conflicts),
            uncertain=tuple(uncertain),
            extra=tuple(extra),
            complement=complement_check,
            corrections=self.corrections,
            score=base_verdict.score,
            at_stake=at_stake,
            deciding={c: tuple(sorted(deciding[c])) for c in self.categories if at_stake[c]},
            advice=tuple(advice),
            determinate=determinate,
        )

    def _weigh(
        self,
        base: Solution,
        base_world: _World,
        base_verdict: _Verdict,
        alternatives: Mapping[int, list[_Alternative]],
        complement_check: ComplementCheck | None,
        exhaustive: bool,
    ) -> tuple[dict[str, bool], dict[str, set[Card]], dict[tuple[int, int], set[str]]]:
        """Score every plausible world: what is at stake, the cards deciding it, and per
        (unit, alternative option) the categories that reading changes."""
        at_stake = {category: category not in base_verdict.settled for category in self.categories}
        deciding: dict[str, set[Card]] = defaultdict(set)
        for category, cards in base_verdict.deciding.items():
            deciding[category] |= cards
        changes: dict[tuple[int, int], set[str]] = defaultdict(set)
        seen_worlds = {base_world.key()}
        for changed, solution in self._scenarios(base, alternatives, exhaustive):
            if solution is None:
                continue
            world = self._world(solution.choice)
            if world.key() in seen_worlds:
                continue
            seen_worlds.add(world.key())
            if (
                complement_check is not None
                and complement_check.matches
                and world.complement_found != complement_check.expected
            ):
                continue  # contradicts the cards the players counted
            try:
                verdict = self._verdict(world)
            except ScopaError:
                continue  # a reading in which some side's scope is impossible
            for category in self.categories:
                if category not in verdict.settled:
                    at_stake[category] = True
                    deciding[category] |= verdict.deciding[category]
                if verdict.differs(base_verdict, category):
                    at_stake[category] = True
                    for index, option in changed.items():
                        changes[index, option].add(category)
                        for card_index in (base.choice[index], option):
                            if card_index != EXTRA:
                                deciding[category].add(DECK[card_index])
        return at_stake, deciding, changes

    def _scenarios(
        self, base: Solution, alternatives: Mapping[int, list[_Alternative]], exhaustive: bool
    ) -> Iterable[tuple[dict[int, int], Solution | None]]:
        """Every combination of the plausible alternative readings (each unit changed or not).

        Units with doubts may all be wrong at once, so their alternatives are combined, each
        combination solved with those units held. Past ``max_scenarios`` combinations, only
        one change at a time is scored (and the score is not determinate).
        """
        varied = sorted(alternatives)
        if not exhaustive:
            for index in varied:
                for alt in alternatives[index]:
                    yield {index: alt.option}, alt.solution
            return
        choices = [
            [base.choice[index]] + [alt.option for alt in alternatives[index]] for index in varied
        ]
        for combination in itertools.product(*choices):
            changed = {
                index: option
                for index, option in zip(varied, combination, strict=True)
                if option != base.choice[index]
            }
            if not changed:
                continue
            if len(changed) == 1 and len(varied) == 1:
                ((index, option),) = changed.items()
                yield (
                    changed,
                    next(alt.solution for alt in alternatives[index] if alt.option == option),
                )
                continue
            unread = [
                alt.unread_card
                for index, option in changed.items()
                for alt in alternatives[index]
                if alt.option == option and alt.unread_card is not None
            ]
            yield changed, self._solve(dict(zip(varied, combination, strict=True)), unread)

    def _doubts(
        self,
        base: Solution,
        alternatives: Mapping[int, list[_Alternative]],
        overruled: Mapping[int, int],
    ) -> tuple[list[UncertainReading], list[Extra]]:
        uncertain: list[UncertainReading] = []
        extra: list[Extra] = []
        for index, option in enumerate(base.choice):
            if index in overruled:
                continue  # reported as a conflict
            sighting = self.sightings[index]
            side = self.names[sighting.unit.side]
            alts = alternatives.get(index, [])
            cards = [alt for alt in alts if alt.option != EXTRA]
            if option == EXTRA and sighting.doubtful:
                continue  # a doubtful box no card needed
            if option == EXTRA:
                extra.append(
                    Extra(
                        side=side,
                        detections=sighting.members,
                        best=DECK[sighting.top],
                        probability=sighting.top_probability,
                        box_confidence=sighting.box,
                        candidates=tuple(DECK[alt.option] for alt in cards),
                        odds=tuple(alt.odds for alt in cards),
                    )
                )
            elif alts:
                not_a_card = next((alt.odds for alt in alts if alt.option == EXTRA), None)
                uncertain.append(
                    UncertainReading(
                        side=side,
                        card=DECK[option],
                        alternatives=tuple(DECK[alt.option] for alt in cards),
                        odds=tuple(alt.odds for alt in cards),
                        not_a_card_odds=not_a_card,
                        detections=sighting.members,
                    )
                )
        return uncertain, extra

    def _deciding_doubts(
        self,
        base: Solution,
        overruled: Mapping[int, int],
        alternatives: Mapping[int, list[_Alternative]],
        alternative_categories: Mapping[tuple[int, int], set[str]],
    ) -> list[DecidingDoubt]:
        """Per unit not in conflict, its most likely other reading that changes some side's
        points (another card rather than no card), in unit order."""
        doubts = []
        for index in sorted(alternatives):
            if index in overruled:
                continue
            deciding_alts = [
                alt
                for alt in alternatives[index]
                if alternative_categories.get((index, alt.option))
            ]
            if not deciding_alts:
                continue
            alt = next((a for a in deciding_alts if a.option != EXTRA), deciding_alts[0])
            current = base.choice[index]
            doubts.append(
                DecidingDoubt(
                    where=self.sightings[index].members[0],
                    card=None if current == EXTRA else DECK[current],
                    alternative=None if alt.option == EXTRA else DECK[alt.option],
                    categories=tuple(
                        ordered(alternative_categories[index, alt.option], self.categories)
                    ),
                )
            )
        return doubts

    def _per_detection(
        self,
        base: Solution,
        conflicts: Sequence[ReadingConflict],
        uncertain: Sequence[UncertainReading],
        extra: Sequence[Extra],
    ) -> tuple[dict[str, list[list[Card | None]]], dict[str, list[list[str]]]]:
        """Each detection's card and state (one of DETECTION_STATES), per side and photo."""
        assignments: dict[str, list[list[Card | None]]] = {
            name: [[None] * len(photo.detections) for photo in self.photos[name]]
            for name in self.names
        }
        states = {
            name: [["ok"] * len(photo.detections) for photo in self.photos[name]]
            for name in self.names
        }
        for index, option in enumerate(base.choice):
            sighting = self.sightings[index]
            for ref in sighting.members:
                assignments[ref.side][ref.photo][ref.detection] = (
                    None if option == EXTRA else DECK[option]
                )
                if option == EXTRA and sighting.doubtful:
                    states[ref.side][ref.photo][ref.detection] = "unused"
        marks = [(item.detections, "extra") for item in extra]
        marks += [(item.detections, "uncertain") for item in uncertain]
        marks += [(tuple(ref for ref, _ in item.claims), "conflict") for item in conflicts]
        for refs, state in marks:
            for ref in refs:
                states[ref.side][ref.photo][ref.detection] = state
        return assignments, states


def _check_sides(
    sides: Mapping[str, Sequence[PhotoResult]], complement: tuple[str, int] | None
) -> tuple[dict[str, list[PhotoResult]], tuple[str, int] | None]:
    if not isinstance(sides, Mapping):
        raise ScopaError(
            f"sides must map each side's name to its photos, got {type(sides).__name__}"
        )
    photos: dict[str, list[PhotoResult]] = {}
    for name, results in sides.items():
        if not isinstance(name, str) or not name.strip():
            raise ScopaError(f"side names must be non-empty text, got {name!r}")
        if isinstance(results, PhotoResult) or not isinstance(results, Sequence):
            raise ScopaError(f"side {name!r}: expected a list of photo results")
        photos[name] = list(results)
    if complement is not None:
        if not (isinstance(complement, tuple | list) and len(complement) == 2):
            raise ScopaError(f"complement must be (side, card count), got {complement!r}")
        side, count = complement
        if not isinstance(side, str) or not side.strip():
            raise ScopaError(f"complement: side names must be non-empty text, got {side!r}")
        if type(count) is not int or not 0 <= count <= len(DECK):
            raise ScopaError(
                f"complement: side {side!r} card count must be an integer from 0 to 40, got {count!r}"
            )
        if photos.get(side):
            raise ScopaError(
                f"complement: side {side!r} is the side not photographed, but it has photos"
            )
        photos.setdefault(side, [])
        complement = (side, count)
    if not _MIN_SIDES <= len(photos) <= _MAX_SIDES:
        raise ScopaError(f"a hand has 2 to 4 sides, got {len(photos)}")
    return photos, complement


def _check_scope(scope: Mapping[str, int] | None, names: Sequence[str]) -> dict[str, int]:
    scope = dict(scope or {})
    for name, value in scope.items():
        if name not in names:
            raise ScopaError(f"scope: unknown side {name!r} (sides: {', '.join(names)})")
        if type(value) is not int or value < 0:
            raise ScopaError(f"scope: side {name!r} needs a non-negative integer, got {value!r}")
    return {name: scope.get(name, 0) for name in names}


def _probs_of(detection: DetectedCard, side: str, photo: int) -> np.ndarray:
    probs = np.asarray(detection.probs, dtype=float)
    if (
        probs.shape != (len(DECK),)
        or not np.all(np.isfinite(probs))
        or probs.min() < 0
        or probs.sum() <= 0
    ):
        raise ValueError(
            f"side {side!r}, photo {photo + 1}: a detection's probabilities are not a 40-card distribution"
        )
    return probs / probs.sum()


def _duplicate_groups(cards: Sequence[DetectedCard], min_iou: float) -> list[list[int]]:
    """Detections of one photo grouped by outlines overlapping at least ``min_iou`` (one card)."""
    parent = list(range(len(cards)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    hulls = [
        cv2.convexHull(np.asarray(card.quad, dtype=np.float32).reshape(-1, 1, 2)) for card in cards
    ]
    boxes = [(hull[:, 0].min(0), hull[:, 0].max(0)) for hull in hulls]
    for i, j in itertools.combinations(range(len(cards)), 2):
        (lo_i, hi_i), (lo_j, hi_j) = boxes[i], boxes[j]
        if np.any(np.minimum(hi_i, hi_j) <= np.maximum(lo_i, lo_j)):
            continue  # bounding boxes apart: no overlap
        if polygon_iou(hulls[i], hulls[j]) >= min_iou:
            parent[root(j)] = root(i)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(cards)):
        groups[root(i)].append(i)
    return list(groups.values())
