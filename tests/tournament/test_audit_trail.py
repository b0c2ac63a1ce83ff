"""Every hand keeps its photos with their SHA-256, what recognition found, every manual
correction (what, when, who) and the final score; referee actions are logged too."""

import datetime as dt
import hashlib

from tournament_helpers import PASSWORD, big_hand, photo_of, small_hand, submission

from scopa.tournament import ManualCorrection, PhotoUpload


def test_a_hand_keeps_its_photos_recognition_corrections_and_score(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    (match,) = referee.start()
    table = service.table(referee.table_codes()[0][1])
    hand = small_hand()
    photo_a, photo_b = photo_of(hand["a"]["cards"]), photo_of(hand["b"]["cards"])
    found = {
        "path": None,
        "width": 4000,
        "height": 3000,
        "cards": [{"card": "1D", "confidence": 0.97}],
    }
    made_at = dt.datetime(2024, 5, 4, 21, 15, tzinfo=dt.UTC)
    recorded = table.submit_hand(
        submission(
            hand,
            photos=[
                PhotoUpload("a", photo_a, filename="IMG_0001.HEIC", recognition=found),
                PhotoUpload("b", photo_b, filename="IMG_0002.HEIC"),
            ],
            corrections=[
                ManualCorrection("move", "4C", "a", to_side="b", at=made_at),
                ManualCorrection("confirm", "9B", "a"),
            ],
            recognition={"determinate": True, "missing": []},
        )
    )

    stored = referee.hand(recorded.id)
    assert [(p.side, p.sha256, p.size, p.filename) for p in stored.photos] == [
        ("a", hashlib.sha256(photo_a).hexdigest(), len(photo_a), "IMG_0001.HEIC"),
        ("b", hashlib.sha256(photo_b).hexdigest(), len(photo_b), "IMG_0002.HEIC"),
    ]
    assert referee.photo(stored.photos[1].id) == photo_b
    assert stored.photos[0].recognition == found
    assert stored.recognition == {"determinate": True, "missing": []}
    assert stored.corrections == 2
    assert stored.result["sides"]["a"]["points"]["settebello"] == 1
    assert (stored.points_a, stored.points_b, stored.submitted_by) == (2, 0, "table 1")

    events = referee.audit(hand_id=recorded.id)
    assert [(e.actor, e.action) for e in events] == [
        ("table 1", "hand-recorded"),
        ("table 1", "correction"),
        ("table 1", "correction"),
    ]
    recorded_event, move, confirm = events
    assert recorded_event.details["points"] == {"a": 2, "b": 0}
    assert recorded_event.details["photos"][0]["sha256"] == stored.photos[0].sha256
    assert move.details == {
        "action": "move",
        "card": "4C",
        "side": "a",
        "to_side": "b",
        "made_at": made_at.isoformat(),
    }
    assert confirm.details["made_at"] is None
    assert all(e.at.tzinfo is not None for e in events)

    # The referee's review goes into the same trail, with its note.
    referee.correct_hand(recorded.id, big_hand("a"), note="photo 2 shows the 4 of coppe")
    referee.accept_hand(recorded.id, note="re-checked")
    actions = [(e.actor, e.action, e.note) for e in referee.audit(match_id=match.id)][-2:]
    assert actions == [
        ("referee", "hand-corrected", "photo 2 shows the 4 of coppe"),
        ("referee", "hand-accepted", "re-checked"),
    ]
    corrected = referee.audit(hand_id=recorded.id)[-2].details
    assert corrected["before"]["points"] == {"a": 2, "b": 0}
    assert corrected["after"]["points"] == {"a": 13, "b": 0}
    accepted = referee.audit(hand_id=recorded.id)[-1]
    assert (accepted.match_id, accepted.hand_id) == (match.id, recorded.id)
    assert accepted.details == {"number": recorded.number, "points": {"a": 13, "b": 0}}

    referee.void_hand(recorded.id, note="played twice")
    voided = referee.audit(hand_id=recorded.id)[-1]
    assert (voided.actor, voided.action, voided.note) == ("referee", "hand-voided", "played twice")
    assert voided.details == accepted.details


def test_the_same_photo_bytes_are_stored_once(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    table = service.table(referee.table_codes()[0][1])
    same = PhotoUpload("a", b"one photo, sent twice")
    first = table.submit_hand(submission(small_hand(), photos=[same]))
    second = table.submit_hand(submission(small_hand(), photos=[same]))
    assert first.photos[0].sha256 == second.photos[0].sha256
    assert table.photo(second.photos[0].id) == b"one photo, sent twice"


def test_referee_set_up_actions_are_logged(service, make_tournament):
    tournament = make_tournament(pairs=4)
    referee = service.referee(tournament, PASSWORD)
    (first, *_) = referee.start()
    referee.set_table_number(first.id, 7)
    referee.regenerate_code(first.id)
    actions = [e.action for e in referee.audit()]
    assert actions == [
        "tournament-created",
        "tournament-started",
        "table-changed",
        "code-regenerated",
    ]
    assert service.matches(tournament)[0].table_number == 7
