"""Pairings: groups, round robin, Swiss rounds and a knockout bracket.

Pure functions over pair ids (any hashable), so they are tested without a database. A `None`
opponent is a bye ("riposo"): the pair rests that round.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from typing import TypeVar

from scoring.errors import ScopaError

T = TypeVar("T", bound=Hashable)

# Backtracking steps allowed when pairing a Swiss round without rematches; beyond this the round
# is paired with rematches allowed rather than stalling the referee's page.
SWISS_SEARCH_BUDGET = 200_000


def split_groups(pairs: Sequence[T], groups: int) -> list[list[T]]:
    """Split pairs listed by seed into `groups` groups by snake seeding (1-2-3, 3-2-1, ...).

    Snake seeding keeps the groups balanced: with 2 groups, seeds 1 and 4 go to A, 2 and 3 to B.
    """
    if groups < 1:
        raise ScopaError(f"groups: must be at least 1, got {groups}")
    if len(pairs) < 2 * groups:
        raise ScopaError(f"groups: {len(pairs)} pairs cannot fill {groups} groups of 2 or more")
    result: list[list[T]] = [[] for _ in range(groups)]
    for index, pair in enumerate(pairs):
        lap, offset = divmod(index, groups)
        result[offset if lap % 2 == 0 else groups - 1 - offset].append(pair)
    return result


def round_robin(pairs: Sequence[T]) -> list[list[tuple[T, T | None]]]:
    """Every pair meets every other once, by the circle method; one list of matches per round.

    With an odd number of pairs each round has one bye (opponent `None`), and every pair rests
    exactly once. The order inside a match alternates so that nobody is always listed first.
    """
    if len(pairs) < 2:
        raise ScopaError(f"round robin: needs at least 2 pairs, got {len(pairs)}")
    if len(set(pairs)) != len(pairs):
        raise ScopaError("round robin: a pair is listed twice")
    ring: list[T | None] = list(pairs)
    if len(ring) % 2:
        ring.append(None)
    size = len(ring)
    rounds: list[list[tuple[T, T | None]]] = []
    for number in range(size - 1):
        matches: list[tuple[T, T | None]] = []
        for i in range(size // 2):
            home, away = ring[i], ring[size - 1 - i]
            if i == 0 and number % 2:
                home, away = away, home
            if home is None:
                home, away = away, None
            matches.append((home, away))  # type: ignore[arg-type]  # home is never None here
        rounds.append(matches)
        # Keep the first seat fixed and rotate the others one step.
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def swiss_pairings(
    ranking: Sequence[T],
    played: Collection[frozenset[T]],
    had_bye: Collection[T] = (),
) -> list[tuple[T, T | None]]:
    """Pair one Swiss round: neighbours in the current ranking, avoiding rematches.

    `ranking` lists every pair best first; `played` holds the pairs of pairs that already met.
    With an odd number, the bye goes to the lowest-ranked pair that has not had one. Pairs are
    matched top-down with backtracking, so that a rematch forced at the bottom moves the pairing
    up instead; only when no pairing without rematches exists are rematches allowed.
    """
    if len(ranking) < 2:
        raise ScopaError(f"swiss: needs at least 2 pairs, got {len(ranking)}")
    players = list(ranking)
    bye_candidates: list[T | None] = [None]
    if len(players) % 2:
        fresh = [p for p in reversed(players) if p not in had_bye]
        bye_candidates = list(fresh or reversed(players))
    for avoid_rematches in (True, False):
        for bye in bye_candidates:
            rest = [p for p in players if p != bye]
            budget = [SWISS_SEARCH_BUDGET]
            pairing = _pair_top_down(rest, played if avoid_rematches else (), budget)
            if pairing is not None:
                return [*pairing, (bye, None)] if bye is not None else pairing
    raise AssertionError("pairing with rematches allowed always succeeds")  # pragma: no cover


def _pair_top_down(
    players: list[T], played: Collection[frozenset[T]], budget: list[int]
) -> list[tuple[T, T | None]] | None:
    if not players:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, others = players[0], players[1:]
    for j, opponent in enumerate(others):
        if frozenset((first, opponent)) in played:
            continue
        rest = _pair_top_down(others[:j] + others[j + 1 :], played, budget)
        if rest is not None:
            return [(first, opponent), *rest]
    return None


def knockout_seeds(group_rankings: Sequence[Sequence[T]], per_group: int) -> list[T]:
    """Seeds for a knockout from group rankings: all group winners, then all runners-up, ...

    With the standard bracket this keeps two pairs of one group apart in the first round
    (1A v 2B and 1B v 2A for two groups).
    """
    if per_group < 1:
        raise ScopaError(f"knockout: qualifiers per group must be at least 1, got {per_group}")
    for index, ranking in enumerate(group_rankings):
        if len(ranking) < per_group:
            raise ScopaError(
                f"knockout: group {index + 1} has {len(ranking)} pairs, fewer than {per_group}"
            )
    return [ranking[place] for place in range(per_group) for ranking in group_rankings]


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order: for 8, [1, 8, 4, 5, 2, 7, 3, 6].

    Adjacent entries meet in the first round, and the top two seeds can meet only in the final.
    """
    if size < 2 or size & (size - 1):
        raise ScopaError(f"knockout: size must be a power of two (2, 4, 8, ...), got {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def knockout_first_round(seeds: Sequence[T]) -> list[tuple[T, T]]:
    """First knockout round for seeds listed best first (their number a power of two)."""
    order = bracket_order(len(seeds))
    return [(seeds[order[i] - 1], seeds[order[i + 1] - 1]) for i in range(0, len(order), 2)]


def knockout_next_round(winners: Sequence[T]) -> list[tuple[T, T]]:
    """Next knockout round from the previous round's winners, listed in bracket order."""
    if len(winners) < 2 or len(winners) % 2:
        raise ScopaError(f"knockout: cannot pair {len(winners)} winners")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
