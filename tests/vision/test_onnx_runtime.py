"""The ONNX runtime path: the same results as ultralytics on PyTorch, without importing either.

The fast tests compare the pieces (letterbox, ProbIoU, suppression) with ultralytics' own; the
slow ones run both paths of the whole recogniser on real and generated photos, and check that
the committed `.onnx` files are the export of the committed `.pt` files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.backends import EXPORT_RECORD, choose_backend, export_is_current, sha256

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
SHARED = ROOT.parent / "shared"
REAL = SHARED / "real" / "dev"

has_models = all(
    (MODELS / f"{m}.{ext}").is_file() for m in ("detector", "identifier") for ext in ("pt", "onnx")
)
needs_models = pytest.mark.skipif(not has_models, reason="models/ has no .pt and .onnx models")


def random_rboxes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Oriented boxes (x, y, w, h, angle) of card-like sizes, many overlapping."""
    return np.column_stack(
        [
            rng.uniform(0, 300, n),
            rng.uniform(0, 300, n),
            rng.uniform(20, 120, n),
            rng.uniform(30, 200, n),
            rng.uniform(-np.pi, np.pi, n),
        ]
    ).astype(np.float32)


def test_probiou_is_ultralytics_probiou():
    torch = pytest.importorskip("torch")
    from ultralytics.utils.metrics import batch_probiou

    from vision.onnx_runtime import probiou_matrix

    boxes = random_rboxes(np.random.default_rng(0), 60)
    ours = probiou_matrix(boxes.astype(np.float64), boxes.astype(np.float64))
    theirs = batch_probiou(torch.from_numpy(boxes), torch.from_numpy(boxes)).numpy()
    assert np.abs(ours - theirs).max() < 1e-4  # float32 there: 2e-5 on the diagonal


@pytest.mark.parametrize("threshold", [0.5, 0.7])
def test_suppression_keeps_what_ultralytics_keeps(threshold):
    torch = pytest.importorskip("torch")
    from ultralytics.utils.metrics import batch_probiou
    from ultralytics.utils.nms import TorchNMS

    from vision.onnx_runtime import rotated_nms

    rng = np.random.default_rng(1)
    for _ in range(20):
        boxes = random_rboxes(rng, 80)
        scores = rng.uniform(0.3, 1, 80).astype(np.float32)
        ours = rotated_nms(boxes.astype(np.float64), scores, threshold)
        theirs = TorchNMS.fast_nms(
            torch.from_numpy(boxes), torch.from_numpy(scores), threshold, iou_func=batch_probiou
        ).numpy()
        assert list(ours) == list(theirs)


@pytest.mark.parametrize("shape", [(768, 1024), (1024, 768), (3000, 4000), (100, 1000), (413, 417)])
@pytest.mark.parametrize("imgsz", [192, 416, 544, 640, 800])
def test_letterbox_is_ultralytics_letterbox(shape, imgsz):
    pytest.importorskip("ultralytics")
    from ultralytics.data.augment import LetterBox

    from vision.onnx_runtime import letterbox

    image = np.random.default_rng(2).integers(0, 255, (*shape, 3), dtype=np.uint8)
    theirs = LetterBox(imgsz, auto=True, stride=32)(image=image)
    assert np.array_equal(letterbox(image, imgsz), theirs)


def test_a_stale_export_is_not_used(tmp_path):
    """A `.pt` retrained after its export is run through ultralytics, not the old `.onnx`."""
    for name in ("detector", "identifier"):
        (tmp_path / f"{name}.pt").write_bytes(b"weights " + name.encode())
        (tmp_path / f"{name}.onnx").write_bytes(b"onnx " + name.encode())
    record = {
        f"{n}.onnx": {
            "source": f"{n}.pt",
            "source_sha256": sha256(tmp_path / f"{n}.pt"),
            "sha256": sha256(tmp_path / f"{n}.onnx"),
        }
        for n in ("detector", "identifier")
    }
    (tmp_path / EXPORT_RECORD).write_text(json.dumps(record))
    weights = [tmp_path / "detector.pt", tmp_path / "identifier.pt"]
    assert choose_backend(weights) == "onnx"
    (tmp_path / "detector.pt").write_bytes(b"retrained weights")
    assert not export_is_current(weights[0])
    pytest.importorskip("ultralytics")
    assert choose_backend(weights) == "ultralytics"
    assert choose_backend(weights, "onnx") == "onnx"


@needs_models
def test_the_committed_onnx_files_are_the_export_of_the_committed_weights():
    """`scopa export` recorded the hashes; re-run it after installing new weights."""
    record = json.loads((MODELS / EXPORT_RECORD).read_text())
    card = (MODELS / "README.md").read_text()
    names = [w.stem for w in sorted(MODELS.glob("*.pt"))]
    assert {"detector", "identifier"} <= set(names)
    for name in names:
        entry = record[f"{name}.onnx"]
        assert entry["source"] == f"{name}.pt"
        assert entry["source_sha256"] == sha256(MODELS / f"{name}.pt"), (
            f"models/{name}.pt changed since its export: run `scopa export`"
        )
        assert entry["sha256"] == sha256(MODELS / f"{name}.onnx")
        assert entry["source_sha256"] in card and entry["sha256"] in card
    # The card's table lists exactly the recorded exports (no row of a model since removed).
    from vision.export import with_export_section

    assert with_export_section(card, record) == card


@pytest.mark.parametrize("command", [["export"], ["train", "detector"], ["make-dataset"]])
def test_training_commands_say_in_one_line_to_install_the_train_extra(command, monkeypatch, capsys):
    from scopa.cli import main
    from vision import yolo_env

    monkeypatch.setattr(yolo_env, "missing_modules", lambda names=(): ["torch", "ultralytics"])
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pip install -e '.[train]'" in err


def test_train_takes_the_gpu_settings_and_refuses_a_time_that_is_not_positive(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("ultralytics")
    from scopa.cli import main
    from vision import train as training

    (tmp_path / "detect").mkdir()
    (tmp_path / "detect" / "data.yaml").write_text("names:\n  0: card\n")
    seen = []
    monkeypatch.setattr(training, "train", lambda spec, resume=False: seen.append(spec) or tmp_path)
    common = ["train", "detector", "--data", str(tmp_path)]
    assert main([*common, "--hours", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--hours 0" in err and not seen
    assert (
        main([*common, "--device", "0", "--batch", "32", "--workers", "14", "--hours", "0.1"]) == 0
    )
    (spec,) = seen
    assert (spec.device, spec.batch, spec.workers, spec.hours) == ("0", 32, 14, 0.1)
    assert training.detector_spec(tmp_path).device == "cpu"


def test_train_takes_a_starting_learning_rate_over_the_recipe(tmp_path, monkeypatch, capsys):
    pytest.importorskip("ultralytics")
    from scopa.cli import main
    from vision import train as training

    (tmp_path / "detect").mkdir()
    (tmp_path / "detect" / "data.yaml").write_text("names:\n  0: card\n")
    weights = tmp_path / "init.pt"
    weights.write_bytes(b"")
    seen = []
    monkeypatch.setattr(training, "train", lambda spec, resume=False: seen.append(spec) or tmp_path)
    common = ["train", "detector", "--data", str(tmp_path), "--init", str(weights)]
    assert main([*common, "--lr", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--lr 0" in err and not seen
    assert main([*common, "--lr", "0.0003"]) == 0
    (spec,) = seen
    assert training._augmentation(spec)["lr0"] == 0.0003
    recipe = training._augmentation(replace(spec, lr0=None))
    assert recipe["lr0"] == 0.0015 and recipe["cos_lr"]


# --- The whole recogniser, both paths ---------------------------------------------------------

REAL_PHOTOS = [
    "mazzoDavide/7D.jpg",
    "mazzoDalNegro/4C.jpg",
    "mazzoDavide2/6B.jpg",
    "mazzoDavide3/5S.jpg",
    "mazzoDavide/1C.jpg",
]


@pytest.fixture(scope="module")
def both_paths():
    pytest.importorskip("ultralytics")
    from vision.pipeline import CardRecognizer

    return CardRecognizer(backend="onnx"), CardRecognizer(backend="ultralytics")


def _fixture_images():
    """Real single-card photos, and generated piles of every layout, some of small cards (so
    that the zoomed and mirrored passes run too)."""
    from vision.decode import load_working_image

    images = []
    if REAL.is_dir():
        for photo in REAL_PHOTOS:
            images.append((photo, load_working_image(REAL / photo)[0]))
    if (SHARED / "decks").is_dir():
        from scopa_datasets.build import GeneratorConfig, iter_scenes

        config = GeneratorConfig(shared=SHARED, seed=4343)
        for k, layout in enumerate(("grid", "rows", "cascade", "scatter")):
            for size in ((1600, 1200), (1024, 768)):
                scene = next(iter_scenes(config, "val", [k], size=size, layout=layout))
                images.append((f"{layout} {size[0]}x{size[1]}", scene.image))
    return images


def _assert_same_detections(ours, theirs, what):
    assert [c.card for c in ours] == [c.card for c in theirs], what
    for a, b in zip(ours, theirs, strict=True):
        assert np.abs(a.quad - b.quad).max() <= 1.0, what
        assert np.abs(a.probs - b.probs).max() <= 1e-3, what
        assert abs(a.box_confidence - b.box_confidence) <= 1e-3, what


@pytest.mark.slow
@needs_models
def test_both_paths_find_and_read_the_same_cards(both_paths):
    onnx, torch_path = both_paths
    images = _fixture_images()
    if not images:
        pytest.skip("../shared has neither real/dev nor decks")
    found = 0
    for name, image in images:
        ours, theirs = onnx.recognize(image), torch_path.recognize(image)
        _assert_same_detections(ours.cards, theirs.cards, name)
        _assert_same_detections(ours.doubtful, theirs.doubtful, f"{name} (doubtful)")
        found += len(ours.cards)
    assert found >= 5 * len(images)  # the fixtures are piles and cards, not empty cloths


@pytest.mark.slow
@needs_models
@pytest.mark.parametrize("imgsz", [192, 416, 640, 800])
def test_both_detectors_give_the_same_boxes_at_every_input_size(both_paths, imgsz):
    onnx, torch_path = both_paths
    for name, image in _fixture_images()[::2]:
        ours = onnx.predict_boxes(image, imgsz, conf=0.3)
        theirs = torch_path.predict_boxes(image, imgsz, conf=0.3)
        assert len(ours[0]) == len(theirs[0]), name
        if ours[0]:
            assert np.abs(np.array(ours[0]) - np.array(theirs[0])).max() <= 1.0, name
            assert np.abs(np.array(ours[1]) - np.array(theirs[1])).max() <= 1e-3, name


@pytest.mark.slow
@needs_models
def test_the_runtime_path_imports_neither_torch_nor_ultralytics():
    photo = REAL / REAL_PHOTOS[0]
    if not photo.is_file():
        pytest.skip("../shared/real/dev not present")
    script = (
        "import sys\n"
        "from vision import get_recognizer\n"
        "recognizer = get_recognizer()\n"
        f"result = recognizer.recognize({str(photo)!r})\n"
        "assert type(recognizer.detector).__name__ == 'OnnxDetector'\n"
        "assert result.cards\n"
        "heavy = sorted(m for m in ('torch', 'torchvision', 'ultralytics') if m in sys.modules)\n"
        "print(heavy)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "SCOPA_VISION_BACKEND"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
