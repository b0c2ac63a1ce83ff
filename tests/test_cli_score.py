"""`scopa score-hand` and `scopa score-match`: JSON in, JSON out, one-line errors with status 2."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scopa.cli import main
from scopa.commands.score import HAND_EXAMPLE_INPUT, MATCH_EXAMPLE_INPUT
from scoring import CARD_CODES

LOW = [f"{rank}{suit}" for suit in "DCSB" for rank in range(1, 6)]
HIGH = [code for code in CARD_CODES if code not in LOW]
EXAMPLE_A = ["7C", "7B", "7D", "6S"]
EXAMPLE_B = [code for code in CARD_CODES if code not in EXAMPLE_A]


def hand(a_scope=0, b_scope=0):
    return {"A": {"cards": LOW, "scope": a_scope}, "B": {"cards": HIGH, "scope": b_scope}}


def run(capsys, monkeypatch, tmp_path, command, data, *extra, via="file"):
    """Run the command in-process; returns (status, parsed or raw stdout, stderr)."""
    text = data if isinstance(data, str) else json.dumps(data)
    args = [command, *extra]
    if via == "file":
        path = tmp_path / "input.json"
        path.write_text(text, encoding="utf-8")
        args.append(str(path))
    else:
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        if via == "dash":
            args.append("-")
    status = main(args)
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else out), err


@pytest.fixture
def cli(capsys, monkeypatch, tmp_path):
    return lambda *args, **kwargs: run(capsys, monkeypatch, tmp_path, *args, **kwargs)


@pytest.mark.parametrize("via", ["file", "stdin", "dash"])
def test_score_hand_worked_example(cli, via):
    data = {
        "rules": "torneo-assi",
        "sides": {
            "Noi": {"cards": EXAMPLE_A, "scope": 1},
            "Loro": {"cards": EXAMPLE_B, "scope": 0},
        },
    }
    status, out, err = cli("score-hand", data, via=via)
    assert (status, err) == (0, "")
    noi = out["sides"]["Noi"]
    assert noi["points"] == {
        "scope": 1, "carte": 0, "denari": 0, "primiera": 1, "settebello": 1, "napola": 0, "re_bello": 0,
    }  # fmt: skip
    assert noi["total"] == 3
    assert noi["primiera"] == 81 and out["sides"]["Loro"]["primiera"] == 75
    assert noi["primiera_cards"] == {"D": "7D", "C": "7C", "S": "6S", "B": "7B"}
    assert noi["cards_count"] == 4 and noi["denari_count"] == 1 and noi["napola_run"] == 0
    assert noi["cards"] == ["7D", "7C", "6S", "7B"]
    loro = out["sides"]["Loro"]
    assert loro["points"]["napola"] == 6 and loro["napola_run"] == 6
    assert out["napoleone"] is None
    assert out["rules"]["target"] == 31


def test_score_hand_rules_object_and_lower_case_codes(cli):
    data = {
        "rules": {"preset": "classica", "re_bello": True, "target": 16},
        "sides": {"A": {"cards": [c.lower() for c in LOW]}, "B": {"cards": HIGH, "scope": 2}},
    }
    status, out, _ = cli("score-hand", data)
    assert status == 0
    assert out["sides"]["B"]["points"]["re_bello"] == 1
    assert out["sides"]["A"]["cards"][0] == "1D"
    assert out["totals"] == {"A": 0, "B": 5}


def test_napoleone_is_reported(cli):
    denari = [f"{r}D" for r in range(1, 11)]
    data = {
        "rules": "torneo-assi",
        "sides": {
            "A": {"cards": denari},
            "B": {"cards": [c for c in CARD_CODES if c not in denari]},
        },
    }
    assert cli("score-hand", data)[1]["napoleone"] == "A"


def test_output_is_indented_by_default_and_compact_on_request(capsys, monkeypatch, tmp_path):
    data = {"rules": "classica", "sides": hand()}
    run(capsys, monkeypatch, tmp_path, "score-hand", data)
    path = tmp_path / "input.json"
    assert main(["score-hand", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) > 10
    assert main(["score-hand", "--compact", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_score_hand_provisional(cli):
    sides = hand()
    sides["B"] = {"cards": [c for c in HIGH if c != "7D"], "scope": 0}
    data = {"rules": "classica", "sides": sides}
    status, out, err = cli("score-hand", data)
    assert status == 2
    assert "incomplete: 1 card missing (7D)" in err and "--provisional" in err
    status, out, _ = cli("score-hand", data, "--provisional")
    assert status == 0
    assert out["provisional"] is True
    assert out["missing"] == ["7D"]
    assert out["determinate"] is False
    assert out["at_stake"]["settebello"] is True
    assert out["deciding"]["settebello"] == ["7D"]
    assert out["settled"]["primiera"] == {"A": 0, "B": 1}
    status, out, _ = cli("score-hand", {**data, "placements": {"7D": ["B"]}}, "--provisional")
    assert status == 0 and out["determinate"] is True


def test_score_match(cli):
    data = {"rules": "classica", "hands": [hand(4, 0), hand(5, 1), hand(2, 0)], "note": "ignored"}
    status, out, err = cli("score-match", data)
    assert (status, err) == (0, "")
    assert out["totals"] == {"A": 11, "B": 7}
    assert (out["status"], out["winner"]) == ("won", "A")
    assert len(out["hands"]) == 3
    assert out["hands"][0]["sides"]["A"]["points"]["scope"] == 4


def test_score_match_in_progress_and_spareggio(cli):
    status, out, _ = cli("score-match", {"rules": "classica", "hands": [hand(3, 0)]})
    assert (out["status"], out["winner"]) == ("in-progress", None)
    status, out, _ = cli("score-match", {"rules": "classica", "hands": [hand(10, 8), hand(2, 0)]})
    assert (out["status"], out["winner"], out["spareggio"]) == ("spareggio", None, ["A", "B"])


@pytest.mark.parametrize(
    ("command", "data", "message"),
    [
        ("score-hand", '{"rules": "classica", "sides": ', "malformed JSON"),
        ("score-hand", "", "malformed JSON"),
        ("score-hand", "[]", "expected a JSON object"),
        (
            "score-hand",
            '{"rules": "classica", "sides": {"A": {"cards": []}, "A": {"cards": []}}}',
            "'A' is given twice in the same JSON object",
        ),
        ("score-hand", {"rules": "classica"}, "missing field 'sides'"),
        ("score-hand", {"sides": hand()}, "missing field 'rules'"),
        ("score-hand", {"rules": "scopone", "sides": hand()}, "unknown preset 'scopone'"),
        (
            "score-hand",
            {"rules": {"preset": "assi", "bello": 1}, "sides": hand()},
            "unknown option 'bello'",
        ),
        (
            "score-hand",
            {"rules": {"preset": "assi", "target": "31"}, "sides": hand()},
            "target must be",
        ),
        ("score-hand", {"rules": "classica", "sides": []}, "sides must be an object"),
        ("score-hand", {"rules": "classica", "sides": {"A": hand()["A"]}}, "2 to 4 sides, got 1"),
        (
            "score-hand",
            {"rules": "classica", "sides": {"A": {"cards": [*LOW, "11D"]}, "B": {"cards": HIGH}}},
            "side 'A': unknown card code '11D'",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": {"A": {"cards": [*LOW, "1D"]}, "B": {"cards": HIGH}}},
            "side 'A': card 1D is listed twice",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": {"A": {"cards": [*LOW, "7D"]}, "B": {"cards": HIGH}}},
            "card 7D is in two sides: 'A' and 'B'",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": hand(11, 0)},
            "side 'A': 11 scope is impossible with 20 cards",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": hand(-1, 0)},
            "side 'A': scope cannot be negative",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": hand(0, 1.5)},
            "side 'B': scope must be a whole number",
        ),
        (
            "score-hand",
            {"rules": "classica", "sides": hand(), "placements": {}},
            "only used with --provisional",
        ),
        ("score-match", {"rules": "classica", "hands": {}}, "hands must be a list"),
        ("score-match", {"rules": "classica", "hands": []}, "at least one hand"),
        ("score-match", {"rules": "classica", "hands": [hand(), ["A"]]}, "hand 2"),
        (
            "score-match",
            {"rules": "classica", "hands": [hand(6, 0), hand(6, 0), hand()]},
            "hand 3: the match is already decided",
        ),
        (
            "score-match",
            {"rules": "classica", "hands": [hand(), {"A": hand()["A"], "C": hand()["B"]}]},
            "hand 2: the hand lacks side 'B'",
        ),
        ("score-match", {"rules": "classica", "sides": hand()}, "missing field 'hands'"),
        (
            "score-hand",
            {"rules": "classica", "sides": {"A": {"cards": LOW, "scopa": 1}, "B": {"cards": HIGH}}},
            "side 'A': unknown field 'scopa'",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(cli, command, data, message):
    status, out, err = cli(command, data)
    assert status == 2
    assert out == ""
    assert message in err
    assert err.startswith(f"scopa {command}: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_unreadable_files(capsys, tmp_path):
    assert main(["score-hand", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    binary = tmp_path / "photo.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["score-match", str(binary)]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "example"),
    [("score-hand", HAND_EXAMPLE_INPUT), ("score-match", MATCH_EXAMPLE_INPUT)],
)
def test_help_shows_a_runnable_example(capsys, command, example):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "example input" in text
    assert example in text


def test_help_examples_score_as_the_help_says(cli):
    status, out, _ = cli("score-hand", HAND_EXAMPLE_INPUT)
    assert status == 0
    assert out["sides"]["Noi"]["points"] == {
        "scope": 1, "carte": 0, "denari": 0, "primiera": 0, "settebello": 0, "napola": 0, "re_bello": 0,
    }  # fmt: skip
    assert out["sides"]["Noi"]["total"] == 1
    assert out["napoleone"] is None
    status, out, _ = cli("score-match", MATCH_EXAMPLE_INPUT)
    assert status == 0
    assert (out["totals"], out["status"], out["winner"]) == (
        {"Noi": 10, "Loro": 7},
        "in-progress",
        None,
    )


def test_console_entry_point_gives_status_2_without_traceback(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"rules": "classica", "sides": {"A": {"cards": ["7Z"]}, "B": {"cards": []}}}')
    completed = subprocess.run(
        [sys.executable, "-m", "scopa", "score-hand", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.strip() == (
        "scopa score-hand: error: side 'A': unknown card code '7Z' "
        "(expected rank 1-10 then suit D, C, S or B, e.g. '7D')"
    )
