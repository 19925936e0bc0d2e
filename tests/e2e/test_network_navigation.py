"""The match page in a real Chromium across the browser's own navigation and sessions: Back,
Forward and reload after moves made with htmx, a session that ends while the page is open,
and the same player in two tabs. The page shown is always the match as it stands, as a
whole page, and a move the site did not take is never shown as made."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.middleware import SIGNED_OUT_NOTHING_SENT
from games import services
from games.models import Match
from tests.conftest import PASSWORD
from tests.e2e.conftest import KEEPS_NO_STORE_PAGES, TIMEOUT_MS, WITH_BFCACHE, launched
from tests.e2e.pages import steps_played
from tests.e2e.test_network_failures import offered_move, open_match, poll_url

pytestmark = pytest.mark.e2e


def play_elsewhere(match: Match, players: list) -> None:
    """The first legal move of whoever is to act, made without this page (another device)."""
    match.refresh_from_db()
    game = match.game_obj
    state = game.load(match.state)
    seat = game.to_act(state)[0]
    services.move_submit(
        match_id=match.pk, user=players[seat], move=game.legal_moves(state, seat)[0], expected_version=match.version
    )


def whole_match_page(page: Page, match: Match, moves: int) -> None:
    """The match page with its layout (not a bare fragment) showing ``moves`` moves."""
    # After "(1) " when a match waits for the player (the top bar's count).
    expect(page).to_have_title(re.compile(rf"^(\(\d+\) )?{match.game_obj.name} #{match.pk} · Boardgames$"))
    expect(page.locator("header.topbar")).to_have_count(1)
    expect(page.locator("#live")).to_have_count(1)
    expect(page.locator("#log li:not(.log-event)")).to_have_count(moves)


@pytest.mark.parametrize("slug", ["mancala", "mesopotamia"])
def test_back_forward_and_reload_after_moves_show_the_match_as_it_stands(browser, live_server, alice, bob, slug):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, slug, alice, bob)
    log = page.locator("#log li:not(.log-event)")
    for moves in range(1, 4):  # Alice's moves by clicking, Bob's brought by the poll
        match.refresh_from_db()
        if match.game_obj.to_act(match.game_obj.load(match.state)) == [0]:
            offered_move(page).click()
        else:
            play_elsewhere(match, [alice, bob])
        expect(log).to_have_count(moves)
    # From now on the poll finds nothing new: only loading the page can show a later move.
    page.route(poll_url(match), lambda route: route.fulfill(status=204))

    page.get_by_role("link", name=f"How to play {match.game_obj.name}").click()
    play_elsewhere(match, [alice, bob])
    page.go_back()
    whole_match_page(page, match, 4)
    page.go_forward()
    expect(page.get_by_role("heading", level=1)).to_contain_text(match.game_obj.name)
    play_elsewhere(match, [alice, bob])
    page.go_back()
    whole_match_page(page, match, 5)
    play_elsewhere(match, [alice, bob])
    page.reload()
    whole_match_page(page, match, 6)
    # The address a move is posted to, opened as a page (a bookmark, a form sent again): the match.
    page.goto(live_server.url + reverse("match_move", args=[match.pk]))
    whole_match_page(page, match, 6)
    page.go_back()
    whole_match_page(page, match, 6)


@pytest.mark.parametrize("keeps", [(), (KEEPS_NO_STORE_PAGES,)], ids=["bfcache", "bfcache-keeping-no-store-pages"])
def test_back_to_my_matches_after_a_move_or_signing_out_shows_them_as_they_stand(live_server, alice, bob, keeps):
    """Back to My matches from a match just played said "Your turn" still (the browser showed
    the page it kept), and after signing out it showed the player's matches to whoever came next."""
    with launched(*keeps, **WITH_BFCACHE) as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        match = open_match(page, live_server.url, "mancala", alice, bob)
        page.get_by_role("link", name="My matches").click()
        row = page.get_by_role("row").filter(has=page.get_by_role("link", name=f"Mancala #{match.pk}"))
        expect(row).to_contain_text("Your turn")
        row.get_by_role("link", name=f"Mancala #{match.pk}").click()
        offered_move(page).click()
        expect(page.locator("#log li")).to_have_count(1)

        page.go_back(wait_until="commit")  # a page shown again from the cache fires no load event
        expect(row).to_be_visible()
        expect(row).not_to_contain_text("Your turn")
        page.get_by_role("button", name="Sign out").click()
        expect(page.locator("header").get_by_role("link", name="Sign in")).to_be_visible()
        page.go_back(wait_until="commit")
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
        expect(row).to_have_count(0)


def test_back_to_another_page_after_a_move_shows_the_top_bar_s_count_as_it_stands(live_server, alice, bob):
    """The rules page shown again on Back kept "My matches (1)" and the tab's "(1) " after the
    move that had answered the only match waiting."""
    with launched(**WITH_BFCACHE) as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        match = open_match(page, live_server.url, "mancala", alice, bob)
        page.get_by_role("link", name="How to play Mancala").click()
        my_matches = page.locator("#my-matches")
        expect(my_matches).to_have_text("My matches (1)")
        expect(page).to_have_title(re.compile(r"^\(1\) "))
        play_elsewhere(match, [alice, bob])  # her move, from another device
        my_matches.click()
        expect(page.get_by_role("row").filter(has_text=f"Mancala #{match.pk}")).not_to_contain_text("Your turn")

        page.go_back(wait_until="commit")
        expect(page.get_by_role("heading", level=1)).to_contain_text("Mancala")
        expect(my_matches).to_have_text("My matches")
        expect(page).not_to_have_title(re.compile(r"^\("))
        page.get_by_role("link", name="My matches").click()
        Session.objects.all().delete()  # she signs out on another device
        page.go_back(wait_until="commit")
        expect(page.locator("header").get_by_role("link", name="Sign in")).to_be_visible()


def test_a_move_after_the_session_ended_is_not_made_and_signing_in_comes_back_to_play_it(
    browser, live_server, alice, bob
):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "jeexa", alice, bob)
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))  # its time ran out

    offered_move(page).click()
    expect(page.get_by_text(SIGNED_OUT_NOTHING_SENT)).to_be_visible()
    assert Match.objects.get(pk=match.pk).version == 0
    page.get_by_label("Username or email").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    whole_match_page(page, match, 0)
    offered_move(page).click()
    expect(page.locator("#log li")).to_have_count(1)
    assert Match.objects.get(pk=match.pk).version == 1


@pytest.mark.parametrize("slug", ["mecca", "mesopotamia"])
def test_a_click_in_a_second_tab_after_a_move_in_the_first_is_refused_and_shows_the_move(
    browser, live_server, alice, bob, slug
):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    first = context.new_page()
    match = open_match(first, live_server.url, slug, alice, bob)
    second = context.new_page()
    second.goto(first.url)
    second.route(poll_url(match), lambda route: route.fulfill(status=204))  # the click comes before its poll

    made = offered_move(first)
    played = made.get_attribute("value")
    made.click()
    expect(first.locator("#log li")).to_have_count(1)
    offered_move(second, 1).click()

    expect(second.locator("#status .error")).to_contain_text("The board changed since you loaded it")
    expect(second.locator("#log li")).to_have_count(1)
    assert steps_played(match) == [played]
    context.close()
