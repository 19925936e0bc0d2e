"""A player reports a message to staff: what is refused (in words, nothing stored), a second report
of the same message, the limit per hour, the one email staff get per message, the Report control on
the match page, and the admin's view of reports."""

from __future__ import annotations

import pytest

from games import services
from games.models import Message, MessageReport
from games.services import SeatSpec
from tests.conftest import start_match


@pytest.fixture
def rude(alice, match) -> Message:
    return services.message_post(match_id=match.pk, user=alice, text="you play like a potato")


def report(message: Message, user, reason: str = "") -> MessageReport:
    return services.message_report(match_id=message.match_id, message_id=message.pk, user=user, reason=reason)


# --- the service ------------------------------------------------------------------------


def test_a_report_stores_who_reported_which_message_and_why(bob, rude):
    stored = report(rude, bob, "  an insult \r\n")
    assert (stored.message, stored.reporter, stored.reason) == (rude, bob, "an insult")
    assert MessageReport.objects.count() == 1


def test_one_s_own_message_cannot_be_reported(alice, rude):
    with pytest.raises(services.ServiceError, match=services.REPORT_OWN_MESSAGE):
        report(rude, alice)
    assert not MessageReport.objects.exists()


def test_a_message_staff_hid_cannot_be_reported(bob, rude):
    services.message_hide(message_id=rude.pk, hidden=True)
    with pytest.raises(services.ServiceError, match=services.REPORT_HIDDEN_MESSAGE):
        report(rude, bob)
    assert not MessageReport.objects.exists()


def test_a_message_of_a_match_one_may_not_open_is_not_found(carol, rude):
    with pytest.raises(services.NotFound) as refused:
        report(rude, carol)
    assert refused.value.status == 404 and refused.value.message == services.MESSAGE_NOT_FOUND
    assert not MessageReport.objects.exists()


def test_a_message_of_another_match_is_not_found(alice, bob, rude):
    other = start_match(alice, bob)
    for match_id, message_id in ((other.pk, rude.pk), (rude.match_id, 987654)):
        with pytest.raises(services.NotFound, match=services.MESSAGE_NOT_FOUND):
            services.message_report(match_id=match_id, message_id=message_id, user=bob, reason="")
    assert not MessageReport.objects.exists()


def test_a_spectator_of_an_open_challenge_may_report_what_they_read(alice, carol):
    challenge = services.match_create(creator=alice, game_slug="mancala", options={},
                                      seats=[SeatSpec("creator"), SeatSpec("open")])
    message = services.message_post(match_id=challenge.pk, user=alice, text="only good players please, idiots")
    assert report(message, carol).reporter == carol


def test_a_reason_over_200_characters_is_refused_in_words(bob, rude):
    with pytest.raises(services.ServiceError) as refused:
        report(rude, bob, "x" * 201)
    assert refused.value.message == "A reason may be at most 200 characters; yours has 201."
    assert not MessageReport.objects.exists()
    assert report(rude, bob, "x" * 200).reason == "x" * 200


def test_reporting_the_same_message_twice_is_no_error_and_stores_nothing_new(bob, rude):
    first = report(rude, bob, "an insult")
    with pytest.raises(services.AlreadyDone, match=services.REPORTED_ALREADY):
        report(rude, bob, "still an insult")
    assert list(MessageReport.objects.values_list("pk", "reason")) == [(first.pk, "an insult")]


def test_at_most_ten_reports_an_hour_then_in_words_until_the_hour_is_over(monkeypatch, clock, alice, bob, match):
    monkeypatch.setattr("django.core.cache.backends.db.tz_now", clock)  # the cache's own clock moves too
    messages = Message.objects.bulk_create(Message(match=match, author=alice, text=f"line {n}", after_move=0)
                                           for n in range(11))
    for message in messages[:10]:
        report(message, bob)
    with pytest.raises(services.TooFast, match=services.REPORTS_TOO_FAST) as refused:
        report(messages[10], bob)
    assert refused.value.status == 429 and MessageReport.objects.count() == 10
    clock.advance(seconds=services.REPORTS_WINDOW_SECONDS - 60)
    with pytest.raises(services.TooFast):
        report(messages[10], bob)
    clock.advance(seconds=61)
    report(messages[10], bob)
    assert MessageReport.objects.filter(reporter=bob).count() == 11
