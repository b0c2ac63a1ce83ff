"""Train the two models from their yaml, offline, resumably; copy the weights into models/.

Runs are written under `runs/<name>/` (ultralytics layout: weights/last.pt, weights/best.pt,
results.csv). `resume=True` continues an interrupted run from its last checkpoint.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from . import yolo_env

RUNS_DIR = yolo_env.PROJECT_ROOT / "runs"


@dataclass(frozen=True)
class TrainSpec:
    name: str  # run folder and model role: "detector" or "identifier"
    model_yaml: str
    data: str  # data.yaml for the detector, the class-folder root for the identifier
    epochs: int
    imgsz: int
    batch: int = 16
    seed: int = 0
    workers: int = 2
    # Continue from weights trained here earlier instead of starting from the yaml.
    init_weights: str | None = None
    device: str = "cpu"  # or a CUDA device index such as "0"
    # Stop after this many hours instead of after `epochs`; ultralytics then fits the number of
    # epochs (and the learning-rate schedule) to the time from the first epoch's duration.
    hours: float | None = None
    # The starting learning rate, over the recipe's (`_augmentation`); a short fine-tune of a
    # model that already reads well wants a smaller step than the recipe's.
    lr0: float | None = None


def detector_spec(data_yaml: Path, epochs: int = 10, imgsz: int = 512, seed: int = 0) -> TrainSpec:
    return TrainSpec("detector", "yolov8n-obb.yaml", str(data_yaml), epochs, imgsz, seed=seed)


def identifier_spec(data_dir: Path, epochs: int = 10, imgsz: int = 160, seed: int = 0) -> TrainSpec:
    return TrainSpec(
        "identifier", "yolo11n-cls.yaml", str(data_dir), epochs, imgsz, batch=64, seed=seed
    )


def _augmentation(spec: TrainSpec) -> dict:
    if spec.model_yaml.endswith("-cls.yaml"):
        # Crops are whole cards stretched to a square: keep them whole (scale ~1), and let them
        # come in every orientation a detector may cut them in (upside down, mirrored).
        # The crops already carry photographic variety; a plain AdamW with a short warm-up learns
        # from scratch much faster here than ultralytics' automatic choice.
        recipe = {
            "scale": 0.08,
            "fliplr": 0.5,
            "flipud": 0.5,
            "erasing": 0.1,
            "auto_augment": None,
            "optimizer": "AdamW",
            "lr0": 0.003,
            "warmup_epochs": 1,
            "cos_lr": True,
        }
        if spec.init_weights:  # a few more epochs on new data, from weights that already read well
            recipe |= {"lr0": 0.001, "warmup_epochs": 0.2, "warmup_bias_lr": 0.0}
        return recipe | _given_lr0(spec)
    # Scenes already have perspective, rotation, scale and every layout. Mosaic is off: it would
    # put four piles (up to 120 cards) in one image, which makes the box assigner slow on a CPU.
    recipe = {
        "degrees": 0.0,
        "fliplr": 0.5,
        "flipud": 0.0,
        "mosaic": 0.0,
        "scale": 0.3,
        "cache": "ram",
    }
    if spec.init_weights:
        # Continuing from weights trained here: ultralytics' default 3-epoch warm-up (and its
        # high bias learning rate) would spend a short run re-warming weights that are already
        # good, so warm up briefly and decay the rate on a cosine to the end.
        recipe |= {
            "optimizer": "AdamW",
            "lr0": 0.0015,
            "lrf": 0.05,
            "cos_lr": True,
            "warmup_epochs": 0.5,
            "warmup_bias_lr": 0.0,
        }
    return recipe | _given_lr0(spec)


def _given_lr0(spec: TrainSpec) -> dict:
    return {} if spec.lr0 is None else {"lr0": spec.lr0}


def train(spec: TrainSpec, resume: bool = False, runs_dir: Path = RUNS_DIR) -> Path:
    """Train (or resume) a run; returns the path of its best weights."""
    yolo_env.configure()
    from ultralytics import YOLO

    run_dir = runs_dir / spec.name
    last = run_dir / "weights" / "last.pt"
    started = time.time()
    resuming = resume and last.exists()
    model = YOLO(str(last) if resuming else spec.model_yaml)
    model.add_callback("on_pretrain_routine_start", use_every_core)
    if resuming:
        model.train(resume=True)
    else:
        model.train(
            data=spec.data,
            epochs=spec.epochs,
            imgsz=spec.imgsz,
            batch=spec.batch,
            workers=spec.workers,
            seed=spec.seed,
            deterministic=False,  # deterministic kernels are much slower on CPU
            device=spec.device,
            project=str(runs_dir),
            name=spec.name,
            exist_ok=True,
            pretrained=spec.init_weights or False,
            # Off on a GPU too: ultralytics' mixed-precision check first downloads a model, which
            # cannot work offline.
            amp=False,
            time=spec.hours,
            plots=False,
            verbose=True,
            **_augmentation(spec),
        )
    (run_dir / "train_seconds.txt").write_text(f"{time.time() - started:.0f}\n")
    best = run_dir / "weights" / "best.pt"
    return best if best.exists() else last


def use_every_core(trainer) -> None:
    """Train on every CPU core (an ultralytics callback, run before the first epoch).

    On a CPU, ultralytics sets torch to one thread fewer than the machine has cores: on this
    2-core machine, one. Both cores make a training step about 1.8 times faster here
    (the model card, 2026-12-06 (second session)).
    """
    if trainer.device.type == "cpu":
        import torch

        torch.set_num_threads(os.cpu_count() or 1)


def install_weights(weights: Path, role: str, models_dir: Path | None = None) -> Path:
    """Copy trained weights to models/<role>.pt, where the program loads them from."""
    models_dir = models_dir or yolo_env.PROJECT_ROOT / "models"
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / f"{role}.pt"
    shutil.copyfile(weights, target)
    return target
