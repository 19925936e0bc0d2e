"""On a phone a player finds on the board the places the move log names: Jeexa's "at -1,0" by
the numbers along each puzzle's top and left, Mesopotamia's "to -3,2" by the label in the hex,
each large enough to read (the map fits the phone's width whole, and its labels read once it is
zoomed in); on a desktop too, however far the map has grown."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.models import MoveRecord
from games.services import ClockSpec, creating
from tests.e2e.conftest import PHONE, console_checked_page
from tests.e2e.pages import log_in, zoom_the_map_in_fully
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = [pytest.mark.e2e]

SMALLEST_READABLE_PX = 9
# Per puzzle: whether each number sits over its column or beside its row, every cell stays square
# (so the pieces still join), and the smallest number's size in CSS pixels.
PUZZLE_NUMBERS = """() => [...document.querySelectorAll('.jx-grid')].map(grid => {
    const centre = (box, axis) => axis === 'x' ? (box.left + box.right) / 2 : (box.top + box.bottom) / 2;
    const within = (spot, box, axis) => axis === 'x' ? box.left <= spot && spot <= box.right
                                                     : box.top <= spot && spot <= box.bottom;
    const rows = [...grid.querySelectorAll('tbody tr')];
    const columns = [...grid.querySelectorAll('thead th')];
    const placed = columns.every((th, i) => rows.every(tr => within(
        centre(th.getBoundingClientRect(), 'x'), tr.querySelectorAll('td')[i].getBoundingClientRect(), 'x')))
        && rows.every(tr => [...tr.querySelectorAll('td')].every(td => within(
            centre(tr.querySelector('th').getBoundingClientRect(), 'y'), td.getBoundingClientRect(), 'y')));
    const square = [...grid.querySelectorAll('td.jx-cell')].every(td => {
        const box = td.getBoundingClientRect();
        return Math.abs(box.width - box.height) < 1;
    });
    const sizes = [...grid.querySelectorAll('.jx-axis')].map(th => parseFloat(getComputedStyle(th).fontSize));
    return [columns.length > 0 && rows.length > 0 && placed, square, Math.min(...sizes)];
})"""
# The smallest hex label as drawn: its font size times the map's scale.
HEX_LABEL_PX = """() => Math.min(...[...document.querySelectorAll('.meso-coords')].map(
    text => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a))"""
# The map's labels as drawn at its own size, what a phone shows of a grown map.
MAP_LABEL_PX = 11
# Whether the map scrolls in its frame (either way), and its height as drawn.
MAP_BOX = """() => {
    const frame = document.querySelector('.meso-frame');
    return [frame.scrollWidth > frame.clientWidth + 1 || frame.scrollHeight > frame.clientHeight + 1,
            document.querySelector('.meso-svg').getBoundingClientRect().height];
}"""
MAP_FITS_PX = 42 * 16  # a small map is drawn no higher than 42rem
# The hexes to choose (dashed) whose place's label the dashed outline runs through: the label reaches
# below the outline's inner edge and is not cut out of it (drawn over a stroke of the hex's own colour).
CROSSED_LABELS = """() => [...document.querySelectorAll('.meso-choice, .meso-ghost')].filter(hex => {
    const label = hex.querySelector('.meso-coords');
    const outline = hex.querySelector('.meso-target');
    const inner = Math.max(...[...outline.points].map(point => point.y))
        - parseFloat(getComputedStyle(outline).strokeWidth) / 2;
    const box = label.getBBox();
    if (box.y + box.height <= inner) return false;
    const style = getComputedStyle(label);
    const tile = hex.querySelector('.meso-tile');
    return !(tile && style.paintOrder.startsWith('stroke') && style.stroke === getComputedStyle(tile).fill);
}).map(hex => hex.querySelector('.meso-coords').textContent)"""
CHOICES = ("wood", "stone", "to")  # a step whose places to choose are tiles on the map
SCREENS = {
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
    "1920x1080": {"viewport": {"width": 1920, "height": 1080}},
    "phone": {"viewport": PHONE, "is_mobile": True, "has_touch": True},
}


def test_the_places_the_log_names_can_be_found_and_read_on_a_phone(phone, live_server, alice, bob, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: 1)
    jeexa = start_timed_match(alice, bob, clock=ClockSpec(), game="jeexa")
    play_random_moves(
        jeexa,
        [alice, bob],
        random.Random(1),
        until=lambda: MoveRecord.objects.filter(match=jeexa, notation__startswith="steal").count() >= 2,
    )
    mesopotamia = start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")
    play_random_moves(mesopotamia, [alice, bob], random.Random(1))  # to the end: the map grown tall
    log_in(phone, live_server.url, "alice")

    phone.goto(live_server.url + reverse("match_detail", args=[jeexa.pk]))
    puzzles = phone.evaluate(PUZZLE_NUMBERS)
    assert len(puzzles) >= 3, "Alice's, Bob's and the last hand's"
    for placed, square, smallest in puzzles:
        assert placed and square and smallest >= SMALLEST_READABLE_PX, puzzles

    phone.goto(live_server.url + reverse("match_detail", args=[mesopotamia.pk]))
    assert phone.evaluate(MAP_BOX)[0] is False, "the whole map in view, at the phone's width"
    zoom_the_map_in_fully(phone)
    assert phone.evaluate(HEX_LABEL_PX) >= SMALLEST_READABLE_PX
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the map pans, not the page"


def test_a_mesopotamia_map_keeps_its_labels_readable_on_every_screen(browser, live_server, alice, bob, monkeypatch):
    """A desktop fitted a grown map (832 by 736) into its column and 42rem: its labels came out at
    7.8 px. It is drawn at its own size at least, and scrolls in its box where it is larger; a small
    map is drawn larger, as far as the column and 42rem allow, and scrolls nowhere. A phone draws
    the map as wide as the screen, whole, and its labels come to that size once it is zoomed in.
    (A phone drew a small map 36rem wide, 576 px, and scrolled it in a 358 px box.)"""
    monkeypatch.setattr(creating, "new_seed", lambda: 1)
    small = start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")
    grown = start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")
    play_random_moves(grown, [alice, bob], random.Random(1))
    for screen, options in SCREENS.items():
        with console_checked_page(browser, **options) as page:
            log_in(page, live_server.url, "alice")
            for match in (small, grown):
                page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
                if screen == "phone":
                    assert page.evaluate(MAP_BOX)[0] is False, (screen, match.pk)
                    zoom_the_map_in_fully(page)
                assert page.evaluate(HEX_LABEL_PX) >= MAP_LABEL_PX - 0.01, (screen, match.pk)
            page.goto(live_server.url + reverse("match_detail", args=[small.pk]))
            scrolls, height = page.evaluate(MAP_BOX)
            assert not scrolls and height <= MAP_FITS_PX + 1, (screen, height)
            assert page.evaluate(HEX_LABEL_PX) > MAP_LABEL_PX, screen  # drawn larger than its own size


def test_a_hex_to_choose_keeps_its_place_readable(page, live_server, alice, bob, monkeypatch):
    """The dashed outline of a hex to choose ran through the bottom of its place's digits ("-2,0"),
    the very place the move buttons name."""
    monkeypatch.setattr(creating, "new_seed", lambda: 1)
    discovering = start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")  # hexes still unknown
    choosing = start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")
    game = choosing.game_obj

    def alice_chooses_a_tile() -> bool:
        state = game.load(choosing.state)
        return game.to_act(state)[0] == 0 and any(move.split()[0] in CHOICES for move in game.legal_moves(state, 0))

    play_random_moves(choosing, [alice, bob], random.Random(2), until=alice_chooses_a_tile)
    log_in(page, live_server.url, "alice")
    for match, dashed in ((discovering, ".meso-ghost"), (choosing, ".meso-choice")):
        page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
        assert page.locator(f"#board {dashed}").count() > 0
        assert page.evaluate(CROSSED_LABELS) == []
