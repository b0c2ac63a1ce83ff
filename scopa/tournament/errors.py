"""Errors the pages can word in their own language.

The service's messages stay in English (the command line, the logs, the tests read them); a
`TournamentError` also carries a `code` and its `params`, which the pages look up as
`tour.error.<code>` in the catalogue (`scopa.i18n`), falling back to the
English message for an error without a code or a code without a translation.
"""

from __future__ import annotations

from typing import Any

from scoring.errors import ScopaError


class TournamentError(ScopaError):
    """A ScopaError with a catalogue code (`tour.error.<code>`) and the fields that fill it."""

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
