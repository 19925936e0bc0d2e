"""Mancala played on the board itself, in a real Chromium: a click anywhere on a pit sows it
(Ethiopian: the pit, then the way), the other player's sowing arrives marked hole by hole, its
arrival animated only where motion is welcome, and on a phone (390 x 844) every target is at
least 32 x 32 px with no sideways scroll of the page."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from games.models import Match
from games.services import ClockSpec
from tests.e2e.pages import ARRIVE, SIDEWAYS, TARGET_PX, TARGETS, log_in, two_players
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = pytest.mark.e2e

# The animation a ring of the last move gets under #board.arrived.
RING_ANIMATION = "tile => getComputedStyle(tile.querySelector('.well'), '::after').animationName"


def hanas_turn(hana: User, ivo: User, variant: str, moves: int = 4) -> Match:
    """A match of Hana (first) and Ivo, a few random moves in (the same each run), Hana to sow."""
    match = start_timed_match(hana, ivo, clock=ClockSpec(), options={"variant": variant})
    game = match.game_obj

    def ready() -> bool:
        match.refresh_from_db()
        state = game.load(match.state)
        return len(match.moves.all()) >= moves and game.to_act(state) == (0,)

    play_random_moves(match, [hana, ivo], random.Random(variant), until=ready)
    match.refresh_from_db()
    return match


def passing_move(match: Match) -> str:
    """Hana's move after which Ivo is to sow."""
    game = match.game_obj
    state = game.load(match.state)
    return next(move for move in game.legal_moves(state, 0) if game.to_act(game.apply(state, 0, move)) == (1,))


def open_match(page: Page, live_server, match: Match) -> None:
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))


def test_a_click_on_the_pits_coins_sows_it_and_the_sowing_is_marked(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_turn(hana, ivo, "egyptian")
    move = passing_move(match)
    open_match(page, live_server, match)
    pit = page.get_by_test_id(f"tile-0-{move}")
    expect(pit.get_by_role("button")).to_have_accessible_name(re.compile(rf"^Sow tile {move} \(\d+ coins?\)$"))

    pit.locator(".well").click(position={"x": 4, "y": 4})  # the wood at the well's corner, not a "Sow" button
    expect(page.locator("#log li").first).to_contain_text(f"Hana sows tile {move}")
    expect(pit).to_have_attribute("data-last-move", "from")
    expect(pit).to_have_attribute("data-order", "0")
    sown = page.locator('#board [data-last-move="sown"]')
    expect(sown.first).to_be_visible()
    orders = [int(order) for order in sown.evaluate_all("marks => marks.map(mark => mark.dataset.order)")]
    assert sorted(orders) == list(range(1, len(orders) + 1)), "each hole in the order the coins went in"


def test_an_ethiopian_pit_opens_its_two_ways_and_an_arrow_sows(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_turn(hana, ivo, "ethiopian")
    game = match.game_obj
    move = next(move for move in game.legal_moves(game.load(match.state), 0) if move.endswith("r"))
    open_match(page, live_server, match)

    page.get_by_test_id(f"tile-0-{move[:-1]}").get_by_role("button").first.click()
    ways = page.locator(".sow-ways:popover-open")
    expect(ways.get_by_role("button")).to_have_count(2)
    ways.locator(f'button[value="{move}"]').click()
    expect(page.locator("#log li").first).to_contain_text(f"Hana sows tile {move[:-1]} to the right")
    expect(page.get_by_test_id(f"tile-0-{move[:-1]}")).to_have_attribute("data-last-move", "from")


def test_the_other_players_sowing_arrives_marked_and_animated_unless_motion_is_reduced(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_turn(hana, ivo, "egyptian")
    open_match(page, live_server, match)
    page.locator(f'button.sow[value="{passing_move(match)}"]').click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_have_count(0)
    match.refresh_from_db()
    game = match.game_obj
    answer = game.legal_moves(game.load(match.state), 1)[0]
    services.move_submit(match_id=match.pk, user=ivo, move=answer, expected_version=match.version)

    started = page.get_by_test_id(f"tile-1-{answer}")
    expect(started).to_have_attribute("data-last-move", "from", timeout=10_000)  # the poll brings it
    assert (
        started.evaluate("tile => getComputedStyle(tile.querySelector('.well'), '::after').borderTopStyle") == "dashed"
    )
    page.evaluate(ARRIVE)
    assert started.evaluate(RING_ANIMATION) == "mancala-ring"
    page.emulate_media(reduced_motion="reduce")
    assert started.evaluate(RING_ANIMATION) == "none"


def assert_fits_a_phone(phone: Page, where: str) -> None:
    small = [target for target in phone.evaluate(TARGETS) if target[1] < TARGET_PX or target[2] < TARGET_PX]
    assert small == [], f"{where}: targets under {TARGET_PX} px"
    assert phone.evaluate(SIDEWAYS) <= 0, f"{where}: the page scrolls sideways"


@pytest.mark.parametrize("variant", ["egyptian", "ethiopian"])
def test_on_a_phone_every_pit_is_big_enough_and_the_page_does_not_scroll_sideways(phone, live_server, db, variant):
    hana, ivo = two_players()
    match = hanas_turn(hana, ivo, variant, moves=9)
    open_match(phone, live_server, match)
    pits = phone.locator("#board button.pit")
    expect(pits.first).to_be_visible()
    assert phone.locator("#board").bounding_box()["y"] < 844, "the board starts on the first screen"
    assert_fits_a_phone(phone, variant)
    if variant == "ethiopian":
        pits.first.click()
        expect(phone.locator(".sow-ways:popover-open")).to_be_visible()
        assert_fits_a_phone(phone, "the two ways")
