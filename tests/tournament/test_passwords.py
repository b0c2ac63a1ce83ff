"""Referee passwords and table codes: hashing, and the slow-down on every wrong guess."""

import time

import pytest
from tournament_helpers import PASSWORD

from scopa.tournament import AccessDenied, FailureThrottle, TournamentService
from scopa.tournament.security import (
    TooManyAttempts,
    format_table_code,
    hash_password,
    new_table_code,
    normalize_table_code,
    verify_password,
)
from scoring.errors import ScopaError


def test_password_hash_is_salted_scrypt_and_verifies():
    first, second = hash_password("segreto-uno"), hash_password("segreto-uno")
    assert first.startswith("scrypt$") and first != second
    assert "segreto-uno" not in first
    assert verify_password("segreto-uno", first) and verify_password("segreto-uno", second)
    assert not verify_password("segreto-due", first)
    assert not verify_password("segreto-uno", "garbage")


@pytest.mark.parametrize("password", ["abc", "segreto12"])
def test_passwords_under_ten_characters_are_refused(password):
    with pytest.raises(ScopaError, match="at least 10 characters"):
        hash_password(password)
    assert hash_password("tre parole lunghe").startswith("scrypt$")


def test_changing_the_password_needs_ten_characters_too(service, make_tournament):
    referee = service.referee(make_tournament(), PASSWORD)
    with pytest.raises(ScopaError, match="at least 10"):
        referee.change_password("corta")


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
    assert sleeps.delays[-1] == 8.0  # a success does not wipe out the failures


def test_one_valid_code_does_not_reset_the_delay_of_guesses(service, make_tournament, sleeps):
    tournament = make_tournament()
    valid = service.referee(tournament, PASSWORD).start()
    code = service.referee(tournament, PASSWORD).table_codes(1)[0][1]
    assert valid
    for _ in range(5):
        service.table(code, client="phone-1")
        with pytest.raises(AccessDenied):
            service.table("AAAA-AAAA", client="phone-1")
    assert sleeps.delays == [1.0, 2.0, 4.0, 8.0, 16.0]


def test_unknown_table_code_is_refused_and_slowed_down(service, make_tournament, sleeps):
    make_tournament()
    with pytest.raises(AccessDenied):
        service.table("AAAA-AAAA", client="phone-1")
    with pytest.raises(AccessDenied):
        service.table("", client="phone-1")
    assert sleeps.delays == [1.0, 2.0]


def test_a_client_still_serving_its_delay_is_refused_unchecked(sleeps):
    """A second session of the same client, or one that stopped waiting, gets no answer."""
    throttle = FailureThrottle(sleep=lambda _s: None, clock=sleeps.clock)
    throttle.fail("table:phone", "table")
    with pytest.raises(TooManyAttempts, match="try again in 1 s"):
        throttle.check("table:phone", "table")
    throttle.check("table:other-phone", "table")
    sleeps.advance(1.0)
    throttle.check("table:phone", "table")


def test_all_clients_together_are_throttled_per_scope(sleeps):
    """Many addresses or parallel sessions share the scope's budget of failures."""
    throttle = FailureThrottle(burst=10, scope_rate=0.5, sleep=lambda _s: None, clock=sleeps.clock)
    for client in range(10):
        throttle.check(f"referee:1:{client}", "referee:1")
        throttle.fail(f"referee:1:{client}", "referee:1")
    with pytest.raises(TooManyAttempts, match="all clients"):
        throttle.check("referee:1:fresh-client", "referee:1")
    throttle.check("referee:2:fresh-client", "referee:2")  # another tournament is unaffected
    sleeps.advance(2.0)  # the bucket refills at 0.5 failures a second
    throttle.check("referee:1:fresh-client", "referee:1")


def test_parallel_guessers_get_a_bounded_number_of_answers(db_url, make_tournament, sleeps):
    """50 sessions guessing at once from different addresses: the scope refuses all but `burst`."""
    service = TournamentService.open(
        db_url,
        throttle=FailureThrottle(burst=5, sleep=lambda _s: None, clock=sleeps.clock),
        scrypt_n=2**10,
    )
    make_tournament()
    answers = refused = 0
    for session in range(50):
        try:
            service.table("AAAA-AAAA", client=f"10.0.0.{session}")
        except TooManyAttempts:
            refused += 1
        except AccessDenied:
            answers += 1
    assert (answers, refused) == (5, 45)
    service.db.dispose()


def test_changing_the_password_ends_the_other_referee_sessions(service, make_tournament):
    tournament = make_tournament()
    old_desk = service.referee(tournament, PASSWORD)
    changer = service.referee(tournament, PASSWORD)
    changer.change_password("una nuova parola")
    with pytest.raises(AccessDenied, match="changed"):
        old_desk.start()
    with pytest.raises(AccessDenied, match="changed"):
        old_desk.table_codes()
    matches = changer.start()  # the desk that changed it goes on
    with pytest.raises(AccessDenied, match="changed"):
        old_desk.regenerate_code(matches[0].id)
    assert service.referee(tournament, "una nuova parola").table_codes()


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


def test_throttle_delay_stays_capped_past_thousands_of_failures(sleeps):
    """2**1024 overflowed a float: from the 1,025th failure on, guesses got no delay at all."""
    throttle = FailureThrottle(sleep=sleeps, clock=sleeps.clock)
    for _ in range(2100):
        throttle.fail("table:attacker", "table")
    assert throttle.failures("table:attacker") == 2100
    assert sleeps.delays[-1100:] == [30.0] * 1100
    assert throttle.delay_for(10**6) == 30.0


def test_failures_are_forgotten_after_a_quiet_hour(sleeps):
    throttle = FailureThrottle(sleep=sleeps, clock=sleeps.clock)
    throttle.fail("k")
    throttle.fail("k")
    sleeps.advance(3601)
    assert throttle.failures("k") == 0


def test_the_service_hashes_with_the_full_cost_by_default(db_url):
    service = TournamentService.open(db_url)
    assert service.scrypt_n == 2**14
    service.db.dispose()
