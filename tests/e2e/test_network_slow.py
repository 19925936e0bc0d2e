"""The match page in a real Chromium on a slow or silent server: the player sees that their
move is on its way, a second click meanwhile sends nothing, and no answer that comes late
or out of order shows a board older than the move."""

from __future__ import annotations

import pytest
from django.db.models import F
from playwright.sync_api import Page, Route, expect

from games.models import Match
from tests.e2e.conftest import PHONE, TIMEOUT_MS
from tests.e2e.pages import steps_played
from tests.e2e.test_network_failures import (  # noqa: F401 (a fixture)
    GAMES,
    POLL_LOST,
    move_url,
    offered_move,
    open_match,
    poll_url,
    seeded,
)

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("seeded")]

MOVE_TIMED_OUT = "The site took too long to answer, so your move may not have been made. Try it again."
SENDING = "Sending your move…"
MESO_DESTINATION = "#board .meso-dests.is-shown .meso-dest >> nth=0"


@pytest.mark.parametrize("slug", GAMES)
def test_a_slow_move_says_it_is_on_its_way_and_a_second_click_meanwhile_sends_nothing(
    browser, live_server, alice, bob, slug
):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, slug, alice, bob)
    log = page.locator("#log li")
    if slug == "mesopotamia":  # a tribe chosen: the hexes it may go to offer moves too, each posting on its own
        page.locator("#board .meso-camp").first.click()
        if (chooser := page.locator(".meso-chooser:popover-open [data-pick]")).count():
            chooser.first.click()
        expect(page.locator(MESO_DESTINATION)).to_be_visible()
    moves_before = log.count()
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.post_data or "") if request.method == "POST" else None)
    held: list[Route] = []
    page.route(move_url(match), lambda route: held.append(route))

    first = offered_move(page)
    played = first.get_attribute("value")
    first.click()
    pending = page.locator("#request-pending")
    expect(pending).to_be_visible()
    expect(pending).to_have_text(SENDING)
    other = page.locator(MESO_DESTINATION) if slug == "mesopotamia" else offered_move(page, 1)
    other.click()
    expect(pending).to_be_visible()
    held[0].continue_()

    expect(log).to_have_count(moves_before + 1)
    expect(pending).to_be_hidden()
    with page.expect_request(poll_url(match)):  # by then a click held back would have gone out
        pass
    assert len(sent) == 1 and len(held) == 1, sent
    expect(page.locator("#status .error")).to_have_count(0)
    expect(page.locator("#live")).to_have_count(1)
    steps = steps_played(match)
    assert len(steps) == moves_before + 1 and steps[-1] == played


def test_a_move_the_site_never_answers_is_given_up_and_can_be_tried_again(browser, live_server, alice, bob):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "mecca", alice, bob)
    page.evaluate("htmx.config.timeout = 1000")  # the page's own wait is longer; the handling is the same
    held: list[Route] = []
    page.route(move_url(match), lambda route: held.append(route))

    offered_move(page).click()
    expect(page.locator("#request-problem-text")).to_have_text(MOVE_TIMED_OUT)
    expect(page.locator("#request-pending")).to_be_hidden()
    expect(page.locator("#log li")).to_have_count(0)
    page.unroute(move_url(match))  # the page itself gave that request up

    offered_move(page).click()
    expect(page.locator("#log li")).to_have_count(1)
    expect(page.locator("#request-problem")).to_be_hidden()


def wait_for(page: Page, held: list) -> None:
    for _ in range(150):  # a request that the page sends every few seconds at most
        if held:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the request never came")


def test_a_poll_answered_while_a_move_is_on_its_way_does_not_hide_the_move(browser, live_server, alice, bob):
    """A poll sent just before a move and answered before it redrew the board as it was
    before the move, and the move's own answer, meant for the board just replaced, was lost:
    the move seemed not made, and the next click on that old board was refused."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "mesopotamia", alice, bob)  # a turn of many steps: the board stays live
    polls: list[tuple[Route, object]] = []
    moves: list[tuple[Route, object]] = []

    def poll_held(route: Route) -> None:
        if polls:  # the later polls find nothing new, so only the page's own answers count
            route.fulfill(status=204)
            return
        answer = route.fetch()
        if answer.status == 200:
            polls.append((route, answer))  # the server's answer now; the page gets it later
        else:
            route.fulfill(response=answer)

    page.route(poll_url(match), poll_held)
    page.route(move_url(match), lambda route: moves.append((route, route.fetch())))
    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1)  # as a clock or seat change does
    wait_for(page, polls)
    offered_move(page).click()
    wait_for(page, moves)
    assert len(steps_played(match)) == 1

    for route, answer in (polls[0], moves[0]):
        route.fulfill(response=answer)
    expect(page.locator("#log li")).to_have_count(1)
    expect(page.locator("#status .error")).to_have_count(0)


def test_a_poll_that_fails_while_a_move_is_on_its_way_is_said_beside_it_and_both_go_with_its_answer(
    browser, live_server, alice, bob
):
    """The poll's problem and "Sending your move…" each had the same place at the top of the
    screen: the later one covered the other's words."""
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)  # where the problem takes three lines
    page.set_default_timeout(TIMEOUT_MS)
    match = open_match(page, live_server.url, "mancala", alice, bob)
    polls: list[Route] = []
    moves: list[Route] = []
    page.route(poll_url(match), lambda route: route.continue_() if polls else polls.append(route))
    wait_for(page, polls)  # a poll on its way when the move is sent
    page.route(move_url(match), lambda route: moves.append(route))
    offered_move(page).click()
    wait_for(page, moves)
    pending, problem = page.locator("#request-pending"), page.locator("#request-problem")
    expect(pending).to_be_visible()
    polls[0].abort("internetdisconnected")
    expect(page.locator("#request-problem-text")).to_have_text(POLL_LOST)

    expect(pending).to_be_visible()
    first, second = sorted((problem.bounding_box(), pending.bounding_box()), key=lambda box: box["y"])
    assert first["y"] + first["height"] <= second["y"], (first, second)
    assert second["y"] + second["height"] <= PHONE["height"] / 3  # both at the top of the screen

    moves[0].continue_()  # the site answers: the move is made, and it did get through
    expect(page.locator("#log li")).to_have_count(1)
    expect(pending).to_be_hidden()
    expect(problem).to_be_hidden()
