"""When the server fails or cannot be reached during an htmx request, htmx swaps nothing in:
the page must say so, not look as if the click did nothing; the next answer clears it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match
from tests.conftest import start_match
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.pages import log_in

pytestmark = pytest.mark.e2e

POLLS_SECONDS = 7  # the match page polls every few seconds


def test_the_message_is_seen_on_a_phone_scrolled_down_to_the_board(browser, live_server, alice, bob):
    page = browser.new_page(viewport={"width": 390, "height": 600}, is_mobile=True, has_touch=True)
    page.set_default_timeout(TIMEOUT_MS)
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.route(f"**/matches/{match.pk}/move/", lambda route: route.fulfill(status=500, body="boom"))
    button = page.locator("#board button[name=move]").first
    button.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 200)")
    button.click()
    problem = page.locator("#request-problem")
    expect(problem).to_be_visible()
    box = problem.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 600, "inside the screen, wherever it is scrolled"
    close = problem.get_by_role("button", name="Close this message")
    assert min(close.bounding_box()["width"], close.bounding_box()["height"]) >= 44, "a finger's width (35 px before)"
    close.click()
    expect(problem).to_be_hidden()


def test_a_server_error_or_a_lost_connection_on_a_move_is_said_and_the_next_answer_clears_it(
    browser, live_server, alice, bob
):
    # Not the console-checked page: htmx itself logs the failed requests this test makes.
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    problem = page.locator("#request-problem")
    expect(problem).to_be_hidden()
    move_url = f"**/matches/{match.pk}/move/"

    page.route(move_url, lambda route: route.fulfill(status=500, body="boom"))
    page.locator("#board button[name=move]").first.click()
    expect(page.locator("#request-problem-text")).to_have_text(
        "Something went wrong on our side, so your move may not have been made. Try it again."
    )
    page.wait_for_timeout(POLLS_SECONDS * 1000)  # the polls' "nothing changed" do not clear it
    expect(problem).to_be_visible()

    page.unroute(move_url)
    page.route(move_url, lambda route: route.abort("internetdisconnected"))
    page.locator("#board button[name=move]").first.click()
    expect(page.locator("#request-problem-text")).to_have_text(
        "Your last click did not reach the site, so nothing was done. Check your connection and try again."
    )
    page.wait_for_timeout(POLLS_SECONDS * 1000)  # the polls get through, but the move was still not made
    expect(problem).to_be_visible()

    page.unroute(move_url)
    page.locator("#board button[name=move]").first.click()
    expect(page.locator("#log li")).to_have_count(1)
    expect(problem).to_be_hidden()
    assert Match.objects.get(pk=match.pk).version == 1


def test_an_answer_that_is_not_the_board_does_not_wipe_the_board(browser, live_server, alice, bob):
    """Django's own 400 (a forged or oversized request) was swapped in where the board was,
    and the page stopped polling; our own refusals (a stale move) still replace the board."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    move_url = f"**/matches/{match.pk}/move/"
    page.route(move_url, lambda route: route.fulfill(status=400, body="<h1>Bad Request (400)</h1>"))
    page.locator("#board button[name=move]").first.click()
    problem = page.locator("#request-problem")
    expect(page.locator("#request-problem-text")).to_have_text(
        "The site could not read that request, so nothing was done. Reload the page and try again."
    )
    expect(page.locator("#board button[name=move]")).to_have_count(6)
    page.wait_for_timeout(POLLS_SECONDS * 1000)  # the polls' answers do not clear it
    expect(problem).to_be_visible()
    problem.get_by_role("button", name="Close this message").click()  # it covers the navigation bar
    expect(problem).to_be_hidden()
    page.wait_for_timeout(POLLS_SECONDS * 1000)  # and stays closed
    expect(problem).to_be_hidden()
    page.locator("#board button[name=move]").first.click()  # refused again: Escape closes it too
    expect(problem).to_be_visible()
    page.keyboard.press("Escape")
    expect(problem).to_be_hidden()

    page.unroute(move_url)
    page.locator("#board button[name=move]").first.click()
    expect(page.locator("#log li")).to_have_count(1)
    expect(problem).to_be_hidden()


def test_a_refusal_out_of_sight_is_also_said_on_top_of_the_screen(browser, live_server, alice, bob):
    """The reason sits at the top of the status; a player who scrolled down to the board
    saw nothing happen."""
    page = browser.new_page(viewport={"width": 390, "height": 420}, is_mobile=True, has_touch=True)
    page.set_default_timeout(TIMEOUT_MS)
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    services.move_submit(match_id=match.pk, user=alice, move="2", expected_version=0)  # from another tab
    button = page.locator("#board button[name=move][value='1']")
    button.scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    button.click()
    problem = page.locator("#request-problem")
    expect(problem).to_contain_text("The board changed since you loaded it")
    box = problem.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 420, "on the screen, wherever it is scrolled"
    assert Match.objects.get(pk=match.pk).version == 1
