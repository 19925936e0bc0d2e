"""Watching in a real Chromium: a visitor who is not signed in finds a public match on the home page,
opens it, and sees the next move arrive by the page's poll, with no control of the players'."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.engine import get_game
from tests.conftest import make_user, start_match

pytestmark = [pytest.mark.e2e]

MANCALA = get_game("mancala")


def play_one(match, players) -> None:
    """The next move, made elsewhere (the easy AI's choice for whoever is to act)."""
    match.refresh_from_db()
    state = MANCALA.load(match.state)
    seat = MANCALA.to_act(state)[0]
    move = MANCALA.ai_move(state, seat, 1, seed=match.version)
    services.move_submit(match_id=match.pk, user=players[seat], move=move, expected_version=match.version)


def test_a_visitor_opens_a_public_match_from_the_home_page_and_sees_a_move_arrive(page, live_server, db):
    petra, quinn = make_user("petra", display_name="Petra"), make_user("quinn", display_name="Quinn")
    match = start_match(petra, quinn)
    play_one(match, [petra, quinn])  # a match in play is listed once it has moved

    page.goto(live_server.url)
    page.get_by_role("link", name=f"Watch Mancala #{match.pk}").click()
    expect(page).to_have_url(f"{live_server.url}/matches/{match.pk}/")
    log = page.locator("#log li")
    expect(log).to_have_count(1)
    expect(page.locator("#board button")).to_have_count(0)
    expect(page.get_by_role("link", name="Sign in")).to_have_count(2)  # the top bar's, and to keep it on a list

    play_one(match, [petra, quinn])

    expect(log).to_have_count(2)
    expect(log.first).to_contain_text("Quinn")
    expect(page.locator("#board button")).to_have_count(0)
