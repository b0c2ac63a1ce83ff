"""`scopa score-photos`: argument handling, output and errors, with a stand-in recognizer.

The recognizer is replaced by one that returns prepared detections for each photo file, so
these tests need no models; the end-to-end test at the bottom runs the committed models.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from scopa.cli import main
from scoring import DECK, Rules, parse_card, score_hand
from vision.pipeline import DETECTOR_FILE, IDENTIFIER_FILE, MODELS_DIR
from vision.types import DetectedCard, PhotoResult

# A hand where side A holds the four sevens and the denari from the asso to the 4.
SIDE_A = ["1D", "2D", "3D", "4D", "7D", "7C", "7S", "7B", "6D", "8D", "9D", "10D", "6C", "8C"]
SIDE_B = [card.code for card in DECK if card.code not in SIDE_A]
CLASSICA = Rules.from_preset("classica")


def photo_result(codes: list[str]) -> PhotoResult:
    cards = []
    for slot, code in enumerate(codes):
        probs = np.full(len(DECK), 0.005 / (len(DECK) - 1))
        probs[parse_card(code).index] = 0.995
        x, y = (slot % 8) * 120, (slot // 8) * 180
        quad = np.array([[x, y], [x + 100, y], [x + 100, y + 160], [x, y + 160]], dtype=float)
        cards.append(DetectedCard(code, 0.995, probs, quad))
    return PhotoResult(None, 960, 720, cards)


class StandInRecognizer:
    """Decodes the photo like the real one, then returns the detections prepared for its name."""

    def __init__(self, prepared: dict[str, list[str]]) -> None:
        self.prepared = prepared

    def recognize(self, source, path=None) -> PhotoResult:
        vision.load_image(source)  # a missing or unreadable file fails here, as it would for real
        result = photo_result(self.prepared[Path(source).name])
        result.path = path
        return result


@pytest.fixture
def photos(tmp_path, monkeypatch):
    """Write a small JPEG per name and make the recognizer return the cards prepared for it."""
    prepared: dict[str, list[str]] = {}

    def make(name: str, codes: list[str]) -> str:
        path = tmp_path / name
        cv2.imwrite(str(path), np.full((720, 960, 3), 90, np.uint8))
        prepared[name] = codes
        return str(path)

    monkeypatch.setattr(
        vision, "get_recognizer", lambda deck="napoletane": StandInRecognizer(prepared)
    )
    return make


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["score-photos", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_output_has_the_score_and_the_reconciliation(photos, capsys):
    a, b = photos("a.jpg", SIDE_A), photos("b.jpg", SIDE_B)
    status, out, _ = run(
        capsys,
        "--rules",
        "torneo-assi",
        "--side",
        f"A={a}",
        "--side",
        f"B={b}",
        "--scope",
        "A=2",
        "--json",
    )
    assert status == 0
    data = json.loads(out)
    assert data["sides"]["A"]["cards"] == sorted(SIDE_A, key=lambda c: parse_card(c).index)
    assert data["sides"]["A"]["points"] == {
        "scope": 2, "carte": 0, "denari": 1, "primiera": 1, "settebello": 1, "napola": 4, "re_bello": 0
    }  # fmt: skip
    assert data["sides"]["A"]["total"] == 9 and data["sides"]["B"]["total"] == 1
    report = data["reconciliation"]
    assert report["complete"] is True
    assert report["missing"] == report["conflicts"] == report["uncertain"] == report["extra"] == []
    assert data["determinate"] is True and data["napoleone"] is None


def test_summary_shows_the_breakdown_of_each_category(photos, capsys):
    a, b = photos("a.jpg", SIDE_A), photos("b.jpg", SIDE_B)
    status, out, _ = run(capsys, "--rules", "torneo-assi", "--side", f"A={a}", "--side", f"B={b}")
    assert status == 0
    assert "Side A: 7 points" in out and "Side B: 1 point\n" in out
    assert "84 (7D 7C 7S 7B)" in out and "67 (5D 1C 6S 6B)" in out  # the cards of each primiera
    assert "1D-4D (4 cards)" in out  # A's napola
    settebello_rows = [
        line.split() for line in out.splitlines() if line.strip().startswith("settebello")
    ]
    assert settebello_rows == [["settebello", "7D", "+1"], ["settebello", "-"]]
    assert "carte       26 cards" in out
    assert "Score: determinate" in out


def test_overlapping_photos_of_one_side_count_each_card_once(photos, capsys):
    a1, a2 = photos("a1.jpg", SIDE_A[:9]), photos("a2.jpg", SIDE_A[5:])
    b = photos("b.jpg", SIDE_B)
    status, out, _ = run(
        capsys, "--rules", "classica", "--side", f"A={a1},{a2}", "--side", f"B={b}", "--json"
    )
    data = json.loads(out)
    assert status == 0 and len(data["sides"]["A"]["cards"]) == len(SIDE_A)
    assert [p["path"] for p in data["reconciliation"]["photos"]["A"]] == [a1, a2]


def test_complement_side_takes_the_rest_and_its_count_is_checked(photos, capsys):
    a = photos("a.jpg", SIDE_A)
    status, out, _ = run(
        capsys,
        "--rules",
        "classica",
        "--side",
        f"A={a}",
        "--complement",
        f"B={len(SIDE_B)}",
        "--json",
    )
    data = json.loads(out)
    assert status == 0 and data["determinate"] and len(data["sides"]["B"]["cards"]) == len(SIDE_B)
    status, out, _ = run(capsys, "--rules", "classica", "--side", f"A={a}", "--complement", "B=25")
    assert status == 0
    assert f"side B counted 25 cards, does NOT match: {len(SIDE_B)} cards left for it" in out
    assert "Score: NOT determinate" in out and "count them again" in out


def test_missing_cards_make_a_provisional_score_with_advice(photos, capsys):
    a, b = photos("a.jpg", [c for c in SIDE_A if c != "7D"]), photos("b.jpg", SIDE_B)
    status, out, _ = run(capsys, "--rules", "classica", "--side", f"A={a}", "--side", f"B={b}")
    assert status == 0
    assert "PROVISIONAL" in out and "missing 7D" in out
    assert "could still change: settebello" in out
    assert "The seven of coins (7D) is missing and decides settebello" in out


def test_corrections_are_applied_in_order(photos, capsys):
    a, b = photos("a.jpg", SIDE_A), photos("b.jpg", SIDE_B)
    sides = ["--side", f"A={a}", "--side", f"B={b}", "--json"]
    _, out, _ = run(capsys, "--rules", "classica", *sides, "--move", "7D=A:B")
    data = json.loads(out)
    assert "7D" in data["sides"]["B"]["cards"] and data["sides"]["B"]["points"]["settebello"] == 1
    assert data["reconciliation"]["corrections"] == [
        {"action": "move", "card": "7D", "side": "A", "to_side": "B"}
    ]
    _, out, _ = run(capsys, "--rules", "classica", *sides, "--move", "7D=A:B", "--add", "A=7D")
    assert "7D" in json.loads(out)["sides"]["A"]["cards"]


def test_rules_may_be_a_json_object(photos, capsys):
    a, b = photos("a.jpg", SIDE_A), photos("b.jpg", SIDE_B)
    rules = '{"preset": "classica", "re_bello": true}'
    _, out, _ = run(capsys, "--rules", rules, "--side", f"A={a}", "--side", f"B={b}", "--json")
    data = json.loads(out)
    assert data["rules"]["re_bello"] is True and data["sides"]["A"]["points"]["re_bello"] == 1


def test_annotate_writes_each_photo_with_its_cards_drawn(photos, capsys, tmp_path):
    a1, a2 = photos("a1.jpg", SIDE_A[:9]), photos("a2.jpg", SIDE_A[9:])
    b = photos("b.jpg", SIDE_B)
    out_dir = tmp_path / "drawn"
    status, _, _ = run(
        capsys,
        "--rules",
        "classica",
        "--side",
        f"A={a1},{a2}",
        "--side",
        f"Loro due={b}",
        "--annotate",
        str(out_dir),
    )
    assert status == 0
    written = sorted(p.name for p in out_dir.iterdir())
    assert written == ["A-1-a1.jpg", "A-2-a2.jpg", "Loro_due-1-b.jpg"]
    drawn = cv2.imread(str(out_dir / "A-1-a1.jpg"))
    assert drawn.shape == (720, 960, 3) and drawn.std() > 0  # outlines on a plain grey photo


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--side", "A={a}", "--side", "B=nowhere.jpg"], "side 'B': photo not found: nowhere.jpg"),
        (["--side", "A={a}", "--side", "B={junk}"], "junk.jpg"),
        (["--side", "A={a}", "--side", "A={b}"], "side 'A' is given twice"),
        (["--side", "A={a}", "--side", "B={a}"], "given for side 'A' and for side 'B'"),
        (["--side", "A={a}", "--side", "B"], "--side: expected NAME=PHOTO"),
        (["--side", "A={a}"], "2 to 4 sides, got 1"),
        (
            ["--side", "A={a}", "--side", "B={b}", "--scope", "A=one"],
            "--scope: side 'A': expected a number",
        ),
        (["--side", "A={a}", "--side", "B={b}", "--scope", "C=1"], "--scope: unknown side 'C'"),
        (["--side", "A={a}", "--side", "B={b}", "--scope", "A1"], "--scope: expected NAME=N"),
        (["--side", "A={a}", "--side", "B={b}", "--complement", "B=20"], "also has photos"),
        (["--side", "A={a}", "--complement", "B=many"], "card count must be a number"),
        (["--side", "A={a}", "--side", "B={b}", "--move", "7D=A"], "--move: expected CARD=FROM:TO"),
        (["--side", "A={a}", "--side", "B={b}", "--add", "C=7D"], "unknown side 'C'"),
        (["--side", "A={a}", "--side", "B={b}", "--add", "A=17D"], "unknown card code '17D'"),
    ],
    ids=[
        "missing-photo",
        "unreadable-photo",
        "side-twice",
        "photo-twice",
        "side-syntax",
        "one-side",
        "scope-syntax",
        "scope-side",
        "scope-no-equals",
        "complement-photographed",
        "complement-count",
        "move-syntax",
        "correction-side",
        "correction-card",
    ],  # fmt: skip
)
def test_bad_input_is_a_one_line_error_with_status_2(photos, capsys, tmp_path, argv, message):
    paths = {"a": photos("a.jpg", SIDE_A), "b": photos("b.jpg", SIDE_B)}
    (tmp_path / "junk.jpg").write_text("not a photo")
    paths["junk"] = str(tmp_path / "junk.jpg")
    status, out, err = run(capsys, "--rules", "classica", *[arg.format(**paths) for arg in argv])
    assert status == 2 and out == ""
    assert err.startswith("scopa score-photos: error: ") and message in err
    assert err.count("\n") == 1


def test_missing_models_are_a_clear_error(monkeypatch, capsys, tmp_path):
    def no_models(deck="napoletane"):
        raise vision.ModelsMissingError("model weights not found: models/detector.pt")

    monkeypatch.setattr(vision, "get_recognizer", no_models)
    for name in ("a.jpg", "b.jpg"):
        cv2.imwrite(str(tmp_path / name), np.zeros((8, 8, 3), np.uint8))
    status, _, err = run(
        capsys,
        "--rules",
        "classica",
        "--side",
        f"A={tmp_path / 'a.jpg'}",
        "--side",
        f"B={tmp_path / 'b.jpg'}",
    )
    assert status == 2 and "model weights not found" in err


MODELS_PRESENT = (MODELS_DIR / DETECTOR_FILE).is_file() and (MODELS_DIR / IDENTIFIER_FILE).is_file()


@pytest.mark.slow
@pytest.mark.skipif(not MODELS_PRESENT, reason="the trained models are not in models/")
def test_end_to_end_on_generated_hand_photos(tmp_path, capsys):
    """Two generated piles (all 40 cards, one grid photo each) scored by the committed models."""
    from scopa_datasets.faces import default_shared_dir, load_backs, load_scan_faces
    from scopa_datasets.scenes import Assets, render_scene

    shared = default_shared_dir()
    faces = load_scan_faces(shared, decks=("napoletane-hires",))
    assets = Assets(faces, load_backs(shared), [])
    rng = np.random.default_rng(5)
    order = rng.permutation(len(faces))
    piles = {"A": [faces[i] for i in order[:22]], "B": [faces[i] for i in order[22:]]}
    argv = []
    for name, pile in piles.items():
        scene = render_scene(rng, assets, pile, "grid", size=(1600, 1200), distractors=False)
        cv2.imwrite(str(tmp_path / f"{name}.jpg"), scene.image)
        argv += ["--side", f"{name}={tmp_path / f'{name}.jpg'}"]
    status, out, _ = run(capsys, "--rules", "classica", *argv, "--json")
    assert status == 0
    data = json.loads(out)
    truth = {name: {face.code for face in pile} for name, pile in piles.items()}
    right = sum(len(truth[name] & set(data["sides"][name]["cards"])) for name in piles)
    assert right >= 38, data["reconciliation"]
    if data["determinate"]:  # never determinate with a wrong score
        expected = score_hand(
            {name: {"cards": sorted(codes)} for name, codes in truth.items()}, CLASSICA
        )
        assert {name: data["sides"][name]["total"] for name in piles} == expected.totals
