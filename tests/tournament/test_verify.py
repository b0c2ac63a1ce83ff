"""Verification re-reads the stored photos and lists the hands a referee should look at."""

from pathlib import Path

import pytest
from tournament_helpers import (
    BIG,
    EVEN,
    PASSWORD,
    REST_OF_BIG,
    fake_recognize,
    photo_of,
    small_hand,
    submission,
)

from scopa.cli import main
from scopa.tournament import ManualCorrection, PhotoUpload
from scopa.tournament.db import PhotoBlob

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture
def table_and_referee(service, make_tournament):
    tournament = make_tournament(pairs=2)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    return service.table(referee.table_codes()[0][1]), referee


def photographed(hand: dict, **kwargs):
    """A submission with one photo per side showing exactly the recorded cards."""
    photos = [PhotoUpload(side, photo_of(hand[side]["cards"])) for side in ("a", "b")]
    return submission(hand, photos=photos, **kwargs)


def test_a_hand_whose_photos_agree_is_not_listed(table_and_referee):
    table, referee = table_and_referee
    table.submit_hand(photographed(small_hand()))
    report = referee.verify(recognize=fake_recognize)
    assert len(report.checks) == 1 and report.flagged == []
    check = report.checks[0]
    assert check.photo_points == {"a": 2, "b": 0}
    assert check.photo_cards["a"] == EVEN  # in deck order


def test_a_planted_wrong_score_is_found(table_and_referee):
    table, referee = table_and_referee
    honest = table.submit_hand(photographed(small_hand()))
    # The table records the big hand for itself, but its photos show the other way round.
    photos = [PhotoUpload("a", photo_of(REST_OF_BIG)), PhotoUpload("b", photo_of(BIG))]
    planted = table.submit_hand(
        submission(
            {"a": {"cards": BIG, "scope": 0}, "b": {"cards": REST_OF_BIG, "scope": 0}},
            photos=photos,
        )
    )
    report = referee.verify(recognize=fake_recognize)
    assert [check.hand.id for check in report.flagged] == [planted.id]
    (finding,) = report.flagged[0].findings
    assert finding.kind == "score-differs"
    assert finding.details["recorded"] == {"a": 13, "b": 0}
    assert finding.details["photos"] == {"a": 0, "b": 13}
    assert "7D" in finding.details["differences"]["a"]["recorded_only"]
    assert referee.verify(hand_id=honest.id, recognize=fake_recognize).flagged == []

    # The referee corrects the hand to what the photos show: the match follows, and the
    # hand now verifies clean.
    referee.correct_hand(planted.id, {"a": {"cards": REST_OF_BIG}, "b": {"cards": BIG}})
    assert referee.service.matches(referee.tournament_id)[0].score_b == 13
    assert referee.verify(recognize=fake_recognize).flagged == []


def test_corrections_incomplete_hands_and_missing_photos_are_listed(table_and_referee):
    table, referee = table_and_referee
    corrected = table.submit_hand(
        photographed(
            small_hand(),
            corrections=[ManualCorrection("confirm", "4C", "b")],
        )
    )
    full = small_hand("b")
    unphotographed = table.submit_hand(submission(full))
    report = referee.verify(recognize=fake_recognize)
    kinds = {check.hand.id: check.kinds() for check in report.flagged}
    assert kinds == {corrected.id: ["corrected"], unphotographed.id: ["no-photos"]}
    details = report.flagged[0].findings[0].details["corrections"]
    assert details[0]["card"] == "4C" and details[0]["action"] == "confirm"


def test_photos_that_cannot_settle_the_score_are_inconclusive(table_and_referee):
    table, referee = table_and_referee
    hand = small_hand()
    # The photo of side a misses the settebello: whose it is decides a point.
    photos = [
        PhotoUpload("a", photo_of([c for c in hand["a"]["cards"] if c != "7D"])),
        PhotoUpload("b", photo_of(hand["b"]["cards"])),
    ]
    table.submit_hand(submission(hand, photos=photos))
    (check,) = referee.verify(recognize=fake_recognize).flagged
    assert check.kinds() == ["inconclusive"]
    assert check.photo_points is None


def test_an_altered_photo_is_caught_by_its_sha256(service, table_and_referee):
    table, referee = table_and_referee
    hand = table.submit_hand(photographed(small_hand()))
    sha = hand.photos[0].sha256

    def tamper(session):
        session.get(PhotoBlob, sha).data = photo_of(BIG)

    service.db.write(tamper)
    (check,) = referee.verify(recognize=fake_recognize).flagged
    assert "photo-altered" in check.kinds()


def test_verify_command_lists_flagged_hands(db_url, table_and_referee, monkeypatch, capsys):
    table, referee = table_and_referee
    table.submit_hand(submission(small_hand()))
    monkeypatch.setattr("vision.get_recognizer", lambda deck: pytest.fail("no photo to read"))
    assert main(["verify", "--db", db_url, "--json"]) == 1
    out = capsys.readouterr().out
    assert '"no-photos"' in out and '"hands_flagged": 1' in out


@pytest.mark.slow
@pytest.mark.skipif(
    not (MODELS / "detector.pt").exists() or not (MODELS / "identifier.pt").exists(),
    reason="the trained models are not committed yet",
)
def test_end_to_end_with_the_models_on_rendered_photos(table_and_referee):
    """Photos rendered from the deck scans, stored, then re-read by the real models."""
    import cv2
    import numpy as np

    from scopa_datasets import faces as face_lib
    from scopa_datasets.scenes import Assets, render_scene

    shared = face_lib.default_shared_dir()
    faces = {f.code: f for f in face_lib.load_scan_faces(shared, decks=("napoletane-hires",))}
    assets = Assets(list(faces.values()), face_lib.load_backs(shared), [])
    rng = np.random.default_rng(6)
    table, referee = table_and_referee
    hand = small_hand()
    photos = []
    for side in ("a", "b"):
        cards = hand[side]["cards"]
        for part in (cards[:10], cards[10:]):  # two photos of ten cards per side
            scene = render_scene(
                rng, assets, [faces[c] for c in part], "grid", size=(2000, 1500), distractors=False
            )
            ok, encoded = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            assert ok
            photos.append(PhotoUpload(side, encoded.tobytes(), filename=f"{side}.jpg"))
    recorded = table.submit_hand(submission(hand, photos=photos))
    (check,) = referee.verify(hand_id=recorded.id).checks
    assert check.photo_cards["a"] == hand["a"]["cards"]
    assert check.photo_points == {"a": 2, "b": 0}
    assert not check.flagged


def test_a_bad_stored_photo_is_reported_against_its_hand_and_verify_goes_on(
    table_and_referee,
):
    """A 20000x1 PNG among the stored photos used to abort verify for the whole tournament."""
    import io

    from PIL import Image

    from vision.decode import load_image

    buffer = io.BytesIO()
    Image.new("RGB", (20000, 1)).save(buffer, format="PNG")
    sliver = buffer.getvalue()

    def recognize(data: bytes):
        if data.startswith(b"\x89PNG"):
            load_image(data)  # raises the decoder's error for this photo
        if data.startswith(b"crash"):
            raise RuntimeError("cv2.error: (-215) inside the pipeline\nsecond line")
        return fake_recognize(data)

    table, referee = table_and_referee
    bad = table.submit_hand(
        submission(small_hand(), photos=[PhotoUpload("a", sliver, "sliver.png")])
    )
    crash = table.submit_hand(submission(small_hand(), photos=[PhotoUpload("b", b"crash")]))
    good = table.submit_hand(photographed(small_hand()))
    report = referee.verify(recognize=recognize)
    assert len(report.checks) == 3  # the run went on past the bad photos
    by_hand = {check.hand.id: check for check in report.checks}
    (unreadable,) = [f for f in by_hand[bad.id].findings if f.kind == "photo-unreadable"]
    assert "20000x1" in unreadable.message
    (crashed,) = [f for f in by_hand[crash.id].findings if f.kind == "photo-unreadable"]
    assert crashed.message.endswith("RuntimeError: cv2.error: (-215) inside the pipeline")
    assert not by_hand[good.id].flagged
