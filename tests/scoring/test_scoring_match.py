"""Matches: running totals, target, simultaneous reach, spareggio, napoleone, edits."""

import pytest

from scoring import CARD_CODES, PRESETS, Match, ScopaError

CLASSICA = PRESETS["classica"]
TORNEO = PRESETS["torneo-assi"]
LOW = [f"{rank}{suit}" for suit in "DCSB" for rank in range(1, 6)]  # ranks 1-5
HIGH = [code for code in CARD_CODES if code not in LOW]  # ranks 6-10
ALL_DENARI = [f"{rank}D" for rank in range(1, 11)]


def hand(a_scope: int = 0, b_scope: int = 0, names: tuple[str, str] = ("A", "B")):
    """A classica hand worth a_scope to A and 2 + b_scope to B (primiera and settebello).

    Carte and denari are tied (20 cards and 5 denari each).
    """
    return {
        names[0]: {"cards": LOW, "scope": a_scope},
        names[1]: {"cards": HIGH, "scope": b_scope},
    }


def napoleone_hand(holder: str = "A", other: str = "B"):
    return {
        holder: {"cards": ALL_DENARI, "scope": 0},
        other: {"cards": [c for c in CARD_CODES if c not in ALL_DENARI], "scope": 0},
    }


def three_sides(a_scope: int, b_scope: int, c_scope: int):
    """Ranks 1-3 to A, 4-6 to B, 7-10 to C: classica points A 0, B 0, C 4, plus scope."""
    cards = {
        "A": [f"{r}{s}" for s in "DCSB" for r in range(1, 4)],
        "B": [f"{r}{s}" for s in "DCSB" for r in range(4, 7)],
        "C": [f"{r}{s}" for s in "DCSB" for r in range(7, 11)],
    }
    scopes = {"A": a_scope, "B": b_scope, "C": c_scope}
    return {name: {"cards": cards[name], "scope": scopes[name]} for name in cards}


def test_hand_helper_scores_as_documented():
    match = Match(CLASSICA, ["A", "B"])
    result = match.add_hand(hand(3, 1))
    assert result.totals == {"A": 3, "B": 3}


def test_running_totals_until_a_side_reaches_the_target():
    match = Match(CLASSICA, ["A", "B"])
    assert (match.totals, match.status, match.winner) == ({"A": 0, "B": 0}, "in-progress", None)
    match.add_hand(hand(5, 0))
    assert match.totals == {"A": 5, "B": 2}
    assert match.status == "in-progress"
    match.add_hand(hand(5, 1))
    assert match.totals == {"A": 10, "B": 5}
    assert match.status == "in-progress"
    match.add_hand(hand(1, 0))  # A reaches 11 exactly
    assert match.totals == {"A": 11, "B": 7}
    assert (match.status, match.winner, match.decided, match.decided_at) == ("won", "A", True, 2)
    assert len(match.hands) == 3


def test_passing_the_target_wins_too():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(10, 0))
    match.add_hand(hand(8, 0))
    assert (match.status, match.winner, match.totals["A"]) == ("won", "A", 18)


def test_both_reach_the_target_in_the_same_hand_the_highest_wins():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(8, 6))  # A 8, B 8
    assert match.status == "in-progress"
    match.add_hand(hand(5, 2))  # A 13, B 12
    assert match.totals == {"A": 13, "B": 12}
    assert (match.status, match.winner) == ("won", "A")


def test_tied_highest_totals_go_to_spareggio_until_the_tie_is_broken():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(10, 8))  # A 10, B 10
    match.add_hand(hand(2, 0))  # A 12, B 12
    assert (match.status, match.winner, match.spareggio) == ("spareggio", None, ("A", "B"))
    match.add_hand(hand(2, 0))  # still tied: 14 and 14
    assert match.status == "spareggio"
    match.add_hand(hand(0, 0))  # B 16, A 14
    assert (match.status, match.winner, match.spareggio) == ("won", "B", ())
    with pytest.raises(ScopaError, match="already decided"):
        match.add_hand(hand())


def test_a_side_below_the_tie_is_not_in_the_spareggio_and_cannot_win_it():
    rules = CLASSICA.with_options(target=11)
    match = Match(rules, ["A", "B", "C"])
    match.add_hand(three_sides(6, 6, 0))  # A 6, B 6, C 4
    match.add_hand(three_sides(6, 6, 0))  # A 12, B 12, C 8: A and B tied at the top
    assert match.status == "spareggio"
    assert match.spareggio == ("A", "B")
    match.add_hand(three_sides(1, 0, 8))  # A 13, B 12, C 20: C is highest but not in it
    assert (match.status, match.winner) == ("won", "A")


def test_spareggio_between_three_narrows_to_the_ones_still_tied():
    match = Match(CLASSICA, ["A", "B", "C"])
    match.add_hand(three_sides(5, 5, 1))  # 5, 5, 5
    match.add_hand(three_sides(6, 6, 2))  # 11, 11, 11
    assert match.spareggio == ("A", "B", "C")
    match.add_hand(three_sides(4, 4, 0))  # 15, 15, 15: C scores its 4 points
    assert match.spareggio == ("A", "B", "C")
    match.add_hand(three_sides(1, 1, 0))  # 16, 16, 19: C leads
    assert (match.status, match.winner) == ("won", "C")


def test_spareggio_narrowing():
    match = Match(CLASSICA, ["A", "B", "C"])
    match.add_hand(three_sides(6, 6, 2))  # 6, 6, 6
    match.add_hand(three_sides(6, 6, 2))  # 12, 12, 12
    match.add_hand(three_sides(4, 4, 0))  # 16, 16, 16
    match.add_hand(three_sides(5, 5, 0))  # 21, 21, 20: C drops out
    assert match.spareggio == ("A", "B")
    match.add_hand(three_sides(0, 1, 6))  # 21, 22, 30: C cannot win any more
    assert (match.status, match.winner) == ("won", "B")


def test_napoleone_wins_at_once_when_on():
    match = Match(TORNEO, ["Noi", "Loro"])
    match.add_hand(hand(0, 5, names=("Noi", "Loro")))
    result = match.add_hand(napoleone_hand("Noi", "Loro"))
    assert result.napoleone == "Noi"
    assert match.totals["Noi"] < TORNEO.target
    assert (match.status, match.winner, match.napoleone) == ("won", "Noi", "Noi")
    with pytest.raises(ScopaError, match="already decided"):
        match.add_hand(hand(names=("Noi", "Loro")))


def test_napoleone_does_not_end_the_match_when_off():
    match = Match(PRESETS["assi"].with_options(target=21), ["A", "B"])
    result = match.add_hand(napoleone_hand())
    assert result.napoleone is None
    assert match.totals["A"] == 10 + 1 + 1  # napola, denari, settebello
    assert match.status == "in-progress"


def test_napoleone_during_a_spareggio_wins_even_for_a_side_outside_it():
    rules = CLASSICA.with_options(napoleone=True, napola=True)  # no napoleone without napola
    match = Match(rules, ["A", "B", "C"])
    match.add_hand(three_sides(3, 6, 0))  # A's napola of 1-2-3 denari is worth 3
    match.add_hand(three_sides(3, 6, 0))
    assert match.spareggio == ("A", "B")
    others = [c for c in CARD_CODES if c not in ALL_DENARI]
    match.add_hand(
        {"A": {"cards": others[:15]}, "B": {"cards": others[15:]}, "C": {"cards": ALL_DENARI}}
    )
    assert (match.status, match.winner, match.napoleone) == ("won", "C", "C")


def test_hands_must_have_the_match_sides():
    match = Match(CLASSICA, ["Noi", "Loro"])
    with pytest.raises(ScopaError, match="the hand lacks side 'Loro'"):
        match.add_hand(hand(names=("Noi", "Voi")))
    with pytest.raises(ScopaError, match="the hand has unknown side 'X'"):
        match.add_hand({**hand(names=("Noi", "Loro")), "X": {"cards": []}})
    assert match.hands == ()


def test_side_order_follows_the_match():
    match = Match(CLASSICA, ["B", "A"])
    result = match.add_hand(hand(1, 0))
    assert list(result.sides) == ["B", "A"]
    assert list(match.totals) == ["B", "A"]


def test_replace_hand_recomputes_later_totals():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(1, 0))
    match.add_hand(hand(2, 0))
    match.add_hand(hand(3, 0))
    assert match.totals == {"A": 6, "B": 6}
    replaced = match.replace_hand(0, hand(4, 1))
    assert replaced.totals == {"A": 4, "B": 3}
    assert match.totals == {"A": 9, "B": 7}
    assert match.hands[0] == replaced
    assert match.status == "in-progress"
    match.replace_hand(-1, hand(5, 0))  # the last one: A 11, B 7
    assert (match.status, match.winner) == ("won", "A")
    match.replace_hand(2, hand(0, 0))  # undoes the win
    assert match.status == "in-progress"


def test_replace_that_would_decide_the_match_earlier_is_refused():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(1, 0))
    match.add_hand(hand(2, 0))
    before = (match.totals, match.status, match.hands)
    with pytest.raises(ScopaError, match="would be decided at hand 1"):
        match.replace_hand(0, hand(0, 10, names=("B", "A")))  # A: 10 scope, primiera, settebello
    assert (match.totals, match.status, match.hands) == before


def test_replace_with_bad_input_leaves_the_match_unchanged():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(1, 0))
    before = (match.totals, match.hands)
    bad = hand(1, 0)
    bad["A"]["cards"] = [*LOW[:-1], "7D"]
    with pytest.raises(ScopaError, match="7D"):
        match.replace_hand(0, bad)
    with pytest.raises(ScopaError, match="no hand 1"):
        match.replace_hand(1, hand())
    with pytest.raises(ScopaError, match="hand index must be an integer"):
        match.replace_hand("0", hand())
    assert (match.totals, match.hands) == before


def test_undo_last():
    match = Match(CLASSICA, ["A", "B"])
    with pytest.raises(ScopaError, match="no hand to undo"):
        match.undo_last()
    first = match.add_hand(hand(4, 0))
    last = match.add_hand(hand(7, 0))
    assert match.winner == "A"
    assert match.undo_last() == last
    assert (match.totals, match.status, match.winner) == ({"A": 4, "B": 2}, "in-progress", None)
    assert match.hands == (first,)
    match.add_hand(hand(1, 0))  # possible again once undone
    assert match.totals == {"A": 5, "B": 4}


def test_undo_leaves_a_spareggio_state_correct():
    match = Match(CLASSICA, ["A", "B"])
    match.add_hand(hand(10, 8))
    match.add_hand(hand(2, 0))
    assert match.status == "spareggio"
    match.add_hand(hand(3, 0))
    assert match.status == "won"
    match.undo_last()
    assert (match.status, match.spareggio) == ("spareggio", ("A", "B"))


@pytest.mark.parametrize(
    ("sides", "message"),
    [
        (["A"], "2 to 4 sides, got 1"),
        (["A", "B", "C", "D", "E"], "2 to 4 sides, got 5"),
        (["A", "A"], "side 'A' is named twice"),
        (["A", ""], "non-empty text"),
        ("AB", "list of side names"),
    ],
)
def test_match_sides_are_checked(sides, message):
    with pytest.raises(ScopaError, match=message):
        Match(CLASSICA, sides)


def test_match_needs_rules():
    with pytest.raises(ScopaError, match="Rules object"):
        Match("classica", ["A", "B"])


def test_from_hands_and_to_dict():
    match = Match.from_hands(CLASSICA, [hand(4, 0), hand(7, 1)])
    data = match.to_dict()
    assert data["totals"] == {"A": 11, "B": 5}
    assert data["status"] == "won"
    assert data["winner"] == "A"
    assert data["napoleone"] is None
    assert data["spareggio"] == []
    assert data["target"] == 11
    assert len(data["hands"]) == 2
    assert data["hands"][1]["sides"]["A"]["total"] == 7


def test_from_hands_names_the_hand_at_fault():
    with pytest.raises(ScopaError, match="hand 3: the match is already decided"):
        Match.from_hands(CLASSICA, [hand(4, 0), hand(7, 1), hand()])
    with pytest.raises(ScopaError, match="at least one hand"):
        Match.from_hands(CLASSICA, [])
    bad = hand()
    bad["B"]["scope"] = -1
    with pytest.raises(ScopaError, match="hand 2: side 'B': scope cannot be negative"):
        Match.from_hands(CLASSICA, [hand(), bad])
