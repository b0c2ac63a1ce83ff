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

from scopa.plaintext import escape_markdown

LANGUAGES = {"it": "Italiano", "en": "English"}
DEFAULT_LANGUAGE = "it"


@cache
def catalog(lang: str) -> dict[str, str]:
    path = resources.files("scopa.tournament").joinpath("locales", f"{lang}.json")
    return json.loads(path.read_text("utf-8"))


class TournamentText:
    """`t("tour.key", **fields)`; keys without the `tour.` prefix go to `scopa.i18n`.

    `markdown` as for `scopa.i18n.Translator`: text fields are escaped for Streamlit unless the
    strings go to plain text or HTML (the exports escape for HTML themselves).
    """

    def __init__(self, lang: str = DEFAULT_LANGUAGE, *, markdown: bool = True) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        self.markdown = markdown

    def __call__(self, key: str, **fields: Any) -> str:
        from scopa.i18n import Translator

        if not key.startswith("tour."):
            return Translator(self.lang, markdown=self.markdown)(key, **fields)
        text = catalog(self.lang).get(key) or catalog(DEFAULT_LANGUAGE)[key]
        if not fields:
            return text
        if self.markdown:
            fields = {k: escape_markdown(v) if isinstance(v, str) else v for k, v in fields.items()}
        return text.format(**fields)
