"""Translations of the page: Italian first, English on request.

Every user-facing string of the pages (the single-match page and the tournament pages, whose
keys start with `tour.`) is a key in the one catalogue `scopa/locales/<lang>.json`; placeholders
use `str.format` fields (`"Mano {number}"`). A key missing in English falls back to Italian; a key
missing in Italian is a programming error (the tests check both catalogs have the same keys).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from scoring import Card, Suit

from .plaintext import escape_markdown

LANGUAGES: dict[str, str] = {"it": "Italiano", "en": "English"}
DEFAULT_LANGUAGE = "it"


@cache
def catalog(lang: str) -> dict[str, str]:
    """The strings of one language, read once from the package's locale file."""
    text = resources.files("scopa").joinpath("locales", f"{lang}.json").read_text("utf-8")
    return json.loads(text)


class Translator:
    """`t("key", **fields)` gives the string in the chosen language; also names cards and suits."""

    def __init__(
        self, lang: str = DEFAULT_LANGUAGE, deck: str = "napoletane", *, markdown: bool = True
    ) -> None:
        """`markdown`: the strings go to Streamlit, which reads Markdown, so text fields (names
        typed by players) are escaped to show as typed; False for plain-text output."""
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self.markdown = markdown
        # Cards are named as printed on the deck in play: with French-suited cards the 7 of
        # denari is the 7 of quadri (diamonds) and the 9 a donna (queen).
        self.deck = deck

    def for_deck(self, deck: str) -> Translator:
        return Translator(self.lang, deck, markdown=self.markdown)

    def _deck_key(self, key: str) -> str:
        """`suit.D` becomes `suit.francesi.D` when the deck has a name of its own for it."""
        kind, _, rest = key.partition(".")
        specific = f"{kind}.{self.deck}.{rest}"
        return specific if self.has(specific) else key

    def __call__(self, key: str, **fields: Any) -> str:
        text = catalog(self.lang).get(key)
        if text is None:
            text = catalog(DEFAULT_LANGUAGE)[key]
        if not fields:
            return text
        if self.markdown:
            fields = {k: escape_markdown(v) if isinstance(v, str) else v for k, v in fields.items()}
        return text.format(**fields)

    def n(self, key: str, count: int, **fields: Any) -> str:
        """A string about `count` things: the `<key>.one` form when there is exactly one."""
        singular = f"{key}.one"
        chosen = singular if count == 1 and self.has(singular) else key
        return self(chosen, count=count, **fields)

    def has(self, key: str) -> bool:
        return key in catalog(DEFAULT_LANGUAGE)

    def suit(self, suit: Suit) -> str:
        return self(self._deck_key(f"suit.{suit.value}"))

    def rank(self, rank: int) -> str:
        return self(self._deck_key(f"rank.{rank}"))

    def card(self, card: Card) -> str:
        """The name players use: "7 di denari", "asso di coppe", "settebello"."""
        special = f"card.{card.code}"
        if self.has(special):
            return self(special)
        return self("card.name", rank=self.rank(card.rank), suit=self.suit(card.suit))

    def cards(self, cards: Iterable[Card]) -> str:
        return ", ".join(self.card(card) for card in cards) or self("none")

    def category(self, category: str) -> str:
        return self(f"category.{category}")
