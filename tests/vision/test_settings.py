"""Recogniser settings changed from the command line (`scopa eval/bench --set NAME=VALUE`)."""

import pytest

from scopa.cli import main
from scopa.commands.vision import _chosen_settings
from vision.pipeline import RecognizerSettings


def test_settings_are_changed_from_text_by_their_type():
    changed = RecognizerSettings().overridden(
        {
            "same_card_iou": "0.55",
            "detector_imgsz": "480",
            "mirrored_look": "False",
            "small_card_px": "none",
        }
    )
    assert changed == RecognizerSettings(
        same_card_iou=0.55, detector_imgsz=480, mirrored_look=False, small_card_px=None
    )
    assert isinstance(changed.detector_imgsz, int)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"same_card": "0.5"}, "unknown recogniser setting 'same_card'"),
        ({"box_threshold": "high"}, "box_threshold takes a number, not 'high'"),
        ({"box_threshold": "none"}, "box_threshold takes a number, not 'none'"),
        ({"detector_imgsz": "416.5"}, "detector_imgsz takes a whole number"),
        ({"mirrored_look": "1"}, "mirrored_look takes true or false"),
    ],
)
def test_a_bad_setting_is_named(changes, message):
    with pytest.raises(ValueError, match=message):
        RecognizerSettings().overridden(changes)


def test_the_set_option_gives_the_settings_or_none():
    assert _chosen_settings([]) is None
    chosen = _chosen_settings(["same_reading_iou=0.15", "doubtful_box_floor = none"])
    assert chosen == RecognizerSettings(same_reading_iou=0.15, doubtful_box_floor=None)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("same_reading_iou", "--set same_reading_iou: give NAME=VALUE"),
        ("nms=0.5", "unknown recogniser setting 'nms'"),
    ],
)
def test_a_bad_set_option_is_a_one_line_error(option, message, capsys):
    assert main(["eval", "--scenes", "0", "--set", option]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
