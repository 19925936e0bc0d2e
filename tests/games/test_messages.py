"""Messages between the players of a match: who may write, who reads, what is refused (in words,
nothing stored, the text kept), the limit per minute, staff hiding one, and the page's cost."""

from __future__ import annotations

import pytest

from accounts.services import user_deactivate
from games import selectors, services
from games.models import Match, Message, Status
from games.services import SeatSpec
from tests.conftest import make_user, start_match


def revision(match: Match) -> int:
    return Match.objects.values_list("revision", flat=True).get(pk=match.pk)


# --- the service ------------------------------------------------------------------------


def test_a_player_writes_after_the_moves_played_and_open_pages_learn_of_it(alice, bob, match):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    match.refresh_from_db()
    token, before = match.poll_token, match.revision

    message = services.message_post(match_id=match.pk, user=bob, text="  good luck!\r\nhave fun \n")

    assert (message.author, message.text, message.after_move, message.hidden) == (bob, "good luck!\nhave fun", 1, False)
    match.refresh_from_db()
    assert match.revision == before + 1 and match.poll_token != token


@pytest.mark.parametrize("status", ["open, invited", "open, creator", Status.ACTIVE, Status.FINISHED, Status.ABORTED])
def test_every_seated_player_may_write_whatever_the_match_s_status(alice, bob, status):
    if status.startswith("open"):
        match = services.match_create(creator=alice, game_slug="mancala", options={},
                                      seats=[SeatSpec("creator"), SeatSpec("user", username="bob")])
        writer = bob if status == "open, invited" else alice  # bob has not accepted yet
    else:
        match, writer = start_match(alice, bob), bob
        if status == Status.FINISHED:
            services.match_resign(match_id=match.pk, user=alice)
        elif status == Status.ABORTED:
            services.match_abort(match_id=match.pk, actor=None, reason="test")
    services.message_post(match_id=match.pk, user=writer, text="sorry, on holiday until Monday")
    assert Message.objects.get().author == writer


@pytest.mark.parametrize(("text", "words"), [
    ("", services.MESSAGE_EMPTY),
    (" \r\n\t ", services.MESSAGE_EMPTY),
    ("x" * 501, "A message may be at most 500 characters; yours has 501."),
    ("hello\x00", services.MESSAGE_NUL),
])
def test_a_bad_message_is_refused_in_words_and_nothing_is_stored(alice, match, text, words):
    before = revision(match)
    with pytest.raises(services.ServiceError) as refused:
        services.message_post(match_id=match.pk, user=alice, text=text)
    assert words in refused.value.message and refused.value.status == 400
    assert not Message.objects.exists() and revision(match) == before


def test_500_characters_with_line_breaks_as_a_browser_sends_them_are_500(alice, match):
    typed = "\n".join(["x" * 100] * 5)[:-4]  # 500 characters in the box, 4 of them line breaks
    sent = typed.replace("\n", "\r\n")  # as the browser sends them: 504
    assert services.message_post(match_id=match.pk, user=alice, text=sent).text == typed


def test_only_a_player_seated_now_may_write(alice, bob, carol, staff, match):
    for outsider in (carol, staff):
        with pytest.raises(services.NotAllowed, match=services.MESSAGE_NOT_A_PLAYER):
            services.message_post(match_id=match.pk, user=outsider, text="hi")
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    with pytest.raises(services.NotAllowed, match=services.MESSAGE_NOT_A_PLAYER):  # he may watch, not write
        services.message_post(match_id=match.pk, user=bob, text="hi")
    assert not Message.objects.exists()


def test_a_closed_account_cannot_write(alice, bob, staff, match):
    services.match_resign(match_id=match.pk, user=alice)  # a finished match keeps her seat
    user_deactivate(user_id=alice.pk, actor=staff)
    alice.refresh_from_db()
    with pytest.raises(services.NotAllowed, match=services.MESSAGE_ACCOUNT_CLOSED):
        services.message_post(match_id=match.pk, user=alice, text="bye")


def test_at_most_ten_a_minute_then_in_words_until_the_minute_is_over(monkeypatch, settings, clock, alice, bob, match):
    monkeypatch.setattr("django.core.cache.backends.db.tz_now", clock)  # the cache's own clock moves too
    assert settings.MESSAGES_PER_MINUTE == 10
    for number in range(10):
        services.message_post(match_id=match.pk, user=alice, text=f"line {number}")
    with pytest.raises(services.TooFast, match=services.MESSAGES_TOO_FAST) as refused:
        services.message_post(match_id=match.pk, user=alice, text="one more")
    assert refused.value.status == 429 and Message.objects.count() == 10
    services.message_post(match_id=match.pk, user=bob, text="I may still answer")  # each player has their own
    clock.advance(seconds=services.MESSAGES_WINDOW_SECONDS + 1)
    services.message_post(match_id=match.pk, user=alice, text="one more")
    assert Message.objects.filter(author=alice).count() == 11


def test_staff_hide_a_message_and_open_pages_learn_of_it(alice, match):
    message = services.message_post(match_id=match.pk, user=alice, text="rude words")
    before = revision(match)
    services.message_hide(message_id=message.pk, hidden=True)
    assert Message.objects.get().hidden and revision(match) == before + 1
    services.message_hide(message_id=message.pk, hidden=True)  # as it was: no redraw for nothing
    assert revision(match) == before + 1


def test_the_latest_50_oldest_first_with_how_many_there_are(alice, bob, match):
    Message.objects.bulk_create(Message(match=match, author=(alice, bob)[n % 2], text=f"line {n}", after_move=0)
                                for n in range(60))
    latest = selectors.match_messages(match)
    assert latest.total == 60 and [m.text for m in latest.shown] == [f"line {n}" for n in range(10, 60)]
    every = selectors.match_messages(match, every=True)
    assert every.total == 60 and [m.text for m in every.shown] == [f"line {n}" for n in range(60)]
    other = start_match(alice, bob)
    assert selectors.match_messages(other) == selectors.Messages([], 0)


def test_a_deleted_author_s_message_stays(alice, carol, match):
    dora = make_user("dora")
    Message.objects.create(match=match, author=dora, text="kept", after_move=0)
    dora.delete()
    assert Message.objects.get().author is None
