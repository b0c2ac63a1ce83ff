"""A tournament from set-up to champion, and the hand rules the service enforces."""

import pytest
from tournament_helpers import (
    EVEN,
    PASSWORD,
    big_hand,
    create_tournament,
    play_match,
    sides,
    small_hand,
    submission,
)

from scopa.tournament import PairSetup
from scoring import DECK
from scoring.errors import ScopaError


def names(match):
    return (match.pair_a.name, match.pair_b.name if match.pair_b else None)


def test_groups_then_knockout_to_a_champion(any_service):
    service = any_service
    tournament = create_tournament(service, pairs=8, groups=2, knockout_size=4)
    referee = service.referee(tournament, PASSWORD)
    matches = referee.start()
    assert service.tournament(tournament).stage == "group"
    assert {m.round_number for m in matches} == {1, 2, 3}
    assert all(len([m for m in matches if m.round_number == r]) == 4 for r in (1, 2, 3))
    assert sorted(m.table_number for m in matches if m.round_number == 1) == [1, 2, 3, 4]
    groups = {p.name: p.group for p in service.pairs(tournament)}
    assert groups == {"P1": 0, "P4": 0, "P5": 0, "P8": 0, "P2": 1, "P3": 1, "P6": 1, "P7": 1}

    with pytest.raises(ScopaError, match="still being played"):
        referee.next_round()
    # The better seed always wins: P1 and P4 top group A, P2 and P3 group B.
    for match in matches:
        seeds = (match.pair_a.seed, match.pair_b.seed)
        play_match(service, referee, match, "a" if seeds[0] < seeds[1] else "b")
    standings = service.standings(tournament)
    assert [t.label for t in standings] == ["A", "B"]
    assert [row.pair.name for row in standings[0].rows] == ["P1", "P4", "P5", "P8"]
    assert [row.won for row in standings[0].rows] == [3, 2, 1, 0]
    assert standings[0].rows[0].points_for == 3 * 39

    semis = referee.next_round()
    assert service.tournament(tournament).stage == "knockout"
    assert [names(m) for m in semis] == [("P1", "P3"), ("P2", "P4")]  # 1A-2B, 1B-2A
    play_match(service, referee, semis[0], "b")  # P3 beats P1
    play_match(service, referee, semis[1], "a")
    final = referee.next_round()
    assert [names(m) for m in final] == [("P3", "P2")]
    play_match(service, referee, final[0], "a")
    assert referee.next_round() == []
    assert service.tournament(tournament).stage == "finished"
    # Knockout matches do not enter the standings.
    assert service.standings(tournament)[0].rows[0].played == 3


def test_swiss_rounds_avoid_rematches_and_rotate_the_bye(service, make_tournament):
    tournament = make_tournament(pairs=5, format="swiss", swiss_rounds=3)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    met, byes = set(), []
    for number in (1, 2, 3):
        matches = service.matches(tournament, number)
        for match in matches:
            if match.pair_b is None:
                byes.append(match.pair_a.name)
                assert match.status == "bye" and match.table_number is None
                continue
            key = frozenset(names(match))
            assert key not in met
            met.add(key)
            play_match(service, referee, match, "a")
        new = referee.next_round()
        assert new == [] if number == 3 else new
    assert len(set(byes)) == 3
    assert service.tournament(tournament).stage == "finished"
    rows = service.standings(tournament)[0].rows
    assert sum(row.won for row in rows) == 3 * 3  # two matches and one bye per round
    assert all(row.played == 3 for row in rows)


def test_pairs_are_editable_until_the_start(service, make_tournament):
    tournament = make_tournament(pairs=3)
    referee = service.referee(tournament, PASSWORD)
    added = referee.add_pair(PairSetup("Nuovi", "Anna", "Bruno"))
    assert added.seed == 4 and added.players == "Anna / Bruno"
    referee.remove_pair(service.pairs(tournament)[0].id)
    assert [(p.seed, p.name) for p in service.pairs(tournament)] == [
        (1, "P2"),
        (2, "P3"),
        (3, "Nuovi"),
    ]
    referee.start()
    with pytest.raises(ScopaError, match="started"):
        referee.add_pair(PairSetup("Tardi"))
    renamed = referee.update_pair(added.id, PairSetup("Nuovissimi", "Anna", "Carla"))
    assert renamed.name == "Nuovissimi"


def test_match_is_scored_by_the_rules_and_closes_at_31(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    (match,) = referee.start()
    table = service.table(referee.table_codes()[0][1])
    first = table.submit_hand(submission(small_hand("b", scope=3)))
    assert first.points == {"a": 0, "b": 5}
    assert first.result["sides"]["b"]["points"]["scope"] == 3
    for _ in range(3):
        table.submit_hand(submission(big_hand("a")))
    view = table.match()
    assert (view.status, view.score_a, view.score_b, view.hands_counted) == ("won", 39, 5, 4)
    assert view.winner_id == match.pair_a.id
    with pytest.raises(ScopaError, match="decided"):
        table.submit_hand(submission(small_hand()))
    assert table.match().hands_counted == 4


def test_napoleone_wins_the_match_at_once(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    (match,) = referee.start()
    table = service.table(referee.table_codes()[0][1])
    table.submit_hand(submission(sides([f"{r}D" for r in range(1, 11)])))
    view = table.match()
    assert view.status == "won" and view.napoleone and view.winner_id == match.pair_a.id


def test_a_hand_may_lack_only_cards_that_change_nothing(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    table = service.table(referee.table_codes()[0][1])
    full = big_hand("a")
    # Side a holds 21 cards and everything that scores; two worthless spade of b are lost.
    lacking = {
        "a": full["a"],
        "b": {**full["b"], "cards": [c for c in full["b"]["cards"] if c not in ("8S", "9S")]},
    }
    hand = table.submit_hand(submission(lacking))
    assert hand.missing == ["8S", "9S"] and hand.incomplete
    assert hand.points == {"a": 13, "b": 0}
    assert table.match().score_a == 13
    full = small_hand()
    # Without the settebello, who holds it decides a point: refused, naming the card.
    no_seven = {"a": {**full["a"], "cards": [c for c in EVEN if c != "7D"]}, "b": full["b"]}
    with pytest.raises(ScopaError, match="7D"):
        table.submit_hand(submission(no_seven))


def test_bad_hands_are_refused_with_the_reason(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    table = service.table(referee.table_codes()[0][1])
    with pytest.raises(ScopaError, match="'a' and 'b'"):
        table.submit_hand(submission({"noi": small_hand()["a"], "loro": small_hand()["b"]}))
    duplicate = small_hand()
    duplicate["b"]["cards"].append("1D")
    with pytest.raises(ScopaError, match="1D"):
        table.submit_hand(submission(duplicate))
    assert table.hands() == []


def test_same_submission_id_is_one_hand(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    table = service.table(referee.table_codes()[0][1])
    sent = submission(small_hand(), submission_id="hand-1")
    first, again = table.submit_hand(sent), table.submit_hand(sent)
    assert first == again
    assert table.match().hands_counted == 1 and table.match().score_a == 2
    with pytest.raises(ScopaError, match="already used"):
        table.submit_hand(submission(big_hand(), submission_id="hand-1"))


def test_referee_correction_moves_the_match_and_the_standings(any_service):
    service = any_service
    tournament = create_tournament(service, pairs=2)
    referee = service.referee(tournament, PASSWORD)
    (match,) = referee.start()
    play_match(service, referee, match, "a")
    assert service.standings(tournament)[0].rows[0].pair.name == "P1"
    first = referee.hands(match.id)[0]

    # The first hand really went the other way: 26-13, nobody has 31 any more.
    corrected = referee.correct_hand(first.id, big_hand("b"), note="checked the photos")
    assert corrected.points == {"a": 0, "b": 13} and corrected.review == "corrected"
    view = service.matches(tournament)[0]
    assert (view.status, view.score_a, view.score_b, view.winner_id) == (
        "in-progress",
        26,
        13,
        None,
    )
    assert all(row.played == 0 for row in service.standings(tournament)[0].rows)

    table = service.table(referee.table_codes()[0][1])
    for _ in range(2):
        table.submit_hand(submission(big_hand("b")))
    assert service.matches(tournament)[0].winner_id == match.pair_b.id
    assert service.standings(tournament)[0].rows[0].pair.name == "P2"

    # Voiding hand 4 undoes that win; a correction that would decide the match before its
    # last hand is refused.
    fourth = referee.hands(match.id)[3]
    referee.void_hand(fourth.id, note="played out of turn")
    assert service.matches(tournament)[0].status == "in-progress"
    with pytest.raises(ScopaError, match="void the hands after it"):
        referee.correct_hand(referee.hands(match.id)[1].id, sides([c.code for c in DECK[:10]]))
    assert service.matches(tournament)[0].score_b == 26


def test_a_knockout_winner_that_moved_on_cannot_be_overturned(service, make_tournament):
    tournament = make_tournament(pairs=4, format="swiss", swiss_rounds=1, knockout_size=4)
    referee = service.referee(tournament, PASSWORD)
    for match in referee.start():
        play_match(service, referee, match, "a")
    semis = referee.next_round()
    for match in semis:
        play_match(service, referee, match, "a")
    referee.next_round()
    first_hand = referee.hands(semis[0].id)[0]
    with pytest.raises(ScopaError, match="next knockout round"):
        referee.void_hand(first_hand.id)


def test_referee_swaps_pairs_between_matches_not_yet_played(service, make_tournament):
    tournament = make_tournament(pairs=5, format="swiss", swiss_rounds=2)
    referee = service.referee(tournament, PASSWORD)
    first = referee.start()
    played, other, bye = (
        first[0],
        first[1],
        next(m for m in first if m.pair_b is None),
    )
    play_match(service, referee, played, "a")  # finished: its pairs cannot move any more
    with pytest.raises(ScopaError, match="has started"):
        referee.swap_pairs(played.pair_a.id, other.pair_a.id)
    with pytest.raises(ScopaError, match="already play each other"):
        referee.swap_pairs(other.pair_a.id, other.pair_b.id)

    # The pair with the bye plays instead, and the one it replaces gets the bye.
    resting, leaving = bye.pair_a, other.pair_b
    round_ = referee.swap_pairs(resting.id, leaving.id, note="a late arrival")
    by_id = {m.id: m for m in round_}
    assert names(by_id[other.id]) == (other.pair_a.name, resting.name)
    assert by_id[bye.id].pair_a.name == leaving.name and by_id[bye.id].pair_b is None
    assert by_id[bye.id].status == "bye"
    (event,) = [e for e in referee.audit() if e.action == "pairs-swapped"]
    assert event.details["pairs"] == [resting.name, leaving.name]
    assert event.note == "a late arrival"
    # The new pairing is what gets played and counted.
    play_match(service, referee, by_id[other.id], "b")
    rows = {row.pair.name: row for row in service.standings(tournament)[0].rows}
    assert rows[resting.name].won == 1 and rows[leaving.name].won == 1  # a win and a bye


def test_round_robin_fixtures_cannot_be_swapped(service, make_tournament):
    tournament = make_tournament(pairs=4)
    referee = service.referee(tournament, PASSWORD)
    matches = referee.start()
    with pytest.raises(ScopaError, match="round-robin"):
        referee.swap_pairs(matches[0].pair_a.id, matches[1].pair_a.id)
