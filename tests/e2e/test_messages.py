"""Messages between the players in a real Chromium: two players with the same match open, one
writes, the other reads it without reloading, and what the other had half typed survives the
poll's redraw; a refused message stays in its box."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Page, expect

from chat import services as chat_services
from chat.models import Message, MessageReport
from tests.conftest import start_match
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e]

HALF_TYPED = "sorry, I am on holiday until Mon"


@contextmanager
def both_on_the_match(browser, base_url: str, match) -> Iterator[tuple[Page, Page]]:
    """Alice's and Bob's pages, each signed in with the match open."""
    with console_checked_page(browser) as alices, console_checked_page(browser) as bobs:
        for page, name in ((alices, "alice"), (bobs, "bob")):
            log_in(page, base_url, name)
            page.goto(f"{base_url}/matches/{match.pk}/")
        yield alices, bobs


def test_a_message_reaches_the_other_player_and_leaves_their_half_typed_one_alone(browser, live_server, alice, bob):
    match = start_match(alice, bob)
    with both_on_the_match(browser, live_server.url, match) as (alices, bobs):
        alices_box = alices.get_by_label("Write to the players")
        alices_box.fill(HALF_TYPED)

        bobs_box = bobs.get_by_label("Write to the players")
        bobs_box.fill("   ")
        bobs.get_by_role("button", name="Send").click()
        expect(bobs.locator("#messages .error")).to_have_text("Write something first.")
        expect(bobs_box).to_have_value("   ")  # refused: nothing lost
        bobs_box.fill("good luck!\nhave fun")
        bobs.get_by_role("button", name="Send").click()
        expect(bobs.locator("#messages li")).to_have_count(1)
        expect(bobs_box).to_have_value("")  # sent: the box is empty for the next one
        expect(bobs.locator("#messages .error")).to_have_count(0)

        # Alice's page learns of it by its poll, without reloading, and her box keeps what she typed.
        said = alices.locator("#messages li")
        expect(said).to_have_count(1)
        expect(said).to_contain_text("Bob")
        expect(said.locator(".chat-text")).to_have_text("good luck!have fun")  # two lines (<br>)
        expect(alices_box).to_have_value(HALF_TYPED)
        alices_box.press("End")
        alices_box.type("day")
        alices.get_by_role("button", name="Send").click()
        expect(bobs.locator("#messages li")).to_have_count(2)
        expect(bobs.locator("#messages li").last).to_contain_text(HALF_TYPED + "day")
    assert list(Message.objects.order_by("pk").values_list("text", flat=True)) == [
        "good luck!\nhave fun",
        HALF_TYPED + "day",
    ]


def test_a_report_or_resign_opened_stays_open_with_its_reason_across_the_poll_s_redraw(
    browser, live_server, alice, bob
):
    """The poll's redraw shut the Report… a player had opened (and lost the reason typed in it), and
    the Resign… too."""
    match = start_match(alice, bob)
    first = chat_services.message_post(match_id=match.pk, user=bob, text="you play like a potato")
    with console_checked_page(browser) as page:
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        report = page.locator(f"#report-{first.pk}")
        report.get_by_text("Report…").click()
        report.get_by_label("Reason (optional)").fill("rude")
        page.get_by_text("Resign…").click()

        chat_services.message_post(match_id=match.pk, user=bob, text="and again")  # the poll redraws the match
        expect(page.locator("#messages li")).to_have_count(2)
        expect(report).to_have_attribute("open", "")
        expect(report.get_by_label("Reason (optional)")).to_have_value("rude")
        expect(page.locator("#resign")).to_have_attribute("open", "")
        report.get_by_role("button", name="Report").click()
        expect(page.locator(f"#message-{first.pk}")).to_contain_text("Reported.")
    assert MessageReport.objects.get().reason == "rude"


def test_a_screen_reader_hears_the_others_messages_the_poll_brings_not_its_own(browser, live_server, alice, bob):
    match = start_match(alice, bob)
    with both_on_the_match(browser, live_server.url, match) as (alices, bobs):
        bobs.get_by_label("Write to the players").fill("good luck!\nhave fun")
        bobs.get_by_role("button", name="Send").click()
        expect(bobs.locator("#messages li")).to_have_count(1)
        expect(bobs.locator("#announcer")).not_to_contain_text("New message")  # his own, just sent

        expect(alices.locator("#announcer")).to_have_text(
            "Your turn. Choose a move on the board. New message from Bob: good luck! have fun"
        )
        # Several in one redraw are one line; a long one is read out to its first 100 characters.
        long = "a long story " * 20
        Message.objects.bulk_create(
            [Message(match=match, author=bob, text=text, after_move=0) for text in ("one", "two")]
        )
        chat_services.message_post(match_id=match.pk, user=bob, text="three")  # the open pages redraw
        expect(alices.locator("#announcer")).to_have_text(re.compile(r"3 new messages, the last from Bob\.$"))
        chat_services.message_post(match_id=match.pk, user=bob, text=long)
        expect(alices.locator("#announcer")).to_have_text(
            re.compile("New message from Bob: " + re.escape(long[:100]) + "…$")
        )


def test_the_same_words_twice_are_said_twice(browser, live_server, alice, bob):
    """A live region speaks when its text changes: a second "gg" from Bob left it as it was, unsaid."""
    match = start_match(alice, bob)
    with console_checked_page(browser) as page:
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        page.evaluate("""() => {
            window.saidAloud = [];
            new MutationObserver(() => window.saidAloud.push(document.getElementById("announcer").textContent))
                .observe(document.getElementById("announcer"), {childList: true, characterData: true, subtree: true});
        }""")
        for count in (1, 2):
            chat_services.message_post(match_id=match.pk, user=bob, text="gg")
            expect(page.locator("#messages li")).to_have_count(count)
            page.wait_for_function(
                "(count) => window.saidAloud.filter("
                "(text) => text.endsWith('New message from Bob: gg')).length >= count",
                arg=count,
            )


def test_a_move_leaves_the_messages_shown_in_place_and_the_next_poll_brings_new_ones(browser, live_server, alice, bob):
    """A move's answer keeps the messages the page shows (hx-preserve) when none came since: not read
    nor drawn again. What Bob writes next reaches Alice's page by its poll, as before."""
    match = start_match(alice, bob)
    chat_services.message_post(match_id=match.pk, user=bob, text="good luck!")
    with console_checked_page(browser) as page:
        log_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        shown = page.locator("#messages li").first
        shown.evaluate("item => item.dataset.drawn = 'first'")  # gone if the item were drawn again
        with page.expect_response(lambda response: response.url.endswith("/move/")) as answered:
            page.get_by_role("button", name=re.compile(r"^Sow tile 1 ")).click()
        assert 'id="match-parts" hx-preserve="true"' in answered.value.text()
        expect(page.locator("#log li")).to_have_count(1)
        expect(shown).to_have_attribute("data-drawn", "first")
        expect(page.locator("#messages li")).to_have_text(re.compile("good luck!"))

        chat_services.message_post(match_id=match.pk, user=bob, text="nice move")
        expect(page.locator("#messages li")).to_have_count(2)
        expect(page.locator("#messages li").last).to_contain_text("nice move")
