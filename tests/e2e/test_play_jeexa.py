"""A three-player Jeexa match in a real Chromium: the human places pieces by clicking while
two AI seats, played by a real Celery worker, answer in between."""

from __future__ import annotations

import random
import re

import pytest
from django.db.models import F
from django.urls import reverse
from playwright.sync_api import Page, expect

from games import services
from games.models import Match
from games.services import ClockSpec, creating
from tests.conftest import make_user
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in
from tests.games.conftest import start_timed_match

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

AI_REPLY_TIMEOUT_MS = 30_000


def start_three_player_match(page: Page) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Lobby").click()
    page.get_by_role("link", name="New Jeexa match").click()
    page.get_by_role("combobox", name=re.compile(r"^Players")).select_option("3")
    page.get_by_role("combobox", name="Opponent 1").select_option(label="AI: Easy")
    page.get_by_role("combobox", name="Opponent 2").select_option(label="AI: Strong")
    page.get_by_role("combobox", name="Your seat").select_option(label="I move first")
    page.get_by_role("button", name="Create match").click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible()


# Every control on the board that a click reaches: moves and the spots that open a choice of
# turns (the turns themselves wait in their closed chooser).
COVERED_BUTTONS = """() => [...document.querySelectorAll(
        '#board :is(button[name=move], button[popovertarget]):not([popover] *)')].filter(button => {
    button.scrollIntoView({block: 'center', inline: 'center'});
    const box = button.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return !button.contains(hit);
}).map(button => button.value)"""


def place_a_piece(page: Page) -> None:
    """Click the first spot offered (a placement, or a steal when a joker is pending)."""
    # A placed piece's tab reaches into the next cell: it must not take the clicks meant for a button there.
    assert page.evaluate(COVERED_BUTTONS) == []
    mine = page.locator("#board").get_by_test_id("puzzle-0")
    spot = page.locator("#board :is(button[name=move], button[popovertarget]):not([popover] *)").first
    expect(spot).to_be_visible()
    pieces_before = mine.locator("svg.jx-piece").count()
    choice = spot
    if spot.get_attribute("popovertarget"):  # a spot where the piece fits turned several ways
        spot.click()
        choice = page.locator(".jx-turns:popover-open button[name=move]").first
    move = choice.get_attribute("value") or ""
    choice.click()
    expect(page.locator("#log li").first).to_contain_text("Hana")  # the log names players
    if "steal" not in move:
        expect(mine.locator("svg.jx-piece")).not_to_have_count(pieces_before)


def test_a_player_places_pieces_and_two_ai_seats_answer(page, live_server, celery_worker, settings, db, tmp_path):
    settings.SITE_URL = live_server.url
    make_user("hana", display_name="Hana")
    log_in(page, live_server.url, "hana")
    start_three_player_match(page)
    expect(page.get_by_test_id("goal")).to_contain_text("Trio")
    page.evaluate("window.__marker = 1")

    place_a_piece(page)
    ai_moves = page.locator("#log li", has_text="AI (")
    # Both AI seats take their turns through the worker; the page learns of them by polling.
    # Each log line starts with the name of whoever moved.
    for name in ("AI (Easy)", "AI (Strong)"):
        moved = ai_moves.filter(has_text=re.compile(rf"^\s*{re.escape(name)} rolled \d and places"))
        expect(moved).not_to_have_count(0, timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    place_a_piece(page)
    assert page.evaluate("window.__marker") == 1, "the page reloaded instead of swapping the board"
    page.screenshot(path=tmp_path / "jeexa.png", full_page=True)


def test_every_offered_button_takes_its_click_whatever_pieces_lie_around(page, live_server, db, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: 3)
    viewer, other = make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")
    match = start_timed_match(viewer, other, clock=ClockSpec(), game="jeexa")
    game, rng = match.game_obj, random.Random(7)
    log_in(page, live_server.url, "hana")
    checked = 0
    while checked < 12:
        match.refresh_from_db()
        state = game.load(match.state)
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        if seat == 0:
            page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
            assert page.evaluate(COVERED_BUTTONS) == [], f"covered at move {match.version}"
            checked += 1
        services.move_submit(
            match_id=match.pk,
            move=rng.choice(game.legal_moves(state, seat)),
            expected_version=match.version,
            user=[viewer, other][seat],
        )
    assert checked == 12


FINGER_PX = 44  # the smallest target a finger hits reliably (WCAG 2.5.5, Apple's guidelines)


FOUR_WAYS_SEED = 1  # the first piece fits turned four ways (some, seed 7's, only two: they look alike turned 180°)


def test_on_a_phone_a_spot_opens_the_ways_to_turn_the_piece_each_big_enough_for_a_finger(
    browser, live_server, db, monkeypatch
):
    monkeypatch.setattr(creating, "new_seed", lambda: FOUR_WAYS_SEED)
    viewer, other = make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")
    match = start_timed_match(viewer, other, clock=ClockSpec(), game="jeexa")
    with console_checked_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True) as page:
        log_in(page, live_server.url, "hana")
        page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
        # The first piece of a hand fits its one spot turned any of four ways.
        spot = page.get_by_role("button", name="Place it at 0,0: 4 ways to turn it")
        box = spot.bounding_box()
        assert box["width"] >= FINGER_PX and box["height"] >= FINGER_PX, box
        ways = page.get_by_role("group", name="How to turn it at 0,0").get_by_role("button", name=re.compile("turned"))
        expect(ways.first).to_be_hidden()
        spot.click()
        expect(ways).to_have_count(4)
        chooser = page.locator(".jx-turns:popover-open")
        # site.js scrolls on the popover's toggle event, which comes a task after the click.
        page.wait_for_function(
            "([spot, chooser]) => spot.getBoundingClientRect().bottom <= chooser.getBoundingClientRect().top",
            arg=[spot.element_handle(), chooser.element_handle()],
            timeout=5000,
        )
        spot_box, chooser_box = spot.bounding_box(), chooser.bounding_box()
        assert spot_box["y"] + spot_box["height"] <= chooser_box["y"], "the spot stays in sight above the chooser"
        for way in ways.all():
            box = way.bounding_box()
            assert box["width"] >= FINGER_PX and box["height"] >= FINGER_PX, box
        page.keyboard.press("Escape")  # a change of mind closes the choice and plays nothing
        expect(ways.first).to_be_hidden()
        match.refresh_from_db()
        assert match.version == 0
        spot.click()
        page.get_by_role("button", name="Place it at 0,0 turned 270°").click()
        expect(page.locator("#log li").first).to_contain_text("at 0,0 turned 270°")
    match.refresh_from_db()
    assert match.version == 1


def test_on_a_phone_each_piece_a_joker_may_steal_is_big_enough_for_a_finger(browser, live_server, db, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: 3)
    viewer, other = make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")
    match = start_timed_match(viewer, other, clock=ClockSpec(), game="jeexa")
    game, rng = match.game_obj, random.Random(7)
    while True:  # random moves (the same ones each run) until Hana has a joker to use
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        if seat == 0 and state.stealing:
            break
        services.move_submit(
            match_id=match.pk,
            move=rng.choice(game.legal_moves(state, seat)),
            expected_version=match.version,
            user=[viewer, other][seat],
        )
        match.refresh_from_db()
    with console_checked_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True) as page:
        log_in(page, live_server.url, "hana")
        page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
        targets = page.get_by_role("button", name=re.compile("^Steal the "))
        expect(targets).to_have_count(len(game.legal_moves(state, 0)))
        for target in targets.all():
            target.scroll_into_view_if_needed()
            box = target.bounding_box()
            assert box["width"] >= FINGER_PX and box["height"] >= FINGER_PX, box
        assert page.evaluate(COVERED_BUTTONS) == []
        targets.first.click()
        expect(page.locator("#log li").first).to_contain_text("Hana uses a joker: steals the")


def test_zoomed_in_400_percent_every_way_of_the_chooser_can_be_reached(browser, live_server, db, monkeypatch):
    """At 1280 x 1024 zoomed to 400 % (320 x 256), the chooser grew past the top of the screen: its
    sentence and the first ways were out of sight and, fixed in place, could not be scrolled to."""
    monkeypatch.setattr(creating, "new_seed", lambda: FOUR_WAYS_SEED)
    viewer, other = make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")
    match = start_timed_match(viewer, other, clock=ClockSpec(), game="jeexa")
    with console_checked_page(browser, viewport={"width": 320, "height": 256}) as page:
        log_in(page, live_server.url, "hana")
        page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
        page.get_by_role("button", name="Place it at 0,0: 4 ways to turn it").click()
        chooser = page.locator(".jx-turns:popover-open")
        box = chooser.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 256, box
        for way in chooser.get_by_role("button", name=re.compile("turned")).all():
            way.scroll_into_view_if_needed()
            box = way.bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 256, box
        chooser.get_by_role("button", name="Place it at 0,0 turned 0°").click()
        expect(page.locator("#log li").first).to_contain_text("at 0,0 turned 0°")


def test_a_redraw_by_the_poll_keeps_the_chooser_open_and_the_focus_on_the_same_way(page, live_server, db, monkeypatch):
    """The poll's redraw shut the chooser and left the focus on the page: the next Tab went to "Resign…"."""
    monkeypatch.setattr(creating, "new_seed", lambda: FOUR_WAYS_SEED)
    viewer, other = make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")
    match = start_timed_match(viewer, other, clock=ClockSpec(), game="jeexa")
    log_in(page, live_server.url, "hana")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    page.get_by_role("button", name="Place it at 0,0: 4 ways to turn it").press("Enter")
    way = page.get_by_role("button", name="Place it at 0,0 turned 90°")
    way.focus()
    page.evaluate("document.querySelector('#board').dataset.before = 'redraw'")

    Match.objects.filter(pk=match.pk).update(revision=F("revision") + 1)  # as a clock or seat change does
    expect(page.locator("#board[data-before]")).to_have_count(0)  # the poll redrew the board

    expect(way).to_be_visible()
    expect(way).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#log li").first).to_contain_text("at 0,0 turned 90°")
