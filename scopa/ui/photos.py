"""Photos on the page: checking and recognising an upload, and drawing what was found on it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from vision import CardRecognizer, PhotoResult

# A phone photo is 2-8 MB; anything far larger is not a photo of a pile of cards.
MAX_PHOTO_BYTES = 30 * 1024 * 1024
PHOTO_TYPES = ("jpg", "jpeg", "png", "heic", "heif")
# Width or height of the copy shown on the page: enough to read the labels on a phone.
DISPLAY_SIDE = 1400
CHECK_SIDE = 256

GREEN = (40, 160, 40)
ORANGE = (0, 140, 255)
RED = (40, 40, 220)
GREY = (150, 150, 150)
STATUS_COLORS = {"ok": GREEN, "uncertain": ORANGE, "conflict": RED, "extra": GREY}


class PhotoRejected(Exception):
    """A photo the page refuses; `key` and `fields` make the translated message."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


def recognize_photo(
    data: bytes, filename: str, recognizer: Callable[[], CardRecognizer]
) -> PhotoResult:
    """Recognise the cards of an uploaded photo, or raise PhotoRejected saying why not.

    The photo is checked before `recognizer` is called, so a bad file never waits for the models.
    """
    from vision import ImageError, load_image

    if not data:
        raise PhotoRejected("photo.empty", name=filename)
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoRejected(
            "photo.too_big",
            name=filename,
            size=round(len(data) / 2**20, 1),
            limit=MAX_PHOTO_BYTES // 2**20,
        )
    try:
        # A small decode: JPEGs decode at 1/8 scale, so this costs little next to recognition.
        load_image(data, name=filename, max_long_side=CHECK_SIDE)
        result = recognizer().recognize(data, path=filename)
    except ImageError as exc:  # not an image, damaged, or beyond the pixel limit
        raise PhotoRejected("photo.unreadable", name=filename) from exc
    if not result.cards:
        raise PhotoRejected("photo.no_cards", name=filename)
    return result


def annotated_photo(
    data: bytes,
    result: PhotoResult,
    labels: Sequence[str | None],
    colors: Sequence[tuple[int, int, int]],
    max_side: int = DISPLAY_SIDE,
) -> np.ndarray:
    """The photo with each detection outlined and labelled, as RGB, at most `max_side` px."""
    from vision import annotate, load_image

    image = load_image(data, max_long_side=max_side)
    return annotate(image, result, labels=list(labels), colors=list(colors))[..., ::-1]


def display_image(data: bytes, max_side: int = DISPLAY_SIDE) -> np.ndarray:
    """The photo decoded upright at display size (BGR): the slow step of drawing it."""
    from vision import load_image

    return load_image(data, max_long_side=max_side)


def draw_marks(
    image: np.ndarray,
    result: PhotoResult,
    labels: Sequence[str | None],
    colors: Sequence[tuple[int, int, int]],
) -> bytes:
    """`image` (from `display_image`) with each detection outlined and labelled, as JPEG."""
    import cv2

    from vision import annotate

    marked = annotate(image, result, labels=list(labels), colors=list(colors))
    ok, encoded = cv2.imencode(".jpg", marked, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ValueError("cannot encode the photo as JPEG")
    return encoded.tobytes()


def thumbnail(data: bytes, max_side: int = 480) -> np.ndarray:
    """A small RGB copy of a stored photo, for the history."""
    from vision import load_image

    return load_image(data, max_long_side=max_side)[..., ::-1]
