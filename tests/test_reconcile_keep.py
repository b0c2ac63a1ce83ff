"""Corrections with `keep_readings=True` (the page's mode): a fix changes only what it names."""

from __future__ import annotations

import numpy as np

from scoring import DECK, Rules, parse_card
from vision.reconcile import Correction, reconcile
from vision.types import DetectedCard, PhotoResult

CLASSICA = Rules.from_preset("classica")


def read(slot: int, *readings: tuple[str, float]) -> DetectedCard:
    """A detection in grid slot `slot` reading each (code, probability); the rest share 1%."""
    probs = np.full(len(DECK), 0.01 / (len(DECK) - len(readings)))
    for code, p in readings:
        probs[parse_card(code).index] = p
    probs /= probs.sum()
    x, y = (slot % 8) * 300, (slot // 8) * 450
    quad = np.array([[x, y], [x + 250, y], [x + 250, y + 400], [x, y + 400]], dtype=float)
    best = DECK[int(np.argmax(probs))].code
    return DetectedCard(best, float(probs.max()), probs, quad, 0.95)


def photo(*detections: DetectedCard) -> PhotoResult:
    return PhotoResult(None, 2400, 1800, list(detections))


def hand() -> dict[str, list[PhotoResult]]:
    # Noi's box 0 is a phantom read as 5S, whose next reading is 1B; box 1 reads 1B, or else 3B.
    noi = photo(
        read(0, ("5S", 0.7), ("1B", 0.28)),
        read(1, ("1B", 0.6), ("3B", 0.38)),
        read(2, ("7D", 0.99)),
        read(3, ("2C", 0.99)),
    )
    loro = photo(read(0, ("4C", 0.99)), read(1, ("6S", 0.99)))
    return {"Noi": [noi], "Loro": [loro]}


def test_moving_a_phantom_card_changes_nothing_else():
    before = reconcile(hand(), CLASSICA)
    assert before.assignments["Noi"][0] == [parse_card(c) for c in ("5S", "1B", "7D", "2C")]
    move = Correction("move", "5S", "Noi", "Loro")

    kept = reconcile(hand(), CLASSICA, corrections=[move], keep_readings=True)
    assert kept.assignments["Noi"][0] == [None] + [parse_card(c) for c in ("1B", "7D", "2C")]
    assert {c.code for c in kept.sides["Noi"]} == {"1B", "7D", "2C"}
    assert {c.code for c in kept.sides["Loro"]} == {"4C", "6S", "5S"}

    # Solved afresh, the same fix turns the phantom into the asso di bastoni and the real
    # asso di bastoni into the 3: what players saw at the table.
    afresh = reconcile(hand(), CLASSICA, corrections=[move])
    assert afresh.assignments["Noi"][0][:2] == [parse_card("1B"), parse_card("3B")]


def test_a_replacement_reads_the_box_as_the_named_card():
    fixes = [Correction("remove", "5S", "Noi"), Correction("add", "1B", "Noi")]
    kept = reconcile(hand(), CLASSICA, corrections=fixes, keep_readings=True)
    # 1B is named and likelier than nothing for box 0, but box 1 keeps reading it.
    assert kept.assignments["Noi"][0][1:] == [parse_card(c) for c in ("1B", "7D", "2C")]
    assert {c.code for c in kept.sides["Noi"]} == {"1B", "7D", "2C"}


def test_a_conflict_settled_for_the_other_side_moves_only_that_card():
    # Loro's box 1 reads 7D almost surely, but Noi holds it: Loro's box is overruled to 8D.
    loro = photo(read(0, ("4C", 0.99)), read(1, ("7D", 0.93), ("8D", 0.06)))
    sides = {"Noi": hand()["Noi"], "Loro": [loro]}
    before = reconcile(sides, CLASSICA)
    assert [c.card.code for c in before.conflicts] == ["7D"]
    fixed = reconcile(
        sides, CLASSICA, corrections=[Correction("remove", "7D", "Noi")], keep_readings=True
    )
    assert not fixed.conflicts
    assert fixed.assignments["Loro"][0] == [parse_card("4C"), parse_card("7D")]
    assert fixed.assignments["Noi"][0] == [parse_card(c) for c in ("5S", "1B")] + [None] + [
        parse_card("2C")
    ]
