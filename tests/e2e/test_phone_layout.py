"""Every page a player uses fits a phone's width: no page scrolls sideways at 390 CSS pixels nor
on a small phone's 320 (a board may scroll inside its own box, the page around it may not), every
control is big enough for a finger and no text is smaller than 12 px; a match page fits a tablet
and a desktop too."""

from __future__ import annotations

import random
import re

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse
from playwright.sync_api import expect

from chat.models import Message
from games import services
from games.services import ClockSpec, SeatSpec, creating
from tests.conftest import make_user
from tests.e2e.conftest import PHONE, SMALL_PHONE, console_checked_page, phone_page
from tests.e2e.pages import log_in, write_messages
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = [pytest.mark.e2e]

# Elements reaching past the right edge, except inside a box that scrolls sideways itself.
OVERFLOWING = """() => {
    const inScrollBox = e => {
        for (let box = e.parentElement; box; box = box.parentElement) {
            if (["auto", "scroll"].includes(getComputedStyle(box).overflowX)) return true;
        }
        return false;
    };
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll("body *")]
        .filter(e => e.getBoundingClientRect().right > width + 1 && !inScrollBox(e))
        .slice(0, 5).map(e => `${e.tagName.toLowerCase()}.${e.getAttribute("class")}`);
}"""
# Cells holding a number whose digits were broken over two lines ("17" above "3").
SPLIT_NUMBERS = """() => [...document.querySelectorAll("main td:not(.jx-cell)")].filter(td => {
    if (!/^\\s*[+-]?\\d+\\s*$/.test(td.textContent)) return false;
    const range = document.createRange();
    range.selectNodeContents(td);
    return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size > 1;
}).map(td => td.textContent.trim())"""
# Words of the match lists broken over two lines ("Finishe" above "d", a player's record's "Manc" above
# "ala"); a player's name may wrap anywhere (40 letters without a space must), the other columns' words may not;
# nor may an email address's badges ("Verifi" above "ed").
SPLIT_WORDS = """() => {
    const split = [];
    for (const td of document.querySelectorAll("table.matches td:not(.players), table.matches th[scope=row], .badge")) {
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        for (let node; (node = walker.nextNode());) {
            for (const word of node.textContent.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, word.index);
                range.setEnd(node, word.index + word[0].length);
                const lines = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
                if (lines.size > 1) split.push(word[0]);
            }
        }
    }
    return split;
}"""
# Invitations whose Accept and Decline are not together on a line under the invitation (at 320 px Accept
# ended the text's last line and Decline began the next).
ANSWERS_APART = """() => [...document.querySelectorAll(".invitations li")].filter(li => {
    const [accept, decline] = [...li.querySelectorAll("button")].map(b => b.getBoundingClientRect());
    const text = li.querySelector("small").getBoundingClientRect();
    return Math.abs(accept.top - decline.top) > 1 || accept.top < text.bottom;
}).map(li => li.textContent.trim().slice(0, 40))"""
# A Mesopotamia map as a phone first shows it: whole in its frame (it pans there only once zoomed in), the frame
# and its key within the screen's width, the zoom buttons shown on the frame.
MAP_IN_VIEW = """() => {
    const frame = document.querySelector("#board .meso-frame");
    if (!frame) return null;
    const width = document.documentElement.clientWidth;
    const within = (box) => box.left >= -1 && box.right <= width + 1;
    const box = frame.getBoundingClientRect(), map = frame.querySelector(".meso-svg").getBoundingClientRect();
    const whole = frame.scrollWidth <= frame.clientWidth + 1 && frame.scrollHeight <= frame.clientHeight + 1
        && map.left >= box.left - 1 && map.right <= box.right + 1;
    const zoom = document.querySelector("#board .meso-zoom");
    const zoomShown = !zoom.hidden && [...zoom.querySelectorAll("button")].every((b) => {
        const spot = b.getBoundingClientRect();
        return spot.left >= box.left - 1 && spot.right <= box.right + 1 && spot.top >= box.top - 1;
    });
    return [whole, within(box) && within(document.querySelector(".meso-legend").getBoundingClientRect()), zoomShown];
}"""
# Controls less than a finger's width (44 px) high or wide, on every page (a box to tick by its label) but
# Mecca's squares (eleven a row fit a phone only at 30 px), the width of Mancala's buttons (eight tiles a row)
# and links within a line of text (the rules link beside the clock's terms).
TOO_SMALL_TO_TAP = """() => [...document.querySelectorAll(`header :is(a, button),
        main :is(a, button, summary, select, input:not([type=hidden], [type=checkbox], [type=radio])),
        main :has(> input:is([type=checkbox], [type=radio])) > label,
        main label:has(> input:is([type=checkbox], [type=radio]))`)].filter(control => {
    const box = control.getBoundingClientRect();
    if (!box.width || control.matches('.mecca-cell')) return false;
    const text = (element) => element.textContent.trim();
    if (control.matches('main a') && text(control.parentElement) !== text(control)) return false;
    return box.height < 44 || (box.width < 44 && !control.matches('.sow'));
}).map(control => `${control.textContent.trim()}: ${Math.round(control.getBoundingClientRect().width)} x `
                  + `${Math.round(control.getBoundingClientRect().height)}`)"""
# Words broken over two lines that are one word: the Kaaba's name on its squares.
KAABA_LINES = """() => {
    const word = document.querySelector('.kaaba-word');
    if (!word) return null;
    const range = document.createRange();
    range.selectNodeContents(word);
    return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
}"""
# Text smaller than 12 px, but the marks inside Mecca's squares, on Mesopotamia's map (its labels keep 11 px,
# test_board_places) and on the small puzzles of the other Jeexa players.
TINY_TEXT = """() => {
    const tiny = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode());) {
        const element = node.parentElement;
        if (!node.textContent.trim() || !element.getClientRects().length) continue;
        if (element.closest('.visually-hidden, .mecca-cell, .meso-svg, .jx-small .jx-cell')) continue;
        let size = parseFloat(getComputedStyle(element).fontSize);
        if (element instanceof SVGElement) size *= element.getScreenCTM().a;
        if (size < 11.95) tiny.push(`${node.textContent.trim()}: ${size.toFixed(1)} px`);
    }
    return tiny.slice(0, 10);
}"""
# Mancala's pits, each a button, that reach out of their tile (at 320 px a button reached into the next tile's).
SOWS_OUT_OF_PLACE = """() => [...document.querySelectorAll('.sow')].filter(sow => {
    const box = sow.getBoundingClientRect(), tile = sow.closest('.tile').getBoundingClientRect();
    return box.left < tile.left - .5 || box.right > tile.right + .5;
}).map(sow => sow.value)"""
# Boxes to tick whose label is not beside them (at 390 px "Email me when another player writes in my matches"
# went under its box, which stood alone on a line).
BOXES_APART = """() => [...document.querySelectorAll('main input[type=checkbox]')].filter(box => {
    const label = box.labels[0];
    if (!label || !box.getClientRects().length) return false;
    const [b, l] = [box.getBoundingClientRect(), label.getBoundingClientRect()];
    return b.bottom < l.top || b.top > l.bottom || b.right > l.left + 1;
}).map(box => box.labels[0].textContent.trim())"""
# The home page's drawings of a puzzle (.jx-picture) have no hint: they must fit (OVERFLOWING).
PUZZLE_HINTS = """() => [...document.querySelectorAll('.jx-scroll:not(.jx-picture *)')].map(box => [
    box.scrollWidth > box.clientWidth + 1, getComputedStyle(box.nextElementSibling).display !== 'none'])"""
SEED = 5  # every match gets it: the finished 8-player Jeexa then has a puzzle wider than a phone
# The largest tables, all human (nobody waits for an AI task), the viewer to play first.
GAMES = {"mancala": 2, "mecca": 6, "jeexa": 8, "mesopotamia": 4}


@pytest.mark.parametrize("screen", [PHONE, SMALL_PHONE], ids=["390px", "320px"])
def test_no_page_scrolls_sideways_on_a_phone(browser, screen, live_server, db, monkeypatch):
    """At 320 px a finished Mecca's scores and a finished Jeexa's puzzle (a word for screen readers at its far
    end, placed by the page, not by its box) made the page 39 and 42 px wider than the screen; Mancala's
    buttons reached into the next tile's. The account pages', the lobby's and the new match form's buttons
    and fields were 34 to 39 px high, a lone link 19 px; Mecca's letters and numbers round the board 9.6 px."""
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    viewer = make_user("petra", display_name="Petra")
    EmailAddress.objects.create(user=viewer, email="petra@example.org", verified=True)  # the email page's list
    others = [make_user(name) for name in ("quinn", "rosa", "sami", "tomas", "ulla", "vera", "wim")]
    others[0].display_name = "Quinn" + "W" * 35  # the longest name allowed, and no space to wrap at
    others[0].save()
    matches = {
        slug: start_timed_match(viewer, *others[: seats - 1], clock=ClockSpec(), game=slug)
        for slug, seats in GAMES.items()
    }
    # Two players' first map: the discoveries lie on one side of the Temple.
    matches["mesopotamia-2"] = start_timed_match(viewer, others[1], clock=ClockSpec(), game="mesopotamia")
    for slug in ("mecca", "jeexa", "mesopotamia"):  # their final scores and tables, and a map grown wide
        finished = start_timed_match(viewer, *others[: GAMES[slug] - 1], clock=ClockSpec(), game=slug)
        assert play_random_moves(finished, [viewer, *others], random.Random(finished.seed)), "the game did not end"
        matches[f"{slug}-over"] = finished
    matches["mancala-ethiopian"] = start_timed_match(
        viewer, others[1], clock=ClockSpec(), game="mancala", options={"variant": "ethiopian"}
    )  # two buttons a tile
    services.match_create(
        creator=others[1],
        game_slug="jeexa",
        options={},  # an invitation
        seats=[SeatSpec("creator"), SeatSpec("user", username="petra")],
    )
    services.match_create(
        creator=others[2],
        game_slug="mecca",
        options={},  # an open challenge
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )
    pages = [
        reverse("home"),
        reverse("dashboard"),
        reverse("finished_matches"),
        reverse("lobby"),
        reverse("profile"),
        reverse("account_email"),
        reverse("account_close"),
        reverse("player", args=["quinn"]),
        reverse("player", args=["petra"]),
        *(reverse("match_new", args=[slug]) for slug in GAMES),
        reverse("match_new", args=["jeexa"]) + "?invite=quinn",  # an invite field shown, with its help
        *(reverse("game_rules", args=[slug]) for slug in GAMES),
        *(reverse("match_detail", args=[match.pk]) for match in matches.values()),
        *(reverse("match_replay", args=[match.pk]) for match in matches.values()),
    ]
    viewer.confirm_moves = True  # a click on the board chooses a move, and a bar offers to send it
    viewer.save()
    write_messages(matches["mancala"], viewer, others[0])
    for slug in ("mecca-over", "jeexa-over"):  # "New message" on My matches and the finished matches' page
        Message.objects.create(match=matches[slug], author=others[1], text="good game!", after_move=1)
    hinted = []
    with phone_page(browser, screen) as phone:
        for path in SIGNED_OUT:
            hinted += page_fits_a_phone(phone, live_server.url + path, screen)
        log_in(phone, live_server.url, "petra")
        for path in pages:
            hinted += page_fits_a_phone(phone, live_server.url + path, screen)
        for state, url in states_of_a_match(phone, live_server.url, matches):
            assert page_fits_a_phone(phone, url, screen, state=state) == []
    assert live_server.url + reverse("match_detail", args=[matches["jeexa-over"].pk]) in hinted, (
        "the wide puzzle got its hint"
    )


SIGNED_OUT = [
    "/",
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
    "/accounts/inactive/",
]  # where a closed account's sign-in leads


def states_of_a_match(phone, base_url: str, matches: dict):
    """The states of a match page a click leads to, as (what, url) once each is on the screen: a Report… opened, a
    message refused, and a move chosen but not sent on Mancala and on Mecca (its bar under the board)."""
    url = base_url + reverse("match_detail", args=[matches["mancala"].pk])
    phone.goto(url)
    phone.locator("#messages .report summary").first.click()
    expect(phone.locator("#messages .report-form").first).to_be_visible()
    yield "a Report… opened", url
    phone.get_by_label("Write to the players").fill(" ")
    phone.get_by_role("button", name="Send").click()
    expect(phone.locator("#messages .error")).to_be_visible()
    yield "a message refused", url
    phone.locator("#board .sow").first.click()
    expect(phone.locator(".move-confirm")).to_be_visible()
    yield "a Mancala move chosen", url
    url = base_url + reverse("match_detail", args=[matches["mecca"].pk])
    phone.goto(url)
    phone.locator("#board button.mecca-cell.target").first.click()
    expect(phone.locator(".move-confirm")).to_be_visible()
    yield "a Mecca square chosen", url


def page_fits_a_phone(phone, url: str, screen: dict[str, int], state: str = "") -> list[str]:
    """Checks the page at ``url`` on a phone ``screen`` wide, as it is on the screen if it is in a ``state`` a click
    left it in; the url if a Jeexa puzzle says it scrolls."""
    if state:
        url = f"{url} ({state})"
    else:
        phone.goto(url)
    assert phone.locator("main").count() == 1, url
    assert phone.evaluate("document.documentElement.scrollWidth") <= screen["width"], url
    assert phone.evaluate(OVERFLOWING) == [], url
    assert phone.evaluate(SPLIT_NUMBERS) == [], url
    assert phone.evaluate(SPLIT_WORDS) == [], url
    assert phone.evaluate(ANSWERS_APART) == [], url
    # A Mesopotamia map opens whole at the screen's width (no sideways swipe to find a hex to choose), its key in
    # view too, and offers its zoom.
    if (seen := phone.evaluate(MAP_IN_VIEW)) is not None:
        assert seen == [True, True, True], url
    # A Jeexa puzzle that scrolls in its box says so underneath; one that fits does not.
    hints = phone.evaluate(PUZZLE_HINTS)
    for scrolls, hint_shown in hints:
        assert scrolls == hint_shown, url
    # Controls as big as a finger is wide (Mesopotamia's action buttons were 38 px high, the replay's Start,
    # Back, Next and End 19 px, Resign… and the top bar's links too small); text 12 px at least.
    assert phone.evaluate(TOO_SMALL_TO_TAP) == [], url
    assert phone.evaluate(TINY_TEXT) == [], url
    assert phone.evaluate(SOWS_OUT_OF_PLACE) == [], url
    assert phone.evaluate(BOXES_APART) == [], url
    # At 390 px a score table fits without scrolling, long name and all; so do the lists of matches (the last
    # 8 px of My matches were cut off) and the rules pages' tables. (At 320 px eight players' scores per hand,
    # the lists of matches and the rules' widest table scroll in their boxes.)
    if screen == PHONE:
        assert (
            phone.evaluate(
                "[...document.querySelectorAll('.jx-table, .mecca-scores, .table-scroll')]"
                ".filter(t => t.scrollWidth > t.clientWidth + 1).length"
            )
            == 0
        ), url
    return [url] if any(hint_shown for _, hint_shown in hints) else []


def test_a_move_does_not_scroll_the_page_by_itself(small_phone, live_server, db, monkeypatch):
    """A move redraws the board under the player's finger: the page stays where they scrolled
    it, and the map as they zoomed and panned it in its frame. (The map's old "swipe it sideways"
    line came back only once the new board had been laid out without it, and the browser then
    scrolled the page by that line's height at every move.)"""
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    viewer = make_user("petra", display_name="Petra")
    match = start_timed_match(viewer, make_user("quinn"), clock=ClockSpec(), game="mesopotamia")
    log_in(small_phone, live_server.url, "petra")
    small_phone.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    small_phone.get_by_role("button", name="Zoom in on the map").click()
    small_phone.locator("#board .meso-camp").first.click()  # a tribe chosen (on a hex of several, in a chooser)
    if (chooser := small_phone.locator(".meso-chooser:popover-open [data-pick]")).count():
        chooser.first.click()
    destination = small_phone.locator("#board .meso-dests.is-shown .meso-dest").first
    expect(destination).to_be_attached()
    # The map's frame at the top of the screen, and nothing the test does from here scrolls the page or the frame.
    small_phone.locator("#board .meso-frame").evaluate("frame => frame.scrollIntoView({block: 'start'})")
    where = "() => [window.scrollY, document.querySelector('#board .meso-frame').scrollLeft, " + (
        "document.querySelector('#board .meso-frame').scrollTop]"
    )
    scrolled_to = small_phone.evaluate(where)
    small_phone.evaluate("document.addEventListener('htmx:afterSettle', () => { window.settled = true; })")

    destination.evaluate("hex => hex.focus({preventScroll: true})")
    small_phone.keyboard.press("Enter")
    small_phone.wait_for_function("() => window.settled")

    expect(small_phone.locator("#log li")).to_have_count(1)
    expect(small_phone.locator("#board .meso-frame")).to_have_class(re.compile(r"\bis-zoomed\b"))
    assert small_phone.evaluate(where) == pytest.approx(scrolled_to, abs=1)


def test_a_finished_match_fits_a_tablet_and_a_desktop(browser, live_server, db, monkeypatch):
    """At 768 px Mecca's final scores (their headings kept whole) were wider than the panel beside
    the board, and the page scrolled sideways; the Kaaba's name broke into "Kaab" and "a"."""
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    players = [make_user(name) for name in ("petra", "quinn", "rosa", "sami")]
    matches = []
    for slug in GAMES:
        match = start_timed_match(*players[: min(GAMES[slug], 4)], clock=ClockSpec(), game=slug)
        assert play_random_moves(match, players, random.Random(match.seed)), "the game did not end"
        matches.append(match)
    for width, height in ((768, 1024), (800, 600), (1024, 768), (1280, 800)):
        with console_checked_page(browser, viewport={"width": width, "height": height}) as page:
            log_in(page, live_server.url, "petra")
            for match in matches:
                page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
                assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, match.game)
                assert page.evaluate(OVERFLOWING) == [], (width, match.game)
                assert page.evaluate(KAABA_LINES) in (None, 1), (width, match.game)
