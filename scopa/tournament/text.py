"""The tournament's own strings (Italian first, English on request).

They live in `scopa/tournament/locales/<lang>.json`, keys prefixed `tour.`; any other key is
looked up in the page's catalog (`scopa.i18n`), so the tournament pages name cards, suits and
categories exactly as the single-match page does.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = {"it": "Italiano", "en": "English"}
DEFAULT_LANGUAGE = "it"


@cache
def catalog(lang: str) -> dict[str, str]:
    path = resources.files("scopa.tournament").joinpath("locales", f"{lang}.json")
    return json.loads(path.read_text("utf-8"))


class TournamentText:
    """`t("tour.key", **fields)`; keys without the `tour.` prefix go to `scopa.i18n`."""

    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE

    def __call__(self, key: str, **fields: Any) -> str:
        if key.startswith("tour."):
            text = catalog(self.lang).get(key) or catalog(DEFAULT_LANGUAGE)[key]
            return text.format(**fields) if fields else text
        from scopa.i18n import Translator

        return Translator(self.lang)(key, **fields)
