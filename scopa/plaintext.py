"""Names typed by players shown as plain text in Streamlit, whose text elements read Markdown.

A pair called `![x](http://host/t)` would otherwise make every browser showing it fetch that URL.
"""

from __future__ import annotations

import re

# The characters that start Markdown images, links, emphasis, code, HTML, headings and tables
# (any ASCII punctuation may be backslash-escaped), and `:` and `$`, which start Streamlit's
# icon, colour and LaTeX directives. Other punctuation is left alone: it is inert in running
# text and stays readable where a widget shows the string as plain text.
_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]()<>#!|~:$])")


def escape_markdown(text: str) -> str:
    """`text` as Markdown that renders as exactly `text` (on one line)."""
    one_line = " ".join(str(text).splitlines())
    return _MARKDOWN_ACTIVE.sub(r"\\\1", one_line)


# OWASP "CSV Injection": a spreadsheet runs a cell that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """A CSV cell that a spreadsheet shows as text: strings starting like a formula get a
    leading `'` (OWASP's advice); numbers, negative ones included, are left as numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
