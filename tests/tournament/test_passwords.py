"""Referee passwords and table codes: hashing, and the slow-down on every wrong guess."""

import time

import pytest
from tournament_helpers import PASSWORD

from scopa.tournament import AccessDenied, FailureThrottle, TournamentService
from scopa.tournament.security import (
    format_table_code,
    hash_password,
    new_table_code,
    normalize_table_code,
    verify_password,
)
from scoring.errors import ScopaError


def test_password_hash_is_salted_scrypt_and_verifies():
    first, second = hash_password("segreto1"), hash_password("segreto1")
    assert first.startswith("scrypt$") and first != second
    assert "segreto1" not in first
    assert verify_password("segreto1", first) and verify_password("segreto1", second)
    assert not verify_password("segreto2", first)
    assert not verify_password("segreto1", "garbage")


def test_short_passwords_are_refused():
    with pytest.raises(ScopaError, match="at least 6"):
        hash_password("abc")


def test_table_codes_are_random_and_typed_loosely():
    codes = {new_table_code() for _ in range(200)}
    assert len(codes) == 200
    code = codes.pop()
    assert normalize_table_code(format_table_code(code).lower()) == code
    assert not set("0O1IL5S2Z") & set("".join(codes))


def test_wrong_referee_password_is_refused_and_slowed_down(service, make_tournament, sleeps):
    tournament = make_tournament()
    for _ in range(3):
        with pytest.raises(AccessDenied):
            service.referee(tournament, "not-the-password")
    assert sleeps.delays == [1.0, 2.0, 4.0]  # doubling with each failure
    assert service.referee(tournament, PASSWORD).tournament_id == tournament
    with pytest.raises(AccessDenied):
        service.referee(tournament, "again-wrong")
    assert sleeps.delays[-1] == 1.0  # a success resets the count


def test_unknown_table_code_is_refused_and_slowed_down(service, make_tournament, sleeps):
    make_tournament()
    with pytest.raises(AccessDenied):
        service.table("AAAA-AAAA", client="phone-1")
    with pytest.raises(AccessDenied):
        service.table("", client="phone-1")
    assert sleeps.delays == [1.0, 2.0]


def test_the_delay_is_real_time_by_default(db_url):
    service = TournamentService.open(db_url, throttle=FailureThrottle(base_delay=0.05))
    started = time.perf_counter()
    with pytest.raises(AccessDenied):
        service.table("NOPE-NOPE")
    assert time.perf_counter() - started >= 0.05
    service.db.dispose()


def test_throttle_caps_its_delay():
    delays = []
    throttle = FailureThrottle(base_delay=1, max_delay=5, sleep=delays.append)
    for _ in range(6):
        throttle.fail("k")
    assert delays == [1, 2, 4, 5, 5, 5]
    assert throttle.failures("k") == 6


def test_the_service_hashes_with_the_full_cost_by_default(db_url):
    service = TournamentService.open(db_url)
    assert service.scrypt_n == 2**14
    service.db.dispose()
