"""What a phone camera does to a picture of a table: uneven warm light, blur, noise, JPEG."""

from __future__ import annotations

import cv2
import numpy as np


def uneven_light(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Multiply by a smooth light field: a directional gradient, a lamp spot and a vignette."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx, yy = xx / w - 0.5, yy / h - 0.5
    angle = rng.uniform(0, 2 * np.pi)
    field = 1 + rng.uniform(0, 0.5) * (xx * np.cos(angle) + yy * np.sin(angle))
    cx, cy = rng.uniform(-0.5, 0.5, 2)
    field += rng.uniform(0, 0.4) * np.exp(
        -((xx - cx) ** 2 + (yy - cy) ** 2) / rng.uniform(0.02, 0.2)
    )
    field *= 1 - rng.uniform(0, 0.5) * (xx**2 + yy**2)
    field *= rng.uniform(0.55, 1.15)
    return img * field[..., None]


def color_cast(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """White balance of warm indoor light (more red, less blue), sometimes cool daylight."""
    warmth = rng.uniform(-0.1, 0.35)
    gains = np.array(
        [1 - warmth * 0.8, 1 - warmth * 0.15, 1 + warmth * 0.35], np.float32
    )  # B, G, R
    return img * gains[None, None, :]


def shadow_band(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A soft shadow across part of the picture (a phone or a hand between lamp and table)."""
    h, w = img.shape[:2]
    mask: np.ndarray = np.zeros((h, w), np.float32)
    pts = rng.uniform([0, 0], [w, h], (rng.integers(3, 6), 2)).astype(np.int32)
    cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
    k = int(max(h, w) * rng.uniform(0.03, 0.12)) | 1
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    return img * (1 - rng.uniform(0.15, 0.45) * mask)[..., None]


def blur(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    if rng.random() < 0.5:
        sigma = rng.uniform(0.3, 1.6)
        return cv2.GaussianBlur(img, (0, 0), sigma)
    length = int(rng.integers(3, 9))
    kernel: np.ndarray = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    return cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))


def sensor_noise(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    sigma = rng.uniform(1, 8)
    return img + rng.normal(0, sigma, img.shape).astype(np.float32)


def jpeg(
    rng: np.random.Generator, img: np.ndarray, quality: tuple[int, int] = (45, 95)
) -> np.ndarray:
    ok, buf = cv2.imencode(
        ".jpg",
        np.clip(img, 0, 255).astype(np.uint8),
        [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*quality))],
    )
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None  # a buffer cv2 has just encoded
    return decoded


def camera(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """The whole chain, on a float32 BGR image; returns uint8."""
    img = uneven_light(rng, img)
    img = color_cast(rng, img)
    if rng.random() < 0.35:
        img = shadow_band(rng, img)
    if rng.random() < 0.7:
        img = blur(rng, img)
    img = sensor_noise(rng, img)
    return jpeg(rng, img)
