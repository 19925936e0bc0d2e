"""Playing by keyboard in a real Chromium: after htmx redraws the match (a move, a poll, a
replay step) the focus is back on the same control or on the board's first move, never on
the page itself (the next Tab would start again at the top); screen readers hear the new
status; and in Mecca only the marked squares are Tab stops."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.services import SeatSpec
from tests.conftest import start_match
from tests.e2e.pages import log_in

pytestmark = pytest.mark.e2e


def focused(page: Page) -> dict:
    return page.evaluate("""() => {
        const element = document.activeElement;
        return {tag: element.tagName, id: element.id, name: element.getAttribute("name"),
                inBoard: Boolean(element.closest(".board"))};
    }""")


def alice_sows_tile_1_by_keyboard(page: Page, url: str, alice, bob):
    """A Mancala match of Alice against Bob, her first move made with Enter; the match."""
    match = start_match(alice, bob)
    log_in(page, url, "alice")
    page.goto(f"{url}/matches/{match.pk}/")
    page.locator("#board button[name=move]").first.focus()
    page.keyboard.press("Enter")
    return match


def test_after_my_move_focus_is_on_the_status_and_it_is_announced(page, live_server, alice, bob):
    alice_sows_tile_1_by_keyboard(page, live_server.url, alice, bob)

    expect(page.locator("#log li")).to_have_count(1)
    expect(page.locator("#announcer")).to_contain_text("Waiting for Bob")
    expect(page.locator("#status")).to_be_focused()  # no move of mine is left: the status line, not the page
    # The log scrolls once it is long, which makes it a Tab stop: it is named for its heading.
    expect(page.get_by_role("list", name="Moves")).to_have_count(1)


def test_a_screen_reader_hears_each_move_then_the_status(page, live_server, alice, bob):
    """The status alone said "Your turn" once the opponent had moved, not what the move was."""
    match = alice_sows_tile_1_by_keyboard(page, live_server.url, alice, bob)
    expect(page.locator("#announcer")).to_have_text(re.compile(r"^Alice sows tile 1\b.*\. Waiting for Bob\.$"))

    services.move_submit(match_id=match.pk, user=bob, move="2", expected_version=1)
    expect(page.locator("#announcer")).to_have_text(
        re.compile(r"^Bob sows tile 2\b.*\. Your turn\. Choose a move"), timeout=10_000
    )


def test_a_poll_that_brings_my_turn_puts_focus_on_my_first_move(page, live_server, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    log_in(page, live_server.url, "bob")
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    page.get_by_role("link", name="Replay from the start").focus()

    services.move_submit(match_id=match.pk, user=bob, move="2", expected_version=1)
    services.move_submit(match_id=match.pk, user=alice, move="6", expected_version=2)

    expect(page.locator("#log li")).to_have_count(3, timeout=10_000)
    expect(page.locator("#board button[name=move]").first).to_be_focused()


def test_focus_stays_on_next_while_stepping_through_the_replay(page, live_server, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=match.pk, user=bob, move="2", expected_version=1)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/replay/?ply=0")

    page.locator("#replay-next").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Position 1 of 2")).to_be_visible()
    expect(page.locator(".htmx-settling")).to_have_count(0)  # htmx has taken over the new links
    expect(page.locator("#replay-next")).to_be_focused()
    expect(page.locator("#announcer")).to_have_text(re.compile(r"^After move 1: Alice sows tile 1\b"))
    page.keyboard.press("Enter")  # still on Next
    expect(page.get_by_text("Position 2 of 2")).to_be_visible()
    expect(page.locator("#replay-next")).to_be_focused()


def test_in_mecca_only_the_marked_squares_are_tab_stops(page, live_server, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")

    squares = page.locator("#board button.mecca-cell")
    marked = page.locator("#board button.mecca-cell.target")
    tab_stops = page.locator('#board button.mecca-cell:not([tabindex="-1"])')
    assert squares.count() > 100 and 0 < marked.count() == tab_stops.count()

    tab_stops.first.focus()
    page.keyboard.press("Tab")
    after = page.evaluate("document.activeElement.className")
    assert "mecca-cell" not in after or "target" in after, "Tab goes from a marked square to the next marked one"

    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # a marked square: an entrance
    expect(page.locator("#log li")).to_have_count(1)
    # (wait_for_function would evaluate a string: the site's CSP forbids that, now and then loudly)
    expect(page.locator("body")).not_to_be_focused()
    assert focused(page)["inBoard"] or focused(page)["id"] == "status"


def test_in_mecca_after_a_placement_the_focus_goes_to_the_next_marked_square(page, live_server, alice, bob):
    """The square just filled is no Tab stop any more: focus moves on to a square the next
    pilgrim may take, not left on the filled one (the next Tab then skipped the board)."""
    match = services.match_create(
        creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    game, users, rng = match.game_obj, {0: alice, 1: bob}, random.Random(2)
    while True:  # random moves until Alice starts a turn whose first pilgrim can be followed by a second
        match.refresh_from_db()
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        chain = [
            move
            for move in legal
            if seat == 0
            and state.step == "place"
            and state.round > 1
            and state.placed == 0
            and game.to_act(after := game.apply(state, 0, move)) == (0,)
            and after.step == "place"
        ]
        if chain:
            break
        services.move_submit(
            match_id=match.pk, user=users[seat], move=rng.choice(legal), expected_version=match.version
        )
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")

    page.locator(f'#board button[value="{chain[0]}"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator("#log li")).to_have_count(match.version + 1)
    expect(page.locator("#board button.mecca-cell.target:focus")).to_have_count(1)  # on a marked square


def test_the_replay_offers_no_step_beyond_either_end(client, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    client.force_login(alice)
    start = client.get(f"/matches/{match.pk}/replay/?ply=0").content.decode()
    end = client.get(f"/matches/{match.pk}/replay/?ply=1").content.decode()
    assert "ply=-1" not in start and 'id="replay-next"' in start and "?ply=1" in start
    assert "ply=2" not in end and 'id="replay-back"' in end and "?ply=0" in end


def test_a_screen_reader_reads_each_mancala_tile_as_a_sentence(page, live_server, alice, bob):
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")

    spoken = page.locator("#board").aria_snapshot()

    assert "Tile 3 of player 2: 4 coins." in spoken and "Player 1's mancala: 0 coins." in spoken
    assert 'button "Sow tile 1 (4 coins)"' in spoken
    assert "- text: 4 4" not in spoken, "no bare run of numbers"


def test_a_screen_reader_reads_the_pieces_of_a_jeexa_puzzle(page, live_server, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="jeexa", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    game = match.game_obj
    move = game.legal_moves(game.load(match.state), 0)[0]
    services.move_submit(match_id=match.pk, user=alice, move=move, expected_version=0)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")

    assert re.search(r"(yellow|red|blue|green|orange|purple) \d at 0,0", page.locator("#board").aria_snapshot())


def test_the_first_tab_offers_a_skip_past_the_menu_to_the_page(page, live_server, alice, bob):
    """Without it, a keyboard user tabbed through the whole top bar on every page."""
    match = start_match(alice, bob)
    log_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/matches/{match.pk}/")

    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the page's content")
    expect(skip).to_be_focused()
    assert skip.bounding_box()["y"] >= 0  # shown on the page once it has the focus, not left off screen

    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("() => Boolean(document.activeElement.closest('main'))")
