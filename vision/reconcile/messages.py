"""What a reconciliation advises the players, as sentences in Italian and English.

Every piece of advice has a message key (``reconcile.<name>``) and the raw parameters it was
made from, so a page with its own translation catalogue can render it; `Advice.text` holds the
sentence in both languages, rendered from `TEMPLATES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring import Card

LANGUAGES = ("it", "en")

#: Each category as a sentence names it ("decide la primiera" / "decides primiera").
CATEGORY_NAMES: dict[str, dict[str, str]] = {
    "it": {
        "scope": "le scope",
        "carte": "le carte",
        "denari": "i denari",
        "primiera": "la primiera",
        "settebello": "il settebello",
        "napola": "la napola",
        "re_bello": "il re bello",
        "napoleone": "il napoleone",
    },
    "en": {
        "scope": "scope",
        "carte": "cards",
        "denari": "denari",
        "primiera": "primiera",
        "settebello": "settebello",
        "napola": "napola",
        "re_bello": "re bello",
        "napoleone": "napoleone",
    },
}

_AND = {"it": "e", "en": "and"}

#: Message key -> language -> template. Fields: {card}/{Card} (a card's name with its article,
#: lower/upper case), {alternative}, {side}, {photo} (1-based), {what} (the categories),
#: {sides}, {codes}, {count}, {expected}, {found}.
TEMPLATES: dict[str, dict[str, str]] = {
    "reconcile.missing_card": {
        "it": "Manca {card}, che decide {what}: cercalo e rifai la foto del lato che lo ha.",
        "en": "{Card} is missing and decides {what}: find it and retake the photo of the side that has it.",
    },
    "reconcile.missing_cards": {
        "it": "Mancano {count} carte ({codes}), che decidono {what}: cercale e rifai le foto, con ogni carta scoperta almeno per un quarto.",
        "en": "{count} cards are missing ({codes}) and decide {what}: find them and retake the photos with every card showing at least a quarter of itself.",
    },
    "reconcile.lay_out": {
        "it": "{count} carte non si vedono in nessuna foto, e decidono {what}: stendi le carte in file o a cascata, ognuna scoperta almeno per un quarto (le carte di un ventaglio tenuto in mano non si leggono), e rifai le foto; oppure lascia un lato senza foto e indica quante carte ha: avrà il resto del mazzo.",
        "en": "{count} cards are not seen in any photo, and they decide {what}: lay the cards out in rows or cascades, each showing at least a quarter of itself (the cards of a hand fan cannot be read), and retake the photos; or leave one side unphotographed and give how many cards it has: it gets the rest of the deck.",
    },
    "reconcile.uncertain_card": {
        "it": "{Card} nella foto {photo} del lato {side} potrebbe essere {alternative} e decide {what}: fai una nuova foto del lato {side}.",
        "en": "{Card} in photo {photo} of side {side} could be {alternative}, which decides {what}: take a new photo of side {side}.",
    },
    "reconcile.maybe_not_a_card": {
        "it": "{Card} nella foto {photo} del lato {side} potrebbe non essere una carta e decide {what}: fai una nuova foto del lato {side}.",
        "en": "{Card} in photo {photo} of side {side} may not be a card at all, which decides {what}: take a new photo of side {side}.",
    },
    "reconcile.maybe_a_card": {
        "it": "Nella foto {photo} del lato {side} c'è forse {alternative}, che decide {what}: fai una nuova foto del lato {side}.",
        "en": "Photo {photo} of side {side} may show {alternative}, which decides {what}: take a new photo of side {side}.",
    },
    "reconcile.conflict_sides": {
        "it": "{Card} è stato letto nei lati {sides}: controlla quale mazzetto lo ha e rifai le foto.",
        "en": "{Card} was read in sides {sides}: check which pile has it and retake the photos.",
    },
    "reconcile.conflict_photo": {
        "it": "Nella foto {photo} del lato {side} due carte sembrano entrambe {card}: fai una nuova foto del lato {side}.",
        "en": "Two cards in photo {photo} of side {side} both look like {card}: take a new photo of side {side}.",
    },
    "reconcile.complement_mismatch": {
        "it": "Il lato {side} dovrebbe avere {expected} carte, ma ne restano {found}: ricontale o rifai le foto degli altri lati.",
        "en": "Side {side} should have {expected} cards, but {found} are left for it: count them again or retake the photos of the other sides.",
    },
    "reconcile.too_many_doubts": {
        "it": "Troppe carte incerte per verificare il punteggio: rifai le foto con le carte ben distese.",
        "en": "Too many uncertain cards to verify the score: retake the photos with the cards spread out.",
    },
}


@dataclass(frozen=True)
class Advice:
    """One thing the players should do, with the categories it decides."""

    key: str
    #: The raw values the sentence was made from: card codes, side names, numbers, categories.
    params: dict[str, Any]
    #: The sentence in each of LANGUAGES.
    text: dict[str, str]
    categories: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "params": dict(self.params),
            "categories": list(self.categories),
            "text": dict(self.text),
        }


def make_advice(
    key: str,
    *,
    categories: Sequence[str] = (),
    card: Card | None = None,
    alternative: Card | None = None,
    cards: Sequence[Card] = (),
    sides: Sequence[str] = (),
    **values: Any,
) -> Advice:
    """Render the advice ``key`` in every language from cards, sides and plain values."""
    params: dict[str, Any] = dict(values)
    if card is not None:
        params["card"] = card.code
    if alternative is not None:
        params["alternative"] = alternative.code
    if cards:
        params["cards"] = [c.code for c in cards]
    if sides:
        params["sides"] = list(sides)
    if categories:
        params["categories"] = list(categories)
    text = {}
    for lang in LANGUAGES:
        fields = dict(values)
        if card is not None:
            fields["card"] = card_phrase(card, lang)
            fields["Card"] = _capitalized(fields["card"])
        if alternative is not None:
            fields["alternative"] = card_phrase(alternative, lang)
        if cards:
            fields["codes"] = ", ".join(c.code for c in cards)
            fields["count"] = len(cards)
        if sides:
            fields["sides"] = join_words(sides, lang)
        if categories:
            fields["what"] = join_words([CATEGORY_NAMES[lang][c] for c in categories], lang)
        text[lang] = TEMPLATES[key][lang].format(**fields)
    return Advice(key=key, params=params, text=text, categories=tuple(categories))


def card_phrase(card: Card, lang: str) -> str:
    """A card named in a sentence, with its article and code: "l'asso di coppe (1C)"."""
    if lang == "it":
        article = "l'" if card.rank == 1 else "il "
        return f"{article}{card.name_it} ({card.code})"
    return f"the {card.name_en} ({card.code})"


def join_words(words: Sequence[str], lang: str) -> str:
    """ "a", "a e b", "a, b e c" (Italian) or "a and b", "a, b and c" (English)."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {_AND[lang]} {words[-1]}"


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]
