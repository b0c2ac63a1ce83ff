"""Pairing rules: groups, round robin, Swiss rounds, knockout bracket."""

from itertools import combinations

import pytest

from scopa.tournament.pairing import (
    bracket_order,
    knockout_first_round,
    knockout_next_round,
    knockout_seeds,
    round_robin,
    split_groups,
    swiss_pairings,
)
from scoring.errors import ScopaError


def test_snake_seeding_balances_groups():
    assert split_groups(list(range(1, 9)), 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert split_groups(list(range(1, 8)), 3) == [[1, 6, 7], [2, 5], [3, 4]]


def test_split_groups_refuses_groups_of_one():
    with pytest.raises(ScopaError, match="groups"):
        split_groups([1, 2, 3], 2)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7, 8, 11])
def test_round_robin_every_pair_meets_every_other_once(count):
    pairs = list(range(count))
    rounds = round_robin(pairs)
    assert len(rounds) == (count if count % 2 else count - 1)
    meetings = [frozenset((a, b)) for matches in rounds for a, b in matches if b is not None]
    assert sorted(meetings, key=sorted) == sorted(
        (frozenset(c) for c in combinations(pairs, 2)), key=sorted
    )
    for matches in rounds:
        playing = [p for match in matches for p in match if p is not None]
        assert len(playing) == len(set(playing)) == count  # nobody twice in a round
    byes = [a for matches in rounds for a, b in matches if b is None]
    assert sorted(byes) == (pairs if count % 2 else [])  # each pair rests exactly once


def test_swiss_pairs_neighbours_in_the_ranking():
    assert swiss_pairings([1, 2, 3, 4], played=()) == [(1, 2), (3, 4)]


def test_swiss_avoids_rematches_by_moving_the_pairing_up():
    played = {frozenset((1, 2)), frozenset((3, 4))}
    assert swiss_pairings([1, 2, 3, 4], played) == [(1, 3), (2, 4)]
    # 1-2 would leave 3-4, who already met: the top pairing moves so that the bottom can too
    assert swiss_pairings([1, 2, 3, 4], {frozenset((3, 4)), frozenset((1, 3))}) == [(1, 4), (2, 3)]


def test_swiss_bye_goes_to_lowest_ranked_without_one():
    pairing = swiss_pairings([1, 2, 3, 4, 5], played=(), had_bye={5})
    assert (4, None) in pairing
    assert sorted(p for match in pairing for p in match if p is not None) == [1, 2, 3, 4, 5]


def test_swiss_allows_a_rematch_only_when_unavoidable():
    everyone_met = {frozenset(c) for c in combinations([1, 2, 3, 4], 2)}
    pairing = swiss_pairings([1, 2, 3, 4], everyone_met)
    assert sorted(sorted(m) for m in pairing) == [[1, 2], [3, 4]]


def test_bracket_keeps_top_seeds_apart():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert knockout_first_round(["s1", "s2", "s3", "s4"]) == [("s1", "s4"), ("s2", "s3")]
    with pytest.raises(ScopaError, match="power of two"):
        bracket_order(6)


def test_knockout_seeds_cross_groups():
    groups = [["A1", "A2", "A3"], ["B1", "B2", "B3"]]
    seeds = knockout_seeds(groups, 2)
    assert seeds == ["A1", "B1", "A2", "B2"]
    assert knockout_first_round(seeds) == [("A1", "B2"), ("B1", "A2")]


def test_knockout_next_round_follows_the_bracket():
    assert knockout_next_round(["w1", "w2", "w3", "w4"]) == [("w1", "w2"), ("w3", "w4")]
    with pytest.raises(ScopaError):
        knockout_next_round(["w1"])
