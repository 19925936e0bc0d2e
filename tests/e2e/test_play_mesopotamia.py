"""A two-player Mesopotamia match against the AI in a real Chromium: the human moves a
tribe, carries a wood and builds a hut by clicking the board's buttons (the discovery by
pressing Enter on its outlined hex on the map), while the AI's turn is played in between by a real
Celery worker.

The match seed is fixed, so the position is known: the AI (deterministic for a seed and a
version) leaves the forest's wood alone, and b1's discovery north of the forest finds plains.
Turn 1 (2 movement points): b1 goes through the temple to the forest and picks up a wood.
Turn 2 (5 points): b1 discovers 1,-2 (plains) with its wood, b2 follows through the temple
and the forest, and the two build a hut there.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.services import creating
from tests.conftest import make_user
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

SEED = 7  # see the module docstring; found by playing the plan through the rules
NEW_PLAINS = "1,-2"
AI_REPLY_TIMEOUT_MS = 30_000


def click_move(page: Page, move: str, log_line: str) -> None:
    """Click the board's button for ``move`` and wait for its line at the top of the log."""
    button = page.locator(f'#board button[name=move][value="{move}"]')
    expect(button).to_be_visible()
    button.click()
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

    # Turn 1: move a tribe and carry a wood.
    click_move(page, "move b1 se", "Ishtar (blue) moves b1 SE to 0,0")
    click_move(page, "move b1 ne", "Ishtar (blue) moves b1 NE to 1,-1")
    click_move(page, "carry b1 wood", "Ishtar's b1 picks up a wood")
    expect(hex_group(page, "1,-1").locator("text.meso-load-text")).to_have_text("W")
    click_move(page, "end", "Ishtar (blue) ends the movement")
    click_move(page, "end", "Ishtar (blue) ends the turn")

    # The AI's turn comes through the worker; the page learns of it by polling.
    expect(page.locator("#log li", has_text="AI (").first).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("mp")).to_have_text("5")

    # Turn 2: discover plains with the wood, bring a second tribe, build a hut.
    press_hex(page, NEW_PLAINS, f"Ishtar (blue) sends b1 N to discover {NEW_PLAINS}")  # the dashed hex on the map
    expect(page.locator("#log li").first).to_contain_text("finds a plains")
    click_move(page, "move b2 se", "Ishtar (blue) moves b2 SE to 0,0")
    click_move(page, "move b2 ne", "Ishtar (blue) moves b2 NE to 1,-1")
    click_move(page, "move b2 n", f"Ishtar (blue) moves b2 N to {NEW_PLAINS}")
    click_move(page, "end", "Ishtar (blue) ends the movement")
    new_plains = hex_group(page, NEW_PLAINS)
    expect(new_plains.locator("text.meso-kind")).to_have_text("Plains")
    expect(new_plains.locator("text.meso-letter")).to_have_count(0)
    click_move(
        page, f"hut {NEW_PLAINS} 6", f"Ishtar (blue) builds a hut on {NEW_PLAINS} with a hidden offering underneath"
    )

    # The board shows the new blue hut with its marker (the owner sees the value).
    expect(new_plains.locator("text.meso-letter")).to_have_text("B")
    expect(new_plains.locator("polygon.meso-blue")).to_have_count(1)
    expect(new_plains.locator("text.meso-marker-text")).to_have_text("6")
    expect(new_plains.locator("text.meso-load-text")).to_have_count(0)  # the wood was used
    expect(page.get_by_test_id("player-0")).to_contain_text("6 under a hut on 1,-2")
    # Each panel says whose it is, by name and colour as the log does, and by seat number as the list at the top.
    expect(page.get_by_test_id("player-1").get_by_role("heading")).to_contain_text("AI (Easy, yellow) · Player 2")
    assert page.evaluate("window.__marker") == 1, "the page reloaded instead of swapping the board"
    page.screenshot(path=tmp_path / "mesopotamia.png", full_page=True)
    print(f"screenshot: {tmp_path / 'mesopotamia.png'}")
