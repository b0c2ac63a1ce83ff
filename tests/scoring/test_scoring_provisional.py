"""Provisional scoring of incomplete hands, checked against brute force over every placement."""

import random
import time
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import (
    CARD_CODES,
    CATEGORIES,
    DECK,
    PRESETS,
    ScopaError,
    parse_card,
    score_hand,
    score_provisional,
)

CLASSICA = PRESETS["classica"]
TORNEO = PRESETS["torneo-assi"]
RULE_VARIANTS = [
    PRESETS["classica"],
    PRESETS["assi"],
    PRESETS["torneo-assi"],
    PRESETS["classica"].with_options(re_bello=True, primiera_missing_suit="count"),
    PRESETS["classica"].with_options(napoleone=True),
]
NAMES = ("Noi", "Loro", "Voi", "Essi")


def without(sides: dict, *codes: str) -> dict:
    """A copy of ``sides`` with these cards taken out (they become missing)."""
    gone = {code.upper() for code in codes}
    return {
        name: {**side, "cards": [c for c in side["cards"] if c.upper() not in gone]}
        for name, side in sides.items()
    }


def split(owner: list[int], names=NAMES) -> dict:
    """Sides from an owner index for each card of the deck."""
    sides = {names[i]: {"cards": [], "scope": 0} for i in range(max(owner) + 1)}
    for code, side in zip(CARD_CODES, owner, strict=True):
        sides[names[side]]["cards"].append(code)
    return sides


def brute_force(sides: dict, rules, allowed: dict[str, list[str]]):
    """Every category's outcome over every placement of the missing cards, scored in full.

    Returns (set of outcomes, deciding cards) per category, "napoleone" included.
    """
    names = list(sides)
    missing = sorted(allowed, key=lambda code: parse_card(code).index)
    outcomes: dict[str, dict[tuple, object]] = {}
    for combo in product(*(allowed[code] for code in missing)):
        complete = {
            name: {"cards": list(side["cards"]), "scope": 0} for name, side in sides.items()
        }
        for code, name in zip(missing, combo, strict=True):
            complete[name]["cards"].append(code)
        result = score_hand(complete, rules)
        for category in CATEGORIES[1:]:
            outcomes.setdefault(category, {})[combo] = tuple(
                result.sides[name].points[category] for name in names
            )
        outcomes.setdefault("napoleone", {})[combo] = result.napoleone
    report = {}
    for category, by_combo in outcomes.items():
        deciding = set()
        for i, code in enumerate(missing):
            seen: dict[tuple, set] = {}
            for combo, outcome in by_combo.items():
                seen.setdefault(combo[:i] + combo[i + 1 :], set()).add(outcome)
            if any(len(values) > 1 for values in seen.values()):
                deciding.add(code)
        report[category] = (set(by_combo.values()), deciding)
    return report


def check_against_brute_force(sides, rules, placements=None):
    names = list(sides)
    result = score_provisional(sides, rules, placements=placements)
    held = {c.upper() for side in sides.values() for c in side["cards"]}
    allowed = {code: list(names) for code in CARD_CODES if code not in held}
    for code, targets in (placements or {}).items():
        allowed[code] = [name for name in names if name in targets]
    truth = brute_force(sides, rules, allowed)
    assert [card.code for card in result.missing] == sorted(
        allowed, key=lambda c: parse_card(c).index
    )
    assert result.exact
    for category, (outcomes, deciding) in truth.items():
        if category == "napoleone":
            at_stake, reported = result.napoleone_at_stake, result.napoleone_deciding
        else:
            at_stake, reported = result.at_stake[category], result.deciding[category]
        assert at_stake == (len(outcomes) > 1), category
        assert {card.code for card in reported} == (deciding if at_stake else set()), category
        if category != "napoleone" and not at_stake:
            assert tuple(result.settled[category].values()) == next(iter(outcomes)), category
    assert not result.at_stake["scope"]
    assert result.settled["scope"] == {name: side.get("scope", 0) for name, side in sides.items()}
    assert result.determinate == all(len(outcomes) == 1 for outcomes, _ in truth.values())
    return result


@st.composite
def small_incomplete_hands(draw):
    """2 to 4 sides, a few missing cards (brute force stays small), optional placements."""
    sides_count = draw(st.integers(2, 4))
    owner = draw(st.lists(st.integers(0, sides_count - 1), min_size=40, max_size=40))
    owner[:sides_count] = range(sides_count)  # every side exists
    most_missing = {2: 7, 3: 5, 4: 4}[sides_count]
    # Denari and high primiera cards make the interesting cases: draw from them more often.
    interesting = [
        i for i, card in enumerate(DECK) if card.suit.value == "D" or card.rank in (1, 6, 7)
    ]
    pool = st.one_of(st.sampled_from(interesting), st.integers(0, 39))
    missing = draw(st.lists(pool, unique=True, max_size=most_missing))
    sides = without(split(owner), *(CARD_CODES[i] for i in missing))
    names = list(sides)
    placements = {}
    for i in missing:
        targets = draw(st.one_of(st.none(), st.sets(st.sampled_from(names), min_size=1)))
        if targets is not None:
            placements[CARD_CODES[i]] = sorted(targets)
    rules = draw(st.sampled_from(RULE_VARIANTS))
    return sides, rules, placements or None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_incomplete_hands())
def test_agrees_with_brute_force_on_small_cases(case):
    sides, rules, placements = case
    check_against_brute_force(sides, rules, placements)


@st.composite
def large_incomplete_hands(draw):
    sides_count = draw(st.integers(2, 4))
    owner = draw(st.lists(st.integers(0, sides_count - 1), min_size=40, max_size=40))
    owner[:sides_count] = range(sides_count)
    missing = draw(st.lists(st.integers(0, 39), unique=True, min_size=8, max_size=40))
    rules = draw(st.sampled_from(RULE_VARIANTS))
    seed = draw(st.integers(0, 2**16))
    return without(split(owner), *(CARD_CODES[i] for i in missing)), rules, seed


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(large_incomplete_hands())
def test_is_sound_on_large_cases(case):
    """Settled categories hold on sampled completions; non-deciding cards never matter there."""
    sides, rules, seed = case
    result = score_provisional(sides, rules)
    names = list(sides)
    rng = random.Random(seed)
    for _ in range(12):
        placement = {card.code: rng.choice(names) for card in result.missing}
        scored = score_hand(complete_with(sides, placement), rules)
        for category, points in result.settled.items():
            assert {n: scored.sides[n].points[category] for n in names} == points, category
        # Move one non-deciding card elsewhere: its category must not change.
        for category in CATEGORIES[1:]:
            idle = [c.code for c in result.missing if c not in result.deciding[category]]
            if not idle:
                continue
            code = rng.choice(idle)
            moved = {**placement, code: rng.choice(names)}
            rescored = score_hand(complete_with(sides, moved), rules)
            assert [rescored.sides[n].points[category] for n in names] == [
                scored.sides[n].points[category] for n in names
            ], (category, code)
        if not result.napoleone_at_stake:
            assert scored.napoleone is None or scored.napoleone in names
            first = score_hand(complete_with(sides, placement), rules).napoleone
            assert first == scored.napoleone


def complete_with(sides: dict, placement: dict[str, str]) -> dict:
    complete = {name: {"cards": list(side["cards"]), "scope": 0} for name, side in sides.items()}
    for code, name in placement.items():
        complete[name]["cards"].append(code)
    return complete


def test_complete_hand_is_determinate_and_scores_like_score_hand():
    sides = split([i % 2 for i in range(40)], names=("A", "B"))
    sides["A"]["scope"] = 2
    result = score_provisional(sides, TORNEO)
    assert result.missing == ()
    assert result.determinate and result.exact and result.complete
    assert not any(result.at_stake.values())
    full = score_hand(sides, TORNEO)
    assert result.result.sides == full.sides
    assert result.result.complete
    for category in CATEGORIES:
        assert result.settled[category] == {n: s.points[category] for n, s in full.sides.items()}


def test_a_missing_settebello_is_at_stake_alone():
    # A holds 26 cards, all the denari but the 7 and the 10, and primiera 71 (6D 7C 1S 1B) that
    # B cannot reach even with the settebello (7D 10C 6S 7B: 70).
    a = [f"{r}{s}" for s in "CSB" for r in range(1, 6)] + [f"{r}D" for r in range(1, 7)]
    a += ["8D", "9D", "6C", "7C", "7S"]
    sides = {
        "A": {"cards": a},
        "B": {"cards": [c for c in CARD_CODES if c not in a and c not in ("7D", "10D")]},
    }
    result = check_against_brute_force(sides, CLASSICA)
    assert [card.code for card in result.missing] == ["7D", "10D"]
    assert {cat for cat, at in result.at_stake.items() if at} == {"settebello"}
    assert [card.code for card in result.deciding["settebello"]] == ["7D"]
    assert result.settled["carte"] == {"A": 1, "B": 0}
    assert not result.determinate
    # Known where it lies: settled.
    placed = score_provisional(sides, CLASSICA, placements={"7D": ["B"], "10d": ["A", "B"]})
    assert placed.determinate
    assert placed.settled["settebello"] == {"A": 0, "B": 1}
    # With re bello on, the 10 of denari is at stake too.
    rebello = check_against_brute_force(sides, CLASSICA.with_options(re_bello=True))
    assert [card.code for card in rebello.deciding["re_bello"]] == ["10D"]


def test_napola_run_cards_decide_it():
    # A holds 1D 2D 3D 5D; 4D is missing: napola is 3, or 5 with the 4D.
    a = ["1D", "2D", "3D", "5D"] + [f"{r}{s}" for s in "CSB" for r in range(1, 8)]
    b = [c for c in CARD_CODES if c not in a and c != "4D"]
    result = check_against_brute_force({"A": {"cards": a}, "B": {"cards": b}}, PRESETS["assi"])
    assert result.at_stake["napola"]
    assert [card.code for card in result.deciding["napola"]] == ["4D"]


def test_napoleone_at_stake():
    a = [f"{r}D" for r in range(1, 10)]
    b = [c for c in CARD_CODES if c not in a and c != "10D"]
    sides = {"A": {"cards": a}, "B": {"cards": b}}
    result = check_against_brute_force(sides, TORNEO)
    assert result.napoleone_at_stake
    assert [card.code for card in result.napoleone_deciding] == ["10D"]
    assert not check_against_brute_force(sides, PRESETS["assi"]).napoleone_at_stake


def test_forty_missing_cards_do_not_hang():
    for count in (2, 3, 4):
        sides = {NAMES[i]: {"cards": []} for i in range(count)}
        start = time.perf_counter()
        result = score_provisional(sides, TORNEO)
        assert time.perf_counter() - start < 5
        assert len(result.missing) == 40
        assert not result.determinate
        assert all(
            result.at_stake[c] for c in ("carte", "denari", "primiera", "settebello", "napola")
        )
        assert not result.at_stake["re_bello"]


def test_typical_photo_case_is_fast():
    rng = random.Random(7)
    worst = 0.0
    for _ in range(20):
        owner = [rng.randrange(2) for _ in range(40)]
        owner[:2] = [0, 1]
        sides = without(split(owner), *rng.sample(CARD_CODES, 4))
        start = time.perf_counter()
        score_provisional(sides, TORNEO)
        worst = max(worst, time.perf_counter() - start)
    assert worst < 0.5  # about 2 ms on a quiet machine; generous for a loaded one


def test_scope_is_checked_against_the_cards_a_side_could_end_with():
    sides = {"A": {"cards": ["1D", "2D"], "scope": 3}, "B": {"cards": ["3D"], "scope": 0}}
    result = score_provisional(sides, CLASSICA)  # A could end with up to 39 cards
    assert result.settled["scope"] == {"A": 3, "B": 0}
    assert not result.result.complete
    with pytest.raises(ScopaError, match="side 'A': 3 scope is impossible with 5 cards"):
        score_provisional(
            sides,
            CLASSICA,
            placements={
                c: ["B"] for c in CARD_CODES if c not in ("1D", "2D", "3D", "4D", "5D", "6D")
            },
        )


@pytest.mark.parametrize(
    ("placements", "message"),
    [
        ({"1D": ["A"]}, "placements: card 1D is not missing, side 'A' has it"),
        ({"7D": ["C"]}, "placements: card 7D: unknown side 'C'"),
        ({"7D": []}, "placements: card 7D has no side it may go to"),
        ({"7D": "A"}, "placements: card 7D: expected a list of side names"),
        ({"7X": ["A"]}, "unknown card code '7X'"),
        (["7D"], "placements must map cards to side names"),
    ],
)
def test_bad_placements(placements, message):
    sides = {"A": {"cards": ["1D"]}, "B": {"cards": ["2D"]}}
    with pytest.raises(ScopaError) as info:
        score_provisional(sides, CLASSICA, placements=placements)
    assert message in str(info.value)


def test_provisional_still_validates_the_cards():
    with pytest.raises(ScopaError, match="card 7D is in two sides: 'A' and 'B'"):
        score_provisional({"A": {"cards": ["7D"]}, "B": {"cards": ["7D"]}}, CLASSICA)


def test_to_dict():
    sides = {"A": {"cards": ["1D"], "scope": 0}, "B": {"cards": ["2D"]}}
    data = score_provisional(sides, CLASSICA, placements={parse_card("7D"): ["A"]}).to_dict()
    assert data["provisional"] is True
    assert len(data["missing"]) == 38
    assert data["determinate"] is False
    assert data["at_stake"]["settebello"] is False
    assert data["settled"]["settebello"] == {"A": 1, "B": 0}
    assert set(data["deciding"]) == set(CATEGORIES)
    assert data["result"]["complete"] is False
    assert data["result"]["sides"]["A"]["cards"] == ["1D"]


def test_exact_on_a_medium_case_of_4096_placements():
    """Twelve decisive cards missing between two sides, checked against all 4096 placements."""
    rng = random.Random(12)
    missing = ["1D", "2D", "3D", "4D", "7D", "10D", "7C", "5C", "7S", "6S", "1B", "6B"]
    owner = [rng.randrange(2) for _ in range(40)]
    sides = without(split(owner), *missing)
    result = check_against_brute_force(sides, PRESETS["torneo-assi"].with_options(re_bello=True))
    assert len(result.missing) == 12
    assert not result.determinate


def test_no_napoleone_at_stake_with_napola_off():
    """RULES.md: with napola off there is no napoleone, so missing denari cannot decide one."""
    from scoring import Rules, score_provisional

    rules = Rules.from_spec({"preset": "classica", "napola": False, "napoleone": True})
    denari = [f"{rank}D" for rank in range(1, 10)]  # the 10 of denari is missing
    others = [f"{rank}{suit}" for suit in "CSB" for rank in range(1, 11)]
    result = score_provisional({"A": {"cards": denari}, "B": {"cards": others}}, rules)
    assert result.napoleone_at_stake is False
    on = Rules.from_spec({"preset": "classica", "napola": True, "napoleone": True})
    assert score_provisional(
        {"A": {"cards": denari}, "B": {"cards": others}}, on
    ).napoleone_at_stake
