"""Fixtures for the tournament tests: a fresh SQLite database per test."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# The test modules import their shared helpers from tournament_helpers.py beside this file;
# pytest runs with --import-mode=importlib, which puts no test folder on sys.path.
sys.path.insert(0, str(Path(__file__).parent))

from tournament_helpers import PASSWORD  # noqa: E402

from scopa.tournament import FailureThrottle, PairSetup, TournamentService, TournamentSetup


class SleepRecorder:
    """Stands in for time.sleep in the throttle: the tests see the delays without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def db_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'tournament.sqlite'}"


@pytest.fixture
def service(db_url: str, sleeps: SleepRecorder) -> TournamentService:
    svc = TournamentService.open(db_url, throttle=FailureThrottle(sleep=sleeps))
    yield svc
    svc.db.dispose()


@pytest.fixture
def make_tournament(service: TournamentService) -> Callable[..., int]:
    """Create a tournament of `pairs` pairs named P1, P2, ... and return its id."""

    def make(pairs: int = 4, **options) -> int:
        setup = TournamentSetup(
            name=options.pop("name", "Torneo di prova"),
            pairs=[
                PairSetup(f"P{i}", f"Giocatore {i}a", f"Giocatore {i}b")
                for i in range(1, pairs + 1)
            ],
            **options,
        )
        return service.create_tournament(setup, PASSWORD)

    return make
