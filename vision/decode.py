"""Decode any photo a phone makes: JPEG, PNG, WebP, HEIC; EXIF orientation; size limits."""

from __future__ import annotations

import io
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from scoring.errors import ScopaError

from .yolo_env import keep_pillow_open_plain

try:  # HEIC/HEIF from iPhones
    from pillow_heif import register_heif_opener

    register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
    pass

MAX_PIXELS = 50_000_000  # the largest phone photos (50 MP sensors)
# A pile photo is roughly 4:3 or 16:9; a panorama reaches about 8:1. A thinner image holds no
# card, and resizing it to the working size would leave a side of zero pixels.
MAX_ASPECT_RATIO = 10
MIN_SIDE = 32
# Card crops need ~200 px per card; a 12 MP photo decoded at half size still gives that, twice as fast.
WORKING_LONG_SIDE = 2048
# libjpeg decodes at 1/2, 1/4 or 1/8 of the size: the smallest of these whose long side is at
# least this share of the working size is taken as it is (a 4032 px photo at half size, 2016
# px), rather than decoding the whole photo to shrink it by a few percent.
REDUCED_DECODE_MIN_SHARE = 0.9

Image.MAX_IMAGE_PIXELS = MAX_PIXELS * 2  # our own check below gives the clearer message


class ImageError(ScopaError):
    """A photo that cannot be used: missing, empty, truncated, not an image, or too large."""


Source = str | Path | bytes | BinaryIO


def _describe(source: Source, name: str | None) -> str:
    if name:
        return name
    if isinstance(source, str | Path):
        return str(source)
    return getattr(source, "name", None) or "uploaded image"


def load_image(
    source: Source, name: str | None = None, max_long_side: int | None = None
) -> np.ndarray:
    """Decode to a BGR uint8 array, upright per EXIF. `max_long_side` downsizes big photos."""
    image, _ = load_working_image(source, name, max_long_side)
    return image


def load_working_image(
    source: Source, name: str | None = None, max_long_side: int | None = WORKING_LONG_SIDE
) -> tuple[np.ndarray, float]:
    """Decode for recognition: returns (BGR image, scale), where original pixels = image pixels * scale.

    JPEGs are decoded straight at a reduced size (libjpeg's DCT scaling), which is much faster
    than decoding the full photo and resizing it.
    """
    label = _describe(source, name)
    try:
        if isinstance(source, str | Path):
            path = Path(source)
            if not path.is_file():
                raise ImageError(f"{label}: no such file")
            if path.stat().st_size == 0:
                raise ImageError(f"{label}: the file is empty")
            fp: BinaryIO = path.open("rb")
        elif isinstance(source, bytes | bytearray):
            if not source:
                raise ImageError(f"{label}: the file is empty")
            fp = io.BytesIO(source)
        else:
            fp = source
        keep_pillow_open_plain()  # if anything imported ultralytics, junk stays our error
        with Image.open(fp) as im:
            width, height = im.size
            if width * height > MAX_PIXELS:
                raise ImageError(
                    f"{label}: too large: {width}x{height} is more than "
                    f"{MAX_PIXELS // 1_000_000} megapixels"
                )
            if min(width, height) < MIN_SIDE or max(width, height) > MAX_ASPECT_RATIO * min(
                width, height
            ):
                raise ImageError(
                    f"{label}: {width}x{height} is not a photo of cards (each side must be at "
                    f"least {MIN_SIDE} px and at most {MAX_ASPECT_RATIO} times the other)"
                )
            orientation = im.getexif().get(0x0112, 1)
            if max_long_side and im.format == "JPEG" and max(width, height) > max_long_side:
                im.draft("RGB", _reduced_decode_size(width, height, max_long_side))
            upright = ImageOps.exif_transpose(im) if orientation != 1 else im
            rgb = np.asarray(upright.convert("RGB"))
    except ImageError:
        raise
    except Image.DecompressionBombError:
        raise ImageError(
            f"{label}: too large: more than {MAX_PIXELS // 1_000_000} megapixels"
        ) from None
    except UnidentifiedImageError:
        raise ImageError(f"{label}: not an image, or a format this program cannot read") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageError(f"{label}: the image is damaged or truncated ({exc})") from None
    finally:
        if isinstance(source, str | Path) and "fp" in locals():
            fp.close()
    upright_w = width if orientation in (1, 2, 3, 4) else height
    import cv2

    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)  # as rgb[..., ::-1], several times faster
    if max_long_side and max(bgr.shape[:2]) > max_long_side:
        factor = max_long_side / max(bgr.shape[:2])
        bgr = cv2.resize(bgr, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    scale = upright_w / bgr.shape[1]
    return bgr, scale


def _reduced_decode_size(width: int, height: int, max_long_side: int) -> tuple[int, int]:
    """The size to ask libjpeg for: the photo at the smallest of its DCT scales (1/2, 1/4,
    1/8) that keeps REDUCED_DECODE_MIN_SHARE of the working size (Pillow's `draft` decodes at
    the smallest scale at least this large)."""
    divisor = 1
    while divisor < 8 and max(width, height) / (divisor * 2) >= (
        REDUCED_DECODE_MIN_SHARE * max_long_side
    ):
        divisor *= 2
    return -(-width // divisor), -(-height // divisor)
