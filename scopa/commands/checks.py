"""Argument checks shared by the commands: each bad value becomes a one-line error, exit 2."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

from scoring.errors import ScopaError

# Row ids are SQL BIGINTs; a longer number would overflow the driver instead of finding nothing.
MAX_ID = 2**63 - 1


class _DeckStyles:
    """The `choices` of --deck: `vision.pipeline.DECK_STYLES`, read when argparse first looks at
    them (a --deck given, or --help), so that the command line starts without loading vision."""

    @staticmethod
    def _styles() -> tuple[str, ...]:
        from vision.pipeline import DECK_STYLES

        return DECK_STYLES

    def __contains__(self, value: object) -> bool:
        return value in self._styles()

    def __iter__(self) -> Iterator[str]:
        return iter(self._styles())

    def __len__(self) -> int:
        return len(self._styles())


DECK_STYLES = _DeckStyles()


def row_id(text: str) -> int:
    """argparse type of a database id: a positive integer that fits a BIGINT."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or not 1 <= int(text) <= MAX_ID:
        raise argparse.ArgumentTypeError(f"expected an id from 1 to {MAX_ID}, got {text!r}")
    return int(text)


def output_folder(path: Path, flag: str) -> Path:
    """`path` as a folder to write into, created if missing; ScopaError naming what is wrong."""
    if path.exists() and not path.is_dir():
        raise ScopaError(f"{flag} {path}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScopaError(
            f"{flag} {path}: cannot create the folder: {exc.strerror or exc}"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ScopaError(f"{flag} {path}: the folder is not writable")
    return path
