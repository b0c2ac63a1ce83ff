"""Properties of hand and match scoring over random complete hands (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import CARD_CODES, CATEGORIES, PRESETS, Match, Rules, score_hand

SINGLE_WINNER = ("carte", "denari", "primiera", "settebello", "napola", "re_bello")
RULES = st.builds(
    Rules.from_preset,
    st.sampled_from(sorted(PRESETS)),
    napola=st.booleans(),
    napoleone=st.booleans(),
    re_bello=st.booleans(),
    primiera_missing_suit=st.sampled_from(["lose", "count"]),
)
NAME_POOL = ["A", "B", "Noi", "Loro", "Marco e Giulia", "Zoë", "2", " spazio "]


@st.composite
def complete_hands(draw, sides_count=None):
    count = sides_count or draw(st.integers(2, 4))
    names = draw(st.lists(st.sampled_from(NAME_POOL), min_size=count, max_size=count, unique=True))
    # Skewed deals (whole suits to one side) as well as even ones.
    owner = draw(st.lists(st.integers(0, count - 1), min_size=40, max_size=40))
    if draw(st.booleans()):
        suit_owner = draw(st.lists(st.integers(0, count - 1), min_size=4, max_size=4))
        owner = [suit_owner[i // 10] if draw(st.booleans()) else owner[i] for i in range(40)]
    sides = {name: {"cards": [], "scope": 0} for name in names}
    for code, side in zip(CARD_CODES, owner, strict=True):
        sides[names[side]]["cards"].append(code)
    for side in sides.values():
        side["scope"] = draw(st.integers(0, len(side["cards"]) // 2))
    return sides


def swapped(sides: dict, first: str, second: str) -> dict:
    result = dict(sides)
    result[first], result[second] = sides[second], sides[first]
    return result


@settings(max_examples=60, deadline=None)
@given(complete_hands(), RULES, st.data())
def test_swapping_two_sides_swaps_their_results(sides, rules, data):
    first, second = data.draw(
        st.lists(st.sampled_from(list(sides)), min_size=2, max_size=2, unique=True)
    )
    before = score_hand(sides, rules)
    after = score_hand(swapped(sides, first, second), rules)
    rename = {first: second, second: first}
    for name, side in before.sides.items():
        other = after.sides[rename.get(name, name)]
        assert other.points == side.points
        assert other.total == side.total
        assert (other.primiera, other.primiera_sum, other.napola_run) == (
            side.primiera,
            side.primiera_sum,
            side.napola_run,
        )
    assert after.napoleone == rename.get(before.napoleone, before.napoleone)


@settings(max_examples=60, deadline=None)
@given(complete_hands(), RULES)
def test_at_most_one_side_scores_each_single_winner_category(sides, rules):
    result = score_hand(sides, rules)
    for category in SINGLE_WINNER:
        scorers = [name for name, side in result.sides.items() if side.points[category]]
        assert len(scorers) <= 1, category
        assert result.winners[category] == (scorers[0] if scorers else None)
    for side in result.sides.values():
        assert all(
            side.points[c] in (0, 1)
            for c in ("carte", "denari", "primiera", "settebello", "re_bello")
        )
        assert side.points["napola"] in (0, *range(3, 11))
    # settebello always goes to someone; re bello exactly when on
    assert result.winners["settebello"] is not None
    assert (result.winners["re_bello"] is not None) == rules.re_bello


@settings(max_examples=60, deadline=None)
@given(complete_hands(), RULES, st.data())
def test_points_other_than_scope_never_depend_on_any_scope(sides, rules, data):
    rescoped = {
        name: {**side, "scope": data.draw(st.integers(0, len(side["cards"]) // 2))}
        for name, side in sides.items()
    }
    before = score_hand(sides, rules)
    after = score_hand(rescoped, rules)
    for name in sides:
        for category in CATEGORIES[1:]:
            assert after.sides[name].points[category] == before.sides[name].points[category]
        assert after.sides[name].points["scope"] == rescoped[name]["scope"]
    assert after.napoleone == before.napoleone


@settings(max_examples=60, deadline=None)
@given(complete_hands(), RULES)
def test_totals_are_the_sum_of_the_points_and_winners_are_strict(sides, rules):
    result = score_hand(sides, rules)
    for name, side in result.sides.items():
        assert side.total == sum(side.points.values())
        assert list(side.points) == list(CATEGORIES)
        assert side.points["scope"] == sides[name]["scope"]
        assert side.cards_count == len(sides[name]["cards"])
    counts = {name: side.cards_count for name, side in result.sides.items()}
    denari = {name: side.denari_count for name, side in result.sides.items()}
    for category, values in (("carte", counts), ("denari", denari)):
        winner = result.winners[category]
        if winner is None:
            assert list(values.values()).count(max(values.values())) > 1
        else:
            assert all(values[winner] > v for n, v in values.items() if n != winner)
    winner = result.winners["primiera"]
    if winner is not None:
        assert result.sides[winner].primiera is not None
        assert all(
            result.sides[winner].primiera > (side.primiera or -1)
            for name, side in result.sides.items()
            if name != winner
        )
    if result.napoleone is not None:
        assert rules.napoleone
        assert result.sides[result.napoleone].denari_count == 10


@settings(max_examples=30, deadline=None)
@given(st.data(), RULES)
def test_match_totals_add_up_and_status_follows_the_totals(data, rules):
    first = data.draw(complete_hands())
    names = list(first)
    match = Match(rules, names)
    hands = [first]
    for _ in range(data.draw(st.integers(0, 5))):
        hands.append(
            data.draw(
                complete_hands(len(names)).map(lambda h: dict(zip(names, h.values(), strict=True)))
            )
        )
    for hand in hands:
        if match.decided:
            break
        match.add_hand(hand)
        totals = {n: sum(h.sides[n].total for h in match.hands) for n in names}
        assert match.totals == totals
        if match.status == "won":
            assert match.winner in names
            if match.napoleone is None:
                assert match.totals[match.winner] >= rules.target
            else:
                assert match.winner == match.napoleone == match.hands[-1].napoleone
        elif match.status == "spareggio":
            tied = {match.totals[n] for n in match.spareggio}
            assert len(tied) == 1 and len(match.spareggio) >= 2
            assert tied.pop() >= rules.target
        else:
            assert match.status == "in-progress"
            assert all(t < rules.target for t in match.totals.values())


# An independent reading of RULES.md, written plainly, to cross-check the engine.
PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


def reference_points(sides: dict, rules: Rules) -> dict[str, dict[str, int]]:
    piles = {name: {(int(c[:-1]), c[-1]) for c in side["cards"]} for name, side in sides.items()}
    points = {name: dict.fromkeys(CATEGORIES, 0) for name in sides}

    def only_best(values):
        ranked = sorted(values.items(), key=lambda item: -item[1])
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            return ranked[0][0]
        return None

    for name, side in sides.items():
        points[name]["scope"] = side["scope"]
    for category, measure in (
        ("carte", len),
        ("denari", lambda pile: sum(1 for _, suit in pile if suit == "D")),
    ):
        winner = only_best({name: measure(pile) for name, pile in piles.items()})
        if winner is not None:
            points[winner][category] = 1
    held = {suit for pile in piles.values() for _, suit in pile}
    primiera = {}
    for name, pile in piles.items():
        suits = {suit for _, suit in pile}
        if rules.primiera_missing_suit == "lose" and suits != held:
            continue
        primiera[name] = sum(max(PRIMIERA[rank] for rank, s in pile if s == suit) for suit in suits)
    if primiera:
        winner = only_best(primiera)
        if winner is not None:
            points[winner]["primiera"] = 1
    for name, pile in piles.items():
        if (7, "D") in pile:
            points[name]["settebello"] = 1
        if rules.re_bello and (10, "D") in pile:
            points[name]["re_bello"] = 1
        run = 0
        while (run + 1, "D") in pile:
            run += 1
        if rules.napola and run >= 3:
            points[name]["napola"] = run
    return points


@settings(max_examples=80, deadline=None)
@given(complete_hands(), RULES)
def test_agrees_with_a_plain_reading_of_the_rules(sides, rules):
    result = score_hand(sides, rules)
    assert {name: side.points for name, side in result.sides.items()} == reference_points(
        sides, rules
    )
