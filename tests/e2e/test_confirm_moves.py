"""Confirm each move (a profile setting), in a real Chromium: a click on the board only chooses
the move, marked on the board, and a bar beside it sends it or drops it. One click sends the
move with the setting off: the other browser tests play that way."""

from __future__ import annotations

import re

import pytest
from django.db.models import F
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from games.models import Match
from games.services import SeatSpec
from tests.conftest import start_match
from tests.e2e.conftest import SMALL_PHONE
from tests.e2e.pages import log_in

pytestmark = pytest.mark.e2e


def open_match(page: Page, url: str, match: Match, username: str) -> list[str]:
    """The match open for ``username``, who chose to confirm each move; the moves the page posts."""
    User.objects.filter(username=username).update(confirm_moves=True)
    posted: list[str] = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    log_in(page, url, username)
    posted.clear()
    page.goto(f"{url}/matches/{match.pk}/")
    return posted


def sow_button(page: Page, tile: int):
    return page.get_by_test_id(f"tile-0-{tile}").get_by_role("button")


def version(match: Match) -> int:
    match.refresh_from_db()
    return match.version


def test_a_mancala_click_chooses_cancel_drops_it_and_confirm_sends_it(page, live_server, alice, bob):
    match = start_match(alice, bob)
    posted = open_match(page, live_server.url, match, "alice")
    tile_1, tile_2 = sow_button(page, 1), sow_button(page, 2)
    confirm, cancel = page.get_by_role("button", name="Confirm:"), page.get_by_role("button", name="Cancel")

    tile_1.click()
    expect(tile_1).to_have_attribute("aria-pressed", "true")
    expect(confirm).to_have_text("Confirm: Sow tile 1 (4 coins)")
    expect(page.locator("#announcer")).to_have_text("Chosen: Sow tile 1 (4 coins). Confirm to send it, or Cancel.")
    tile_2.click()  # the choice moves
    expect(tile_2).to_have_attribute("aria-pressed", "true")
    expect(tile_1).not_to_have_attribute("aria-pressed", "true")
    expect(confirm).to_have_text("Confirm: Sow tile 2 (4 coins)")
    cancel.click()
    expect(confirm).to_have_count(0)
    expect(page.locator(".move-chosen")).to_have_count(0)
    tile_1.dblclick()  # a shaky double tap chooses; it does not confirm
    expect(confirm).to_have_text("Confirm: Sow tile 1 (4 coins)")
    assert not posted and version(match) == 0, "nothing was sent"

    confirm.click()
    expect(page.locator("#log li")).to_have_count(1)
    expect(page.locator("#log li").first).to_contain_text("Alice sows tile 1")
    expect(confirm).to_have_count(0)  # Bob's turn: the board offers nothing
    assert len(posted) == 1 and version(match) == 1


def test_by_keyboard_enter_chooses_focus_goes_to_confirm_and_escape_cancels(page, live_server, alice, bob):
    match = start_match(alice, bob)
    posted = open_match(page, live_server.url, match, "alice")
    tile_3 = sow_button(page, 3)
    confirm = page.get_by_role("button", name="Confirm:")

    tile_3.focus()
    page.keyboard.press("Enter")
    expect(confirm).to_be_focused()
    page.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(tile_3).to_be_focused()
    expect(tile_3).not_to_have_attribute("aria-pressed", "true")
    expect(page.locator("#announcer")).to_have_text("Choice cancelled: no move was sent.")
    assert not posted and version(match) == 0

    page.keyboard.press("Space")
    page.keyboard.press("Enter")  # on Confirm
    expect(page.locator("#log li").first).to_contain_text("Alice sows tile 3")
    assert version(match) == 1


def test_a_mecca_square_is_chosen_then_sent_by_a_second_click(page, live_server, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    posted = open_match(page, live_server.url, match, "alice")
    entrances = page.locator("#board button.mecca-cell.target")
    first, second = entrances.nth(0), entrances.nth(1)

    first.click()
    expect(first).to_have_attribute("aria-pressed", "true")
    square = first.get_attribute("data-testid").removeprefix("square-")
    expect(page.get_by_role("button", name="Confirm:")).to_have_text(
        re.compile(rf"^Confirm: Choose entrance \d \({square}\)$")
    )
    page.keyboard.press("Escape")
    expect(page.locator(".move-confirm")).to_have_count(0)
    second.click()
    assert not posted and version(match) == 0

    # An unmarked square is no move: sent at once, it comes back with the reason why not.
    page.locator("#board button.mecca-cell:not(.target)").first.click()
    expect(page.locator("#status .error")).to_be_visible()
    assert len(posted) == 1 and version(match) == 0
    second = page.locator("#board button.mecca-cell.target").nth(1)
    second.click()

    square = second.get_attribute("data-testid")
    second.click()  # the chosen square again: sent
    expect(page.locator("#log li")).to_have_count(1)
    # The board is redrawn with the entrance taken.
    expect(page.get_by_test_id(square)).not_to_have_class(re.compile(r"\btarget\b"))
    assert len(posted) == 2 and version(match) == 1


def test_a_choice_not_sent_is_dropped_when_the_match_changes_meanwhile(page, live_server, alice, bob):
    match = start_match(alice, bob)
    posted = open_match(page, live_server.url, match, "alice")
    sow_button(page, 4).click()
    expect(page.locator(".move-confirm")).to_have_count(1)

    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1)  # as staff giving more time do

    expect(page.locator(".move-confirm")).to_have_count(0, timeout=10_000)  # the poll redrew the board
    expect(sow_button(page, 4)).not_to_have_attribute("aria-pressed", "true")
    assert not posted and version(match) == 0


def test_a_move_tapped_low_on_a_phone_stays_in_sight_above_the_bar(small_phone, live_server, alice, bob):
    """The bar stays at the foot of the screen: at 320 px a tile tapped there went under it, out of sight."""
    match = start_match(alice, bob)
    open_match(small_phone, live_server.url, match, "alice")
    tile = sow_button(small_phone, 1)
    tile.evaluate(f"sow => window.scrollBy(0, sow.getBoundingClientRect().bottom - {SMALL_PHONE['height']} + 20)")
    tile.tap()
    bar = small_phone.locator(".move-confirm")
    expect(bar).to_be_visible()
    assert tile.bounding_box()["y"] + tile.bounding_box()["height"] <= bar.bounding_box()["y"]
