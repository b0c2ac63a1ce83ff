"""Match set-up: the rules (a preset and every option on top of it), the deck and the sides."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from scopa.i18n import Translator
from scopa.storage import DEFAULT_DECK
from scoring import PRESETS, Rules, ScopaError

DECKS = ("napoletane", "francesi")
# Table formats: how many sides, and whether each side is a pair of players.
FORMATS = {"pairs": 2, "two": 2, "three": 3, "four": 4}
BOOLEAN_OPTIONS = ("napola", "napoleone", "re_bello", "ace_sweep_is_scopa")
KEY = "setup"


@dataclass(frozen=True)
class MatchSetup:
    rules: Rules
    sides: tuple[str, ...]
    deck: str = DEFAULT_DECK


def _k(name: str) -> str:
    return f"{KEY}:{name}"


def _apply_preset() -> None:
    """Set every option widget to the chosen preset's value."""
    preset = PRESETS[st.session_state[_k("preset")]]
    st.session_state[_k("target")] = preset.target
    st.session_state[_k("missing_suit")] = preset.primiera_missing_suit
    for option in BOOLEAN_OPTIONS:
        st.session_state[_k(option)] = getattr(preset, option)


def _default_names(t: Translator, table_format: str) -> list[str]:
    if FORMATS[table_format] == 2:
        return [t("setup.default_us"), t("setup.default_them")]
    return [t("setup.default_player", n=n) for n in range(1, FORMATS[table_format] + 1)]


def render_match_setup(t: Translator) -> MatchSetup | None:
    """The set-up form; returns the new match's set-up on the run its button is pressed."""
    if _k("preset") not in st.session_state:
        st.session_state[_k("preset")] = "classica"
        _apply_preset()

    st.selectbox(
        t("setup.preset"),
        list(PRESETS),
        format_func=lambda name: t(f"preset.{name}"),
        key=_k("preset"),
        on_change=_apply_preset,
    )
    with st.expander(t("setup.options"), icon=":material/tune:"):
        st.number_input(t("setup.target"), min_value=1, max_value=100, step=1, key=_k("target"))
        st.caption(t("setup.target_help"))
        for option in BOOLEAN_OPTIONS:
            st.toggle(t(f"option.{option}"), key=_k(option), help=t(f"option.{option}.help"))
        st.radio(
            t("option.primiera_missing_suit"),
            ("lose", "count"),
            format_func=lambda rule: t(f"option.missing_suit.{rule}"),
            key=_k("missing_suit"),
        )
        st.segmented_control(
            t("setup.deck"),
            DECKS,
            format_func=lambda deck: t(f"deck.{deck}"),
            default=DEFAULT_DECK,
            required=True,
            key=_k("deck"),
        )

    table_format = st.radio(
        t("setup.format"),
        list(FORMATS),
        format_func=lambda name: t(f"format.{name}"),
        key=_k("format"),
        horizontal=True,
    )
    defaults = _default_names(t, table_format)
    label = "setup.pair_name" if table_format == "pairs" else "setup.player_name"
    names = [
        st.text_input(
            t(label, n=n),
            value=default,
            key=_k(f"name:{table_format}:{n}"),
            max_chars=40,
            placeholder=t("setup.pair_placeholder") if table_format == "pairs" else None,
        ).strip()
        for n, default in enumerate(defaults, start=1)
    ]
    if not st.button(t("setup.start"), type="primary", key=_k("start"), width="stretch"):
        return None
    if any(not name for name in names):
        st.error(t("setup.name_missing"))
        return None
    if len(set(names)) != len(names):
        st.error(t("setup.name_twice"))
        return None
    try:
        rules = Rules.from_preset(
            st.session_state[_k("preset")],
            target=int(st.session_state[_k("target")]),
            primiera_missing_suit=st.session_state[_k("missing_suit")],
            **{option: bool(st.session_state[_k(option)]) for option in BOOLEAN_OPTIONS},
        )
    except ScopaError as exc:
        st.error(t("check.invalid", detail=str(exc)))
        return None
    return MatchSetup(rules=rules, sides=tuple(names), deck=st.session_state[_k("deck")])
