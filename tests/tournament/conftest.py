"""Fixtures for the tournament tests: a fresh SQLite database per test."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# The test modules import their shared helpers from tournament_helpers.py beside this file;
# pytest runs with --import-mode=importlib, which puts no test folder on sys.path.
sys.path.insert(0, str(Path(__file__).parent))

from tournament_helpers import create_tournament  # noqa: E402

from scopa.tournament import FailureThrottle, TournamentService
from scopa.tournament.db import Base, Database


class SleepRecorder:
    """Stands in for time.sleep and the clock of the throttle: the tests see the delays without
    waiting, and time moves on by each delay slept (or by `advance`)."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.now = 1000.0

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def db_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'tournament.sqlite'}"


def _open(url: str, sleeps: SleepRecorder) -> TournamentService:
    # A cheap scrypt cost keeps the many log-ins of the tests fast; test_passwords checks the
    # real one.
    return TournamentService.open(
        url, throttle=FailureThrottle(sleep=sleeps, clock=sleeps.clock), scrypt_n=2**10
    )


@pytest.fixture
def service(db_url: str, sleeps: SleepRecorder) -> TournamentService:
    svc = _open(db_url, sleeps)
    yield svc
    svc.db.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_service(request, db_url: str, sleeps: SleepRecorder) -> TournamentService:
    """The service on SQLite, and on PostgreSQL when SCOPA_TEST_POSTGRES_URL names a server
    (`.ci/postgres.sh` starts a throwaway one); the PostgreSQL tables are emptied around each test.
    """
    url = db_url
    if request.param == "postgresql":
        url = os.environ.get("SCOPA_TEST_POSTGRES_URL", "")
        if not url:
            pytest.skip("SCOPA_TEST_POSTGRES_URL is not set (.ci/postgres.sh starts a server)")
        stale = Database(url)
        Base.metadata.drop_all(stale.engine)
        stale.dispose()
    svc = _open(url, sleeps)
    yield svc
    if request.param == "postgresql":
        Base.metadata.drop_all(svc.db.engine)
    svc.db.dispose()


@pytest.fixture
def make_tournament(service: TournamentService) -> Callable[..., int]:
    """Create a tournament of `pairs` pairs named P1, P2, ... and return its id."""
    return lambda pairs=4, **options: create_tournament(service, pairs, **options)
