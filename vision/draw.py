"""Draw what was found: each card outlined and labelled on the photo."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from .types import PhotoResult

CONFIDENT = (80, 200, 60)  # BGR green
DOUBTFUL = (0, 170, 255)  # orange
DOUBT_BELOW = 0.8


def annotate(
    image: np.ndarray,
    result: PhotoResult,
    labels: Sequence[str | None] | None = None,
    colors: Sequence[tuple[int, int, int]] | None = None,
) -> np.ndarray:
    """A copy of `image` (BGR, any size) with every card of `result` outlined and labelled.

    `result` quads are in original-photo pixels; `image` may be that photo or a resized copy.
    Labels default to the card code and confidence; colours to green, or orange when doubtful.
    Given labels go with `result.detections` in order (the cards, then the doubtful boxes, as
    the reconciliation's states do); a box whose label is None is not drawn.
    """
    out = image.copy()
    sx, sy = out.shape[1] / max(result.width, 1), out.shape[0] / max(result.height, 1)
    thickness = max(2, round(max(out.shape[:2]) / 500))
    font_scale = max(0.5, max(out.shape[:2]) / 1400)
    boxes = result.cards if labels is None else result.detections[: len(labels)]
    for i, card in enumerate(boxes):
        if labels is None:
            text = f"{card.card} {card.confidence:.0%}"
        else:
            label = labels[i]
            if label is None:
                continue
            text = label
        quad = (card.quad * np.array([sx, sy], dtype=np.float32)).astype(np.int32)
        color = colors[i] if colors else (CONFIDENT if card.confidence >= DOUBT_BELOW else DOUBTFUL)
        cv2.polylines(out, [quad], True, color, thickness, cv2.LINE_AA)
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        x, y = quad.mean(0).astype(int) - np.array([tw // 2, -th // 2])
        cv2.rectangle(out, (x - 4, y - th - 6), (x + tw + 4, y + base + 2), color, -1)
        cv2.putText(
            out,
            text,
            (x, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (255, 255, 255),
            thickness,
            cv2.LINE_AA,
        )
    return out
