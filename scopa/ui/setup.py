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
    #: Who deals the first hand; the deal then turns to the next side each hand.
    first_dealer: str | None = None


def _k(name: str) -> str:
    return f"{KEY}:{name}"


# The choices whose options are shown translated. Streamlit keeps such a widget's value as the
# label it showed, so a widget drawn in another language no longer finds it: each choice lives
# under its own key, and its widget has one key per language, seeded from it.
CHOICES = ("preset", "missing_suit", "deck", "format")


def _widget_key(name: str, lang: str) -> str:
    return _k(f"{name}:{lang}")


def _keep_choice(name: str, lang: str) -> None:
    st.session_state[_k(name)] = st.session_state[_widget_key(name, lang)]
    if name == "preset":
        _apply_preset()


def _choice(widget, label: str, options, name: str, t: Translator, **kwargs):
    """A translated choice (radio, selectbox, segmented control) that survives a language switch."""
    key = _widget_key(name, t.lang)
    st.session_state[key] = st.session_state[_k(name)]
    widget(label, options, key=key, on_change=_keep_choice, args=(name, t.lang), **kwargs)
    return st.session_state[_k(name)]


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
        st.session_state[_k("deck")] = DEFAULT_DECK
        st.session_state[_k("format")] = next(iter(FORMATS))
        _apply_preset()

    _choice(
        st.selectbox,
        t("setup.preset"),
        list(PRESETS),
        "preset",
        t,
        format_func=lambda name: t(f"preset.{name}"),
    )
    with st.expander(t("setup.options"), icon=":material/tune:"):
        st.number_input(t("setup.target"), min_value=1, max_value=100, step=1, key=_k("target"))
        st.caption(t("setup.target_help"))
        for option in BOOLEAN_OPTIONS:
            st.toggle(t(f"option.{option}"), key=_k(option), help=t(f"option.{option}.help"))
        _choice(
            st.radio,
            t("option.primiera_missing_suit"),
            ("lose", "count"),
            "missing_suit",
            t,
            format_func=lambda rule: t(f"option.missing_suit.{rule}"),
        )
        _choice(
            st.segmented_control,
            t("setup.deck"),
            DECKS,
            "deck",
            t,
            format_func=lambda deck: t(f"deck.{deck}"),
            required=True,
        )

    table_format = _choice(
        st.radio,
        t("setup.format"),
        list(FORMATS),
        "format",
        t,
        format_func=lambda name: t(f"format.{name}"),
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
    dealers: list[str | None] = [name for name in names if name] or [None]
    dealer = st.selectbox(
        t("setup.dealer"),
        dealers,
        format_func=lambda name: name or "—",
        key=_k(f"dealer:{table_format}"),
    )
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
    return MatchSetup(
        rules=rules,
        sides=tuple(names),
        deck=st.session_state[_k("deck")],
        first_dealer=dealer if dealer in names else names[0],
    )
