"""A three-player Jeexa match in a real Chromium: the human places pieces by clicking while
two AI seats, played by a real Celery worker, answer in between."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import make_user
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

AI_REPLY_TIMEOUT_MS = 30_000


def start_three_player_match(page: Page) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Lobby").click()
    page.get_by_role("link", name="New Jeexa match").click()
    page.get_by_role("combobox", name="Opponent 1").select_option(label="AI: Easy")
    page.get_by_role("combobox", name="Opponent 2").select_option(label="AI: Strong")
    page.get_by_role("combobox", name="Your seat").select_option(label="I move first")
    page.get_by_role("button", name="Create match").click()
    expect(page.get_by_text("Your turn.")).to_be_visible()


def place_a_piece(page: Page) -> None:
    """Click the first spot offered (a placement, or a steal when a joker is pending)."""
    mine = page.locator("#board").get_by_test_id("puzzle-0")
    choice = page.locator("#board button[name=move]").first
    expect(choice).to_be_visible()
    pieces_before = mine.locator("svg.jx-piece").count()
    choice.click()
    expect(page.locator("#log li").first).to_contain_text("Player 1")
    if "steal" not in (choice.get_attribute("value") or ""):
        expect(mine.locator("svg.jx-piece")).not_to_have_count(pieces_before)


def test_a_player_places_pieces_and_two_ai_seats_answer(page, live_server, celery_worker, settings, db, tmp_path):
    settings.SITE_URL = live_server.url
    make_user("hana", display_name="Hana")
    log_in(page, live_server.url, "hana")
    start_three_player_match(page)
    expect(page.get_by_test_id("goal")).to_contain_text("Trio")
    page.evaluate("window.__marker = 1")

    place_a_piece(page)
    ai_moves = page.locator("#log li", has_text="(AI)")
    # Both AI seats take their turns through the worker; the page learns of them by polling.
    expect(ai_moves.filter(has_text="Player 2")).not_to_have_count(0, timeout=AI_REPLY_TIMEOUT_MS)
    expect(ai_moves.filter(has_text="Player 3")).not_to_have_count(0, timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    place_a_piece(page)
    assert page.evaluate("window.__marker") == 1, "the page reloaded instead of swapping the board"
    page.screenshot(path=tmp_path / "jeexa.png", full_page=True)
