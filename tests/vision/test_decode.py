"""Decoding phone photos: formats, EXIF orientation, size limits and clear errors."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.decode import ImageError, load_image, load_working_image


def _photo(width: int = 60, height: int = 40) -> Image.Image:
    """Left half red, right half blue: orientation can be read back from the pixels."""
    arr = np.zeros((height, width, 3), np.uint8)
    arr[:, : width // 2] = (255, 0, 0)
    arr[:, width // 2 :] = (0, 0, 255)
    return Image.fromarray(arr)


def _encode(image: Image.Image, fmt: str, **kwargs) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
def test_formats_decode_to_bgr(fmt):
    image = load_image(_encode(_photo(), fmt))
    assert image.shape == (40, 60, 3) and image.dtype == np.uint8
    left, right = image[20, 5], image[20, 55]
    assert left[2] > 200 and left[0] < 60  # red, in BGR order
    assert right[0] > 200 and right[2] < 60


def test_exif_rotation_is_applied():
    exif = Image.Exif()
    exif[0x0112] = 6  # the phone was held upright: rotate 90 degrees clockwise to display
    data = _encode(_photo(), "JPEG", exif=exif.tobytes())
    image = load_image(data)
    assert image.shape[:2] == (60, 40)
    assert image[5, 20][2] > 200  # the red half is now on top


def test_working_image_scale_maps_back_to_original_pixels(tmp_path):
    path = tmp_path / "big.jpg"
    _photo(3000, 2000).save(path, quality=80)
    image, scale = load_working_image(path, max_long_side=1000)
    assert max(image.shape[:2]) <= 1000
    assert image.shape[1] * scale == pytest.approx(3000, rel=0.01)


def test_a_12_mp_jpeg_is_decoded_at_half_size_not_whole_and_shrunk(tmp_path):
    path = tmp_path / "phone.jpg"
    _photo(4032, 3024).save(path, quality=80)
    image, scale = load_working_image(path)  # the working size is 2048: half size is 2016
    assert image.shape[:2] == (1512, 2016)
    assert scale == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"this is not a photo at all", "not an image"),
    ],
)
def test_bad_bytes_get_one_line_errors(content, message):
    with pytest.raises(ImageError, match=message) as info:
        load_image(content, name="upload.jpg")
    assert "upload.jpg" in str(info.value) and "\n" not in str(info.value)


def test_truncated_jpeg_names_the_file(tmp_path):
    path = tmp_path / "cut.jpg"
    path.write_bytes(_encode(_photo(400, 300), "JPEG")[:600])
    with pytest.raises(ImageError, match="cut.jpg"):
        load_image(path)


def test_missing_file(tmp_path):
    with pytest.raises(ImageError, match="no such file"):
        load_image(tmp_path / "nowhere.jpg")


def test_too_many_pixels_is_refused(tmp_path, monkeypatch):
    import vision.decode as decode

    monkeypatch.setattr(decode, "MAX_PIXELS", 1000)
    with pytest.raises(ImageError, match="megapixels"):
        load_image(_encode(_photo(60, 40), "PNG"))


def test_junk_is_still_a_clear_error_once_ultralytics_is_loaded():
    from vision import yolo_env

    yolo_env.configure()
    import ultralytics  # noqa: F401  (its import wraps PIL.Image.open)

    yolo_env.keep_pillow_open_plain()
    with pytest.raises(ImageError, match="not an image"):
        load_image(b"GIF89 certainly not", name="junk.jpg")
