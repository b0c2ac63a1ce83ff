"""The three tournament pages render against a real database (Streamlit's AppTest, no browser)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from tournament_helpers import PASSWORD, play_match, small_hand

from scoring import CARD_CODES

PAGES = Path(__file__).resolve().parents[2] / "pages"


@pytest.fixture
def started(db_url, service, make_tournament, monkeypatch):
    """A round robin of 4 pairs with one match played, in the database the pages open."""
    monkeypatch.setenv("SCOPA_DB_URL", db_url)
    tournament = make_tournament(pairs=4, name="Coppa Pagine")
    referee = service.referee(tournament, PASSWORD)
    matches = referee.start()
    play_match(service, referee, matches[0], "a")
    return tournament, referee, matches


def page(name: str) -> AppTest:
    return AppTest.from_file(str(PAGES / name), default_timeout=60)


def texts_of(app: AppTest) -> str:
    parts = [
        el.value
        for kind in ("title", "subheader", "caption", "markdown")
        for el in getattr(app, kind)
    ]
    parts += [frame.value.to_csv() for frame in [*app.dataframe, *app.table]]
    return "\n".join(str(p) for p in parts)


def test_board_shows_standings_and_the_round(started):
    _, _, matches = started
    app = page("3_Classifica.py").run()
    assert not app.exception
    shown = texts_of(app)
    assert "Classifica" in shown
    winner = matches[0].pair_a.name
    # Plain HTML tables in large type (st.table), for a projector: every column shows.
    standings = app.table[0].value
    assert standings.iloc[0]["Coppia"] == winner and int(standings.iloc[0]["V"]) == 1
    assert "Giocatori" not in standings.columns  # left out to fit 1280 pixels
    assert not app.dataframe


def test_table_page_opens_only_with_a_good_code(started):
    _, referee, matches = started
    app = page("2_Tavolo.py")
    app.query_params["codice"] = "WRONG-CODE"
    app.run()
    assert not app.exception
    assert any("Codice sconosciuto" in e.value for e in app.error)

    first, code = referee.table_codes(1)[1]
    app = page("2_Tavolo.py")
    app.query_params["codice"] = code
    app.run()
    assert not app.exception
    header = app.subheader[0].value
    assert header == f"{first.pair_a.name} – {first.pair_b.name}"
    others = {m.pair_a.name for m in matches if m.id != first.id and m.round_number == 1}
    assert not any(name in header for name in others)


def test_referee_page_needs_the_password(started):
    app = page("1_Arbitro.py").run()
    assert not app.exception
    app.text_input[0].input("sbagliata-123")
    app.button[0].click().run()
    assert any("Password sbagliata" in e.value for e in app.error)

    app.text_input[0].input(PASSWORD)
    app.button[0].click().run()
    assert not app.exception
    assert [tab.label for tab in app.tabs][:2] == ["Coppie", "Turni e tavoli"]


def test_a_hand_entered_on_the_table_page_is_recorded(started, service):
    _, referee, _ = started
    match, code = referee.table_codes(1)[1]
    app = page("2_Tavolo.py")
    app.query_params["codice"] = code
    app.run()
    key = f"table-{match.id}"
    # With the models present the first hand opens in photo mode: enter this one on the grid.
    modes = [w for w in app.segmented_control if w.key == f"{key}:mode"]
    if modes and modes[0].value != "manual":
        modes[0].set_value("manual").run()
    hand = small_hand("b", scope=1)
    for side, name in (("a", match.pair_a.name), ("b", match.pair_b.name)):
        chosen = set(hand[side]["cards"])
        for suit in "DCSB":
            app.pills(key=f"{key}:grid:{name}:{suit}").set_value(
                [c for c in CARD_CODES if c.endswith(suit) and c in chosen]
            )
        app.run()
    app.button(key=f"{key}:scope:{match.pair_b.name}:plus").click().run()
    app.button(key=f"{key}:save").click().run()
    assert not app.exception
    (recorded,) = service.table(code).hands()
    assert recorded.points == {"a": 0, "b": 3}
    assert recorded.submitted_by == "table 2"
    assert service.table(code).draft()["photos"] == []  # a fresh draft for the next hand


def test_referee_verifies_and_accepts_a_hand(started, service):
    tournament, referee, matches = started
    app = page("1_Arbitro.py").run()
    app.text_input[0].input(PASSWORD)
    app.button[0].click().run()
    next(b for b in app.button if b.label == "Verifica dalle foto").click().run()
    assert not app.exception
    assert any("3 mani verificate, 3 da guardare" in c.value for c in app.caption)
    first = referee.hands(matches[0].id)[0]
    app.button(key=f"accept-{first.id}").click().run()
    assert not app.exception
    assert referee.hand(first.id).review == "accepted"


def test_referee_can_open_any_table_to_enter_its_hands(started):
    # A table without a phone: the referee opens its page from the round's list.
    _, referee, _ = started
    app = page("1_Arbitro.py").run()
    app.text_input[0].input(PASSWORD)
    app.button[0].click().run()
    assert not app.exception
    links = [link.proto for link in app.get("link_button")]
    table_links = [p for p in links if p.label == "Inserisci le mani di questo tavolo"]
    assert len(table_links) == 1
    codes = {code for _, code in referee.table_codes(1)}
    assert table_links[0].url in {f"Tavolo?codice={code}" for code in codes}


def test_referee_swaps_two_pairs_of_a_swiss_round(db_url, service, make_tournament, monkeypatch):
    monkeypatch.setenv("SCOPA_DB_URL", db_url)
    tournament = make_tournament(pairs=4, format="swiss", swiss_rounds=2, name="Svizzera")
    referee = service.referee(tournament, PASSWORD)
    first, second = referee.start()
    app = page("1_Arbitro.py").run()
    app.text_input[0].input(PASSWORD)
    app.button[0].click().run()
    form_pairs = [s for s in app.selectbox if s.label == "Coppia"]
    form_pairs[0].set_value(first.pair_b.id)
    form_pairs[1].set_value(second.pair_b.id)
    next(b for b in app.button if b.label == "Scambia").click().run()
    assert not app.exception and not app.error
    (now_first,) = [m for m in service.matches(tournament, 1) if m.id == first.id]
    assert now_first.pair_b.id == second.pair_b.id


def logged_in(password: str = PASSWORD) -> AppTest:
    app = page("1_Arbitro.py").run()
    app.text_input[0].input(password)
    app.button[0].click().run()
    assert not app.exception
    return app


def test_referee_errors_and_findings_are_in_the_page_language(started):
    # A finding of the verification: the hands were entered without photos.
    app = logged_in()
    next(b for b in app.button if b.label == "Verifica dalle foto").click().run()
    assert not app.exception
    shown = texts_of(app)
    assert "**Senza foto**: nessuna foto registrata per questa mano" in shown
    assert "no photos stored" not in shown
    # An error of the service: a new password shorter than the minimum.
    new = next(w for w in app.text_input if w.label == "Nuova password")
    again = next(w for w in app.text_input if w.label == "Ripeti la password")
    new.input("corta")
    again.input("corta")
    next(b for b in app.button if b.label == "Cambia password").click().run()
    errors = [e.value for e in app.error]
    assert any("servono almeno 10 caratteri" in e for e in errors), errors
    assert not any("characters required" in e for e in errors)


def test_referee_login_tells_too_many_attempts_from_a_wrong_password(started, monkeypatch):
    from scopa.tournament.security import FailureThrottle, TooManyAttempts

    def refuse(self, key, scope):
        raise TooManyAttempts(
            "too many wrong attempts: try again in 12 s", "too_many_attempts", seconds=12
        )

    monkeypatch.setattr(FailureThrottle, "check", refuse)
    app = page("1_Arbitro.py").run()
    app.text_input[0].input(PASSWORD)
    app.button[0].click().run()
    errors = [e.value for e in app.error]
    assert errors == ["Troppi tentativi sbagliati: riprova tra 12 s."]


def test_referee_corrects_any_recorded_hand(started, service):
    _, referee, matches = started
    first = referee.hands(matches[0].id)[0]
    app = logged_in()
    assert "Mani" in [tab.label for tab in app.tabs]
    app.toggle(key=f"hands-fixing-{first.id}").set_value(True).run()
    assert not app.exception
    key = f"hands-fix-{first.id}"
    hand = small_hand("b")
    for side, name in (("a", matches[0].pair_a.name), ("b", matches[0].pair_b.name)):
        chosen = set(hand[side]["cards"])
        for suit in "DCSB":
            app.pills(key=f"{key}:grid:{name}:{suit}").set_value(
                [c for c in CARD_CODES if c.endswith(suit) and c in chosen]
            )
        app.run()
    app.button(key=f"{key}:save").click().run()
    assert not app.exception and not app.error
    corrected = referee.hand(first.id)
    assert corrected.review == "corrected"
    assert set(corrected.sides["a"]["cards"]) == set(hand["a"]["cards"])
    assert corrected.points != first.points
    assert [e.action for e in referee.audit(hand_id=first.id)][-1] == "hand-corrected"


def test_round_robin_offers_the_next_round_only_when_every_match_is_finished(
    db_url, service, make_tournament, monkeypatch
):
    monkeypatch.setenv("SCOPA_DB_URL", db_url)
    tournament = make_tournament(pairs=4, knockout_size=2, name="Girone")
    referee = service.referee(tournament, PASSWORD)
    matches = referee.start()
    for match in matches[:-1]:
        play_match(service, referee, match, "a")
    app = logged_in()
    assert not any(b.label == "Abbina il turno successivo" for b in app.button)
    last = matches[-1]
    assert any(
        f"turno {last.round_number}, tavoli {last.table_number}" in c.value for c in app.caption
    )

    play_match(service, referee, last, "a")
    app = logged_in()
    assert not any("Si gioca ancora" in c.value for c in app.caption)
    next(b for b in app.button if b.label == "Abbina il turno successivo").click().run()
    assert not app.exception and not app.error
    assert service.tournament(tournament).stage == "knockout"
