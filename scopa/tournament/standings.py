"""Standings: matches won, points for and against, difference, head-to-head as the tie-break.

Order: more matches won first. Pairs level on wins are separated by the matches among them
alone (head-to-head wins, applied again inside any subgroup still level, as in a mini-league);
pairs still level are ordered by the points difference over all their matches, then by points
scored. Pairs level on all of these share a rank. Only finished matches count; a bye counts as a
match won with no points either way, so that the pair that rests in a Swiss round loses nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True)
class MatchResult(Generic[T]):
    """A finished match: `pair_b` is None for a bye, whose winner is `pair_a`."""

    pair_a: T
    pair_b: T | None
    score_a: int
    score_b: int
    winner: T


@dataclass
class StandingRow(Generic[T]):
    """One pair's line in the standings."""

    pair: T
    rank: int = 0
    played: int = 0
    won: int = 0
    lost: int = 0
    points_for: int = 0
    points_against: int = 0
    byes: int = 0
    head_to_head: dict[T, int] = field(default_factory=dict, repr=False)

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "pair": self.pair,
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "difference": self.difference,
            "byes": self.byes,
        }


def compute_standings(
    pairs: Sequence[T], results: Iterable[MatchResult[T]]
) -> list[StandingRow[T]]:
    """Rank `pairs` (listed by seed) on `results`; a fully level group keeps seed order."""
    rows = {pair: StandingRow(pair) for pair in pairs}
    for result in results:
        a = rows[result.pair_a]
        a.played += 1
        if result.pair_b is None:
            a.won += 1
            a.byes += 1
            continue
        b = rows[result.pair_b]
        b.played += 1
        a.points_for += result.score_a
        a.points_against += result.score_b
        b.points_for += result.score_b
        b.points_against += result.score_a
        winner, loser = (a, b) if result.winner == result.pair_a else (b, a)
        winner.won += 1
        loser.lost += 1
        # head_to_head[x] = matches this pair won against x
        winner.head_to_head[loser.pair] = winner.head_to_head.get(loser.pair, 0) + 1

    ordered: list[list[StandingRow[T]]] = []
    for level in _levels(list(rows.values()), key=lambda row: row.won):
        ordered.extend(_break_tie(level))
    standings: list[StandingRow[T]] = []
    for tied in ordered:
        rank = len(standings) + 1
        for row in tied:
            row.rank = rank
            standings.append(row)
    return standings


def _levels(rows: list[StandingRow[T]], key) -> list[list[StandingRow[T]]]:
    """Group rows by `key`, highest first, keeping the input order inside a group."""
    values = sorted({key(row) for row in rows}, reverse=True)
    return [[row for row in rows if key(row) == value] for value in values]


def _break_tie(tied: list[StandingRow[T]]) -> list[list[StandingRow[T]]]:
    """Order pairs level on wins: head-to-head among them, recursively, then difference, points."""
    if len(tied) == 1:
        return [tied]
    members = {row.pair for row in tied}

    def mini_league_wins(row: StandingRow[T]) -> int:
        return sum(count for other, count in row.head_to_head.items() if other in members)

    levels = _levels(tied, key=mini_league_wins)
    if len(levels) > 1:
        return [group for level in levels for group in _break_tie(level)]
    return _levels(tied, key=lambda row: (row.difference, row.points_for))
