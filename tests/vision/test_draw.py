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
