"""My matches (and the finished matches' page) say in words where another player wrote since the
player last had the match page open, linked to the match's messages; opening the page, or its
poll bringing them, counts as seeing them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from chat import services as chat_services
from chat.models import Message
from games import services
from games.models import Seat
from games.selectors import PRESENCE_WRITE_SECONDS
from tests.conftest import signed_in, start_match

HTMX = {"HTTP_HX_REQUEST": "true"}


def row_of(client, match, page: str = "dashboard") -> str:
    """The row of ``match`` on My matches (or another list of matches), its tags and text."""
    html = client.get(reverse(page)).content.decode()
    rows = [row for row in re.findall(r"<tr[ >].*?</tr>", html, re.S) if f">Mancala #{match.pk}<" in row]
    assert len(rows) == 1, f"match {match.pk} is not listed once on {page}"
    return rows[0]


def marker(row: str) -> str:
    """What the row says of new messages, in words ("" when nothing)."""
    found = re.search(r'<a class="new-messages" href="([^"]*)">([^<]*)</a>', row)
    return f"{found[2]} -> {found[1]}" if found else ""


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def open_page(client, match) -> None:
    assert client.get(reverse("match_detail", args=[match.pk])).status_code == 200


def test_a_message_from_another_player_is_new_until_the_match_page_is_opened(alice, bob, match, clock):
    alices, bobs = signed_in(alice), signed_in(bob)
    open_page(alices, match)
    clock.advance(minutes=5)
    chat_services.message_post(match_id=match.pk, user=bob, text="good luck")

    assert marker(row_of(alices, match)) == f"New message -> /matches/{match.pk}/#messages"
    assert marker(row_of(bobs, match)) == "", "his own message is nothing new to him"
    clock.advance(minutes=1)
    open_page(alices, match)
    assert marker(row_of(alices, match)) == ""


def test_a_seat_never_seen_has_every_message_of_the_others_new_and_counts_them_in_words(alice, bob, match, clock):
    for text in ("hello", "are you there?", "your turn"):
        chat_services.message_post(match_id=match.pk, user=bob, text=text)
        clock.advance(seconds=1)
    chat_services.message_post(match_id=match.pk, user=alice, text="coming")
    assert Seat.objects.get(match=match, user=alice).last_seen_at is None
    assert marker(row_of(signed_in(alice), match)) == f"3 new messages -> /matches/{match.pk}/#messages"


def test_a_message_staff_hid_is_not_new(alice, bob, match, clock):
    open_page(signed_in(alice), match)
    clock.advance(minutes=1)
    chat_services.message_hide(
        message_id=chat_services.message_post(match_id=match.pk, user=bob, text="rude").pk, hidden=True
    )
    assert marker(row_of(signed_in(alice), match)) == ""
    chat_services.message_post(match_id=match.pk, user=bob, text="sorry")
    assert marker(row_of(signed_in(alice), match)).startswith("New message ->")


def test_messages_written_before_the_last_visit_are_not_new(alice, bob, match, clock):
    chat_services.message_post(match_id=match.pk, user=bob, text="hello")
    clock.advance(seconds=1)
    alices = signed_in(alice)
    open_page(alices, match)
    assert marker(row_of(alices, match)) == ""
    clock.advance(hours=2)
    assert marker(row_of(alices, match)) == ""


def test_opening_the_page_again_soon_after_counts_as_seeing_what_came_in_between(alice, bob, match, clock):
    """The presence is written at most every PRESENCE_WRITE_SECONDS: a visit just after an earlier
    one skipped it, and a message written in between stayed new though the page showed it."""
    alices = signed_in(alice)
    open_page(alices, match)
    clock.advance(seconds=5)
    chat_services.message_post(match_id=match.pk, user=bob, text="gg")
    clock.advance(seconds=5)
    assert marker(row_of(alices, match)).startswith("New message ->")
    open_page(alices, match)  # 10 s after the first visit
    assert marker(row_of(alices, match)) == ""


def test_a_poll_that_brings_the_message_counts_as_seeing_it(alice, bob, match, clock):
    alices = signed_in(alice)
    open_page(alices, match)
    match.refresh_from_db()
    token = match.poll_token
    clock.advance(seconds=2)
    chat_services.message_post(match_id=match.pk, user=bob, text="hello")
    clock.advance(seconds=1)
    assert PRESENCE_WRITE_SECONDS > 3, "the poll would write the presence anyway"
    redrawn = alices.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX)
    assert redrawn.status_code == 200 and "hello" in redrawn.content.decode()
    assert marker(row_of(alices, match)) == ""


def test_the_finished_matches_page_says_so_too_a_gg_after_the_end(alice, bob, match, clock):
    alices = signed_in(alice)
    open_page(alices, match)
    services.match_resign(match_id=match.pk, user=alice)
    clock.advance(minutes=1)
    chat_services.message_post(match_id=match.pk, user=bob, text="gg")
    assert marker(row_of(alices, match, "finished_matches")) == f"New message -> /matches/{match.pk}/#messages"
    assert marker(row_of(alices, match)).startswith("New message ->")
    open_page(alices, match)
    assert marker(row_of(alices, match, "finished_matches")) == ""


def test_a_player_whose_seat_the_ai_took_has_no_marker(alice, bob, carol, staff, clock):
    """Watching from no seat, their visits are not recorded: a marker would never go away."""
    match = services.match_create(
        creator=alice,
        game_slug="jeexa",
        options={},
        seats=[
            services.SeatSpec("creator"),
            services.SeatSpec("user", username="bob"),
            services.SeatSpec("user", username="carol"),
        ],
    )
    for player in (bob, carol):
        services.match_accept(match_id=match.pk, user=player)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    chat_services.message_post(match_id=match.pk, user=carol, text="bye Bob")
    html = signed_in(bob).get(reverse("dashboard")).content.decode()
    assert f">Jeexa #{match.pk}<" in html and "new-messages" not in html


def test_the_finished_matches_page_costs_the_same_queries_with_new_messages_or_none(alice, bob, clock):
    alices = signed_in(alice)
    matches = [start_match(alice, bob) for _ in range(3)]
    for match in matches:
        services.match_resign(match_id=match.pk, user=bob)
    before = count_queries(alices, reverse("finished_matches"))
    for number, match in enumerate(matches):
        for _ in range(number + 1):
            chat_services.message_post(match_id=match.pk, user=bob, text="gg")
    assert count_queries(alices, reverse("finished_matches")) == before
    html = alices.get(reverse("finished_matches")).content.decode()
    assert [html.count(words) for words in ("New message<", "2 new messages<", "3 new messages<")] == [1, 1, 1]


@pytest.mark.parametrize("author", ["carol", "nobody"])
def test_a_message_of_a_former_player_or_a_deleted_account_is_new_too(alice, bob, carol, match, clock, author):
    Message.objects.create(match=match, author=carol if author == "carol" else None, text="hi", after_move=0)
    assert marker(row_of(signed_in(alice), match)).startswith("New message ->")
