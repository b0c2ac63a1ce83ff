"""What runs the two models: ONNX Runtime (the default) or ultralytics on PyTorch.

A detector backend gives, for a BGR photo, an input size, a score threshold and an NMS IoU,
the boxes' corner quads (in photo pixels) and scores; a classifier backend gives, for a batch
of square BGR crops, its class probabilities, and names its classes and input size.

The ONNX files (`models/<name>.onnx`, written by `scopa export`) are used when they are the
export of the `.pt` beside them, as `models/onnx.json` records; a `.pt` trained since its last
export is run through ultralytics (when installed), so that a new model is never measured
through a stale export. `SCOPA_VISION_BACKEND=onnx|ultralytics` forces one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Protocol

import numpy as np

from . import yolo_env

EXPORT_RECORD = "onnx.json"
BACKEND_ENV = "SCOPA_VISION_BACKEND"
BACKENDS = ("onnx", "ultralytics")


class DetectorBackend(Protocol):
    def detect(
        self, image: np.ndarray, imgsz: int, conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """(N, 4, 2) float32 corner quads and (N,) scores, best first."""
        ...


class ClassifierBackend(Protocol):
    names: list[str]  # class names by index
    imgsz: int  # the square input size

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(N, classes) probabilities for N square BGR crops."""
        ...


class BackendUnavailableError(RuntimeError):
    """Neither backend can run these weights here (no ONNX export and no ultralytics)."""


class UltralyticsDetector:
    """The detector through ultralytics' predictor (training, evaluation, equality tests)."""

    def __init__(self, weights: Path) -> None:
        self.model = _yolo(weights, "obb")

    def detect(
        self, image: np.ndarray, imgsz: int, conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray]:
        result = self.model.predict(image, imgsz=imgsz, conf=conf, iou=iou, verbose=False)[0]
        if result.obb is None or len(result.obb) == 0:
            return np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32)
        corners = result.obb.xyxyxyxy.cpu().numpy().astype(np.float32)
        return corners, result.obb.conf.cpu().numpy().astype(np.float32)


class UltralyticsClassifier:
    """The identifier through ultralytics' predictor."""

    def __init__(self, weights: Path) -> None:
        self.model = _yolo(weights, "classify")
        self.names = [self.model.names[i] for i in range(len(self.model.names))]
        self.imgsz = int(self.model.model.args.get("imgsz", 160))

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        results = self.model.predict(crops, imgsz=self.imgsz, verbose=False)
        return np.stack([r.probs.data.cpu().numpy() for r in results])


def _yolo(weights: Path, task: str):
    yolo_env.configure()
    from ultralytics import YOLO

    yolo_env.keep_pillow_open_plain()
    return YOLO(str(weights), task=task)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_is_current(weights: Path) -> bool:
    """Whether `weights`' ONNX file beside it is its export: the record written by
    `scopa export` names this very `.pt` by its hash (the test suite also checks the `.onnx`'s
    own hash). With no `.pt` there (a runtime-only copy of the models), the ONNX file is all
    there is."""
    onnx = weights.with_suffix(".onnx")
    if not onnx.is_file():
        return False
    if not weights.is_file():
        return True
    try:
        record = json.loads((weights.parent / EXPORT_RECORD).read_text())[onnx.name]
    except (OSError, ValueError, KeyError):
        return False
    return record.get("source_sha256") == sha256(weights)


def _ultralytics_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ultralytics") is not None


def choose_backend(weights: list[Path], forced: str | None = None) -> str:
    """`onnx` when every model has a current ONNX export, else `ultralytics` when installed."""
    forced = forced or os.environ.get(BACKEND_ENV) or None
    if forced is not None:
        if forced not in BACKENDS:
            raise ValueError(f"unknown vision backend {forced!r}: choose one of {BACKENDS}")
        return forced
    if all(export_is_current(w) for w in weights):
        return "onnx"
    if _ultralytics_installed():
        return "ultralytics"
    if all(w.with_suffix(".onnx").is_file() for w in weights):
        print(
            "warning: models/*.onnx are not the export of models/*.pt (run `scopa export` "
            "with the [train] extra installed); using them anyway",
            file=sys.stderr,
        )
        return "onnx"
    raise BackendUnavailableError(
        "no ONNX export of the models and no ultralytics to run the .pt weights: "
        "run `scopa export` (install the [train] extra for it)"
    )


def load_backends(
    detector_weights: Path, identifier_weights: Path, backend: str | None = None
) -> tuple[DetectorBackend, ClassifierBackend]:
    """The detector and the identifier of these `.pt` weights (the ONNX files sit beside them)."""
    if choose_backend([detector_weights, identifier_weights], backend) == "onnx":
        from .onnx_runtime import OnnxClassifier, OnnxDetector

        return (
            OnnxDetector(detector_weights.with_suffix(".onnx")),
            OnnxClassifier(identifier_weights.with_suffix(".onnx")),
        )
    return UltralyticsDetector(detector_weights), UltralyticsClassifier(identifier_weights)
