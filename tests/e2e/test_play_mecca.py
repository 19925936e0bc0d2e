"""A four-player Mecca match in a real Chromium: the human chooses an entrance and places
pilgrims by clicking, a click on a square that is not allowed is explained, and the three
AI colours, played by a real Celery worker, answer in between."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import make_user
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

AI_REPLY_TIMEOUT_MS = 40_000


def start_four_player_match(page: Page) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Lobby").click()
    page.get_by_role("link", name="New Mecca match").click()
    page.get_by_role("combobox", name=re.compile(r"^Players")).select_option("4")
    for number, level in ((1, "AI: Easy"), (2, "AI: Strong"), (3, "AI: Easy")):
        page.get_by_role("combobox", name=f"Opponent {number}").select_option(label=level)
    page.get_by_role("combobox", name="Your seat").select_option(label="I move first")
    page.get_by_role("button", name="Create match").click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible()


def click_a_marked_square(page: Page) -> None:
    moves_before = page.locator("#log li").count()
    page.locator("#board button.mecca-cell.target").first.click()
    expect(page.locator("#log li")).not_to_have_count(moves_before)
    expect(page.locator("#log li").first).not_to_contain_text("AI (")


def test_a_player_places_pilgrims_and_three_ai_colours_answer(page, live_server, celery_worker, settings, db, tmp_path):
    settings.SITE_URL = live_server.url
    make_user("mira", display_name="Mira")
    log_in(page, live_server.url, "mira")
    start_four_player_match(page)
    page.evaluate("window.__marker = 1")

    # A square that is not an entrance is refused, with the reason in plain words.
    page.locator("#board button.mecca-cell:not(.target)").first.click()
    expect(page.get_by_role("alert")).to_be_visible()
    assert page.locator("#log li").count() == 0

    click_a_marked_square(page)  # the entrance
    ai_moves = page.locator("#log li", has_text="AI (")
    expect(ai_moves).not_to_have_count(0, timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    assert ai_moves.count() >= 3, "the three AI colours chose their entrances"
    click_a_marked_square(page)
    assert page.evaluate("window.__marker") == 1, "the page reloaded instead of swapping the board"
    page.screenshot(path=tmp_path / "mecca.png", full_page=True)
