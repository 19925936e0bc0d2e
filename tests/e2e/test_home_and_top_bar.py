"""The home page and the top bar on a phone (390 x 844) in a real Chromium: the bar keeps one row,
its other links open from Menu by touch or keyboard, nothing scrolls sideways, and every control of
the bar and the game cards is a finger's target."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from tests.conftest import make_user, start_match
from tests.e2e.pages import log_in

pytestmark = pytest.mark.e2e

# The tops of the bar's visible controls (one row: one top), the page's width, and the controls of the bar
# and the game cards smaller than 32 x 32 CSS px.
MEASURE = """() => {
    const shown = [...document.querySelectorAll('header :is(a, button), .game-card :is(h3 a, .game-card-actions a)')]
        .filter(e => e.getClientRects().length && !e.closest('[popover]:not(:popover-open)'));
    const header = shown.filter(e => e.closest('header'));
    return {
        rows: new Set(header.map(e => Math.round(e.getBoundingClientRect().top))).size,
        width: document.documentElement.scrollWidth,
        small: shown.filter(e => { const box = e.getBoundingClientRect(); return box.width < 32 || box.height < 32; })
                    .map(e => e.textContent.trim()),
    };
}"""


def measured(page) -> dict:
    return page.evaluate(MEASURE)


def test_a_visitor_s_bar_is_one_row_and_its_menu_opens_by_keyboard(phone, live_server, db):
    phone.goto(live_server.url + reverse("home"))
    assert measured(phone) == {"rows": 1, "width": 390, "small": []}
    leaderboards = phone.get_by_role("link", name="Leaderboards")
    expect(leaderboards).to_be_hidden()

    phone.get_by_role("button", name="Menu").focus()
    phone.keyboard.press("Enter")
    expect(leaderboards).to_be_visible()
    expect(phone.get_by_role("link", name="Sign up").first).to_be_visible()
    assert measured(phone)["small"] == [] and measured(phone)["width"] == 390
    phone.keyboard.press("Escape")
    expect(leaderboards).to_be_hidden()


def test_a_player_sees_the_match_waiting_first_and_reaches_every_link_from_the_menu(phone, live_server, db):
    petra, quinn = make_user("petra", display_name="Petra"), make_user("quinn", display_name="Quinn")
    match = start_match(quinn, petra)
    services.move_submit(match_id=match.pk, user=quinn, move="1", expected_version=match.version)
    log_in(phone, live_server.url, "petra")

    phone.goto(live_server.url + reverse("home"))
    waiting = phone.get_by_role("link", name=f"Mancala #{match.pk}", exact=True)
    expect(waiting).to_be_in_viewport()
    games = phone.get_by_role("heading", name="Games")
    assert waiting.bounding_box()["y"] < games.bounding_box()["y"]
    assert measured(phone) == {"rows": 1, "width": 390, "small": []}

    phone.get_by_role("button", name="Menu").tap()
    for name in ("Lobby", "Leaderboards", "Petra"):
        expect(phone.get_by_role("navigation", name="Site").get_by_role("link", name=name)).to_be_visible()
    expect(phone.get_by_role("button", name="Sign out")).to_be_visible()
    assert measured(phone)["small"] == []
    phone.get_by_role("link", name="Leaderboards").tap()
    expect(phone).to_have_url(live_server.url + reverse("leaderboards"))
