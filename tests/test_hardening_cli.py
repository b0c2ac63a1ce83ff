"""Bad input at the edges of the command line: a one-line error and exit status 2, never a
traceback (issue 17, items 9-14)."""

from __future__ import annotations

import io
import json
import struct
import sys
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from scopa.cli import main
from scoring import DECK

CARDS = [card.code for card in DECK]
HAND = {"rules": "classica", "sides": {"Noi": {"cards": CARDS[:20]}, "Loro": {"cards": CARDS[20:]}}}


def run(argv, capsys, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, err: str, *words: str) -> None:
    assert status == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err


# -- JSON (item 11) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000, ["nested too deeply"]),
        ('{"rules": "classica", "sides": ' + "[" * 50 + "]" * 50 + "}", ["nested too deeply"]),
        ('{"rules": "classica", "x": ' + "9" * 5000 + "}", ["number", "too long"]),
        (json.dumps({**HAND, "sides": {"Noi\ud800": {"cards": CARDS}, "Loro": {}}}), ["surrogate"]),
    ],
)
def test_hostile_json_is_named(text, words, capsys, monkeypatch):
    status, _, err = run(["score-hand"], capsys, text.encode("utf-8", "surrogatepass"), monkeypatch)
    assert_one_line_error(status, err, *words)


def test_input_size_is_capped(capsys):
    status, _, err = run(["score-hand", "/dev/zero"], capsys)
    assert_one_line_error(status, err, "too large")


def test_rules_option_json_is_checked_too(capsys):
    status, _, err = run(["score-photos", "--rules", "{" + '"a":[' * 5000, "--side", "A=x"], capsys)
    assert_one_line_error(status, err, "--rules", "nested too deeply")


def test_names_are_trimmed_and_duplicates_refused(capsys, monkeypatch):
    hand = {
        "rules": "classica",
        "sides": {"Noi": {"cards": CARDS[:20]}, "Noi ": {"cards": CARDS[20:]}},
    }
    status, _, err = run(["score-hand"], capsys, json.dumps(hand).encode(), monkeypatch)
    assert_one_line_error(status, err, "'Noi' is given twice")
    spaced = {
        "rules": "classica",
        "sides": {" Noi ": {"cards": CARDS[:20]}, "Loro": {"cards": CARDS[20:]}},
    }
    status, out, _ = run(["score-hand"], capsys, json.dumps(spaced).encode(), monkeypatch)
    assert status == 0 and '"Noi"' in out and '" Noi "' not in out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["rules", "sides", "hands", "cards", "scope", "Noi", "Loro"])
            | st.text(max_size=4),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=st.sampled_from(["score-hand", "score-match"]), value=json_values)
def test_fuzzed_json_gives_status_0_or_2_and_no_traceback(command, value, capsys, monkeypatch):
    text = json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")
    status, _, err = run([command], capsys, text, monkeypatch)
    assert status in (0, 2)
    assert "Traceback" not in err
    if status == 2:
        assert len(err.strip().splitlines()) == 1


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=json_values)
def test_fuzzed_hand_fields_give_status_0_or_2(value, capsys, monkeypatch):
    """The fuzz reaching inside a well-formed hand: rules, a side, its cards and scope."""
    for hand in (
        {**HAND, "rules": value},
        {**HAND, "sides": {"Noi": value, "Loro": {"cards": CARDS[20:]}}},
        {
            **HAND,
            "sides": {"Noi": {"cards": CARDS[:20], "scope": value}, "Loro": {"cards": CARDS[20:]}},
        },
    ):
        status, _, err = run(
            ["score-hand"], capsys, json.dumps(hand).encode("utf-8", "surrogatepass"), monkeypatch
        )
        assert status in (0, 2) and "Traceback" not in err


# -- arguments (items 12, 13) -------------------------------------------------------------------


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "noi.png"
    Image.new("RGB", (64, 48)).save(path)
    return path


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--scope", "Noi=²"], ["--scope", "'²'"]),
        (["--scope", "Noi=" + "9" * 5000], ["--scope", "0 to 99"]),
        (["--complement", "Loro=¹"], ["--complement", "'¹'"]),
    ],
)
def test_number_arguments_are_checked(extra, words, photo, capsys):
    argv = ["score-photos", "--rules", "classica", "--side", f"Noi={photo}", *extra]
    if "--complement" not in extra:
        argv += ["--complement", "Loro=20"]
    status, _, err = run(argv, capsys)
    assert_one_line_error(status, err, *words)


def test_sides_with_no_photo_are_refused(capsys):
    status, _, err = run(
        ["score-photos", "--rules", "classica", "--side", "Noi=,", "--side", "Loro=,"], capsys
    )
    assert_one_line_error(status, err, "'Noi' names no photo")
    status, _, err = run(
        ["score-photos", "--rules", "classica", "--side", "Noi=", "--side", "Loro=x"], capsys
    )
    assert_one_line_error(status, err, "--side")


def test_annotate_must_be_a_writable_folder(photo, tmp_path, capsys):
    status, _, err = run(
        [
            "score-photos",
            "--rules",
            "classica",
            "--side",
            f"Noi={photo}",
            "--complement",
            "Loro=20",
            "--annotate",
            str(photo),
        ],
        capsys,
    )
    assert_one_line_error(status, err, "--annotate", "is a file")
    blocked = tmp_path / "locked"
    blocked.mkdir(mode=0o500)
    if not __import__("os").access(blocked, __import__("os").W_OK):  # not running as root
        status, _, err = run(["detect", str(photo), "--annotate", str(blocked / "out")], capsys)
        assert_one_line_error(status, err, "--annotate")


# -- databases (item 12) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("no-scheme.sqlite", ["not a usable URL"]),
        ("nosuchdialect://host/db", ["not a usable URL"]),
        ("sqlite:///{file}", ["cannot open it", "not a database"]),
        ("sqlite:///{folder}", ["cannot open it"]),
        ("postgresql://nobody@127.0.0.1:9/none", ["cannot open it"]),
    ],
)
def test_bad_database_urls_are_named(url, words, tmp_path, capsys):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"this is no database" * 100)
    url = url.format(file=junk, folder=tmp_path)
    status, _, err = run(["tournament", "list", "--db", url], capsys)
    assert_one_line_error(status, err, *words)


def test_ids_and_output_folders_of_tournament_commands(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 't.sqlite'}"
    with pytest.raises(SystemExit) as exit_info:
        main(["verify", "--db", db, "--hand", "1" * 30])
    assert exit_info.value.code == 2
    assert "expected an id" in capsys.readouterr().err
    target = tmp_path / "file.txt"
    target.write_text("x")
    status, _, err = run(["tournament", "export", "--db", db, "--out", str(target)], capsys)
    assert_one_line_error(status, err, "--out", "is a file")


@pytest.mark.parametrize(
    "command", [["eval", "--scenes", "1"], ["bench", "hands"], ["make-dataset", "--out", "{out}"]]
)
def test_an_unknown_deck_for_generated_piles_is_named(command, tmp_path, capsys):
    out = tmp_path / "out"
    command = [part.format(out=out) for part in command]
    status, _, err = run([*command, "--piles-deck", "nope"], capsys)
    assert_one_line_error(status, err, "unknown deck 'nope'", "real")
    assert not out.exists()


# -- images (items 9, 10) -----------------------------------------------------------------------


def png_declaring(width: int, height: int) -> bytes:
    """A PNG header declaring a size, with hardly any data: what a decompression bomb claims."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


def jpeg_declaring(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="JPEG")
    data = bytearray(buffer.getvalue())
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: png_declaring(30000, 30000), ["too large", "50 megapixels"]),
        (lambda: jpeg_declaring(60000, 60000), ["too large", "50 megapixels"]),
        (lambda: png_declaring(7100, 7100), ["too large", "7100x7100", "50 megapixels"]),
    ],
)
def test_huge_images_are_too_large_not_not_an_image(make, words):
    from vision.decode import ImageError, load_image

    with pytest.raises(ImageError) as error:
        load_image(make(), name="bomb")
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("size", [(20000, 1), (1, 5000), (400, 20)])
def test_extreme_aspect_ratios_are_refused_by_the_decoder(size):
    from vision.decode import ImageError, load_image

    buffer = io.BytesIO()
    Image.new("RGB", size).save(buffer, format="PNG")
    with pytest.raises(ImageError, match=f"{size[0]}x{size[1]} is not a photo of cards"):
        load_image(buffer.getvalue(), name="sliver.png")


@pytest.mark.parametrize(
    "option, value",
    [
        *[("--lookalike-weight", w) for w in ("0", "-2", "nan", "inf")],  # a number above 0
        *[("--hand-fan-min-visible", s) for s in ("0", "1.5", "nan")],  # above 0, at most 1
        *[("--cascade-min-visible", s) for s in ("0", "1.5", "nan")],
        *[("--any-angle-share", s) for s in ("-0.1", "1.5", "nan")],  # 0 to 1
    ],
)
def test_make_dataset_refuses_a_setting_out_of_its_range(option, value, tmp_path, capsys):
    status, _, err = run(["make-dataset", option, value, "--out", str(tmp_path / "out")], capsys)
    assert_one_line_error(status, err, option)
    assert not (tmp_path / "out").exists()


REAL_DECKS = ("mazzoDalNegro", "mazzoDavide", "mazzoDavide2", "mazzoDavide3")  # ../shared/real/dev


def test_make_dataset_refuses_a_deck_to_hold_out_that_is_not_there(tmp_path, capsys):
    out = ["--out", str(tmp_path / "out")]
    status, _, err = run(["make-dataset", "--hold-out-deck", "mazzoNope", *out], capsys)
    assert_one_line_error(status, err, "--hold-out-deck", "'mazzoNope'", "mazzoDavide")
    every_deck = [arg for deck in REAL_DECKS for arg in ("--hold-out-deck", deck)]
    status, _, err = run(["make-dataset", "--piles-deck", "real", *every_deck, *out], capsys)
    assert_one_line_error(status, err, "--piles-deck", "every real deck is excluded")
    assert not (tmp_path / "out").exists()
