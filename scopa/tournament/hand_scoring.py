"""Scoring a stored hand and replaying a match from its counted hands.

Hands are scored here, never trusted from the client: `rebuild_match` replays the match with
`scoring.Match` from its counted hands on every change, so the stored totals, status and winner
are always what the rules say about the hands on record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from scoring import DECK, Match, Rules, SideInput, parse_card, score_hand, score_provisional
from scoring.errors import ScopaError

from .db import Hand, MatchRow, Round, utcnow
from .records import SCHEDULED, SIDES, HandView


@dataclass
class ScoredHand:
    """A hand's score: the breakdown as JSON, each side's points, and the cards missing."""

    result: dict[str, Any]
    points: dict[str, int]
    missing: list[str]


def side_inputs(sides: Mapping[str, Mapping[str, Any]]) -> dict[str, SideInput]:
    """Sides "a" and "b" as `{"cards": [...], "scope": n}` parsed to `SideInput`s."""
    if not isinstance(sides, Mapping) or set(sides) != set(SIDES):
        keys = ", ".join(map(repr, sides)) if isinstance(sides, Mapping) else type(sides).__name__
        raise ScopaError(f"hand sides: expected exactly 'a' and 'b', got {keys}")
    return {side: SideInput.from_spec(sides[side], side=side) for side in SIDES}


def sides_json(inputs: Mapping[str, SideInput]) -> dict[str, Any]:
    """The sides as stored: each side's cards sorted, and its scope."""
    return {
        side: {"cards": [card.code for card in sorted(value.cards)], "scope": value.scope}
        for side, value in inputs.items()
    }


def completed(inputs: Mapping[str, SideInput], missing: Sequence[str]) -> dict[str, SideInput]:
    """The hand with its missing cards given to side "a".

    Only hands whose missing cards cannot change any side's points are stored incomplete, so any
    placement scores the same; this one lets `scoring.Match` replay them like the others.
    """
    if not missing:
        return dict(inputs)
    extra = frozenset(parse_card(code) for code in missing)
    return {**inputs, "a": SideInput(cards=inputs["a"].cards | extra, scope=inputs["a"].scope)}


def score_sides(inputs: Mapping[str, SideInput], rules: Rules) -> ScoredHand:
    """Score a hand; with cards missing, only if they cannot change the score (else ScopaError)."""
    held = set().union(*(side.cards for side in inputs.values()))
    missing = [card.code for card in DECK if card not in held]
    if not missing:
        result = score_hand(inputs, rules)
        return ScoredHand(result.to_dict(), dict(result.totals), [])
    provisional = score_provisional(inputs, rules)
    if not provisional.determinate:
        deciding = sorted({c.code for cards in provisional.deciding.values() for c in cards})
        raise ScopaError(
            f"hand incomplete: {len(missing)} cards missing and the score depends on "
            f"{', '.join(deciding or missing)}; find or enter them"
        )
    totals = score_hand(completed(inputs, missing), rules).totals
    return ScoredHand(provisional.to_dict(), dict(totals), missing)


def replay(rules: Rules, hands: Sequence[HandView], names: Mapping[str, str]) -> Match:
    """The match as `scoring.Match` from its counted hands, sides named `names["a"]`, `["b"]`.

    For the pages, which show the scoreboard and each hand's breakdown like the single-match page.
    """
    match = Match(rules, [names[side] for side in SIDES])
    for hand in hands:
        if hand.status == "counted":
            inputs = completed(side_inputs(hand.sides), hand.missing)
            match.add_hand({names[side]: inputs[side] for side in SIDES})
    return match


def rebuild_match(session: Session, match: MatchRow, rules: Rules) -> None:
    """Replay the match's counted hands through scoring.Match and store its state."""
    hands = session.scalars(
        select(Hand)
        .where(Hand.match_id == match.id, Hand.status == "counted")
        .order_by(Hand.number)
    ).all()
    replayed = Match(rules, SIDES)
    previous: Hand | None = None
    for hand in hands:
        if replayed.decided:
            raise ScopaError(
                f"hand {hand.number}: the match would already be decided at hand "
                f"{previous.number if previous else 0}; void the hands after it first"
            )
        replayed.add_hand(completed(side_inputs(hand.sides), hand.missing))
        previous = hand
    pair_ids = {"a": match.pair_a_id, "b": match.pair_b_id}
    winner = pair_ids.get(replayed.winner) if hands and replayed.winner is not None else None
    if match.winner_id is not None and winner != match.winner_id:
        check_winner_can_change(session, match)
    totals = replayed.totals
    match.score_a, match.score_b = totals["a"], totals["b"]
    match.status = replayed.status if hands else SCHEDULED
    match.winner_id = winner
    match.napoleone = bool(hands) and replayed.napoleone is not None
    match.hands_counted = len(hands)
    match.updated_at = utcnow()


def check_winner_can_change(session: Session, match: MatchRow) -> None:
    """A decided match whose winner already went on to a knockout round cannot change winner."""
    number = session.scalar(select(Round.number).where(Round.id == match.round_id))
    later_knockout = session.scalar(
        select(func.count())
        .select_from(Round)
        .where(
            Round.tournament_id == match.tournament_id,
            Round.stage == "knockout",
            Round.number > number,
        )
    )
    if later_knockout:
        raise ScopaError(
            f"match at table {match.table_number}: its winner already plays the next knockout "
            "round; this change would change the winner"
        )
