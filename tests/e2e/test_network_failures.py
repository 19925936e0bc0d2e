"""The match page in a real Chromium when the network or the server fails: a move the
server fails or never gets, a poll that fails for a while. The player is told in plain
words what happened to their move, the board never shows a move that was not made, and
the next try goes through."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Locator, Page, expect

from games import services
from games.models import Match
from games.services import ClockSpec, creating
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.pages import log_in, steps_played
from tests.games.conftest import start_timed_match

pytestmark = pytest.mark.e2e

GAMES = ["mancala", "mecca", "jeexa", "mesopotamia"]
SEED = 1  # Jeexa's first piece then fits its spot turned four ways: four moves in one chooser
# The board's controls on the screen that send a move or open a chooser of moves (Mecca's squares
# where no pilgrim may go send one too, only to be told why not). Mesopotamia's are in its list of
# every move, behind a disclosure, once that is opened (the map's take two clicks: tribe, then hex).
OFFERED = "#board :is(button[name=move]:not(.mecca-cell:not(.target)), button[popovertarget]):not([popover] *):visible"
OPEN_CHOOSER = ".jx-turns:popover-open button[name=move]"
CLOSED_LIST = "#board details.meso-list:not([open]) > summary"
MOVE_FAILED = "Something went wrong on our side, so your move may not have been made. Try it again."
NOT_SENT = "Your last click did not reach the site, so nothing was done. Check your connection and try again."
POLL_LOST = "The site cannot be reached just now. Check your connection; this page catches up once it is back."
POLL_FAILED = "The site is not answering just now. This page catches up once it is back."


@pytest.fixture
def seeded(monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)


def open_match(page: Page, base_url: str, slug: str, alice, bob, viewer: str = "alice") -> Match:
    match = start_timed_match(alice, bob, clock=ClockSpec(), game=slug)
    log_in(page, base_url, viewer)
    page.goto(base_url + reverse("match_detail", args=[match.pk]))
    return match


def offered_move(page: Page, index: int = 0) -> Locator:
    """The board's ``index``-th move, its chooser (Jeexa's ways to turn a piece; a move that
    failed leaves its chooser open) or list (Mesopotamia's) opened first where it sits in one."""
    if page.locator(OPEN_CHOOSER).count():
        return page.locator(OPEN_CHOOSER).nth(index)
    if page.locator(CLOSED_LIST).count():
        page.locator(CLOSED_LIST).click()
    spot = page.locator(OFFERED).nth(index)
    if spot.get_attribute("popovertarget"):
        spot.click()
        return page.locator(OPEN_CHOOSER).nth(index)
    return spot


def move_url(match: Match) -> str:
    return "**" + reverse("match_move", args=[match.pk])


def poll_url(match: Match) -> str:
    return "**" + reverse("match_poll", args=[match.pk]) + "?*"


def failing(status: int):
    return lambda route: route.fulfill(status=status, content_type="text/html", body="<h1>Bad Gateway</h1>")


@pytest.mark.parametrize("slug", GAMES)
def test_a_move_that_fails_is_said_not_shown_and_goes_through_on_the_next_try(
    browser, live_server, alice, bob, seeded, slug
):
    # Not the console-checked page: htmx itself logs the failed requests this test makes.
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, slug, alice, bob)
    problem, log = page.locator("#request-problem"), page.locator("#log li")

    for answer, said in (
        (failing(500), MOVE_FAILED),
        (failing(502), MOVE_FAILED),
        (failing(504), MOVE_FAILED),
        (lambda route: route.abort("internetdisconnected"), NOT_SENT),
    ):
        page.route(move_url(match), answer)
        offered_move(page).click()
        expect(page.locator("#request-problem-text")).to_have_text(said)
        expect(log).to_have_count(0)  # the move is not shown as played
        expect(page.locator("#request-pending")).to_be_hidden()
        page.unroute(move_url(match))
        problem.get_by_role("button", name="Close this message").click()

    offered_move(page).click()
    expect(log).to_have_count(1)
    expect(problem).to_be_hidden()
    assert len(steps_played(match)) == 1


def test_a_poll_that_fails_for_a_while_says_so_and_the_board_catches_up(browser, live_server, alice, bob, seeded):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "jeexa", alice, bob, viewer="bob")
    problem, problem_text = page.locator("#request-problem"), page.locator("#request-problem-text")

    page.route(poll_url(match), lambda route: route.abort("internetdisconnected"))
    expect(problem_text).to_have_text(POLL_LOST)
    state = match.game_obj.load(match.state)
    services.move_submit(
        match_id=match.pk, user=alice, move=match.game_obj.legal_moves(state, 0)[0], expected_version=0
    )  # played meanwhile
    page.unroute(poll_url(match))
    expect(page.locator("#log li")).to_have_count(1)
    expect(problem).to_be_hidden()

    # A server that fails for a while (a restart behind the proxy): the page is not broken, it
    # waits; once the site answers "nothing new" again, the message goes.
    page.route(poll_url(match), failing(502))
    expect(problem_text).to_have_text(POLL_FAILED)
    page.unroute(poll_url(match))
    expect(problem).to_be_hidden()


def test_a_replay_step_that_does_not_get_through_is_said_as_a_click(browser, live_server, alice, bob, seeded):
    """The replay does not poll: "this page catches up once it is back" promised what never came."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "mancala", alice, bob)
    offered_move(page).click()
    expect(page.locator("#log li")).to_have_count(1)
    page.get_by_role("link", name="Replay from the start").click()
    replay_step = "**" + reverse("match_replay", args=[match.pk]) + "?*"
    page.route(replay_step, lambda route: route.abort("internetdisconnected"))
    page.get_by_role("link", name="Next move").click()
    expect(page.locator("#request-problem-text")).to_have_text(NOT_SENT)
    expect(page.get_by_text("Position 0 of")).to_be_visible()
