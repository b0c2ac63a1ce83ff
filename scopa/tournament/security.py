"""Referee passwords, table codes, and the slow-down that makes guessing either one pointless.

Passwords are stored as scrypt hashes (`scrypt$n$r$p$salt$hash`, base64 parts). Table codes are
short random strings from an alphabet without look-alike characters, read aloud or typed on a
phone. Every wrong password or unknown code costs the caller a delay that doubles with each
further failure from the same client, and all clients together get a limited number of failures
per minute (see `FailureThrottle`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import TournamentError

# scrypt cost: 2**14 x 8 x 1 uses 16 MiB and ~50 ms here, the figure OWASP recommends as a floor.
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
# Online guessing is throttled, so length is what counts: a few words make a good passphrase.
MIN_PASSWORD_LENGTH = 10

# No 0/O, 1/I/L, 5/S, 2/Z: a code is copied off a paper slip onto a phone.
TABLE_CODE_ALPHABET = "ABCDEFGHJKMNPQRTUVWXY346789"
TABLE_CODE_LENGTH = 8


class AccessDenied(TournamentError):
    """A wrong referee password, an unknown table code, or a table reaching for another match."""


def hash_password(password: str, *, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P) -> str:
    """Hash a referee password with scrypt and a random salt; the result embeds its parameters."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise TournamentError(
            f"referee password: at least {MIN_PASSWORD_LENGTH} characters required "
            "(a passphrase of a few words is easiest to remember)",
            "password_too_short",
            minimum=MIN_PASSWORD_LENGTH,
        )
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


class TooManyAttempts(AccessDenied):
    """Refused before the secret was even checked: the caller must wait out earlier failures."""


@dataclass
class _Bucket:
    """Failures shared by every client of one scope (a tournament's referee password, the
    table codes): a token bucket that `burst` failures empty and that refills at `rate`/s."""

    tokens: float
    updated: float


@dataclass
class _Client:
    failures: int
    last_failure: float
    # While a failure's delay runs, the same client is refused without a check, so that
    # parallel sessions or a caller that stops waiting do not get more answers.
    blocked_until: float


class FailureThrottle:
    """Slows down the guessing of table codes and referee passwords, per client and overall.

    Per client: every failure sleeps for a delay that doubles with each failure of that client
    (capped at `max_delay`), and further attempts of that client are refused unchecked until the
    delay is over. A success does not wipe the count (an attacker holding one valid code could
    otherwise keep the delay at its first step); counts are forgotten after `forget_after` seconds
    without a failure. Per scope: failures of all clients together draw on a bucket of `burst`
    that refills at `scope_rate` a second; while it is empty, every attempt is refused unchecked.
    Thread-safe: the Streamlit server runs every browser session in its own thread.
    """

    def __init__(
        self,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        *,
        burst: int = 30,
        scope_rate: float = 0.5,
        forget_after: float = 3600.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.burst = burst
        self.scope_rate = scope_rate
        self.forget_after = forget_after
        self._sleep = sleep
        self._clock = clock
        self._clients: dict[str, _Client] = {}
        self._scopes: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def failures(self, key: str) -> int:
        """How many failures client `key` has made lately (not forgotten yet)."""
        with self._lock:
            client = self._client(key, self._clock())
            return client.failures if client else 0

    def delay_for(self, failures: int) -> float:
        """The delay after a client's `failures`-th failure: doubling, capped at `max_delay`."""
        # The exponent is clamped so that no count, however large, overflows a float.
        exponent = min(max(failures - 1, 0), 64)
        return min(self.max_delay, self.base_delay * 2.0**exponent)

    def check(self, key: str, scope: str) -> None:
        """Before checking a secret: TooManyAttempts while `key` or `scope` must still wait."""
        with self._lock:
            now = self._clock()
            client = self._client(key, now)
            if client is not None and now < client.blocked_until:
                wait = client.blocked_until - now
                raise TooManyAttempts(
                    f"too many wrong attempts: try again in {_seconds(wait)}",
                    "too_many_attempts",
                    seconds=_whole_seconds(wait),
                )
            bucket = self._bucket(scope, now)
            if bucket.tokens < 1:
                wait = (1 - bucket.tokens) / self.scope_rate
                raise TooManyAttempts(
                    f"too many wrong attempts from all clients: try again in {_seconds(wait)}",
                    "too_many_attempts",
                    seconds=_whole_seconds(wait),
                )

    def fail(self, key: str, scope: str | None = None) -> float:
        """Record a failure of client `key` (in `scope`) and sleep for its delay; returns it."""
        with self._lock:
            now = self._clock()
            client = self._client(key, now)
            count = (client.failures if client else 0) + 1
            delay = self.delay_for(count)
            self._clients[key] = _Client(count, now, now + delay)
            if scope is not None:
                self._bucket(scope, now).tokens -= 1
            self._forget_old(now)
        self._sleep(delay)
        return delay

    def _client(self, key: str, now: float) -> _Client | None:
        client = self._clients.get(key)
        if client is not None and now - client.last_failure > self.forget_after:
            del self._clients[key]
            return None
        return client

    def _bucket(self, scope: str, now: float) -> _Bucket:
        bucket = self._scopes.setdefault(scope, _Bucket(float(self.burst), now))
        bucket.tokens = min(
            float(self.burst), bucket.tokens + (now - bucket.updated) * self.scope_rate
        )
        bucket.updated = now
        return bucket

    def _forget_old(self, now: float) -> None:
        # Bounded memory under a flood from many addresses.
        if len(self._clients) > 10_000:
            for key in [k for k, c in self._clients.items() if now - c.last_failure > 60]:
                del self._clients[key]


def _whole_seconds(value: float) -> int:
    return max(1, math.ceil(value))


def _seconds(value: float) -> str:
    return f"{_whole_seconds(value)} s"
