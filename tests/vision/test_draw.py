"""Drawing the cards found on a photo."""

import numpy as np

from vision import DetectedCard, PhotoResult, annotate


def test_annotate_draws_on_a_copy_at_any_display_size():
    image = np.zeros((200, 400, 3), np.uint8)  # the photo shown at half its original size
    quad = np.float32([[80, 40], [240, 40], [240, 360], [80, 360]])  # original pixels
    card = DetectedCard("7D", 0.95, np.full(40, 1 / 40), quad)
    drawn = annotate(image, PhotoResult(None, 800, 400, [card]))
    assert image.sum() == 0 and drawn.sum() > 0
    # The outline is drawn where the card is, scaled to the copy: its left edge at x = 40.
    assert drawn[60:80, 38:43].max() > 0
    assert drawn[:, 300:].max() == 0


def test_with_labels_the_doubtful_boxes_follow_the_cards_and_none_is_left_undrawn():
    image = np.zeros((400, 800, 3), np.uint8)
    box = lambda x: np.float32([[x, 40], [x + 100, 40], [x + 100, 300], [x, 300]])  # noqa: E731
    card = DetectedCard("7D", 0.95, np.full(40, 1 / 40), box(40))
    used, unused = (DetectedCard("1C", 0.6, np.full(40, 1 / 40), box(x), 0.4) for x in (300, 550))
    result = PhotoResult(None, 800, 400, [card], doubtful=[used, unused])
    drawn = annotate(image, result, labels=["7D", "1C?", None], colors=[(0, 255, 0)] * 3)
    assert drawn[100:200, 298:303].max() > 0  # the doubtful box read as a card is drawn
    assert drawn[:, 540:].max() == 0  # the unused one is not
