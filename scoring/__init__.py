"""The Scopa rules engine: cards, rules presets, hand scoring, provisional scoring and matches.

A pure library (standard library only) implementing the rule book of the project, RULES.md.

>>> from scoring import Rules, score_hand
>>> rules = Rules.from_preset("classica")
>>> rules.target
11
"""

from scoring.cards import (
    CARD_CODES,
    DECK,
    PRIMIERA_VALUES,
    RANK_NAMES_EN,
    RANK_NAMES_IT,
    RANKS,
    RE_BELLO,
    SETTEBELLO,
    Card,
    Suit,
    parse_card,
    parse_cards,
)
from scoring.errors import ScopaError
from scoring.hand import CATEGORIES, HandResult, SideInput, SideResult, score_hand
from scoring.match import IN_PROGRESS, SPAREGGIO, UNFINISHED, WON, Match, MatchStatus
from scoring.provisional import ProvisionalResult, score_provisional
from scoring.rules import OPTION_NAMES, PRESETS, Rules

__all__ = [
    "CARD_CODES",
    "CATEGORIES",
    "DECK",
    "IN_PROGRESS",
    "OPTION_NAMES",
    "PRESETS",
    "PRIMIERA_VALUES",
    "RANK_NAMES_EN",
    "RANK_NAMES_IT",
    "RANKS",
    "RE_BELLO",
    "SETTEBELLO",
    "SPAREGGIO",
    "UNFINISHED",
    "WON",
    "Card",
    "HandResult",
    "Match",
    "MatchStatus",
    "ProvisionalResult",
    "Rules",
    "ScopaError",
    "SideInput",
    "SideResult",
    "Suit",
    "parse_card",
    "parse_cards",
    "score_hand",
    "score_provisional",
]
