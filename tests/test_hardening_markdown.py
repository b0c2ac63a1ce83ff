"""Names typed by players are shown as plain text, never run as Markdown (issue 17, item 4)."""

import re

from hypothesis import given
from hypothesis import strategies as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scopa.tournament.text import TournamentText

IMAGE = "![x](http://192.0.2.1/pixel.png)"


def unescaped(text: str, char: str) -> bool:
    """True when `char` occurs in `text` without a backslash escaping it."""
    tokens = re.findall(r"\\.|.", text, flags=re.DOTALL)  # an escape pair, or one character
    return char in tokens


def test_an_image_name_becomes_inert_text():
    escaped = escape_markdown(IMAGE)
    assert escaped == r"\!\[x\]\(http\://192.0.2.1/pixel.png\)"
    for char in "![]():":
        assert not unescaped(escaped, char)


@given(st.text())
def test_escaping_keeps_the_text_and_leaves_no_active_character(name):
    escaped = escape_markdown(name)
    assert re.sub(r"\\(.)", r"\1", escaped) == " ".join(name.splitlines())
    for char in "\\`*_[]()<>#!|~:$":
        assert not unescaped(escaped, char)


def test_page_strings_escape_the_names_they_carry():
    t = Translator("en")
    assert "![" not in t("outcome.napoleone", side=IMAGE)
    assert escape_markdown(IMAGE) in t("outcome.napoleone", side=IMAGE)
    assert "![" not in TournamentText("en")("outcome.napoleone", side=IMAGE)


def test_plain_text_output_is_left_as_typed():
    assert IMAGE in Translator("en", markdown=False)("outcome.napoleone", side=IMAGE)
    assert IMAGE in TournamentText("en", markdown=False)("outcome.napoleone", side=IMAGE)
