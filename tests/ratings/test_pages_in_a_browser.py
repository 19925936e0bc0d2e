"""A visitor who is not signed in, in a real Chromium: a game's page leads to its leaderboard, a
name there to the player's page, with their rating and its history chart."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ratings.models import Rating
from tests.e2e.conftest import browser, page  # noqa: F401 (the e2e fixtures)
from tests.ratings.conftest import finish, new_match

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_visitor_opens_the_leaderboard_and_a_players_page_with_its_chart(page, live_server, alice, bob):  # noqa: F811
    for seed in range(3):
        finish(new_match("mecca", alice, bob), seed=seed)
    ranked = sorted(Rating.objects.filter(pool="mecca"), key=lambda rating: -rating.value)
    first = ranked[0].user

    page.goto(f"{live_server.url}/games/mecca/")
    page.get_by_role("link", name="Mecca leaderboard").click()

    expect(page.get_by_role("heading", name="Mecca leaderboard")).to_be_visible()
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text(f"1 {first.public_name} {ranked[0].value}?")
    rows.first.get_by_role("link", name=first.public_name).click()

    expect(page.get_by_role("heading", name=first.public_name, exact=True)).to_be_visible()
    chart = page.get_by_role("img", name="Mecca rating")
    expect(chart).to_be_visible()
    assert chart.bounding_box()["width"] > 300, "the chart fills the column"
    assert len(chart.locator("polyline").get_attribute("points").split()) == 4, "the newcomer's 1200 and 3 matches"
    expect(page.get_by_text("Mecca: ")).to_contain_text("after 3 rated matches")
