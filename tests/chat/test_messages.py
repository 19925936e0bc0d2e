"""Messages between the players of a match: who may write, who reads, what is refused (in words,
nothing stored, the text kept), the limit per minute, staff hiding one, and the page's cost."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.services import user_deactivate
from chat import selectors as chat_selectors
from chat import services as chat_services
from chat.models import Message, MessageReport
from config.middleware import NUL_REFUSED
from games import services
from games.models import Match, Status
from games.services import SeatSpec
from games.views import NOT_FOUND, OPENED_NOT_SENT
from tests.conftest import make_user, signed_in, start_match

HTMX = {"HTTP_HX_REQUEST": "true"}
READERS = "Only the players of this match read these messages."
PUBLIC_READERS = "Everyone who may watch this match reads these messages."


def revision(match: Match) -> int:
    return Match.objects.values_list("revision", flat=True).get(pk=match.pk)


# --- the service ------------------------------------------------------------------------


def test_a_player_writes_after_the_moves_played_and_open_pages_learn_of_it(alice, bob, match):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    match.refresh_from_db()
    token, before = match.poll_token, match.revision

    message = chat_services.message_post(match_id=match.pk, user=bob, text="  good luck!\r\nhave fun \n")

    assert (message.author, message.text, message.after_move, message.hidden) == (bob, "good luck!\nhave fun", 1, False)
    match.refresh_from_db()
    assert match.revision == before + 1 and match.poll_token != token


@pytest.mark.parametrize("status", ["open, invited", "open, creator", Status.ACTIVE, Status.FINISHED, Status.ABORTED])
def test_every_seated_player_may_write_whatever_the_match_s_status(alice, bob, status):
    if status.startswith("open"):
        match = services.match_create(
            creator=alice,
            game_slug="mancala",
            options={},
            seats=[SeatSpec("creator"), SeatSpec("user", username="bob")],
        )
        writer = bob if status == "open, invited" else alice  # bob has not accepted yet
    else:
        match, writer = start_match(alice, bob), bob
        if status == Status.FINISHED:
            services.match_resign(match_id=match.pk, user=alice)
        elif status == Status.ABORTED:
            services.match_abort(match_id=match.pk, actor=None, reason="test")
    chat_services.message_post(match_id=match.pk, user=writer, text="sorry, on holiday until Monday")
    assert Message.objects.get().author == writer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", chat_services.MESSAGE_EMPTY),
        (" \r\n\t ", chat_services.MESSAGE_EMPTY),
        ("x" * 501, "A message may be at most 500 characters; yours has 501."),
        ("hello\x00", chat_services.MESSAGE_NUL),
    ],
)
def test_a_bad_message_is_refused_in_words_and_nothing_is_stored(alice, match, text, words):
    before = revision(match)
    with pytest.raises(services.ServiceError) as refused:
        chat_services.message_post(match_id=match.pk, user=alice, text=text)
    assert words in refused.value.message and refused.value.status == 400
    assert not Message.objects.exists() and revision(match) == before


def test_500_characters_with_line_breaks_as_a_browser_sends_them_are_500(alice, match):
    typed = "\n".join(["x" * 100] * 5)[:-4]  # 500 characters in the box, 4 of them line breaks
    sent = typed.replace("\n", "\r\n")  # as the browser sends them: 504
    assert chat_services.message_post(match_id=match.pk, user=alice, text=sent).text == typed


def test_only_a_player_seated_now_may_write(alice, bob, carol, staff, match):
    for outsider in (carol, staff):
        with pytest.raises(services.NotAllowed, match=chat_services.MESSAGE_NOT_A_PLAYER):
            chat_services.message_post(match_id=match.pk, user=outsider, text="hi")
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    with pytest.raises(services.NotAllowed, match=chat_services.MESSAGE_NOT_A_PLAYER):  # he may watch, not write
        chat_services.message_post(match_id=match.pk, user=bob, text="hi")
    assert not Message.objects.exists()


def test_a_closed_account_cannot_write(alice, bob, staff, match):
    services.match_resign(match_id=match.pk, user=alice)  # a finished match keeps her seat
    user_deactivate(user_id=alice.pk, actor=staff)
    alice.refresh_from_db()
    with pytest.raises(services.NotAllowed, match=chat_services.MESSAGE_ACCOUNT_CLOSED):
        chat_services.message_post(match_id=match.pk, user=alice, text="bye")


def test_at_most_ten_a_minute_then_in_words_until_the_minute_is_over(monkeypatch, settings, clock, alice, bob, match):
    monkeypatch.setattr("django.core.cache.backends.db.tz_now", clock)  # the cache's own clock moves too
    assert settings.MESSAGES_PER_MINUTE == 10
    for number in range(10):
        chat_services.message_post(match_id=match.pk, user=alice, text=f"line {number}")
    with pytest.raises(services.TooFast, match=chat_services.MESSAGES_TOO_FAST) as refused:
        chat_services.message_post(match_id=match.pk, user=alice, text="one more")
    assert refused.value.status == 429 and Message.objects.count() == 10
    chat_services.message_post(match_id=match.pk, user=bob, text="I may still answer")  # each player has their own
    clock.advance(seconds=chat_services.MESSAGES_WINDOW_SECONDS + 1)
    chat_services.message_post(match_id=match.pk, user=alice, text="one more")
    assert Message.objects.filter(author=alice).count() == 11


def test_staff_hide_a_message_and_open_pages_learn_of_it(alice, match):
    message = chat_services.message_post(match_id=match.pk, user=alice, text="rude words")
    before = revision(match)
    chat_services.message_hide(message_id=message.pk, hidden=True)
    assert Message.objects.get().hidden and revision(match) == before + 1
    chat_services.message_hide(message_id=message.pk, hidden=True)  # as it was: no redraw for nothing
    assert revision(match) == before + 1


def test_the_latest_50_oldest_first_with_how_many_there_are(alice, bob, match):
    Message.objects.bulk_create(
        Message(match=match, author=(alice, bob)[n % 2], text=f"line {n}", after_move=0) for n in range(60)
    )
    latest = chat_selectors.match_messages(match)
    assert latest.total == 60 and [m.text for m in latest.shown] == [f"line {n}" for n in range(10, 60)]
    every = chat_selectors.match_messages(match, every=True)
    assert every.total == 60 and [m.text for m in every.shown] == [f"line {n}" for n in range(60)]
    other = start_match(alice, bob)
    assert chat_selectors.match_messages(other) == chat_selectors.Messages([], 0)


def test_a_deleted_author_s_message_stays(alice, carol, match):
    dora = make_user("dora")
    Message.objects.create(match=match, author=dora, text="kept", after_move=0)
    dora.delete()
    assert Message.objects.get().author is None


# --- the page -----------------------------------------------------------------------------


def post(client, match, text, **headers):
    return client.post(reverse("match_message", args=[match.pk]), {"text": text}, **headers)


def page_of(client, match, **query) -> str:
    response = client.get(reverse("match_detail", args=[match.pk]), query)
    assert response.status_code == 200
    return response.content.decode()


def live_part(page: str) -> str:
    """The part the poll redraws: from #live to the form that follows it."""
    return page.split('id="live"')[1].split('class="chat-form"')[0]


def textarea(page: str) -> str | None:
    found = re.search(r'<textarea id="message-text" name="text"[^>]*>(.*?)</textarea>', page, re.DOTALL)
    return found and found[1]


def test_a_message_sent_with_htmx_comes_back_in_the_redrawn_part_and_reaches_the_others(alice, bob, match):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    match.refresh_from_db()
    bobs = signed_in(bob)
    token = match.poll_token

    response = post(signed_in(alice), match, "good luck, Bob!", **HTMX)

    fragment = response.content.decode()
    assert response.status_code == 200 and 'id="live"' in fragment
    assert "<html" not in fragment and "<textarea" not in fragment
    message = Message.objects.get()
    # site.js tells the others' new messages (announced) from the player's own by these.
    said = re.search(
        rf'<li id="message-{message.pk}" data-message-id="{message.pk}" data-own>(.*?)</li>', fragment, re.DOTALL
    )[1]
    assert f'href="{reverse("player", args=["alice"])}">Alice</a>' in said
    assert re.search(r'<time datetime="[0-9T:+-]+">[^<]+</time>', said) and "after move 1" in said
    assert "good luck, Bob!" in said
    poll = bobs.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX)
    assert poll.status_code == 200 and "good luck, Bob!" in poll.content.decode()
    assert f'<li id="message-{message.pk}" data-message-id="{message.pk}">' in poll.content.decode()


def test_without_htmx_a_message_returns_to_the_match_page(alice, match):
    response = post(signed_in(alice), match, "hello")
    assert response.status_code == 302
    assert response["Location"] == reverse("match_detail", args=[match.pk]) + "#messages"
    assert Message.objects.get().text == "hello"


def test_the_text_is_shown_as_written_never_as_html_with_its_line_breaks(alice, bob, match):
    chat_services.message_post(match_id=match.pk, user=alice, text='<script>alert(1)</script>\n<b>bold</b> & "so"')
    said = live_part(page_of(signed_in(bob), match))
    assert "<script>alert" not in said and "<b>bold" not in said
    assert "&lt;script&gt;alert(1)&lt;/script&gt;<br>&lt;b&gt;bold&lt;/b&gt; &amp; &quot;so&quot;" in said


def test_players_get_the_form_and_the_line_on_who_reads_outside_the_redrawn_part(alice, bob, match):
    page = page_of(signed_in(bob), match)
    assert '<label for="message-text">' in page and textarea(page) == "" and READERS in page
    assert "<textarea" not in live_part(page), "a poll would wipe what is typed"
    assert page.index('id="messages-heading"') > page.index('id="log-heading"'), "after the move log"
    assert "No messages yet." in page


def test_a_spectator_reads_an_open_challenge_s_messages_without_a_form_where_they_are_public(alice, carol):
    challenge = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")], chat_public=True
    )
    chat_services.message_post(match_id=challenge.pk, user=alice, text="anyone for a game?")
    carols = signed_in(carol)
    page = page_of(carols, challenge)
    assert "anyone for a game?" in page and "<textarea" not in page and PUBLIC_READERS in page

    refused = post(carols, challenge, "me!", **HTMX)  # forged: no form was offered
    assert refused.status_code == 403 and chat_services.MESSAGE_NOT_A_PLAYER in refused.content.decode()
    assert Message.objects.count() == 1


def test_someone_who_may_not_open_the_match_reads_and_writes_nothing(alice, bob, carol, match):
    Match.objects.filter(pk=match.pk).update(public=False)
    chat_services.message_post(match_id=match.pk, user=alice, text="between us")
    carols = signed_in(carol)
    assert carols.get(reverse("match_detail", args=[match.pk])).status_code == 404
    for headers in ({}, HTMX):
        refused = post(carols, match, "let me in", **headers)
        assert refused.status_code == 404 and NOT_FOUND in refused.content.decode()
        assert "between us" not in refused.content.decode()
    missing = post(carols, Match(pk=987654), "anyone?")
    assert missing.status_code == 404 and NOT_FOUND in missing.content.decode()
    assert Message.objects.count() == 1


def test_staff_and_a_player_whose_seat_the_ai_took_read_but_may_not_write(alice, bob, staff, match):
    chat_services.message_post(match_id=match.pk, user=alice, text="see you")
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    for watcher in (bob, staff):
        client = signed_in(watcher)
        page = page_of(client, match)
        assert "see you" in page and "<textarea" not in page
        refused = post(client, match, "hi", **HTMX)
        assert refused.status_code == 403 and chat_services.MESSAGE_NOT_A_PLAYER in refused.content.decode()
    assert Message.objects.count() == 1


def test_the_address_opened_by_get_goes_to_the_match_page(alice, match):
    response = signed_in(alice).get(reverse("match_message", args=[match.pk]), follow=True)
    assert response.redirect_chain == [(reverse("match_detail", args=[match.pk]), 302)]
    assert OPENED_NOT_SENT in response.content.decode() and not Message.objects.exists()


def test_a_visitor_is_asked_to_sign_in(client, match):
    response = post(client, match, "hi")
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", chat_services.MESSAGE_EMPTY),
        ("   \r\n  ", chat_services.MESSAGE_EMPTY),
        ("é" * 501, "A message may be at most 500 characters; yours has 501."),
    ],
)
def test_a_refused_message_says_why_and_keeps_the_text(alice, match, text, words):
    client = signed_in(alice)
    before = revision(match)
    # htmx: the part it redraws says why; the box, outside it, keeps what was typed (site.js empties it
    # only after a message was sent).
    fragment = post(client, match, text, **HTMX)
    assert fragment.status_code == 400 and words in live_part(fragment.content.decode())
    assert "<textarea" not in fragment.content.decode()
    # A plain form: the page says why, and the box holds the text again.
    page = post(client, match, text)
    assert page.status_code == 400 and words in page.content.decode() and textarea(page.content.decode()) == text
    assert not Message.objects.exists() and revision(match) == before


def test_a_nul_character_is_refused_in_words_and_nothing_is_stored(alice, match):
    response = post(signed_in(alice), match, "gg\x00", **HTMX)
    assert response.status_code == 400 and NUL_REFUSED in response.content.decode()
    assert not Message.objects.exists()


def test_writing_too_fast_is_refused_in_words_and_keeps_the_text(alice, match):
    client = signed_in(alice)
    for number in range(10):
        assert post(client, match, f"line {number}", **HTMX).status_code == 200
    fragment = post(client, match, "the eleventh", **HTMX)
    assert fragment.status_code == 429 and chat_services.MESSAGES_TOO_FAST in fragment.content.decode()
    page = post(client, match, "the eleventh")
    assert page.status_code == 429 and textarea(page.content.decode()) == "the eleventh"
    assert Message.objects.count() == 10


def test_a_message_staff_hid_shows_who_wrote_it_and_when_not_what(alice, bob, match):
    message = chat_services.message_post(match_id=match.pk, user=alice, text="rude words")
    chat_services.message_hide(message_id=message.pk, hidden=True)
    said = live_part(page_of(signed_in(bob), match))
    assert "rude words" not in said and "(message removed by staff)" in said
    assert ">Alice</a>" in said and "<time datetime=" in said.split('id="messages-heading"')[1]


def test_the_latest_50_then_a_link_to_all_of_them(alice, bob, match):
    Message.objects.bulk_create(
        Message(match=match, author=(alice, bob)[n % 2], text=f"line {n}.", after_move=0) for n in range(60)
    )
    client = signed_in(alice)
    latest = live_part(page_of(client, match))
    assert re.findall(r"line (\d+)\.", latest) == [str(n) for n in range(10, 60)]
    link = f'href="{reverse("match_detail", args=[match.pk])}?messages=all#messages">Show all 60 messages</a>'
    assert link in latest and "before the first move" in latest
    every = page_of(client, match, messages="all")
    assert re.findall(r"line (\d+)\.", live_part(every)) == [str(n) for n in range(60)]
    assert "Show all" not in every
    # The poll and the form keep showing them all.
    assert "&amp;messages=all" in every
    assert f'hx-post="{reverse("match_message", args=[match.pk])}?messages=all"' in every
    sent = post(client, match, "line 60.", **HTMX, QUERY_STRING="messages=all")
    assert re.findall(r"line (\d+)\.", sent.content.decode()) == [str(n) for n in range(61)]


def test_a_finished_match_s_page_polls_for_its_players_messages(alice, bob, match):
    services.match_resign(match_id=match.pk, user=alice)
    match.refresh_from_db()
    bobs = signed_in(bob)
    assert 'hx-trigger="every' in page_of(bobs, match)
    chat_services.message_post(match_id=match.pk, user=alice, text="gg")
    poll = bobs.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, **HTMX)
    assert poll.status_code == 200 and "gg" in poll.content.decode()


def count_queries(client, url, **query) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, query, **HTMX).status_code == 200
    return len(captured.captured_queries)


def test_the_page_and_the_poll_cost_the_same_queries_with_0_or_60_messages_and_reports(alice, bob, match):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    client = signed_in(alice)
    page, poll = reverse("match_detail", args=[match.pk]), reverse("match_poll", args=[match.pk])

    def costs() -> list[int]:
        return [
            count_queries(client, url, token="old", **query)
            for url in (page, poll)
            for query in ({}, {"messages": "all"})
        ]

    client.get(page)  # the presence written: the page writes it again only when due (games.selectors.presence_due)
    quiet = costs()
    written = Message.objects.bulk_create(
        Message(match=match, author=(alice, bob)[n % 2], text=f"line {n}", after_move=n) for n in range(60)
    )
    # Alice reported some of Bob's: each of his others has a Report, each of those says she reported it.
    MessageReport.objects.bulk_create(MessageReport(message=message, reporter=alice) for message in written[1::4])
    shown = client.get(page).content.decode()
    assert "Show all 60 messages" in shown
    assert shown.count('class="report-form"') == 13 and shown.count("You reported this message") == 12
    assert costs() == quiet


def test_against_the_ai_alone_there_is_nobody_to_write_to(alice, bob):
    """Every other seat the AI's: no Messages section, no form, and a finished match does not poll."""
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("ai", ai_level=1)]
    )
    page = page_of(signed_in(alice), match)
    assert 'id="messages"' not in page and "chat-form" not in page and READERS not in page
    services.match_resign(match_id=match.pk, user=alice)
    assert 'hx-trigger="every' not in page_of(signed_in(alice), match)
    # With someone to write to, both are there.
    page = page_of(signed_in(alice), start_match(alice, bob))
    assert 'id="messages"' in page and "chat-form" in page


# --- a move's answer and the messages ----------------------------------------------------


def move_answer(client, match: Match, move: str, **headers) -> str:
    match.refresh_from_db()
    data = {"move": move, "version": match.version}
    response = client.post(reverse("match_move", args=[match.pk]), data, **HTMX, **headers)
    assert response.status_code == 200
    return response.content.decode()


def drawn_at(match: Match) -> dict:
    """The revision the page drawn now shows, as site.js sends it with a move."""
    return {"HTTP_X_LIVE_REVISION": str(revision(match))}


def test_a_move_s_answer_leaves_the_messages_as_the_page_shows_them_when_none_came_since(alice, bob, match):
    chat_services.message_post(match_id=match.pk, user=bob, text="good luck!")
    alices = signed_in(alice)
    page = alices.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert f'data-revision="{revision(match)}"' in page and "good luck!" in live_part(page)

    answer = move_answer(alices, match, "1", **drawn_at(match))

    assert '<div id="match-parts" hx-preserve="true"></div>' in answer  # htmx keeps the page's own
    assert "good luck!" not in answer and 'id="log"' in answer


def test_a_move_s_answer_draws_the_messages_when_one_came_since_the_page_was_drawn(alice, bob, match):
    alices = signed_in(alice)
    shown = drawn_at(match)
    chat_services.message_post(match_id=match.pk, user=bob, text="are you there?")

    answer = move_answer(alices, match, "1", **shown)

    assert "hx-preserve" not in answer and "are you there?" in answer


def test_a_move_s_answer_draws_the_messages_for_a_page_that_does_not_say_what_it_shows(alice, bob, match):
    chat_services.message_post(match_id=match.pk, user=bob, text="good luck!")
    answer = move_answer(signed_in(alice), match, "1")
    assert "hx-preserve" not in answer and "good luck!" in answer


def test_a_poll_s_redraw_and_a_refused_move_keep_the_messages_too(alice, bob, match):
    chat_services.message_post(match_id=match.pk, user=alice, text="good luck!")
    shown = drawn_at(match)
    bobs = signed_in(bob)
    token = Match.objects.get(pk=match.pk).poll_token
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    poll = bobs.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX, **shown).content.decode()
    stale = bobs.post(reverse("match_move", args=[match.pk]), {"move": "1", "version": 0}, **HTMX, **shown)

    assert "Alice sows tile 1" in poll and "hx-preserve" in poll and "good luck!" not in poll
    assert stale.status_code == 409 and "hx-preserve" in stale.content.decode()


def test_a_report_s_answer_draws_the_messages_with_what_it_said(alice, bob, match):
    rude = chat_services.message_post(match_id=match.pk, user=alice, text="you play like a potato")
    url = reverse("match_message_report", args=[match.pk, rude.pk])
    answer = signed_in(bob).post(url, {"reason": "insult"}, **HTMX, **drawn_at(match)).content.decode()
    assert "hx-preserve" not in answer and "you play like a potato" in answer and "chat-reported" in answer
