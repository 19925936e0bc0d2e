"""The top bar's count of matches waiting and the match page's next match, in a real Chromium:
a move's answer redraws the board only, and brings the count, the tab's title and the link along."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.conftest import make_user, start_match
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e]


def test_after_a_move_the_count_and_the_title_drop_and_the_next_match_is_a_click_away(page, live_server, db):
    petra, quinn = make_user("petra", display_name="Petra"), make_user("quinn", display_name="Quinn")
    here, there = start_match(petra, quinn), start_match(petra, quinn)  # Petra moves first in both
    log_in(page, live_server.url, "petra")
    my_matches = page.locator("header").get_by_role("link", name="My matches")
    expect(my_matches).to_have_accessible_name("My matches: 2 matches wait for you")
    page.goto(f"{live_server.url}/matches/{here.pk}/")
    expect(page).to_have_title(f"(2) Mancala #{here.pk} · Boardgames")
    expect(page.get_by_role("link", name=re.compile("Next match waiting"))).to_have_count(0)

    page.locator("#board button.sow").first.click()
    expect(page.locator("#log li")).to_have_count(1)
    expect(page).to_have_title(f"(1) Mancala #{here.pk} · Boardgames")
    expect(my_matches).to_have_text("My matches (1)")
    expect(my_matches).to_have_accessible_name("My matches: 1 match waits for you")
    expect(page.locator("header nav a", has_text="My matches")).to_have_count(1)  # the redraw added no second one
    page.get_by_role("link", name=f"Next match waiting for you: Mancala #{there.pk} with Quinn").click()
    expect(page).to_have_url(f"{live_server.url}/matches/{there.pk}/")
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible()
