"""Mecca played on the board itself, in a real Chromium: a pilgrim placed and one removed by
clicking its square, three marks none of which is round like a pilgrim, the other player's
pilgrim arriving marked (and appearing, where motion is welcome), a placement taken back, and on a phone (390 x 844)
every square at least 32 x 32 px with no sideways scroll of the page."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from games.models import Match, MoveRecord
from games.services import ClockSpec
from games.services.holding import may_hold
from tests.e2e.pages import ARRIVE, SIDEWAYS, TARGET_PX, TARGETS, log_in, two_players
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = pytest.mark.e2e

ROUND = "mark => getComputedStyle(mark).borderRadius"


def hanas_step(hana: User, ivo: User, step: str, seed: int = 3, moves: int = 12) -> Match:
    """A two-player match (two colours each), played at random (the same moves each run) until
    Hana is to ``step`` ("place" or "remove")."""
    match = start_timed_match(hana, ivo, clock=ClockSpec(), game="mecca")
    game = match.game_obj

    def ready() -> bool:
        match.refresh_from_db()
        view = game.view(game.load(match.state), None)
        return view["moves_played"] >= moves and view["step"] == step and view["to_act"] == [0]

    assert not play_random_moves(match, [hana, ivo], random.Random(seed), until=ready), "the game ended first"
    match.refresh_from_db()
    return match


def open_match(page: Page, live_server, match: Match) -> None:
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))


def targets(match: Match) -> list[str]:
    return match.game_obj.view(match.game_obj.load(match.state), 0)["targets"]


def test_a_pilgrim_is_placed_by_clicking_its_square_and_marked(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_step(hana, ivo, "place")
    square = targets(match)[0]
    open_match(page, live_server, match)
    cell = page.get_by_test_id(f"square-{square}")
    plus = cell.locator(".may-place")
    expect(plus).to_be_visible()
    assert plus.evaluate(ROUND) == "0px", "a plus, not a disc a pilgrim could be taken for"

    cell.click()
    expect(page.locator("#log li").first).to_contain_text(f"on {square}")
    expect(cell.locator(".pilgrim")).to_be_visible()
    expect(cell).to_have_attribute("data-last-move", "placed")


def test_a_pilgrim_is_removed_by_clicking_it_and_leaves_its_marked_ghost(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_step(hana, ivo, "remove")
    square = targets(match)[0]
    open_match(page, live_server, match)
    cell = page.get_by_test_id(f"square-{square}")
    badge = cell.locator(".may-remove")
    expect(badge).to_be_visible()
    assert badge.evaluate(ROUND) == "3px", "a square badge, not a disc a pilgrim could be taken for"
    expect(page.locator("#board .mecca-board .may-remove")).to_have_count(len(targets(match)))
    expect(page.locator("#board .mecca-board .may-place")).to_have_count(0)

    cell.click()
    expect(page.locator("#log li").first).to_contain_text("removes the")
    expect(cell).to_have_attribute("data-last-move", "removed")
    expect(cell.locator(".gone")).to_be_visible()
    expect(cell.locator(".pilgrim")).to_have_count(0)


def test_the_other_players_pilgrim_arrives_marked_and_appears_unless_motion_is_reduced(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_step(hana, ivo, "place")
    open_match(page, live_server, match)
    game = match.game_obj
    # Hana's turn to its end, then Ivo's first pilgrim, played behind the page's back.
    for _ in range(8):
        match.refresh_from_db()
        state = game.load(match.state)
        if game.to_act(state) != (0,):
            break
        moves = [move for move in game.legal_moves(state, 0) if move != "pass"] or ["pass"]
        services.move_submit(match_id=match.pk, user=hana, move=moves[0], expected_version=match.version)
    match.refresh_from_db()
    state = game.load(match.state)
    assert game.to_act(state) == (1,) and game.view(state, 1)["step"] == "place"
    answer = game.legal_moves(state, 1)[0]
    services.move_submit(match_id=match.pk, user=ivo, move=answer, expected_version=match.version)

    cell = page.get_by_test_id(f"square-{answer}")
    expect(cell).to_have_attribute("data-last-move", "placed", timeout=10_000)  # the poll brings it
    pilgrim = cell.locator(".pilgrim")
    assert "0px 0px 0px 4px" in pilgrim.evaluate("p => getComputedStyle(p).boxShadow"), "ringed"
    page.evaluate(ARRIVE)
    assert pilgrim.evaluate("p => getComputedStyle(p).animationName") == "mecca-appear"
    page.emulate_media(reduced_motion="reduce")
    assert pilgrim.evaluate("p => getComputedStyle(p).animationName") == "none"


def test_a_placed_pilgrim_is_taken_back_and_never_played(page, live_server, db):
    hana, ivo = two_players()
    match = hanas_step(hana, ivo, "place")
    game, start = match.game_obj, match.game_obj.load(match.state)
    # A placement that leaves Hana to act and reveals nothing: it waits, held, until her turn ends.
    square = next(square for square in targets(match) if may_hold(game, 0, start, game.apply(start, 0, square)))
    open_match(page, live_server, match)
    cell = page.get_by_test_id(f"square-{square}")
    cell.click()
    expect(page.locator("#log .log-held li").first).to_contain_text(f"on {square}")
    expect(cell.locator(".pilgrim")).to_be_visible()
    stored = Match.objects.get(pk=match.pk)
    assert (stored.version, stored.state) == (match.version, match.state), "Ivo sees nothing of it"

    page.get_by_test_id("take-back").click()
    expect(page.locator("#log .log-held li")).to_have_count(0)
    expect(cell.locator(".pilgrim")).to_have_count(0)
    expect(cell.locator(".may-place")).to_be_visible()
    expect(page.get_by_test_id("take-back")).to_have_count(0)
    assert MoveRecord.objects.filter(match=match).count() == match.version, "taking back writes no move"


def assert_fits_a_phone(phone: Page, where: str) -> None:
    measured = phone.evaluate(TARGETS)
    assert len(measured) >= 121, f"{where}: every square answers a click"
    small = [target for target in measured if target[1] < TARGET_PX or target[2] < TARGET_PX]
    assert small == [], f"{where}: targets under {TARGET_PX} px"
    assert phone.evaluate(SIDEWAYS) <= 0, f"{where}: the page scrolls sideways"


@pytest.mark.parametrize("step", ["place", "remove"])
def test_on_a_phone_every_square_is_big_enough_and_the_page_does_not_scroll_sideways(phone, live_server, db, step):
    hana, ivo = two_players()
    match = hanas_step(hana, ivo, step)
    open_match(phone, live_server, match)
    expect(phone.locator("#board button.mecca-cell.target").first).to_be_visible()
    assert phone.locator("#board").bounding_box()["y"] < 844, "the board starts on the first screen"
    assert_fits_a_phone(phone, step)
