"""Table surfaces: procedural wood, cloth, felt and tablecloth patterns, and real photo margins."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def _smooth_noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Value noise in [0, 1] with features about `scale` pixels across."""
    gh, gw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    grid = rng.random((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _random_color(rng: np.random.Generator, lo: int = 20, hi: int = 235) -> np.ndarray:
    return rng.integers(lo, hi, 3).astype(np.float32)


def wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = np.array(
        [rng.uniform(20, 90), rng.uniform(60, 140), rng.uniform(110, 200)], np.float32
    )  # BGR brown
    y = np.arange(h, dtype=np.float32)[:, None]
    warp = _smooth_noise(rng, h, w, rng.uniform(60, 200)) * rng.uniform(10, 40)
    period = rng.uniform(6, 25)
    grain = 0.5 + 0.5 * np.sin((y + warp) * 2 * np.pi / period)
    grain = grain * 0.6 + _smooth_noise(rng, h, w, 4) * 0.4
    img = base[None, None, :] * (0.75 + 0.35 * grain[..., None])
    if rng.random() < 0.5:  # planks
        plank = int(rng.uniform(80, 250))
        for yy in range(plank, h, plank):
            img[yy : yy + 2] *= 0.55
    img = img if rng.random() < 0.5 else np.ascontiguousarray(np.rot90(cv2.resize(img, (h, w))))
    return img


def cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Felt or woven cloth: a flat colour with fine weave and slow blotches."""
    color = _random_color(rng)
    fine = rng.normal(0, rng.uniform(4, 14), (h, w, 1)).astype(np.float32)
    blotch = (_smooth_noise(rng, h, w, rng.uniform(80, 300)) - 0.5)[..., None] * rng.uniform(10, 40)
    img = color[None, None, :] + fine + blotch
    if rng.random() < 0.5:  # visible weave
        yy, xx = np.mgrid[0:h, 0:w]
        period = rng.uniform(3, 7)
        img += (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period))[
            ..., None
        ] * rng.uniform(4, 12)
    return img


def pattern(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Tablecloth patterns: gingham checks, stripes or dots."""
    c1, c2 = _random_color(rng, 120, 250), _random_color(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    v = -xx * np.sin(angle) + yy * np.cos(angle)
    period = rng.uniform(15, 90)
    kind = rng.integers(3)
    if kind == 0:  # gingham
        t = (((u // period) % 2) + ((v // period) % 2)) / 2.0
    elif kind == 1:  # stripes
        t = ((u // period) % 2).astype(np.float32)
    else:  # dots
        t = (
            ((u % period) - period / 2) ** 2 + ((v % period) - period / 2) ** 2
            < (period * 0.25) ** 2
        ).astype(np.float32)
    img = c1[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None]
    return img + rng.normal(0, 5, (h, w, 1)).astype(np.float32)


def from_patches(rng: np.random.Generator, h: int, w: int, patches: list[np.ndarray]) -> np.ndarray:
    """Tile a real table patch (from the margins of real photos) over the surface, mirrored to hide seams."""
    patch: np.ndarray = patches[rng.integers(len(patches))].astype(np.float32)
    zoom = rng.uniform(0.8, 2.0)
    patch = cv2.resize(patch, None, fx=zoom, fy=zoom)
    tile = np.vstack(
        [np.hstack([patch, patch[:, ::-1]]), np.hstack([patch[::-1], patch[::-1, ::-1]])]
    )
    reps = (h // tile.shape[0] + 1, w // tile.shape[1] + 1, 1)
    return np.tile(tile, reps)[:h, :w]


def make_surface(
    rng: np.random.Generator, h: int, w: int, patches: list[np.ndarray] | None = None
) -> np.ndarray:
    """A random table surface, float32 BGR in [0, 255]."""
    makers: list[Callable[[np.random.Generator, int, int], np.ndarray]] = [wood, cloth, pattern]
    weights = [0.3, 0.3, 0.2]
    if patches:
        makers.append(lambda r, hh, ww: from_patches(r, hh, ww, patches))
        weights.append(0.2)
    probabilities = np.array(weights) / sum(weights)
    img = makers[rng.choice(len(makers), p=probabilities)](rng, h, w)
    return np.clip(img, 0, 255).astype(np.float32)
