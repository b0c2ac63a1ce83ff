"""A table code opens its own match and nothing else, for reading as for writing."""

import pytest
from tournament_helpers import PASSWORD, small_hand, submission

from scopa.tournament import AccessDenied, PhotoUpload


@pytest.fixture
def two_tables(service, make_tournament):
    tournament = make_tournament(pairs=4)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    (first, code1), (second, code2) = referee.table_codes(1)
    return referee, service.table(code1), service.table(code2), first, second


def test_a_table_sees_only_its_match(two_tables):
    _, table1, table2, first, second = two_tables
    assert table1.match().id == first.id
    assert table2.match().id == second.id
    assert (table1.match().pair_a, table1.match().pair_b) == (first.pair_a, first.pair_b)


def test_a_table_cannot_read_another_tables_hand_or_photo(two_tables):
    _, table1, table2, _, _ = two_tables
    hand = table2.submit_hand(
        submission(small_hand(), photos=[PhotoUpload("a", b"photo of table 2")])
    )
    assert table2.hand(hand.id).id == hand.id
    assert table2.photo(hand.photos[0].id) == b"photo of table 2"
    with pytest.raises(AccessDenied):
        table1.hand(hand.id)
    with pytest.raises(AccessDenied):
        table1.photo(hand.photos[0].id)
    assert table1.hands() == []


def test_a_table_writes_only_to_its_match(two_tables):
    referee, table1, _, first, second = two_tables
    table1.submit_hand(submission(small_hand()))
    assert [h.match_id for h in referee.hands(first.id)] == [first.id]
    assert referee.hands(second.id) == []


def test_a_regenerated_code_locks_out_the_old_one(service, two_tables):
    referee, table1, _, first, _ = two_tables
    new_code = referee.regenerate_code(first.id)
    with pytest.raises(AccessDenied):
        table1.match()
    with pytest.raises(AccessDenied):
        table1.submit_hand(submission(small_hand()))
    assert service.table(new_code).match().id == first.id
    assert referee.hands(first.id) == []


def test_public_reads_never_carry_table_codes(service, two_tables):
    referee, *_ = two_tables
    codes = {code for _, code in referee.table_codes(1)}
    tournament = referee.tournament_id
    public = repr(service.matches(tournament)) + repr(service.standings(tournament))
    assert not any(code in public for code in codes)
