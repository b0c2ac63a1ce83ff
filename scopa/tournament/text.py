"""The tournament's strings: the `tour.*` keys of the one catalogue, `scopa/locales/<lang>.json`.

The tournament pages and exports use the same `scopa.i18n.Translator` as the single-match page
(one loader, one lookup), so they name cards, suits and categories exactly as it does.
`TournamentText` is that translator under the name the tournament modules have always used.
"""

from __future__ import annotations

from scopa.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator

TournamentText = Translator

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "TournamentText"]
