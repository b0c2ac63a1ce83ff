"""The match around the hands: the score, how it ended, the chart, and the history of hands."""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import pandas as pd
import streamlit as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scopa.storage import MatchRepository, StoredHand, StoredMatch
from scopa.ui.breakdown import render_breakdown
from scopa.ui.export import score_history
from scopa.ui.photos import thumbnail
from scoring import SPAREGGIO, WON, Match, Rules


def rules_summary(rules: Rules, t: Translator) -> str:
    """ "Classica · ai 11 · napola · primiera: chi non ha un seme non la vince"."""
    parts = [t(f"preset.{rules.preset}").split(" (")[0], t("rules.target", target=rules.target)]
    parts += [
        t(f"option.{name}") for name in ("napola", "napoleone", "re_bello") if getattr(rules, name)
    ]
    if rules.ace_sweep_is_scopa:
        parts.append(t("option.ace_sweep_is_scopa"))
    parts.append(t(f"rules.missing_suit.{rules.primiera_missing_suit}"))
    return " · ".join(parts)


def render_scoreboard(match: Match, t: Translator) -> None:
    """Each side's total, with the last hand's points as the change."""
    last = match.hands[-1].totals if match.hands else {}
    # A horizontal container keeps the sides side by side on a phone, where columns stack.
    row = st.container(horizontal=True)
    for side in match.sides:
        row.metric(
            escape_markdown(side),
            match.totals[side],
            delta=f"+{last[side]}" if last else None,
            delta_color="off" if not last.get(side) else "normal",
            border=True,
        )
    st.caption(t.n("score.progress", len(match.hands), target=match.rules.target))


def render_outcome(match: Match, t: Translator) -> None:
    """Who won and how (target, napoleone), or the spareggio under way."""
    if match.status == WON and match.napoleone:
        st.success(t("outcome.napoleone", side=match.winner), icon=":material/trophy:")
    elif match.status == WON:
        scores = " – ".join(str(match.totals[side]) for side in match.sides)
        st.success(t("outcome.won", side=match.winner, scores=scores), icon=":material/trophy:")
    elif match.status == SPAREGGIO:
        st.warning(
            t("outcome.spareggio", sides=", ".join(match.spareggio)), icon=":material/balance:"
        )


def render_chart(match: Match, t: Translator) -> None:
    """The running totals over the hands, with the target as a dashed line."""
    history = score_history(match)
    target_points = match.rules.target
    assert target_points is not None  # Rules.__post_init__ fills it from the preset
    lines = (
        alt.Chart(history)
        .mark_line(point=True)
        .encode(
            x=alt.X("hand:O", title=t("chart.hand"), axis=alt.Axis(labelAngle=0)),
            y=alt.Y(
                "total:Q",
                title=t("chart.points"),
                scale=alt.Scale(domain=[0, max(target_points, *match.totals.values())]),
            ),
            color=alt.Color(
                "side:N", title=None, sort=list(match.sides), legend=alt.Legend(orient="bottom")
            ),
            tooltip=[
                alt.Tooltip("side:N", title=t("csv.side")),
                alt.Tooltip("hand:O", title=t("chart.hand")),
                alt.Tooltip("total:Q", title=t("chart.points")),
            ],
        )
    )
    target = (
        alt.Chart(pd.DataFrame({"target": [match.rules.target]}))
        .mark_rule(strokeDash=[6, 4], color="#9e9e9e")
        .encode(y="target:Q")
    )
    st.altair_chart(lines + target, width="stretch")


@st.cache_data(max_entries=200, show_spinner=False)
def _thumbnail(sha256: str, _repository: MatchRepository, photo_id: int):
    # Keyed by content hash: a photo copied into an edit is decoded only once.
    return thumbnail(_repository.photo_data(photo_id))


def render_history(
    repository: MatchRepository,
    stored: StoredMatch,
    match: Match,
    t: Translator,
    *,
    on_edit: Callable[[StoredHand], None] | None,
) -> None:
    """Every hand, newest first: its score, breakdown, photos, corrections, and an edit button."""
    for index in reversed(range(len(stored.hands))):
        hand, result = stored.hands[index], match.hands[index]
        points = " · ".join(
            f"{escape_markdown(side)} {total}" for side, total in result.totals.items()
        )
        with st.expander(f"{t('history.hand', number=index + 1)} — {points}", expanded=False):
            render_breakdown(result, match.rules, t)
            if hand.corrections:
                st.caption(t.n("history.corrections", len(hand.corrections)))
            for side in stored.sides:
                photos = [photo for photo in hand.photos if photo.side == side]
                if photos:
                    st.caption(t("history.photos_of", side=side))
                    st.image(
                        [_thumbnail(p.sha256, repository, p.id) for p in photos],
                        caption=[p.filename for p in photos],
                        width=160,
                        output_format="JPEG",
                    )
            if on_edit is not None:
                st.button(
                    t("history.edit"),
                    key=f"edit:{hand.id}",
                    on_click=on_edit,
                    args=(hand,),
                    icon=":material/edit:",
                )
