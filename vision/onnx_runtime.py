"""The two models through ONNX Runtime: no torch, no ultralytics.

The ONNX files are ultralytics' own export of the trained weights (`scopa export`); what the
export leaves out, the pre- and post-processing of ultralytics' predictors, is redone here with
numpy and OpenCV, step for step as ultralytics 8.4 does it, so that both paths give the same
boxes and probabilities (tests/vision/test_onnx_runtime.py):

- detector: letterbox to the input size with the least padding to the stride (ultralytics'
  `LetterBox(auto=True)` for a model of dynamic input size), BGR to RGB, /255; the oriented-box
  head's output (centre, size, score, angle) filtered by score, suppressed by ProbIoU as
  ultralytics' `TorchNMS.fast_nms` does, scaled back to the photo and turned into corners.
- identifier: the square crop at the input size (resized as torchvision's `Resize` does a PIL
  image when it is not), BGR to RGB, /255; the exported graph ends in the softmax.
"""

from __future__ import annotations

import ast
import math
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

# Ultralytics' letterbox fill and its cap on the boxes kept per image.
PAD_VALUE = 114
MAX_DETECTIONS = 300
# ProbIoU's guard against division by zero and log(0), as in ultralytics.utils.metrics.
PROBIOU_EPS = 1e-7


def _session(path: Path):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle worker threads spin by default: on a laptop's few cores busy with other work (the
    # page's server, a browser) that doubled the detector's time here (46 -> 24 ms at 416 px).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    threads = os.environ.get("SCOPA_ONNX_THREADS")
    if threads:
        options.intra_op_num_threads = int(threads)
    return onnxruntime.InferenceSession(
        str(path), sess_options=options, providers=["CPUExecutionProvider"]
    )


def _metadata(session) -> dict[str, Any]:
    """The metadata ultralytics writes into its ONNX export (names, imgsz, stride, task)."""
    raw = session.get_modelmeta().custom_metadata_map
    parsed: dict[str, Any] = {}
    for key in ("names", "imgsz", "stride", "task"):
        if key in raw:
            try:
                parsed[key] = ast.literal_eval(raw[key])
            except (ValueError, SyntaxError):
                parsed[key] = raw[key]
    return parsed


def letterbox(image: np.ndarray, imgsz: int, stride: int = 32) -> np.ndarray:
    """The photo scaled to fit `imgsz` and padded on each side to the next multiple of `stride`."""
    size = math.ceil(imgsz / stride) * stride  # ultralytics' check_imgsz
    height, width = image.shape[:2]
    ratio = min(size / height, size / width)
    new_w, new_h = max(round(width * ratio), 1), max(round(height * ratio), 1)
    pad_w, pad_h = (size - new_w) % stride / 2, (size - new_h) % stride / 2
    if (width, height) != (new_w, new_h):
        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    top, bottom = round(pad_h - 0.1), round(pad_h + 0.1)
    left, right = round(pad_w - 0.1), round(pad_w + 0.1)
    return cv2.copyMakeBorder(
        image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )


def to_input(images: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 images of one size as the network's input: RGB, channels first, 0-1."""
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / np.float32(255)


def _covariance(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (a, b, c) of each box's Gaussian [[a, c], [c, b]] (ProbIoU models a box as a
    uniform distribution: variance w^2/12 and h^2/12, turned by the angle)."""
    var_w, var_h = boxes[:, 2] ** 2 / 12, boxes[:, 3] ** 2 / 12
    cos, sin = np.cos(boxes[:, 4]), np.sin(boxes[:, 4])
    return (
        var_w * cos**2 + var_h * sin**2,
        var_w * sin**2 + var_h * cos**2,
        (var_w - var_h) * cos * sin,
    )


def probiou_matrix(boxes1: np.ndarray, boxes2: np.ndarray) -> np.ndarray:
    """ProbIoU (1 - Hellinger distance of the boxes' Gaussians) of every pair of oriented
    boxes (x, y, w, h, angle), as ultralytics' `batch_probiou` computes it."""
    eps = PROBIOU_EPS
    x1, y1 = boxes1[:, 0:1], boxes1[:, 1:2]
    x2, y2 = boxes2[None, :, 0], boxes2[None, :, 1]
    a1, b1, c1 = (v[:, None] for v in _covariance(boxes1))
    a2, b2, c2 = (v[None, :] for v in _covariance(boxes2))
    a, b, c = a1 + a2, b1 + b2, c1 + c2
    det = a * b - c**2
    t1 = (a * (y1 - y2) ** 2 + b * (x1 - x2) ** 2) / (det + eps) * 0.25
    t2 = (c * (x2 - x1) * (y1 - y2)) / (det + eps) * 0.5
    own = np.sqrt(np.clip(a1 * b1 - c1**2, 0, None) * np.clip(a2 * b2 - c2**2, 0, None))
    t3 = np.log(det / (4 * own + eps) + eps) * 0.5
    bhattacharyya = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bhattacharyya) + eps)


def rotated_nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices of the boxes kept, best first. Ultralytics' "fast" NMS: a box goes when any
    better-scored box, kept or not, has ProbIoU above the threshold with it."""
    order = np.argsort(-scores, kind="stable")
    overlap = np.triu(probiou_matrix(boxes[order], boxes[order]), k=1)
    return order[~(overlap > iou_threshold).any(axis=0)]


def rboxes_to_corners(rboxes: np.ndarray) -> np.ndarray:
    """(N, 4, 2) corners of oriented boxes (x, y, w, h, angle), in ultralytics' order."""
    centre = rboxes[:, None, :2]
    w, h, angle = rboxes[:, 2:3], rboxes[:, 3:4], rboxes[:, 4:5]
    cos, sin = np.cos(angle), np.sin(angle)
    along = np.concatenate([w / 2 * cos, w / 2 * sin], axis=1)[:, None]
    across = np.concatenate([-h / 2 * sin, h / 2 * cos], axis=1)[:, None]
    return np.concatenate(
        [
            centre + along + across,
            centre + along - across,
            centre - along - across,
            centre - along + across,
        ],
        axis=1,
    )


def decode_obb(
    output: np.ndarray,
    input_shape: tuple[int, int],
    image_shape: tuple[int, int],
    conf: float,
    iou: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The oriented-box head's output for one image, (4 + 1 + 1, anchors) = centre and size in
    input pixels, the card score, the angle, as corner quads in photo pixels and scores."""
    pred = output.T
    pred = pred[pred[:, 4] > conf]
    if not len(pred):
        return np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32)
    rboxes = np.concatenate([pred[:, :4], pred[:, 5:6]], axis=1)
    keep = rotated_nms(rboxes.astype(np.float64), pred[:, 4], iou)[:MAX_DETECTIONS]
    rboxes, scores = rboxes[keep], pred[keep, 4]
    # Back to the photo: ultralytics' scale_boxes for centre-size boxes (not clipped).
    in_h, in_w = input_shape
    height, width = image_shape
    gain = min(in_h / height, in_w / width)
    new_h, new_w = max(round(height * gain), 1), max(round(width * gain), 1)
    pad_x, pad_y = round((in_w - new_w) / 2 - 0.1), round((in_h - new_h) / 2 - 0.1)
    rboxes[:, 0] = (rboxes[:, 0] - pad_x) / (new_w / width)
    rboxes[:, 1] = (rboxes[:, 1] - pad_y) / (new_h / height)
    rboxes[:, 2] /= new_w / width
    rboxes[:, 3] /= new_h / height
    return rboxes_to_corners(rboxes).astype(np.float32), scores.astype(np.float32)


class OnnxDetector:
    """The oriented-box card detector, exported to ONNX with dynamic input size."""

    def __init__(self, path: Path) -> None:
        self.session = _session(path)
        self.input_name = self.session.get_inputs()[0].name
        self.stride = int(_metadata(self.session).get("stride", 32))

    def detect(
        self, image: np.ndarray, imgsz: int, conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray]:
        padded = letterbox(image, imgsz, self.stride)
        (output,) = self.session.run(None, {self.input_name: to_input([padded])})
        return decode_obb(output[0], padded.shape[:2], image.shape[:2], conf, iou)


class OnnxClassifier:
    """The card identifier, exported to ONNX (its graph ends in the softmax)."""

    def __init__(self, path: Path) -> None:
        self.session = _session(path)
        self.input_name = self.session.get_inputs()[0].name
        meta = _metadata(self.session)
        names = meta["names"]
        self.names = [names[i] for i in range(len(names))]
        imgsz = meta["imgsz"]
        self.imgsz = int(imgsz[0] if isinstance(imgsz, list | tuple) else imgsz)

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        sized = [self._sized(c) for c in crops]
        (probs,) = self.session.run(None, {self.input_name: to_input(sized)})
        return probs

    def _sized(self, crop: np.ndarray) -> np.ndarray:
        """A square crop at the input size. Another size is resized as ultralytics' classify
        transform does (torchvision's Resize on a PIL image: Pillow's bilinear)."""
        height, width = crop.shape[:2]
        if height != width:
            raise ValueError(f"the identifier reads square crops, not {width}x{height}")
        if height == self.imgsz:
            return crop
        from PIL import Image

        resized = Image.fromarray(crop).resize((self.imgsz, self.imgsz), Image.Resampling.BILINEAR)
        return np.asarray(resized)
