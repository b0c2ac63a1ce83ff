"""A hand draft keeps every detection of its photos, doubtful boxes included, across a save."""

import numpy as np

from scopa.ui.draft import photo_result_from_json, photo_result_to_json
from vision import DetectedCard, PhotoResult


def test_doubtful_boxes_survive_the_round_trip_and_old_drafts_still_load():
    quad = np.float64([[0, 0], [10, 0], [10, 16], [0, 16]])
    card = DetectedCard("7D", 0.9, np.full(40, 1 / 40), quad, 0.95)
    weak = DetectedCard("1C", 0.5, np.full(40, 1 / 40), quad + 20, 0.35)
    stored = photo_result_to_json(PhotoResult("a.jpg", 100, 80, [card], [weak]))
    assert [d.get("doubtful", False) for d in stored] == [False, True]
    back = photo_result_from_json(stored, width=100, height=80, path="a.jpg")
    assert [d.card for d in back.cards] == ["7D"] and [d.card for d in back.doubtful] == ["1C"]
    assert back.doubtful[0].box_confidence == 0.35
    # A draft saved before doubtful boxes existed has no such key: all its detections are cards.
    old = [{k: v for k, v in d.items() if k != "doubtful"} for d in stored]
    assert len(photo_result_from_json(old, width=100, height=80).cards) == 2
