"""Standings: wins first, head-to-head among the tied, then points difference and points for."""

from scopa.tournament.standings import MatchResult, compute_standings


def result(a, b, score_a, score_b):
    return MatchResult(a, b, score_a, score_b, a if score_a > score_b else b)


def ranking(rows):
    return [(row.rank, row.pair) for row in rows]


def test_counts_wins_points_for_against_and_difference():
    rows = compute_standings(["A", "B"], [result("A", "B", 33, 20)])
    a, b = rows
    assert (a.pair, a.played, a.won, a.lost, a.points_for, a.points_against) == (
        "A",
        1,
        1,
        0,
        33,
        20,
    )
    assert a.difference == 13 and b.difference == -13
    assert (b.won, b.lost) == (0, 1)


def test_head_to_head_beats_a_better_difference():
    # A and B both won 2; B has the much better difference but lost to A.
    results = [
        result("A", "B", 32, 30),
        result("A", "C", 31, 29),
        result("B", "C", 31, 2),
        result("B", "D", 31, 0),
        result("C", "D", 31, 30),
        result("D", "A", 31, 25),
    ]
    rows = compute_standings(["A", "B", "C", "D"], results)
    assert ranking(rows) == [(1, "A"), (2, "B"), (3, "C"), (4, "D")]


def test_three_way_tie_goes_to_the_mini_league_then_difference():
    # A, B, C beat each other in a circle: head-to-head cannot split them; difference does
    # (A +20, B -5, C -15).
    results = [
        result("A", "B", 31, 10),
        result("B", "C", 31, 15),
        result("C", "A", 31, 30),
    ]
    rows = compute_standings(["A", "B", "C"], results)
    assert ranking(rows) == [(1, "A"), (2, "B"), (3, "C")]


def test_mini_league_applies_again_inside_a_subgroup():
    # A, B, C, D all won 2. Among themselves A and B won 2, C and D 1: the mini-league is
    # applied again to each level, so A (beat B) is above B and C (beat D) above D, although
    # D has the better difference.
    results = [
        result("A", "B", 31, 30),
        result("A", "C", 31, 30),
        result("C", "D", 31, 30),
        result("B", "C", 31, 30),
        result("D", "A", 31, 30),
        result("B", "D", 31, 30),
        result("D", "E", 31, 0),
        result("C", "E", 31, 29),
    ]
    rows = compute_standings(["A", "B", "C", "D", "E"], results)
    wins = {row.pair: row.won for row in rows}
    assert wins == {"A": 2, "B": 2, "C": 2, "D": 2, "E": 0}
    assert ranking(rows) == [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")]
    difference = {row.pair: row.difference for row in rows}
    assert difference["D"] > difference["C"]


def test_fully_level_pairs_share_a_rank_and_keep_seed_order():
    rows = compute_standings(["S1", "S2", "S3"], [])
    assert ranking(rows) == [(1, "S1"), (1, "S2"), (1, "S3")]


def test_a_bye_counts_as_a_win_without_points():
    rows = compute_standings(["A", "B"], [MatchResult("A", None, 0, 0, "A")])
    a = rows[0]
    assert (a.pair, a.won, a.byes, a.points_for, a.points_against) == ("A", 1, 1, 0, 0)
