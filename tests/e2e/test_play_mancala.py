"""A new player's first visit, in a real Chromium: sign up, confirm the email, start a
Mancala match against the AI, sow by clicking, see HTMX redraw the board in place and
the AI's reply (played by a real Celery worker) arrive through polling."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.db.models import F, Q
from playwright.sync_api import Page, expect

from games.engine import get_game
from games.models import Match
from notifications import services as notification_services
from notifications.models import Notification

pytestmark = [pytest.mark.e2e, pytest.mark.worker]

MANCALA = get_game("mancala")
PASSWORD = "a-long-and-unguessable-passphrase"
LINK = re.compile(r"https?://\S+")
AI_REPLY_TIMEOUT_MS = 20_000
NOTICE_TIMEOUT_SECONDS = 10


def sign_up(page: Page, base_url: str) -> None:
    page.goto(base_url)
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Email").fill("newcomer@example.com")
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again)").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Verify Your Email Address")).to_be_visible()


def confirm_email(page: Page) -> None:
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["newcomer@example.com"]
    page.goto(LINK.findall(mail.outbox[0].body)[0])
    page.get_by_role("button", name="Confirm").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def start_match_against_the_ai(page: Page) -> None:
    page.get_by_role("navigation").get_by_role("link", name="Lobby").click()
    page.get_by_role("link", name="New Mancala match").click()
    page.get_by_role("group", name="Opponent 1").get_by_role("combobox").select_option(label="AI: Easy")
    page.get_by_role("combobox", name="Your seat").select_option(label="I move first")
    page.get_by_role("button", name="Create match").click()
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible()


def wait_for_turn_notice() -> Notification:
    """The "your turn" notice the AI's reply wrote, once the worker has dealt with it: sent,
    skipped, or put off to a later time."""
    deadline = time.monotonic() + NOTICE_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        notice = Notification.objects.filter(
            Q(sent_at__isnull=False) | Q(due_at__gt=F("created_at")), kind=Notification.Kind.YOUR_TURN
        ).first()
        if notice:
            return notice
        time.sleep(0.1)
    raise AssertionError("the worker never dealt with the 'your turn' notice")


def move_that_passes_the_turn() -> str:
    """A legal move after which the AI is to act (the last coin not landing in my mancala)."""
    match = Match.objects.get()
    state = MANCALA.load(match.state)
    return next(move for move in MANCALA.legal_moves(state, 0) if MANCALA.to_act(MANCALA.apply(state, 0, move)) == (1,))


def test_a_newcomer_signs_up_and_plays_the_ai(page, live_server, celery_worker, settings, tmp_path):
    settings.SITE_URL = live_server.url
    sign_up(page, live_server.url)
    confirm_email(page)
    start_match_against_the_ai(page)
    log = page.locator("#log")

    page.evaluate("window.__marker = 1")
    page.locator(f'button.sow[value="{move_that_passes_the_turn()}"]').click()
    expect(log.get_by_role("listitem").first).to_contain_text("newcomer sows tile")
    assert page.evaluate("window.__marker") == 1, "the move reloaded the whole page instead of swapping the board"

    expect(log.locator("li", has_text="AI (Easy) sows").first).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    expect(page.locator("#status").get_by_text("Your turn.")).to_be_visible(timeout=AI_REPLY_TIMEOUT_MS)
    notice = wait_for_turn_notice()
    assert page.url in notice.body, "the notice links to this match on this site"
    # The player had the match open when the reply came (their own move a moment before): no
    # email now; it waits until the page has been quiet for 90 s (it polls, so it will be skipped).
    assert notice.sent_at is None
    assert (
        notice.created_at
        < notice.due_at
        <= notice.created_at + timedelta(seconds=notification_services.PRESENCE_SECONDS)
    )
    assert not [message for message in mail.outbox if "Your turn" in message.subject]
    page.screenshot(path=tmp_path / "your-turn.png", full_page=True)
    my_moves = log.get_by_role("listitem").filter(has_text="newcomer sows tile")
    my_moves_before = my_moves.count()
    page.locator("button.sow").first.click()
    expect(my_moves).to_have_count(my_moves_before + 1)
    assert page.evaluate("window.__marker") == 1, "polling or the second move reloaded the page"

    page.screenshot(path=tmp_path / "match.png", full_page=True)

    # The replay steps with HTMX, and each position keeps its own address.
    page.get_by_role("link", name="Replay from the start").click()
    page.get_by_role("link", name="Next move").click()
    expect(page.get_by_text("Position 1 of")).to_be_visible()
    assert page.url.endswith("?ply=1")
    page.reload()
    expect(page.get_by_text("Position 1 of")).to_be_visible()
    page.go_back()
    expect(page.get_by_text("Position 0 of")).to_be_visible()
