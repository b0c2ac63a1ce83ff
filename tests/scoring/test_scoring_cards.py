"""Cards: codes, the deck's canonical order, names, parsing errors."""

import pytest

from scoring import CARD_CODES, DECK, Card, ScopaError, Suit, parse_card, parse_cards


def test_deck_has_forty_distinct_cards_in_canonical_order():
    assert len(DECK) == 40
    assert len(set(DECK)) == 40
    assert CARD_CODES[:3] == ("1D", "2D", "3D")
    assert CARD_CODES[9] == "10D"
    assert CARD_CODES[10] == "1C"
    assert CARD_CODES[20] == "1S"
    assert CARD_CODES[-1] == "10B"
    assert [card.index for card in DECK] == list(range(40))
    assert list(DECK) == sorted(DECK)


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [
        ("7D", 7, Suit.DENARI),
        ("7d", 7, Suit.DENARI),
        (" 10b ", 10, Suit.BASTONI),
        ("1c", 1, Suit.COPPE),
    ],
)
def test_parse_is_case_insensitive_and_prints_upper_case(code, rank, suit):
    card = parse_card(code)
    assert card == Card(rank, suit)
    assert Card.parse(code) is card
    assert str(card) == card.code == f"{rank}{suit.value}"


def test_parse_returns_a_card_unchanged():
    card = DECK[5]
    assert parse_card(card) is card


@pytest.mark.parametrize("code", ["11D", "0C", "7X", "", "D7", "7", "07D", "1 D", "10"])
def test_unknown_codes_are_named_in_the_error(code):
    with pytest.raises(ScopaError, match="unknown card code") as info:
        parse_card(code)
    assert repr(code) in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("code", [7, None, 7.0, ["7D"]])
def test_non_string_codes_are_rejected(code):
    with pytest.raises(ScopaError, match="card code must be a string"):
        parse_card(code)


def test_suit_names():
    assert [suit.value for suit in Suit] == ["D", "C", "S", "B"]
    assert [suit.italian for suit in Suit] == ["denari", "coppe", "spade", "bastoni"]
    assert [suit.english for suit in Suit] == ["coins", "cups", "swords", "clubs"]


def test_card_names_in_italian_and_english():
    assert parse_card("7D").name_it == "sette di denari"
    assert parse_card("1C").name_it == "asso di coppe"
    assert parse_card("8S").name_it == "fante di spade"
    assert parse_card("9B").name_it == "cavallo di bastoni"
    assert parse_card("10D").name_it == "re di denari"
    assert parse_card("10D").name_en == "king of coins"
    assert parse_card("1S").name_en == "ace of swords"


def test_primiera_values_follow_the_rule_book():
    values = {card.rank: card.primiera_value for card in DECK if card.suit is Suit.COPPE}
    assert values == {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


def test_cards_sort_by_suit_then_rank():
    cards = [parse_card(code) for code in ["10B", "1C", "7D", "2D", "5S"]]
    assert [card.code for card in sorted(cards)] == ["2D", "7D", "1C", "5S", "10B"]


def test_invalid_card_construction():
    with pytest.raises(ScopaError, match="rank"):
        Card(11, Suit.DENARI)
    with pytest.raises(ScopaError, match="suit"):
        Card(3, "D")


def test_parse_cards_returns_a_frozenset():
    assert parse_cards(["1d", "7D", parse_card("10B")]) == frozenset(
        parse_card(code) for code in ["1D", "7D", "10B"]
    )
    assert parse_cards([]) == frozenset()


def test_parse_cards_names_the_duplicate_and_the_side():
    with pytest.raises(ScopaError, match=r"side 'Noi': card 7D is listed twice"):
        parse_cards(["7D", "1C", "7d"], side="Noi")


def test_parse_cards_names_the_side_of_an_unknown_code():
    with pytest.raises(ScopaError, match=r"side 'Loro': unknown card code '12C'"):
        parse_cards(["7D", "12C"], side="Loro")


@pytest.mark.parametrize("codes", ["7D", 7, None])
def test_parse_cards_needs_a_list(codes):
    with pytest.raises(ScopaError, match="cards must be a list"):
        parse_cards(codes, side="A")
