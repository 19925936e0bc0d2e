"""A two-player Mesopotamia match against the AI in a real Chromium, played on the map: the
human chooses a tribe by clicking it, then a highlighted hex it goes to, picks up a wood from
the chosen tribe's bar, discovers a tile by pressing Enter on its dashed hex, and builds a hut
through the bar's short chooser, while the AI's turn is played in between by a real Celery
worker and arrives marked (``data-last-move``). A step is taken back before the turn ends. On
a phone the same clicks work, nothing scrolls the page sideways and every control is at least
32x32 px.

The match seed is fixed, so the position is known: the AI (deterministic for a seed and a
version) leaves the forest's wood alone, and b1's discovery north of the forest finds plains.
Turn 1 (2 movement points): b1 goes through the temple to the forest and picks up a wood.
Turn 2 (5 points): b1 discovers 1,-2 (plains) with its wood, b2 follows through the temple
and the forest, and the two build a hut there.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import MoveRecord
from games.services import ClockSpec, creating
from tests.conftest import make_user
from tests.e2e.conftest import phone_page
from tests.e2e.pages import log_in
from tests.games.conftest import start_timed_match

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

SEED = 7  # see the module docstring; found by playing the plan through the rules
NEW_PLAINS = "1,-2"
AI_REPLY_TIMEOUT_MS = 30_000


def click_button(page: Page, move: str, log_line: str) -> None:
    """Click the bar's button for ``move`` and wait for its line at the top of the log."""
    button = page.locator(f'#board .meso-moves button[name=move][value="{move}"]:visible')
    expect(button).to_have_count(1)
    button.click()
    expect(page.locator("#log li").first).to_contain_text(log_line)


def choose_tribe(page: Page, tribe: str) -> None:
    """Click a tribe on the map (where the pointer is: the click lands on its hex, which
    chooses the tribe under it) and wait for its hexes to go to."""
    box = page.locator(f'#board .meso-token[data-tribe="{tribe}"]').bounding_box()
    assert box, tribe
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator(f'#board .meso-pick[data-pick-panel="{tribe}"]')).to_be_visible()


def click_hex(page: Page, move: str, log_line: str) -> None:
    """Click the chosen tribe's highlighted hex that makes ``move``."""
    target = page.locator(f"#board .meso-dests.is-shown .meso-dest[hx-vals*='\"{move}\"']")
    expect(target).to_have_count(1)
    target.click()
    expect(page.locator("#log li").first).to_contain_text(log_line)


def press_hex(page: Page, coords: str, log_line: str) -> None:
    """Focus the outlined hex at ``coords`` on the map, press Enter (which clicks it, as for
    a button) and wait for its line in the log."""
    target = page.locator(
        "#board g.meso-clickable", has=page.locator("text.meso-coords", has_text=re.compile(rf"^{re.escape(coords)}$"))
    )
    expect(target).to_have_count(1)
    target.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#log li").first).to_contain_text(log_line)


def hex_group(page: Page, coords: str):
    return page.locator("#board g.meso-hex", has=page.locator("text.meso-coords", has_text=coords))


def load_of(page: Page, tribe: str):
    return page.locator(f'#board .meso-token[data-tribe="{tribe}"] text.meso-load-text')


def test_a_player_moves_carries_and_builds_a_hut(page, live_server, celery_worker, settings, db, monkeypatch, tmp_path):
    settings.SITE_URL = live_server.url
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    make_user("ishtar", display_name="Ishtar")
    log_in(page, live_server.url, "ishtar")

    page.get_by_role("navigation").get_by_role("link", name="Lobby").click()
    page.get_by_role("link", name="New Mesopotamia match").click()
    page.get_by_role("combobox", name="Opponent 1").select_option(label="AI: Easy")
    page.get_by_role("combobox", name="Your seat").select_option(label="I move first")
    page.get_by_role("button", name="Create match").click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible()
    expect(page.get_by_test_id("mp")).to_have_text("2")
    page.evaluate("window.__marker = 1")

    # Turn 1: choose b1 on the map, walk it to the forest, pick up a wood.
    choose_tribe(page, "b1")
    click_hex(page, "move b1 se", "Ishtar (blue) moves b1 SE to 0,0")
    click_hex(page, "move b1 ne", "Ishtar (blue) moves b1 NE to 1,-1")  # b1 stays chosen across the redraw
    click_button(page, "carry b1 wood", "Ishtar's b1 picks up a wood")
    expect(load_of(page, "b1")).to_have_text("W")
    click_button(page, "end", "Ishtar (blue) ends the movement")
    click_button(page, "end", "Ishtar (blue) ends the turn")

    # The AI's turn comes through the worker; the page learns of it by polling, and marks what it changed.
    expect(page.locator("#log li", has_text="AI (").first).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("mp")).to_have_text("5")
    ai_steps = page.locator("#log li", has_text=re.compile(r"AI \(.*\) moves y\d")).count()
    assert page.locator("#board .meso-step-yellow[data-last-move]").count() >= ai_steps
    assert page.locator("#board .meso-svg [data-last-move]").count() > 0, "what the AI changed is marked"

    # Turn 2: discover plains with the wood (Enter on the dashed hex), bring a second tribe, build a hut.
    press_hex(page, NEW_PLAINS, f"Ishtar (blue) sends b1 N to discover {NEW_PLAINS}")
    expect(page.locator("#log li").first).to_contain_text("finds a plains")
    choose_tribe(page, "b2")
    click_hex(page, "move b2 se", "Ishtar (blue) moves b2 SE to 0,0")
    click_hex(page, "move b2 ne", "Ishtar (blue) moves b2 NE to 1,-1")
    click_hex(page, "move b2 n", f"Ishtar (blue) moves b2 N to {NEW_PLAINS}")
    click_button(page, "end", "Ishtar (blue) ends the movement")
    new_plains = hex_group(page, NEW_PLAINS)
    expect(new_plains.locator("text.meso-kind")).to_have_text("Plains")
    expect(new_plains.locator("text.meso-letter")).to_have_count(0)
    page.get_by_role("button", name=f"Build a hut on {NEW_PLAINS}…").click()  # four offerings: a short chooser
    page.get_by_role("button", name=f"Build a hut on {NEW_PLAINS} with offering 6 under it").click()
    expect(page.locator("#log li").first).to_contain_text(
        f"Ishtar (blue) builds a hut on {NEW_PLAINS} with a hidden offering underneath"
    )

    # The board shows the new blue hut with its offering (the owner sees the value).
    expect(new_plains.locator("text.meso-letter")).to_have_text("B")
    expect(new_plains.locator("polygon.meso-blue")).to_have_count(1)
    expect(new_plains.locator("text.meso-marker-text")).to_have_text("6")
    expect(load_of(page, "b1")).to_have_count(0)  # the wood was used
    expect(page.get_by_test_id("player-0")).to_contain_text("6 under a hut on 1,-2")
    # Each panel says whose it is, by name and colour as the log does, and by seat number as the list at the top.
    expect(page.get_by_test_id("player-1").get_by_role("heading")).to_contain_text("AI (Easy, yellow) · Player 2")
    assert page.evaluate("window.__marker") == 1, "the page reloaded instead of swapping the board"
    page.screenshot(path=tmp_path / "mesopotamia.png", full_page=True)
    print(f"screenshot: {tmp_path / 'mesopotamia.png'}")


def test_a_step_on_the_map_is_taken_back_and_played_once(page, live_server, db, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    ishtar = make_user("ishtar", display_name="Ishtar")
    match = start_timed_match(ishtar, make_user("enki"), clock=ClockSpec(), game="mesopotamia")
    log_in(page, live_server.url, "ishtar")
    page.goto(live_server.url + reverse("match_detail", args=[match.pk]))
    b1_at = page.locator('#board .meso-camp[data-tribes~="b1"] text.meso-coords')
    start = b1_at.text_content()

    choose_tribe(page, "b1")
    click_hex(page, "move b1 se", "Ishtar (blue) moves b1 SE to 0,0")
    expect(page.locator("#log .log-held li")).to_have_count(1)
    expect(b1_at).to_have_text("0,0")
    assert not MoveRecord.objects.filter(match=match).exists(), "held: Enki sees nothing of it"

    page.get_by_test_id("take-back").click()
    expect(page.locator("#log .log-held li")).to_have_count(0)
    expect(b1_at).to_have_text(start)
    expect(page.get_by_test_id("mp")).to_have_text("2")

    # b1 stays chosen across the redraw; played again, the turn ends: the step is recorded once.
    expect(page.locator('#board .meso-pick[data-pick-panel="b1"]')).to_be_visible()
    click_hex(page, "move b1 se", "Ishtar (blue) moves b1 SE to 0,0")
    click_button(page, "end", "Ishtar (blue) ends the movement")
    click_button(page, "end", "Ishtar (blue) ends the turn")
    expect(page.locator("#status").get_by_text("Waiting for Enki")).to_be_visible()
    played = list(MoveRecord.objects.filter(match=match).order_by("ply").values_list("notation", flat=True))
    assert played == ["move b1 se", "end", "end"]


# Controls on the board smaller than 32x32 CSS px, and how far the page is wider than the screen.
SMALL_TARGETS = """() => [...document.querySelectorAll(
        '#board :is(button, summary, a, [role=button])')].filter(control => {
    const box = control.getBoundingClientRect();
    return box.width && (box.width < 32 || box.height < 32);
}).map(control => {
    const box = control.getBoundingClientRect();
    const name = control.getAttribute('aria-label') || control.textContent.trim().slice(0, 30);
    return `${name}: ${Math.round(box.width)} x ${Math.round(box.height)}`;
})"""


def test_on_a_phone_the_map_is_played_by_taps_in_its_own_frame(browser, live_server, db, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    make_user("ishtar", display_name="Ishtar")
    match = start_timed_match(
        User.objects.get(username="ishtar"), make_user("enki"), clock=ClockSpec(), game="mesopotamia"
    )
    with phone_page(browser) as phone:
        log_in(phone, live_server.url, "ishtar")
        phone.goto(live_server.url + reverse("match_detail", args=[match.pk]))
        expect(phone.locator("#board .meso-zoom")).to_be_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        assert phone.evaluate(SMALL_TARGETS) == []
        assert phone.locator("#board .meso-frame").bounding_box()["y"] < 844, "the map starts on the first screen"

        # Zoomed in, the map pans inside its frame; the page still does not scroll sideways.
        phone.get_by_role("button", name="Zoom in on the map").tap()
        frame = phone.locator("#board .meso-frame")
        assert frame.evaluate("frame => frame.scrollWidth > frame.clientWidth")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.get_by_role("button", name="Zoom out of the map").tap()

        # A tap on b1's hex chooses a tribe there (all three alike), a tap on a highlighted hex moves it.
        phone.locator('#board .meso-camp[data-tribes~="b1"]').tap()
        expect(phone.locator("#board .meso-dests.is-shown .meso-dest")).to_have_count(5)  # 2 steps, 3 discoveries
        assert phone.evaluate(SMALL_TARGETS) == []
        phone.locator("#board .meso-dests.is-shown .meso-dest[hx-vals*='se\"']").tap()
        expect(phone.locator("#log li").first).to_contain_text("Ishtar (blue) moves b1 SE to 0,0")
        expect(phone.locator('#board .meso-token[data-tribe="b1"][data-last-move]')).to_have_count(1)
        expect(phone.locator("#board .meso-step[data-last-move]")).to_have_count(1)
