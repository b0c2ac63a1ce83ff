"""Scoring one hand: every category of RULES.md, every option, every validation error."""

import pytest

from scoring import (
    CARD_CODES,
    CATEGORIES,
    PRESETS,
    Rules,
    ScopaError,
    SideInput,
    Suit,
    parse_card,
    score_hand,
)

CLASSICA = PRESETS["classica"]
ASSI = PRESETS["assi"]
TORNEO = PRESETS["torneo-assi"]


def deal(
    *piles: list[str], rest: int = -1, scope: tuple[int, ...] | None = None, names: str = "ABCD"
):
    """Sides from the given piles, the cards nobody was given going to pile ``rest``."""
    piles = [list(pile) for pile in piles]
    given = {code.upper() for pile in piles for code in pile}
    piles[rest].extend(code for code in CARD_CODES if code not in given)
    scope = scope or (0,) * len(piles)
    return {names[i]: {"cards": pile, "scope": scope[i]} for i, pile in enumerate(piles)}


def ranks(low: int, high: int, suits: str = "DCSB") -> list[str]:
    return [f"{rank}{suit}" for suit in suits for rank in range(low, high + 1)]


def points(result, side: str) -> dict[str, int]:
    return result.sides[side].points


def test_worked_example_of_the_tournament_sheet_81_against_75():
    sides = deal(["7C", "7B", "7D", "6S"], [])
    result = score_hand(sides, TORNEO)
    a, b = result.sides["A"], result.sides["B"]
    assert a.primiera == 81
    assert b.primiera == 75
    assert {suit.value: card.code for suit, card in a.primiera_cards.items()} == {
        "D": "7D",
        "C": "7C",
        "S": "6S",
        "B": "7B",
    }
    assert sorted(card.code for card in b.primiera_cards.values()) == ["6B", "6C", "6D", "7S"]
    assert a.points["primiera"] == 1 and b.points["primiera"] == 0
    assert result.winners["primiera"] == "A"


def test_every_category_of_a_full_hand():
    # A: ranks 1-5 of every suit (20 cards), B: ranks 6-10 (20 cards), scope 2 and 1.
    sides = deal(ranks(1, 5), [], scope=(2, 1))
    result = score_hand(sides, CLASSICA)
    assert points(result, "A") == {
        "scope": 2, "carte": 0, "denari": 0, "primiera": 0, "settebello": 0, "napola": 0, "re_bello": 0,
    }  # fmt: skip
    assert points(result, "B") == {
        "scope": 1, "carte": 0, "denari": 0, "primiera": 1, "settebello": 1, "napola": 0, "re_bello": 0,
    }  # fmt: skip
    assert result.totals == {"A": 2, "B": 3}
    a = result.sides["A"]
    assert (a.cards_count, a.denari_count, a.primiera, a.napola_run) == (20, 5, 64, 0)
    assert result.sides["B"].primiera == 84
    assert result.winners == {
        "carte": None, "denari": None, "primiera": "B", "settebello": "B", "napola": None, "re_bello": None,
    }  # fmt: skip
    assert result.napoleone is None
    assert list(result.sides["A"].points) == list(CATEGORIES)


def test_carte_and_denari_go_to_the_strictly_highest():
    result = score_hand(deal(["1D", "2D", "3D", "4D", "5D", "6D", "1C"], []), CLASSICA)
    assert points(result, "A")["denari"] == 1  # 6 denari against 4
    assert points(result, "B")["carte"] == 1  # 33 cards against 7
    assert result.sides["A"].denari_count == 6
    assert result.sides["B"].cards_count == 33


def test_settebello_scores_for_its_holder():
    result = score_hand(deal(["7D"], []), CLASSICA)
    assert points(result, "A")["settebello"] == 1
    assert points(result, "B")["settebello"] == 0


@pytest.mark.parametrize(
    ("run", "expected_points"),
    [
        (["1D", "2D"], 0),
        (["1D", "2D", "3D"], 3),
        (["1D", "2D", "3D", "4D"], 4),
        (["1D", "2D", "3D", "4D", "5D"], 5),
        (["1D", "2D", "3D", "5D", "6D"], 3),  # the run stops at the gap
        (["2D", "3D", "4D", "5D"], 0),  # no asso, no napola
        ([f"{rank}D" for rank in range(1, 10)], 9),
        ([f"{rank}D" for rank in range(1, 11)], 10),
    ],
)
def test_napola_runs_from_the_asso_without_gaps(run, expected_points):
    result = score_hand(deal(run, []), ASSI)
    assert points(result, "A")["napola"] == expected_points
    assert result.sides["A"].napola_run == expected_points
    assert points(result, "B")["napola"] == 0
    assert result.winners["napola"] == ("A" if expected_points else None)


def test_napola_is_off_in_classica():
    result = score_hand(deal(["1D", "2D", "3D", "4D"], []), CLASSICA)
    assert points(result, "A")["napola"] == 0
    assert result.sides["A"].napola_run == 0
    assert (
        score_hand(deal(["1D", "2D", "3D", "4D"], []), CLASSICA.with_options(napola=True))
        .sides["A"]
        .points["napola"]
        == 4
    )


def test_napola_can_go_to_the_side_that_is_not_first():
    result = score_hand(deal(["4D"], ["1D", "2D", "3D"], rest=0), ASSI)
    assert points(result, "B")["napola"] == 3
    assert points(result, "A")["napola"] == 0


def test_all_ten_denari_is_the_napoleone_when_the_option_is_on():
    all_denari = [f"{rank}D" for rank in range(1, 11)]
    with_napoleone = score_hand(deal(["1C", "2C"], all_denari, rest=0), TORNEO)
    assert with_napoleone.napoleone == "B"
    assert points(with_napoleone, "B")["napola"] == 10
    without = score_hand(deal(["1C", "2C"], all_denari, rest=0), ASSI)
    assert without.napoleone is None  # option off: nothing to report, the match goes on
    assert points(without, "B")["napola"] == 10
    # RULES.md: the napoleone is a napola of all ten denari; with napola off there is none,
    # whatever the napoleone option says.
    only_napoleone = score_hand(deal(all_denari, []), CLASSICA.with_options(napoleone=True))
    assert only_napoleone.napoleone is None
    assert points(only_napoleone, "A")["napola"] == 0
    assert (
        score_hand(
            deal(all_denari, []), CLASSICA.with_options(napoleone=True, napola=True)
        ).napoleone
        == "A"
    )


def test_nine_denari_are_not_the_napoleone():
    result = score_hand(deal([f"{rank}D" for rank in range(1, 10)], []), TORNEO)
    assert result.napoleone is None


def test_re_bello_only_when_on():
    sides = deal(["10D"], [])
    assert points(score_hand(sides, CLASSICA), "A")["re_bello"] == 0
    on = score_hand(sides, CLASSICA.with_options(re_bello=True))
    assert points(on, "A")["re_bello"] == 1
    assert points(on, "B")["re_bello"] == 0
    assert on.winners["re_bello"] == "A"


def test_ace_sweep_option_does_not_change_the_score_of_a_hand():
    sides = deal(ranks(1, 3), [], scope=(3, 2))
    base = score_hand(sides, ASSI)
    assert score_hand(sides, ASSI.with_options(ace_sweep_is_scopa=True)).totals == base.totals


def test_ties_at_the_top_score_nothing():
    # 20 cards each, 5 denari each, and mirrored suits: each side's primiera is 16 + 21 + 16 + 21.
    a = (
        ["1D", "2D", "3D", "4D", "5D"]
        + ["6C", "7C", "8C", "9C", "10C"]
        + ranks(1, 5, "S")
        + ranks(6, 10, "B")
    )
    result = score_hand(deal(a, []), CLASSICA)
    assert result.sides["A"].cards_count == result.sides["B"].cards_count == 20
    assert result.sides["A"].denari_count == result.sides["B"].denari_count == 5
    assert result.sides["A"].primiera == result.sides["B"].primiera == 16 + 21 + 16 + 21
    assert result.winners["carte"] is None
    assert result.winners["denari"] is None
    assert result.winners["primiera"] is None
    assert result.winners["settebello"] == "B"


# A holds ranks 1, 4, 5, 6, 7 of denari, coppe and spade, and no bastoni: 63 on three suits.
# B holds the rest, all four suits, with 3s as best outside bastoni: 13 * 3 + 21 = 60.
LACKING_BASTONI = [f"{rank}{suit}" for suit in "DCS" for rank in (1, 4, 5, 6, 7)]


def test_missing_suit_lose_a_side_without_a_suit_cannot_win():
    result = score_hand(deal(LACKING_BASTONI, []), CLASSICA)
    a, b = result.sides["A"], result.sides["B"]
    assert a.primiera is None  # not eligible
    assert a.primiera_sum == 63
    assert Suit.BASTONI not in a.primiera_cards
    assert b.primiera == 60
    assert result.winners["primiera"] == "B"


def test_missing_suit_count_a_missing_suit_adds_zero():
    result = score_hand(
        deal(LACKING_BASTONI, []), CLASSICA.with_options(primiera_missing_suit="count")
    )
    assert result.sides["A"].primiera == 63
    assert result.sides["B"].primiera == 60
    assert result.winners["primiera"] == "A"


def test_missing_suit_lose_nobody_eligible_nobody_scores():
    a = ranks(1, 10, "DC") + ["1S"]  # no bastoni
    b = ranks(2, 10, "S") + ranks(1, 10, "B")  # no denari, no coppe
    sides = {"A": {"cards": a}, "B": {"cards": b}}
    assert score_hand(sides, CLASSICA).winners["primiera"] is None
    counted = score_hand(sides, CLASSICA.with_options(primiera_missing_suit="count"))
    assert counted.sides["A"].primiera == 21 + 21 + 16
    assert counted.sides["B"].primiera == 21 + 21
    assert counted.winners["primiera"] == "A"


def test_three_sides():
    sides = deal(ranks(1, 3), ranks(4, 6), [], scope=(1, 2, 0))
    result = score_hand(sides, ASSI)
    assert result.totals == {"A": 1 + 3, "B": 2, "C": 4}
    assert points(result, "A")["napola"] == 3
    assert result.winners == {
        "carte": "C", "denari": "C", "primiera": "C", "settebello": "C", "napola": "A", "re_bello": None,
    }  # fmt: skip
    assert [side.primiera for side in result.sides.values()] == [64, 72, 84]


def test_four_sides_keep_their_input_order():
    sides = deal(ranks(1, 2), ranks(3, 4), ranks(5, 6), [], names="WXYZ")
    ordered = {name: sides[name] for name in ["Z", "X", "W", "Y"]}
    result = score_hand(ordered, CLASSICA.with_options(re_bello=True))
    assert list(result.sides) == ["Z", "X", "W", "Y"]
    assert result.winners["carte"] == "Z"  # 16 cards against 8
    assert result.winners["denari"] == "Z"
    assert result.winners["settebello"] == "Z"
    assert result.winners["re_bello"] == "Z"
    assert result.winners["primiera"] == "Z"


def test_side_inputs_and_free_text_names():
    sides = deal(["7D"], [], names=["Noi", "Loro"])
    as_inputs = {
        name: SideInput(cards=side["cards"], scope=side["scope"]) for name, side in sides.items()
    }
    assert isinstance(as_inputs["Noi"].cards, frozenset)
    assert score_hand(as_inputs, CLASSICA) == score_hand(sides, CLASSICA)
    assert SideInput.from_spec({"cards": ["7d"]}, side="Noi") == SideInput(
        frozenset([parse_card("7D")]), 0
    )


def test_to_dict_has_the_documented_fields():
    result = score_hand(deal(["7C", "7B", "7D", "6S"], [], scope=(1, 0)), TORNEO)
    data = result.to_dict()
    assert data["napoleone"] is None
    side = data["sides"]["A"]
    assert side["points"] == {
        "scope": 1, "carte": 0, "denari": 0, "primiera": 1, "settebello": 1, "napola": 0, "re_bello": 0,
    }  # fmt: skip
    assert side["total"] == 3
    assert side["cards_count"] == 4 and side["denari_count"] == 1
    assert side["primiera"] == 81
    assert side["primiera_cards"] == {"D": "7D", "C": "7C", "S": "6S", "B": "7B"}
    assert side["napola_run"] == 0
    assert side["cards"] == ["7D", "7C", "6S", "7B"]
    assert data["totals"] == {"A": 3, "B": 8}  # B: carte, denari and a napola of 6


# --- validation -----------------------------------------------------------------------------


def error_of(sides, rules=CLASSICA) -> str:
    with pytest.raises(ScopaError) as info:
        score_hand(sides, rules)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_unknown_code_is_named_with_its_side():
    sides = deal(["7D"], [])
    sides["A"]["cards"].append("11D")
    assert "side 'A': unknown card code '11D'" in error_of(sides)


def test_duplicate_within_a_side():
    sides = deal(["7D", "7d"], [])
    assert error_of(sides) == "side 'A': card 7D is listed twice"


def test_duplicate_across_sides_names_both_sides():
    sides = deal(["7D"], [])
    sides["B"]["cards"].append("7D")
    assert error_of(sides) == "card 7D is in two sides: 'A' and 'B'"


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        (-1, "side 'A': scope cannot be negative, got -1"),
        (1.5, "side 'A': scope must be a whole number, got 1.5"),
        (1.0, "side 'A': scope must be a whole number, got 1.0"),
        ("1", "side 'A': scope must be a whole number, got '1'"),
        (True, "side 'A': scope must be a whole number, got True"),
        (None, "side 'A': scope must be a whole number, got None"),
        (3, "side 'A': 3 scope is impossible with 5 cards"),
    ],
)
def test_impossible_scope(scope, message):
    sides = deal(["1D", "2D", "3D", "4D", "5D"], [])
    sides["A"]["scope"] = scope
    assert message in error_of(sides)


def test_scope_at_the_limit_is_fine():
    sides = deal(["1D", "2D", "3D", "4D", "5D"], [], scope=(2, 17))
    assert score_hand(sides, CLASSICA).totals["A"] == 2


def test_scope_of_a_side_input_is_checked_too():
    sides = {
        "A": SideInput(frozenset(), -2),
        "B": SideInput(frozenset(parse_card(c) for c in CARD_CODES)),
    }
    assert "side 'A': scope cannot be negative" in error_of(sides)


@pytest.mark.parametrize("count", [0, 1, 5])
def test_two_to_four_sides(count):
    sides = {f"S{i}": {"cards": []} for i in range(count)}
    assert f"a hand has 2 to 4 sides, got {count}" in error_of(sides)


def test_incomplete_hand_points_to_provisional_scoring():
    sides = deal(["7D"], [])
    sides["B"]["cards"].remove("10B")
    sides["B"]["cards"].remove("1C")
    message = error_of(sides)
    assert "incomplete: 2 cards missing (1C, 10B)" in message
    assert "score_provisional" in message


@pytest.mark.parametrize(
    ("sides", "message"),
    [
        ([["7D"]], "sides must be an object"),
        ({"A": ["7D"], "B": {"cards": []}}, "side 'A': expected an object"),
        ({"A": {"cards": [], "scopa": 1}, "B": {"cards": []}}, "side 'A': unknown field 'scopa'"),
        ({"A": {"scope": 1}, "B": {"cards": []}}, "side 'A': missing field 'cards'"),
        ({"A": {"cards": "7D"}, "B": {"cards": []}}, "side 'A': cards must be a list"),
        ({"": {"cards": []}, "B": {"cards": []}}, "side names must be non-empty text"),
        ({1: {"cards": []}, "B": {"cards": []}}, "side names must be non-empty text"),
    ],
)
def test_wrong_shapes(sides, message):
    assert message in error_of(sides)


def test_rules_must_be_rules():
    with pytest.raises(ScopaError, match="rules must be a Rules object"):
        score_hand(deal([], []), "classica")


def test_rules_keep_the_result_reproducible():
    sides = deal(ranks(1, 5), [])
    assert score_hand(sides, Rules.from_spec("classica")) == score_hand(sides, CLASSICA)
