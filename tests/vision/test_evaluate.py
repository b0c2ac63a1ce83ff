"""Scoring the recogniser against the truth of generated piles: which box is which card."""

import numpy as np

from vision.evaluate import SceneReport
from vision.types import DetectedCard, PhotoResult


def turned_card(degrees: float, pivot=(300.0, 500.0), w=120.0, h=200.0) -> np.ndarray:
    """A card turned about a point below it, as the cards of a hand fan are."""
    corners = np.float32([[-w / 2, -h], [w / 2, -h], [w / 2, 0], [-w / 2, 0]])
    t = np.radians(degrees)
    rot = np.float32([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return corners @ rot.T + np.float32(pivot)


def found(code: str, quad: np.ndarray) -> DetectedCard:
    return DetectedCard(code, 0.9, np.zeros(40, np.float32), quad, 0.9)


def report_for(truth, cards) -> dict:
    report = SceneReport()
    report.add("hand_fan", truth, PhotoResult(None, 600, 600, cards))
    return report.to_dict()


def test_a_box_that_reads_its_card_is_matched_to_it_where_outlines_nearly_coincide():
    # Two neighbours of a hand fan, 3 degrees apart: their outlines overlap by IoU 0.9, and the
    # box drawn around the upper one (7C) fits the lower one (3D) a little better.
    lower, upper = turned_card(0.0), turned_card(3.0)
    box = turned_card(1.0)
    truth = [("3D", lower, 0.3), ("7C", upper, 1.0)]
    result = report_for(truth, [found("7C", box)])
    assert result["all"]["identified"] == 0.5  # 7C read; 3D not found
    assert result["shares"]["at least 2/3"]["identified"] == 1.0
    assert result["all"]["false_cards_per_100_photos"] == 0.0


def test_a_misread_card_is_still_found_and_is_no_false_card():
    card = turned_card(0.0)
    result = report_for([("3D", card, 1.0)], [found("4D", card)])
    assert result["all"]["found"] == 1.0
    assert result["all"]["identified"] == 0.0
    assert result["confusions"] == [{"truth": "3D", "read": "4D", "count": 1}]
    assert result["all"]["false_cards_per_100_photos"] == 0.0


def test_a_box_on_no_card_is_a_false_card():
    result = report_for([("3D", turned_card(0.0), 1.0)], [found("3D", turned_card(90.0))])
    assert result["all"]["found"] == 0.0
    assert result["all"]["false_cards_per_100_photos"] == 100.0


def test_each_false_card_is_listed_with_the_true_card_it_lies_nearest():
    card, shifted = turned_card(0.0), turned_card(0.0, pivot=(310.0, 500.0))
    truth = [("3D", card, 1.0)]
    # A second box on the 3D, read as another card; and a box lying across the cloth.
    boxes = [found("3D", card), found("4D", shifted), found("7C", turned_card(90.0))]
    listed = {f["read"]: f for f in report_for(truth, boxes)["false_cards"]}
    assert set(listed) == {"4D", "7C"}
    assert listed["4D"]["kind"] == "second box on a card" and listed["4D"]["nearest_card"] == "3D"
    assert listed["4D"]["nearest_iou"] > 0.8
    assert listed["7C"]["kind"] == "no card there" and listed["7C"]["nearest_iou"] < 0.5
    assert listed["7C"]["photo"] == "hand_fan photo 1"


def test_the_command_line_names_the_kinds_of_false_cards(capsys):
    from scopa.commands.vision import _print_piles

    card = turned_card(0.0)
    boxes = [found("3D", card), found("4D", card), found("7C", turned_card(90.0))]
    _print_piles("piles", report_for([("3D", card, 1.0)], boxes))
    assert (
        "false cards: 2, 1 of them a second box on a card, 1 where no card is"
        in capsys.readouterr().out
    )


def test_reads_from_the_true_outlines_are_reported_beside_the_recogniser_s_own():
    # A strip the recogniser misread from its box, but the identifier reads from its outline:
    # the loss is the box's, and the report must show it.
    strip, whole = turned_card(0.0), turned_card(60.0)
    truth = [("4C", strip, 0.35), ("7D", whole, 1.0)]
    report = SceneReport()
    result = PhotoResult(None, 600, 600, [found("5C", strip), found("7D", whole)])
    report.add("cascade", truth, result, read_from_outlines=["4C", "7D"])
    rates = report.to_dict()
    assert rates["shares"]["30-45%"] == {
        "cards": 1,
        "found": 1.0,
        "identified": 0.0,
        "identified_95_interval": [0.0, 0.7935],
        "identified_from_outline": 1.0,
    }
    assert rates["all"]["identified"] == 0.5
    assert rates["all"]["identified_from_outline"] == 1.0


def test_the_share_identified_comes_with_its_95_percent_wilson_interval():
    from vision.evaluate import identified_interval

    # Wilson's interval worked by hand: 88 of 100 at z = 1.96 is 0.8659 +- 0.0641.
    assert identified_interval(88, 100) == [0.8019, 0.93]
    assert identified_interval(0, 0) is None


def test_the_command_line_tables_print_the_interval_beside_the_share_read(capsys):
    from scopa.commands.vision import _print_piles

    _print_piles("piles", report_for([("3D", turned_card(0.0), 0.35)], []))
    assert (
        "30-45%                       1 cards  found   0.00%  identified   0.00% (0.0%-79.3%)"
        in (capsys.readouterr().out)
    )


def test_without_outline_reads_no_such_figure_is_made_up():
    result = report_for([("3D", turned_card(0.0), 1.0)], [found("3D", turned_card(0.0))])
    assert "identified_from_outline" not in result["all"]


class _ReadsEverything:
    """A recogniser stub whose identifier reads every crop as one card, and records the asks."""

    def __init__(self, card: str) -> None:
        self.card, self.asked = card, []

    def identify(self, image, quads):
        from scoring import CARD_CODES

        self.asked.append(quads)
        probs = np.zeros((len(quads), 40), np.float32)
        probs[:, CARD_CODES.index(self.card)] = 1.0
        return probs


def test_the_identifier_reads_only_the_outlines_of_cards_that_must_be_found():
    from vision.evaluate import true_outline_photo, true_outline_reads

    recognizer = _ReadsEverything("2S")
    truth = [("3D", turned_card(0.0), 0.1), ("2S", turned_card(30.0), 0.5)]
    photo = true_outline_photo(recognizer, np.zeros((600, 600, 3), np.uint8), truth)
    assert true_outline_reads(photo, truth) == [None, "2S"]  # the card showing 10% is not read
    assert len(recognizer.asked) == 1 and len(recognizer.asked[0]) == 1
    assert np.allclose(recognizer.asked[0][0], truth[1][1])
    # As a detector finding exactly that card would give it: at its true outline, a sure box.
    (card,) = photo.cards
    assert card.card == "2S" and card.box_confidence == 1.0 and photo.doubtful == []
    assert np.allclose(card.quad, truth[1][1])


def test_the_speed_benchmark_times_a_photo_and_each_two_photo_hand(tmp_path):
    from scoring import Rules
    from vision import benchmark

    seen = []

    class Recognizer:
        def recognize(self, path):
            seen.append(path.name)
            return PhotoResult(str(path), 64, 48)

    photo = np.full((48, 64, 3), 128, np.uint8)
    report = benchmark.speed(
        Recognizer,
        photo,
        repeats=2,
        workdir=tmp_path,
        hand_photos={"grid": (photo, photo)},
        rules=Rules.from_preset("classica"),
    )
    assert report["cards_found"] == 0 and len(report["times"]) == 2
    assert set(report["two_photo_hand_median_seconds"]) == {"grid"}
    # A warm-up and two timed runs; each hand run decodes both of its photos.
    assert seen.count("bench-photo.jpg") == 3
    assert seen.count("bench-hand-0.jpg") == seen.count("bench-hand-1.jpg") == 3
    assert list(tmp_path.iterdir()) == []  # the photos it saved are gone


def test_the_hands_benchmark_tells_the_hands_lost_to_the_boxes(capsys):
    """A detector that finds nothing leaves every card missing; read from their true outlines,
    the same photos make the hand determinate: the two figures side by side say which model
    loses the hand."""
    from types import SimpleNamespace

    from scopa.commands.vision import _print_hands
    from scoring import CARD_CODES, Rules
    from vision import benchmark

    def laid(codes, row):  # each card its own place, so the stub can tell them apart
        return [
            SimpleNamespace(code=c, quad=turned_card(0.0, (150.0 * k, row)), visible=1.0)
            for k, c in enumerate(codes)
        ]

    class FindsNothing:
        def recognize(self, image):
            return PhotoResult(None, 600, 600)

        def identify(self, image, quads):
            probs = np.zeros((len(quads), 40), np.float32)
            for row, quad in zip(probs, quads, strict=True):
                for card in scenes_cards:
                    if np.allclose(card.quad, quad):
                        row[CARD_CODES.index(card.code)] = 1.0
            return probs

    sides = [list(CARD_CODES[:18]), list(CARD_CODES[18:])]
    scenes = [
        SimpleNamespace(image=np.zeros((600, 600, 3), np.uint8), cards=laid(codes, 500.0 * k))
        for k, codes in enumerate(sides)
    ]
    scenes_cards = [card for scene in scenes for card in scene.cards]
    hand = [(codes, scene) for codes, scene in zip(sides, scenes, strict=True)]
    report = benchmark.hands(FindsNothing(), [("grid", hand)], Rules.from_preset("classica"))
    assert (report["determinate"], report["determinate_from_outlines"]) == (0, 1)
    assert report["layouts"]["grid"]["determinate_from_outlines"] == 1
    # Every card read nowhere: the advice asks for the cards laid out otherwise.
    assert report["advised_to_lay_out"] == report["layouts"]["grid"]["advised_to_lay_out"] == 1
    _print_hands(report)
    printed = capsys.readouterr().out
    assert "determinate from true outlines" in printed and "advised to lay out" in printed
    assert printed.splitlines()[3].split()[:6] == ["all", "1", "0", "0.00%", "0", "0"]
    assert printed.splitlines()[3].split()[6:] == ["1", "1"]


def reading(card: int, confidence: float) -> np.ndarray:
    """40 probabilities: `confidence` on `card`, the rest spread evenly over the others."""
    probs = np.full(40, (1 - confidence) / 39, np.float32)
    probs[card] = confidence
    return probs


def test_the_reliability_table_counts_readings_and_right_ones_by_confidence():
    from vision.evaluate import reliability

    probs = np.stack([reading(0, 0.995), reading(1, 0.995), reading(2, 0.95), reading(3, 0.6)])
    truth = np.array([0, 1, 5, 3])  # the 0.95 reading is wrong
    rows = {row["from"]: (row["right"], row["reads"]) for row in reliability(probs, truth)}
    assert rows == {0.99: (2, 2), 0.9: (0, 1), 0.7: (0, 0), 0.5: (1, 1), 0.0: (0, 0)}


def test_readings_surer_than_they_are_right_fit_a_temperature_above_one_and_the_reverse():
    from vision.evaluate import fitted_temperature

    cards = np.arange(40).repeat(5)
    # Read at 0.6 and always right: less sure than they deserve.
    shy = np.stack([reading(card, 0.6) for card in cards])
    assert fitted_temperature(shy, cards) < 0.5
    # Read at 0.999 and right one time in two: surer than they deserve.
    bold = np.stack(
        [reading(card if k % 2 else (card + 1) % 40, 0.999) for k, card in enumerate(cards)]
    )
    assert fitted_temperature(bold, cards) > 2


def test_the_report_s_calibration_counts_the_boxes_on_a_true_card_only():
    card, whole = turned_card(0.0), turned_card(60.0)
    truth = [("1D", card, 1.0)]  # 1D is card 0 of the deck
    boxes = [
        DetectedCard("1D", 0.7, reading(0, 0.7), card, 0.9),
        DetectedCard("2D", 0.95, reading(1, 0.95), whole, 0.9),  # no card there
    ]
    calibration = report_for(truth, boxes)["calibration"]
    rows = {row["from"]: (row["right"], row["reads"]) for row in calibration["by_confidence"]}
    assert rows[0.7] == (1, 1) and rows[0.9] == (0, 0)
    assert calibration["log_loss"] == round(-np.log(0.7), 5)
    assert calibration["fitted_temperature"] < 1


def test_the_command_line_prints_the_reliability_table_and_the_fitted_temperature(capsys):
    from scopa.commands.vision import _print_piles

    card = turned_card(0.0)
    _print_piles(
        "piles",
        report_for([("1D", card, 1.0)], [DetectedCard("1D", 0.7, reading(0, 0.7), card, 0.9)]),
    )
    out = capsys.readouterr().out
    assert "0.70-0.90     1 / 1" in out
    assert "the temperature that fits them best" in out
