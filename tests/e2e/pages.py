"""Steps several browser tests take the same way."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from accounts.models import User
from chat.models import Message
from games.models import Match
from games.services.holding import held_steps
from tests.conftest import PASSWORD, make_user


def log_in(page: Page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username or email").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="My matches")).to_be_visible()


def write_messages(match, viewer, other) -> None:
    """The messages of two players: short, on several lines, 500 letters without a space, one staff removed."""
    texts = [
        (other, "good luck!"),
        (
            viewer,
            "Thanks for the game yesterday!\nI thought about your opening.\n\n"
            "Next time I will try the other side, if you don't mind.",
        ),
        (other, "A" * 250 + "b" * 250),
        (other, "rude words"),
        (other, "your move, take your time"),
    ]
    Message.objects.bulk_create(
        [
            Message(match=match, author=author, text=text, after_move=0, hidden=text == "rude words")
            for author, text in texts
        ]
    )


def zoom_the_map_in_fully(page: Page) -> None:
    """Mesopotamia's map zoomed in by its own + button as far as it goes (the map pans in its frame)."""
    zoom_in = page.get_by_role("button", name="Zoom in on the map")
    while zoom_in.is_enabled():
        zoom_in.click()
    expect(page.locator("#board .meso-frame")).to_have_class(re.compile(r"\bis-zoomed\b"))


# --- a board on show, measured (the *_board_play tests) ---

TARGET_PX = 32  # the least width and height of anything to tap on a board, on a phone
# Every control drawn on the board that is on show (the ways in a closed chooser are not), with its size.
TARGETS = """() => [...document.querySelectorAll('#board :is(button, a, [role=button], input:not([type=hidden]))')]
    .filter(control => control.checkVisibility())
    .map(control => {
        const box = control.getBoundingClientRect();
        return [control.getAttribute('aria-label') || control.textContent.trim(), box.width, box.height];
    })"""
SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"
# What a page swap that brought a new position does (site.js adds the class after the settle).
ARRIVE = "() => document.querySelector('#board').classList.add('arrived')"


def two_players() -> tuple[User, User]:
    return make_user("hana", display_name="Hana"), make_user("ivo", display_name="Ivo")


def steps_played(match: Match) -> list[str]:
    """The match's moves, then the steps its mover holds (a Mesopotamia step waits, held, until the
    turn ends): what the mover's board shows as done."""
    match.refresh_from_db()
    held = [step for seat in match.seats.all() for step in held_steps(match, seat)]
    return [*match.moves.order_by("ply").values_list("notation", flat=True), *held]
