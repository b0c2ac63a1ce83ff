"""A match as data: its replay through the rules engine, the score over the hands, the CSV export."""

from __future__ import annotations

import csv
import io

import pandas as pd

from scopa.i18n import Translator
from scopa.plaintext import spreadsheet_safe
from scopa.storage import StoredMatch
from scoring import CATEGORIES, Match, Rules, SideInput


def rules_of(stored: StoredMatch) -> Rules:
    return Rules.from_spec(stored.rules)


def replay(stored: StoredMatch) -> Match:
    """The match as the rules engine sees it, rebuilt from the stored hands."""
    match = Match(rules_of(stored), stored.sides)
    for hand in stored.hands:
        match.add_hand(
            {
                side: SideInput.from_spec(spec, side=side)
                for side, spec in (hand.sides or {}).items()
            }
        )
    return match


def score_history(match: Match) -> pd.DataFrame:
    """Each side's running total after each hand (hand 0 is the start), in long form."""
    totals = dict.fromkeys(match.sides, 0)
    rows = [{"hand": 0, "side": side, "total": 0} for side in match.sides]
    for number, hand in enumerate(match.hands, start=1):
        for side in match.sides:
            totals[side] += hand.sides[side].total
            rows.append({"hand": number, "side": side, "total": totals[side]})
    return pd.DataFrame(rows, columns=["hand", "side", "total"])


def match_csv(stored: StoredMatch, match: Match, t: Translator) -> str:
    """One row per hand and side: cards, scope, the points of each category, the totals."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            t("csv.match"),
            t("csv.hand"),
            t("csv.side"),
            t("csv.cards_count"),
            t("csv.denari_count"),
            t("csv.primiera_sum"),
            *(t.category(category) for category in CATEGORIES),
            t("csv.hand_total"),
            t("csv.match_total"),
            t("csv.cards"),
        ]
    )
    totals = dict.fromkeys(match.sides, 0)
    for number, hand in enumerate(match.hands, start=1):
        for side, result in hand.sides.items():
            totals[side] += result.total
            writer.writerow(
                [
                    stored.id,
                    number,
                    spreadsheet_safe(side),
                    result.cards_count,
                    result.denari_count,
                    result.primiera_sum,
                    *(result.points[category] for category in CATEGORIES),
                    result.total,
                    totals[side],
                    " ".join(card.code for card in result.cards),
                ]
            )
    return out.getvalue()
