"""The hand being entered at a table lives in the database until it is recorded."""

import pytest
from tournament_helpers import PASSWORD, fake_recognize, photo_of, small_hand

from scopa.tournament import AccessDenied
from scopa.tournament.ui import TableDraftStore
from scopa.ui.draft import MANUAL
from scoring import Card
from scoring.errors import ScopaError


@pytest.fixture
def desks(service, make_tournament):
    tournament = make_tournament(pairs=4)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    (first, code1), (_, code2) = referee.table_codes(1)
    return referee, service.table(code1), service.table(code2), first


def test_draft_survives_and_becomes_the_recorded_hand(desks):
    referee, table, _, match = desks
    hand = small_hand()
    draft = table.draft()
    assert draft["photos"] == [] and draft["submission_id"]
    photo = photo_of(hand["a"]["cards"])
    found = fake_recognize(photo)
    store = TableDraftStore(table, {"a": match.pair_a.name, "b": match.pair_b.name})
    store.add_photo(match.pair_a.name, photo, "pila-a.jpg", found)
    store.add_correction("move", Card.parse("4C"), match.pair_a.name, match.pair_b.name)
    loaded = store.load()
    store.save_entry(loaded.with_scope(match.pair_b.name, 1))

    # A new page (another phone at the same table) sees the same draft.
    again = TableDraftStore(table, {"a": match.pair_a.name, "b": match.pair_b.name}).load()
    assert again.scope_of(match.pair_b.name) == 1
    (kept,) = again.photos
    assert (kept.side, kept.filename) == (match.pair_a.name, "pila-a.jpg")
    assert [d.card for d in kept.result.cards] == [d.card for d in found.cards]
    assert store.photo_bytes(kept.id) == photo
    (fix,) = again.corrections
    assert (fix.action, fix.card.code, fix.side, fix.to_side) == (
        "move",
        "4C",
        match.pair_a.name,
        match.pair_b.name,
    )

    sides = {"a": hand["a"], "b": {**hand["b"], "scope": 1}}
    recorded = table.submit_draft(store.submission_id, sides, {"mode": "photos"})
    assert recorded.points == {"a": 2, "b": 1} and recorded.corrections == 1
    assert [(p.side, p.filename) for p in recorded.photos] == [("a", "pila-a.jpg")]
    correction = [e for e in referee.audit(hand_id=recorded.id) if e.action == "correction"][0]
    assert correction.details["made_at"] is not None and correction.details["to_side"] == "b"
    # A second click on "save" finds the hand already recorded; the next draft is a new one.
    assert table.submit_draft(store.submission_id, sides) == recorded
    assert table.draft()["submission_id"] != store.submission_id
    assert len(table.hands()) == 1


def test_entry_mode_and_removals(desks):
    _, table, _, match = desks
    store = TableDraftStore(table, {"a": match.pair_a.name, "b": match.pair_b.name})
    table.save_draft_entry({"mode": MANUAL})
    assert store.load().mode == MANUAL
    store.add_photo(match.pair_b.name, photo_of(["1D"]), "x.jpg", fake_recognize(photo_of(["1D"])))
    store.add_correction("confirm", Card.parse("1D"), match.pair_b.name, None)
    draft = store.load()
    store.remove_photo(draft.photos[0].id)
    store.remove_correction(draft.corrections[0].id)
    draft = store.load()
    assert draft.photos == () and draft.corrections == ()


def test_a_table_cannot_touch_another_tables_draft(desks):
    _, table1, table2, _ = desks
    photo_id = table2.add_draft_photo(
        "a", b"table 2 photo", "t2.jpg", {"width": 1, "height": 1, "cards": []}
    )
    with pytest.raises(ScopaError):
        table1.draft_photo(photo_id)
    assert table1.draft()["photos"] == []
    with pytest.raises(ScopaError, match="no longer open"):
        table1.submit_draft(table2.draft()["submission_id"], small_hand())


def test_a_revoked_code_cannot_edit_the_draft(desks):
    referee, table, _, match = desks
    referee.regenerate_code(match.id)
    with pytest.raises(AccessDenied):
        table.save_draft_entry({"mode": MANUAL})


def test_a_second_phone_submitting_other_cards_is_told_they_were_not_recorded(desks, service):
    """Two phones share the draft; the first to submit records it. The second, with different
    cards, must not hear "saved" (issue 17, item 8)."""
    _, table, _, match = desks
    second_phone = service.table(table.code)
    table.save_draft_entry({"mode": MANUAL})
    submission_id = table.draft()["submission_id"]
    assert second_phone.draft()["submission_id"] == submission_id
    hand = small_hand()
    recorded = table.submit_draft(submission_id, hand)
    other = {"a": hand["a"], "b": {**hand["b"], "scope": hand["b"]["scope"] + 1}}
    with pytest.raises(ScopaError, match="other cards"):
        second_phone.submit_draft(submission_id, other)
    assert second_phone.submit_draft(submission_id, hand) == recorded  # same cards: a retry
    assert len(table.hands()) == 1
