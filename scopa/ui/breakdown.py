"""A hand's score side by side: every category, what made it, and the points."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scoring import DECK, HandResult, Rules, SideResult, Suit

NAPOLA_RUN = tuple(card for card in DECK if card.suit is Suit.DENARI)


def _points(value: str, points: int) -> str:
    return f"{value} (+{points})" if points else value


def breakdown_table(
    result: HandResult,
    rules: Rules,
    t: Translator,
    open_categories: frozenset[str] = frozenset(),
) -> pd.DataFrame:
    """One row per category (only those the rules score), one column per side.

    A category in `open_categories` (a provisional score whose missing or doubtful cards can
    still change it) shows its value so far and no points: "13 (in gioco)".
    """
    rows: dict[str, list[str]] = {}
    still_open = t("breakdown.open")

    def row(category: str, cell) -> None:
        if category in open_categories:
            cell = _opened(cell, still_open)
        rows[t.category(category)] = [cell(side) for side in result.sides.values()]

    row("carte", lambda s: _points(str(s.cards_count), s.points["carte"]))
    row("denari", lambda s: _points(str(s.denari_count), s.points["denari"]))
    row("primiera", lambda s: _points(_primiera_value(s), s.points["primiera"]))
    row(
        "settebello",
        lambda s: _points("✓" if s.points["settebello"] else "—", s.points["settebello"]),
    )
    if rules.napola:
        row("napola", lambda s: _points(_napola_run(s, t), s.points["napola"]))
    if rules.re_bello:
        row(
            "re_bello",
            lambda s: _points("✓" if s.points["re_bello"] else "—", s.points["re_bello"]),
        )
    row("scope", lambda s: _points(str(s.scope), s.points["scope"]))

    def total(side: SideResult) -> str:
        if not open_categories:
            return str(side.total)
        settled = sum(n for category, n in side.points.items() if category not in open_categories)
        return f"{settled} + ?"

    rows[t("breakdown.total")] = [total(side) for side in result.sides.values()]
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(result.sides))


def _opened(cell, still_open: str):
    """The cell without its points: "(+1)" becomes "(in gioco)"."""

    def opened(side: SideResult) -> str:
        text = cell(side)
        value = text.rsplit(" (+", 1)[0]
        return f"{value} ({still_open})"

    return opened


def _primiera_value(side: SideResult) -> str:
    # A side lacking a suit under the "lose" rule shows its sum in brackets: it cannot win.
    return str(side.primiera) if side.primiera is not None else f"({side.primiera_sum})"


def _napola_run(side: SideResult, t: Translator) -> str:
    if not side.napola_run:
        return "—"
    return t("breakdown.napola_run", last=t.rank(NAPOLA_RUN[side.napola_run - 1].rank))


def primiera_line(side: SideResult, t: Translator) -> str:
    """ "Noi: 7 di denari 21 + ... = 81", the four cards that make a side's primiera."""
    cards = [side.primiera_cards[suit] for suit in Suit if suit in side.primiera_cards]
    if not cards:
        return t("breakdown.primiera_none", side=side.name)  # the translator escapes fields
    parts = " + ".join(f"{t.card(card)} {card.primiera_value}" for card in cards)
    # A name typed by players shows as typed, not as Markdown (an image, a link).
    name = escape_markdown(side.name) if t.markdown else side.name
    line = f"{name}: {parts} = {side.primiera_sum}"
    if side.primiera is None:
        line += " " + t("breakdown.primiera_ineligible")
    return line


def render_breakdown(
    result: HandResult,
    rules: Rules,
    t: Translator,
    *,
    provisional: bool = False,
    open_categories: frozenset[str] = frozenset(),
) -> None:
    """The breakdown table, the primiera cards of each side, and the napoleone if made."""
    if provisional:
        st.caption(t("breakdown.provisional"))
    st.table(breakdown_table(result, rules, t, open_categories))
    st.caption("  \n".join(primiera_line(side, t) for side in result.sides.values()))
    if result.napoleone:
        st.success(t("breakdown.napoleone", side=result.napoleone))
