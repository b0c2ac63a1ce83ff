"""What a reconciliation advises the players: its report turned into sentences (`messages`).

The reconciler decides what is wrong and what it decides; this module only words it, in a
fixed order: conflicts, a complement count that does not match, too many doubts to check,
doubtful readings that decide a category, and missing cards that do. When a quarter of the
deck or more is read nowhere, how to lay the cards comes first, in place of the missing cards:
until the cards are laid out otherwise, no new photo settles the rest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring import Card

from .messages import Advice, make_advice
from .results import ComplementCheck, DetectionRef, ReadingConflict

# Missing cards that decide the score are named one sentence each up to this many.
_MISSING_ONE_BY_ONE = 3
# From this many cards read nowhere, the photos are of a layout the cards cannot be read in,
# not of a few cards hidden or misread: the advice says how to lay them instead of naming
# them. On generated hands, a hand fan leaves 22-34 cards read nowhere, every other layout at
# most 9 (models/README.md, sixteenth session).
MANY_MISSING = 10
#: The key of that advice.
LAY_OUT_ADVICE = "reconcile.lay_out"


@dataclass(frozen=True)
class DecidingDoubt:
    """A detection whose plausible other reading changes some side's points."""

    #: Where the detection is (the first of its merged detections).
    where: DetectionRef
    #: Its reading, None when it was read as no card.
    card: Card | None
    #: The other reading that matters, None for "no card at all".
    alternative: Card | None
    #: The categories that other reading changes, in category order.
    categories: tuple[str, ...]


def reconciliation_advice(
    *,
    categories: Sequence[str],
    conflicts: Sequence[ReadingConflict],
    complement: ComplementCheck | None,
    exhaustive: bool,
    doubts: Sequence[DecidingDoubt],
    missing: Sequence[Card],
    missing_deciding: Mapping[str, Iterable[Card]],
) -> list[Advice]:
    """The advice of one reconciliation.

    ``categories`` orders the categories named in a sentence; ``missing`` holds every card read
    nowhere, and ``missing_deciding`` maps each category the best reading leaves open to the
    missing cards that decide it.
    """
    by_card: dict[Card, set[str]] = defaultdict(set)
    for category, cards in missing_deciding.items():
        for card in cards:
            by_card[card].add(category)
    # In complement mode the cards no photo shows are the unphotographed side's, not hidden.
    lay_out = complement is None and bool(by_card) and len(missing) >= MANY_MISSING
    advice = []
    if lay_out:
        every = set().union(*by_card.values())
        advice.append(
            make_advice(LAY_OUT_ADVICE, count=len(missing), categories=ordered(every, categories))
        )
    for conflict in conflicts:
        if conflict.kind == "sides":
            advice.append(
                make_advice("reconcile.conflict_sides", card=conflict.card, sides=conflict.sides)
            )
        else:
            ref = conflict.claims[0][0]
            advice.append(
                make_advice(
                    "reconcile.conflict_photo",
                    card=conflict.card,
                    side=ref.side,
                    photo=ref.photo + 1,
                )
            )
    if complement is not None and not complement.matches:
        advice.append(
            make_advice(
                "reconcile.complement_mismatch",
                side=complement.side,
                expected=complement.expected,
                found=complement.found,
            )
        )
    if not exhaustive:
        advice.append(make_advice("reconcile.too_many_doubts"))
    for doubt in doubts:
        side, photo = doubt.where.side, doubt.where.photo + 1
        if doubt.card is None:
            advice.append(
                make_advice(
                    "reconcile.maybe_a_card",
                    alternative=doubt.alternative,
                    categories=doubt.categories,
                    side=side,
                    photo=photo,
                )
            )
        elif doubt.alternative is None:
            advice.append(
                make_advice(
                    "reconcile.maybe_not_a_card",
                    card=doubt.card,
                    categories=doubt.categories,
                    side=side,
                    photo=photo,
                )
            )
        else:
            advice.append(
                make_advice(
                    "reconcile.uncertain_card",
                    card=doubt.card,
                    alternative=doubt.alternative,
                    categories=doubt.categories,
                    side=side,
                    photo=photo,
                )
            )
    if not lay_out:
        advice += _missing_cards_advice(by_card, categories)
    return advice


def _missing_cards_advice(
    by_card: Mapping[Card, set[str]], categories: Sequence[str]
) -> list[Advice]:
    """The missing cards that decide the score: one sentence each when they are few."""
    if len(by_card) > _MISSING_ONE_BY_ONE:
        every = set().union(*by_card.values())
        return [
            make_advice(
                "reconcile.missing_cards",
                cards=sorted(by_card),
                categories=ordered(every, categories),
            )
        ]
    return [
        make_advice(
            "reconcile.missing_card", card=card, categories=ordered(by_card[card], categories)
        )
        for card in sorted(by_card)
    ]


def ordered(chosen: Iterable[str], categories: Sequence[str]) -> list[str]:
    """The ``chosen`` categories in the order of ``categories``."""
    chosen = set(chosen)
    return [category for category in categories if category in chosen]
