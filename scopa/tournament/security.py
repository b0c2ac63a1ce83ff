"""Referee passwords, table codes, and the slow-down that makes guessing either one pointless.

Passwords are stored as scrypt hashes (`scrypt$n$r$p$salt$hash`, base64 parts). Table codes are
short random strings from an alphabet without look-alike characters, read aloud or typed on a
phone. Every wrong password or unknown code costs the caller a delay that doubles with each
further failure from the same source, so an online guesser gets a handful of tries per minute.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable

from scoring.errors import ScopaError

# scrypt cost: 2**14 x 8 x 1 uses 16 MiB and ~50 ms here, the figure OWASP recommends as a floor.
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSWORD_LENGTH = 6

# No 0/O, 1/I/L, 5/S, 2/Z: a code is copied off a paper slip onto a phone.
TABLE_CODE_ALPHABET = "ABCDEFGHJKMNPQRTUVWXY346789"
TABLE_CODE_LENGTH = 8


class AccessDenied(ScopaError):
    """A wrong referee password, an unknown table code, or a table reaching for another match."""


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """Hash a referee password with scrypt and a random salt; the result embeds its parameters."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ScopaError(f"referee password: at least {MIN_PASSWORD_LENGTH} characters required")
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=2**26, dklen=32)
    encode = base64.b64encode
    return f"scrypt${n}${r}${p}${encode(salt).decode()}${encode(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """True when `password` matches the `hash_password` string `stored` (constant-time compare)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=2**26,
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def new_table_code() -> str:
    """A fresh random table code (27**8, about 2.8e11 possibilities)."""
    return "".join(secrets.choice(TABLE_CODE_ALPHABET) for _ in range(TABLE_CODE_LENGTH))


def normalize_table_code(code: str) -> str:
    """Accept a code typed in lower case, with spaces or dashes, as printed `ABCD-EFGH`."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def format_table_code(code: str) -> str:
    """Split a code in two halves for printing: `ABCDEFGH` -> `ABCD-EFGH`."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


class FailureThrottle:
    """Delays every failed attempt, doubling the delay with each failure from the same key.

    The delay happens inside the failing call, so a page or script that guesses waits for its
    answer; a success resets the key. Keys are whatever identifies the guesser at hand (the
    tournament for a referee password, the client for table codes); a delay caps at `max_delay`.
    Thread-safe: the Streamlit server runs every browser session in its own thread.
    """

    def __init__(
        self,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._failures: dict[str, int] = {}
        self._lock = threading.Lock()

    def failures(self, key: str) -> int:
        """How many failures in a row `key` has made."""
        with self._lock:
            return self._failures.get(key, 0)

    def fail(self, key: str) -> float:
        """Record a failure for `key` and sleep for its delay; returns the delay slept."""
        with self._lock:
            count = self._failures.get(key, 0) + 1
            self._failures[key] = count
        delay = min(self.max_delay, self.base_delay * 2 ** (count - 1))
        self._sleep(delay)
        return delay

    def succeed(self, key: str) -> None:
        """Forget the failures of `key`."""
        with self._lock:
            self._failures.pop(key, None)
