"""Rules: the presets of RULES.md, option overrides and their validation."""

import pytest

from scoring import OPTION_NAMES, PRESETS, Rules, ScopaError


def test_presets_match_the_rule_book():
    expected = {
        "torneo-assi": (31, True, True, False, "lose"),
        "assi": (11, True, False, False, "lose"),
        "classica": (11, False, False, False, "lose"),
    }
    assert set(PRESETS) == set(expected)
    for name, (target, napola, napoleone, re_bello, missing_suit) in expected.items():
        rules = PRESETS[name]
        assert rules.preset == name
        assert (rules.target, rules.napola, rules.napoleone, rules.re_bello) == (
            target,
            napola,
            napoleone,
            re_bello,
        )
        assert rules.primiera_missing_suit == missing_suit
        assert rules.ace_sweep_is_scopa is False
        assert Rules.from_preset(name) == rules


def test_default_rules_are_classica():
    assert Rules() == Rules.from_preset() == PRESETS["classica"]


def test_options_left_out_take_the_preset_value():
    assert Rules(preset="torneo-assi") == PRESETS["torneo-assi"]
    assert Rules(preset="torneo-assi", target=21).napoleone is True
    assert Rules(preset="torneo-assi", target=21).target == 21


@pytest.mark.parametrize("target", [11, 16, 21, 31])
def test_every_target_in_use(target):
    assert Rules.from_preset("torneo-assi", target=target).target == target


def test_every_option_can_be_overridden():
    rules = Rules.from_preset(
        "classica",
        target=21,
        napola=True,
        napoleone=True,
        re_bello=True,
        primiera_missing_suit="count",
        ace_sweep_is_scopa=True,
    )
    assert rules.to_dict() == {
        "preset": "classica",
        "target": 21,
        "napola": True,
        "napoleone": True,
        "re_bello": True,
        "primiera_missing_suit": "count",
        "ace_sweep_is_scopa": True,
    }
    assert set(OPTION_NAMES) == set(rules.to_dict()) - {"preset"}


def test_from_spec_accepts_a_name_or_an_object():
    assert Rules.from_spec("assi") == PRESETS["assi"]
    assert Rules.from_spec(" Torneo-Assi ") == PRESETS["torneo-assi"]
    assert Rules.from_spec({"preset": "assi", "target": 16}) == Rules.from_preset("assi", target=16)
    rules = PRESETS["torneo-assi"]
    assert Rules.from_spec(rules) is rules
    assert Rules.from_spec(rules.to_dict()) == rules


def test_with_options_validates():
    assert PRESETS["assi"].with_options(re_bello=True).re_bello is True
    with pytest.raises(ScopaError, match="unknown option 'rebello'"):
        PRESETS["assi"].with_options(rebello=True)
    with pytest.raises(ScopaError, match="re_bello must be true or false"):
        PRESETS["assi"].with_options(re_bello=1)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("scopone", "unknown preset 'scopone'"),
        ({"preset": "scopone"}, "unknown preset 'scopone'"),
        ({"preset": "assi", "traget": 21}, "unknown option 'traget'"),
        ({"target": 21}, "missing 'preset'"),
        ({"preset": "assi", "target": "21"}, "target must be a positive integer, got '21'"),
        ({"preset": "assi", "target": True}, "target must be a positive integer, got True"),
        ({"preset": "assi", "target": 0}, "target must be a positive integer, got 0"),
        ({"preset": "assi", "target": 21.0}, "target must be a positive integer"),
        ({"preset": "assi", "napola": "yes"}, "napola must be true or false"),
        ({"preset": "assi", "napoleone": 1}, "napoleone must be true or false"),
        ({"preset": "assi", "re_bello": None}, "re_bello needs a value, got null"),
        (
            {"preset": "assi", "ace_sweep_is_scopa": "no"},
            "ace_sweep_is_scopa must be true or false",
        ),
        (
            {"preset": "assi", "primiera_missing_suit": "drop"},
            "primiera_missing_suit must be 'lose' or 'count'",
        ),
        (["classica"], "rules must be a preset name or an object"),
        (None, "rules must be a preset name or an object"),
        ({"preset": 3}, "unknown preset 3"),
        ({"preset": "assi", "target": None}, "target needs a value, got null"),
    ],
)
def test_bad_rules_name_the_field(spec, message):
    with pytest.raises(ScopaError) as info:
        Rules.from_spec(spec)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_constructor_validates_too():
    with pytest.raises(ScopaError, match="unknown preset"):
        Rules(preset="nope")
    with pytest.raises(ScopaError, match="primiera_missing_suit"):
        Rules(primiera_missing_suit="ignore")
