"""Jeexa played on the board itself, in a real Chromium: a piece placed by clicking its spot (and so
with "confirm each move" on), one log line per move, the other player's move marked as it arrives,
and on a phone (390 x 844) every target at least 32 x 32 px with no sideways scroll of the page."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from games.engine import get_game
from games.models import Match
from games.services import ClockSpec, creating
from tests.e2e.pages import SIDEWAYS, TARGET_PX, TARGETS, log_in, two_players
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = pytest.mark.e2e


def a_match_where(hana: User, ivo: User, seed: int, monkeypatch, until) -> Match:
    """A match of Hana (first) and Ivo, played at random (the same moves each run) until ``until(state)``."""
    monkeypatch.setattr(creating, "new_seed", lambda: seed)
    match = start_timed_match(hana, ivo, clock=ClockSpec(), game="jeexa")
    game = match.game_obj
    play_random_moves(match, [hana, ivo], random.Random(seed), until=lambda: until(game.load(match.state)))
    match.refresh_from_db()
    return match


def single_spots(state) -> list[str]:
    """Hana's placements on a spot where the piece fits turned one way only (and the hand goes on:
    one that wins it clears the puzzles)."""
    if state.to_move != 0 or state.stealing or state.over:
        return []
    game = match_game()
    legal = game.legal_moves(state, 0)
    per_cell = Counter(move.rsplit(",", 1)[0] for move in legal)
    return [m for m in legal if per_cell[m.rsplit(",", 1)[0]] == 1 and game.apply(state, 0, m).hand == state.hand]


def match_game():
    return get_game("jeexa")


def wait_for_hanas_spot(hana, ivo, monkeypatch) -> Match:
    return a_match_where(hana, ivo, 2, monkeypatch, lambda state: state.moves_played >= 6 and single_spots(state))


def spot_of(page: Page, move: str):
    return page.get_by_test_id("puzzle-0").locator(f'button[name="move"][value="{move}"]')


def test_a_piece_is_placed_by_clicking_its_spot_and_the_log_says_it_in_one_line(page, live_server, db, monkeypatch):
    hana, ivo = two_players()
    match = wait_for_hanas_spot(hana, ivo, monkeypatch)
    move = single_spots(match.game_obj.load(match.state))[0]
    x, y, turned = move.split(",")
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    spot = spot_of(page, move)
    expect(spot).to_have_accessible_name(re.compile(rf"^Place it at {x},{y} turned {turned}°: "))

    spot.click()
    line = page.locator("#log li").first
    expect(line).to_contain_text(f"at {x},{y} turned {turned}°")
    expect(line).to_have_text(re.compile(r"^\s*Hana rolled \d and places"))
    expect(line).not_to_contain_text("Ivo rolled")  # Ivo's roll is the first words of his own line
    placed = page.get_by_test_id("puzzle-0").locator(f'td[data-cell="{x},{y}"] svg.jx-piece')
    expect(placed).to_have_count(1)
    assert version_of(match) == match.version + 1


def version_of(match: Match) -> int:
    return Match.objects.values_list("version", flat=True).get(pk=match.pk)


def test_with_confirm_each_move_a_click_on_a_spot_chooses_it_and_confirm_places_it(page, live_server, db, monkeypatch):
    hana, ivo = two_players()
    User.objects.filter(pk=hana.pk).update(confirm_moves=True)
    match = wait_for_hanas_spot(hana, ivo, monkeypatch)
    move = single_spots(match.game_obj.load(match.state))[0]
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    spot = spot_of(page, move)

    spot.click()
    expect(spot).to_have_attribute("aria-pressed", "true")
    confirm = page.get_by_role("button", name=re.compile("^Confirm: Place it at "))
    expect(confirm).to_be_visible()
    assert version_of(match) == match.version, "a click only chooses"
    confirm.click()
    x, y, turned = move.split(",")
    expect(page.locator("#log li").first).to_contain_text(f"at {x},{y} turned {turned}°")
    assert version_of(match) == match.version + 1


def test_the_other_players_move_arrives_marked_on_the_board(page, live_server, db, monkeypatch):
    hana, ivo = two_players()
    match = wait_for_hanas_spot(hana, ivo, monkeypatch)
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    spot_of(page, single_spots(match.game_obj.load(match.state))[0]).click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_have_count(0)
    match.refresh_from_db()
    state = match.game_obj.load(match.state)
    answer = match.game_obj.legal_moves(state, 1)[0]  # a placement: Ivo's turn starts with one
    services.move_submit(match_id=match.pk, user=ivo, move=answer, expected_version=match.version)

    x, y, _turned = answer.split(",")
    ivos = page.get_by_test_id("puzzle-1").locator(f'td[data-cell="{x},{y}"]')
    expect(ivos).to_have_attribute("data-last-move", "", timeout=10_000)  # the poll brings it
    expect(page.locator("#board svg.jx-die")).to_have_attribute("data-last-move", "")
    ring = ivos.evaluate("cell => getComputedStyle(cell, '::after').borderTopStyle")
    assert ring == "solid", "marked by a ring, not by a colour alone"
    # Arrived while the page was open, the piece drops onto its cell, unless motion is unwanted. The
    # class is set by hand: site.js sets it at htmx:afterSwap, and htmx's settle drops it 20 ms later.
    page.evaluate("() => document.querySelector('#board').classList.add('arrived')")
    dropped = ivos.locator("svg.jx-piece")
    assert dropped.evaluate("piece => getComputedStyle(piece).animationName") == "jx-land"
    page.emulate_media(reduced_motion="reduce")
    assert dropped.evaluate("piece => getComputedStyle(piece).animationName") == "none"


# --- a phone ---------------------------------------------------------------------------------


def assert_fits_a_phone(phone: Page, where: str) -> None:
    small = [target for target in phone.evaluate(TARGETS) if target[1] < TARGET_PX or target[2] < TARGET_PX]
    assert small == [], f"{where}: targets under {TARGET_PX} px"
    assert phone.evaluate(SIDEWAYS) <= 0, f"{where}: the page scrolls sideways"


def test_on_a_phone_every_target_is_big_enough_and_the_page_does_not_scroll_sideways(
    phone, live_server, db, monkeypatch
):
    hana, ivo = two_players()
    User.objects.filter(pk=hana.pk).update(confirm_moves=True)
    # Far into a hand, Hana to place with spots of one and of several ways, the puzzles grown.
    match = a_match_where(
        hana,
        ivo,
        2,
        monkeypatch,
        lambda state: (
            state.moves_played >= 24
            and single_spots(state)
            and len(single_spots(state)) < len(match_game().legal_moves(state, 0))
        ),
    )
    log_in(phone, live_server.url, "hana")
    phone.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    expect(phone.get_by_test_id("puzzle-0").locator("button.jx-place").first).to_be_visible()
    measured = phone.evaluate(TARGETS)
    assert len(measured) >= 2, measured
    assert_fits_a_phone(phone, "placing")

    phone.get_by_test_id("puzzle-0").locator("button.jx-choose").first.click()  # the ways to turn it
    expect(phone.locator(".jx-turns:popover-open")).to_be_visible()
    assert_fits_a_phone(phone, "the ways to turn it")
    phone.locator(".jx-turns:popover-open button[name=move]").first.click()  # chosen: Confirm and Cancel show
    expect(phone.get_by_role("button", name=re.compile("^Confirm: "))).to_be_visible()
    assert_fits_a_phone(phone, "a way chosen, to confirm")
    phone.get_by_role("button", name=re.compile("^Confirm: ")).click()
    expect(phone.locator("#log li").first).to_contain_text("Hana rolled")
    assert_fits_a_phone(phone, "after the move")


def test_on_a_phone_a_joker_to_use_keeps_every_target_big_enough(phone, live_server, db, monkeypatch):
    hana, ivo = two_players()
    match = a_match_where(hana, ivo, 3, monkeypatch, lambda state: state.to_move == 0 and state.stealing)
    log_in(phone, live_server.url, "hana")
    phone.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    expect(phone.get_by_role("button", name=re.compile("^Steal the ")).first).to_be_visible()
    assert_fits_a_phone(phone, "stealing")
