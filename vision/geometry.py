"""Card geometry shared by the recogniser, the reconciliation and the data generator: corner
order, straightening, a card's angle, turning a photo, and the overlap of card outlines (one
place for all overlap maths)."""

from __future__ import annotations

import cv2
import numpy as np


def warp_crop(image: np.ndarray, quad: np.ndarray, size: int) -> np.ndarray:
    """Straighten the card at `quad` (TL, TR, BR, BL) into a size x size square (stretched).

    The identifier sees every card as the same square whatever its shape in the photo, so
    training crops and crops cut from real photos go through this one function.
    """
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.array(quad, dtype=np.float32), dst)
    return cv2.warpPerspective(
        image, matrix, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def portrait_corners(points: np.ndarray) -> np.ndarray:
    """Order four corners as TL, TR, BR, BL of an upright (portrait) card.

    A detector's oriented box does not know which short side is the top; the card's content
    decides that later (the identifier is trained on both orientations). Here the long sides are
    made vertical and the first corner is the one nearest the image's top-left.
    """
    pts = np.asarray(points, np.float32).reshape(4, 2)
    center = pts.mean(0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates (y down), starting anywhere
    # Make edge 0->1 a short side (the top).
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[2] - pts[1]):
        pts = np.roll(pts, -1, axis=0)
    # Of the two short sides, call the upper one the top.
    if (pts[2] + pts[3]).sum() / 2 < (pts[0] + pts[1]).sum() / 2 and (pts[2, 1] + pts[3, 1]) < (
        pts[0, 1] + pts[1, 1]
    ):
        pts = np.roll(pts, 2, axis=0)
    return pts


def card_angle(quad: np.ndarray) -> float:
    """The direction of a card's long side, in degrees from the photo's horizontal."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    side = max(q[1] - q[0], q[2] - q[1], key=lambda v: float(np.hypot(*v)))
    return float(np.degrees(np.arctan2(side[1], side[0])))


def turn_photo(
    image: np.ndarray, degrees: float, region: np.ndarray | None = None, margin: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """The photo turned by `degrees` about its centre (counter-clockwise as seen) on a canvas
    that holds all of it, or with `region` (points of the photo) only the part of it that holds
    them and `margin` pixels around them; and the 2x3 affine matrix that takes points of the
    turned photo back onto the photo."""
    h, w = image.shape[:2]
    forward = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(forward[0, 0]), abs(forward[0, 1])
    size = (int(np.ceil(w * cos + h * sin)), int(np.ceil(w * sin + h * cos)))
    forward[:, 2] += (size[0] - w) / 2, (size[1] - h) / 2
    if region is not None and len(region):
        points = cv2.transform(np.float32(region).reshape(-1, 1, 2), forward).reshape(-1, 2)
        x0, y0 = np.floor(np.maximum(points.min(0) - margin, 0))
        x1, y1 = np.ceil(np.minimum(points.max(0) + margin, size))
        forward[:, 2] -= x0, y0
        size = (max(int(x1 - x0), 1), max(int(y1 - y0), 1))
    turned = cv2.warpAffine(image, forward, size, borderValue=(114, 114, 114))
    return turned, cv2.invertAffineTransform(forward)


def polygon_area(quad: np.ndarray) -> float:
    """Area of a convex polygon (any corner order)."""
    return float(cv2.contourArea(np.float32(quad).reshape(-1, 2)))


def intersection_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area shared by two convex polygons."""
    inter, _ = cv2.intersectConvexConvex(np.float32(a).reshape(-1, 2), np.float32(b).reshape(-1, 2))
    return float(inter)


def overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(intersection over union, share of `a` that `b` covers) of two convex polygons."""
    inter, area_a = intersection_area(a, b), polygon_area(a)
    union = area_a + polygon_area(b) - inter
    return (inter / union if union > 0 else 0.0), (inter / area_a if area_a > 0 else 0.0)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex polygons."""
    return overlap(a, b)[0]
