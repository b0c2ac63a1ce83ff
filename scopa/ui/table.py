"""The page at a real table: finger-sized buttons, and a QR code to open the page on each phone."""

from __future__ import annotations

import io
import socket
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from scopa.i18n import Translator

# Buttons a thumb hits at the table (scope +/-, fixes): at least 44 px, as on phones generally.
# Streamlit gives each keyed widget the class `st-key-<key>` (":" becomes "-").
TABLE_STYLE = """
<style>
[class*="st-key-"][class*="-scope-"] button,
[class*="st-key-"][class*="-add-"] button,
[class*="st-key-"][class*="-add_choice-"] button,
[class*="st-key-"][class*="-owner-"] button,
[class*="st-key-"][class*="-confirm-"] button,
[class*="st-key-"][class*="-replace-"] button,
[class*="st-key-"][class*="-move-"] button,
[class*="st-key-"][class*="-remove-"] button,
[class*="st-key-"][class*="-undo_fix-"] button {
  min-height: 44px;
  min-width: 44px;
  font-size: 1.2rem;
}
</style>
"""
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def apply_table_style() -> None:
    st.html(TABLE_STYLE)


def _lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return None


def phone_address(page_url: str) -> str:
    """The page's address as a phone on the same network reaches it: a page opened as
    localhost is given this machine's LAN address instead; the path and query are dropped."""
    parts = urlsplit(page_url)
    host = parts.hostname or ""
    if host in LOCAL_HOSTS:
        host = _lan_address() or host
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme or "http", netloc, "/", "", ""))


def qr_png(text: str) -> bytes:
    import segno

    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def render_phone_link(t: Translator) -> None:
    """A QR code of the page's own address, to open it on each phone at the table."""
    try:
        address = phone_address(st.context.url or "")
    except Exception:  # no address known (tests, a bare run): nothing to show
        return
    with st.expander(t("phone.title"), icon=":material/qr_code_2:"):
        st.image(qr_png(address), width=220)
        st.code(address, language=None)
        st.caption(t("phone.help"))
        if address.startswith("http://"):
            st.caption(t("phone.https"))
