"""A player reports a message to staff: what is refused (in words, nothing stored), a second report
of the same message, the limit per hour, the one email staff get per message, the Report control on
the match page, and the admin's view of reports."""

from __future__ import annotations

import re

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.urls import reverse

from chat import services as chat_services
from chat import tasks as chat_tasks
from chat.models import Message, MessageReport
from games import services
from games.models import Match
from games.services import SeatSpec
from games.views import NOT_FOUND, OPENED_NOT_SENT
from notifications import tasks as notification_tasks
from tests.conftest import signed_in, start_match
from tests.games.test_tasks import wait_until, worker  # noqa: F401 (the worker fixture)

HTMX = {"HTTP_HX_REQUEST": "true"}
MODERATORS = ["mods@example.com", "owner@example.com"]


@pytest.fixture
def rude(alice, match) -> Message:
    return chat_services.message_post(match_id=match.pk, user=alice, text="you play like a potato")


def report(message: Message, user, reason: str = "") -> MessageReport:
    return chat_services.message_report(match_id=message.match_id, message_id=message.pk, user=user, reason=reason)


# --- the service ------------------------------------------------------------------------


def test_a_report_stores_who_reported_which_message_and_why(bob, rude):
    stored = report(rude, bob, "  an insult \r\n")
    assert (stored.message, stored.reporter, stored.reason) == (rude, bob, "an insult")
    assert MessageReport.objects.count() == 1


def test_one_s_own_message_cannot_be_reported(alice, rude):
    with pytest.raises(services.ServiceError, match=chat_services.REPORT_OWN_MESSAGE):
        report(rude, alice)
    assert not MessageReport.objects.exists()


def test_a_message_staff_hid_cannot_be_reported(bob, rude):
    chat_services.message_hide(message_id=rude.pk, hidden=True)
    with pytest.raises(services.ServiceError, match=chat_services.REPORT_HIDDEN_MESSAGE):
        report(rude, bob)
    assert not MessageReport.objects.exists()


def test_a_message_of_a_match_one_may_not_open_is_not_found(carol, rude):
    with pytest.raises(services.NotFound) as refused:
        report(rude, carol)
    assert refused.value.status == 404 and refused.value.message == chat_services.MESSAGE_NOT_FOUND
    assert not MessageReport.objects.exists()


def test_a_message_of_another_match_is_not_found(alice, bob, rude):
    other = start_match(alice, bob)
    for match_id, message_id in ((other.pk, rude.pk), (rude.match_id, 987654)):
        with pytest.raises(services.NotFound, match=chat_services.MESSAGE_NOT_FOUND):
            chat_services.message_report(match_id=match_id, message_id=message_id, user=bob, reason="")
    assert not MessageReport.objects.exists()


def test_a_spectator_may_report_what_they_read_only_where_the_messages_are_public(alice, carol):
    seats = [SeatSpec("creator"), SeatSpec("open")]
    theirs = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)
    public = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats, chat_public=True)
    unread, read = (
        chat_services.message_post(match_id=match.pk, user=alice, text="only good players please, idiots")
        for match in (theirs, public)
    )
    with pytest.raises(services.NotFound, match=chat_services.MESSAGE_NOT_FOUND):
        report(unread, carol)  # the players' messages are theirs alone: carol never read it
    assert report(read, carol).reporter == carol


def test_a_reason_over_200_characters_is_refused_in_words(bob, rude):
    with pytest.raises(services.ServiceError) as refused:
        report(rude, bob, "x" * 201)
    assert refused.value.message == "A reason may be at most 200 characters; yours has 201."
    assert not MessageReport.objects.exists()
    assert report(rude, bob, "x" * 200).reason == "x" * 200


def test_reporting_the_same_message_twice_is_no_error_and_stores_nothing_new(bob, rude):
    first = report(rude, bob, "an insult")
    with pytest.raises(services.AlreadyDone, match=chat_services.REPORTED_ALREADY):
        report(rude, bob, "still an insult")
    assert list(MessageReport.objects.values_list("pk", "reason")) == [(first.pk, "an insult")]


def test_at_most_ten_reports_an_hour_then_in_words_until_the_hour_is_over(monkeypatch, clock, alice, bob, match):
    monkeypatch.setattr("django.core.cache.backends.db.tz_now", clock)  # the cache's own clock moves too
    messages = Message.objects.bulk_create(
        Message(match=match, author=alice, text=f"line {n}", after_move=0) for n in range(11)
    )
    for message in messages[:10]:
        report(message, bob)
    with pytest.raises(services.TooFast, match=chat_services.REPORTS_TOO_FAST) as refused:
        report(messages[10], bob)
    assert refused.value.status == 429 and MessageReport.objects.count() == 10
    clock.advance(seconds=chat_services.REPORTS_WINDOW_SECONDS - 60)
    with pytest.raises(services.TooFast):
        report(messages[10], bob)
    clock.advance(seconds=61)
    report(messages[10], bob)
    assert MessageReport.objects.filter(reporter=bob).count() == 11


# --- staff are told --------------------------------------------------------------------------


@pytest.fixture
def moderators(settings):
    settings.MANAGERS = MODERATORS
    return MODERATORS


def staff_emails() -> list:
    return [message for message in mail.outbox if message.to == MODERATORS]


def sweep(clock) -> int:
    """Beat's sweep, once the grace for a report's own task has passed."""
    clock.advance(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS + 1)
    return chat_tasks.sweep_reports()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_first_report_of_a_message_emails_staff_once_through_the_worker(
    worker,  # noqa: F811
    moderators,
    alice,
    bob,
    staff,
):
    match = start_match(alice, bob)
    rude = chat_services.message_post(match_id=match.pk, user=alice, text="you play like a potato\nand smell like one")

    first = report(rude, bob, "an insult")

    wait_until(staff_emails, what="the worker to email staff")
    [email] = staff_emails()
    assert email.subject == f"A message reported in {match}"
    assert f"Bob (bob) reported a message in {match.full_name}" in email.body
    assert "Written by Alice (alice) before the first move" in email.body
    assert "you play like a potato\nand smell like one" in email.body
    assert "Reason: an insult" in email.body
    admin = django_settings.SITE_URL + reverse("admin:chat_message_change", args=[rude.pk])
    assert admin in email.body
    assert email.extra_headers["Auto-Submitted"] == "auto-generated"
    assert MessageReport.objects.get(pk=first.pk).staff_told_at is not None
    # The same task delivered again (acks_late, a redelivery) finds the report told and sends nothing.
    again = chat_tasks.tell_staff_of_report.delay(first.pk)
    wait_until(lambda: ("chat.tasks.tell_staff_of_report", again.id) in worker, what="the task delivered again")
    # Another player's report of the same message is counted in the admin, and emails nobody.
    report(rude, staff, "agreed")
    assert chat_tasks.sweep_reports() == 0
    assert len(staff_emails()) == 1


def test_only_the_first_report_schedules_an_email(
    moderators, alice, bob, staff, rude, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as first:
        report(rude, bob)
    with django_capture_on_commit_callbacks() as second:
        report(rude, staff)
    assert len(first) == 1 and not second


def test_a_report_whose_task_was_lost_is_emailed_by_the_sweep_once(moderators, clock, bob, staff, rude):
    first = report(rude, bob)  # its task is never run here
    report(rude, staff)
    assert chat_tasks.sweep_reports() == 0, "a recent report is left to its own task"
    assert sweep(clock) == 1 and sweep(clock) == 0
    assert len(staff_emails()) == 1 and "reported a message" in staff_emails()[0].body
    assert list(MessageReport.objects.filter(staff_told_at__isnull=False).values_list("pk", flat=True)) == [first.pk]


def test_a_mail_server_that_fails_leaves_the_report_to_be_told_later(moderators, clock, bob, rude, monkeypatch):
    first = report(rude, bob)
    real_send = chat_services.ReadableEmail.send

    def down(self, *args, **kwargs):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(chat_services.ReadableEmail, "send", down)
    with pytest.raises(ConnectionRefusedError):
        chat_services.report_staff_tell(report_id=first.pk)
    assert MessageReport.objects.get(pk=first.pk).staff_told_at is None and not staff_emails()
    monkeypatch.setattr(chat_services.ReadableEmail, "send", real_send)
    assert sweep(clock) == 1 and len(staff_emails()) == 1


def test_with_no_staff_address_set_nothing_is_sent_and_the_report_is_kept(settings, clock, bob, rude):
    settings.MANAGERS = []
    first = report(rude, bob)
    assert not chat_services.report_staff_tell(report_id=first.pk) and sweep(clock) == 0
    assert not mail.outbox and MessageReport.objects.get(pk=first.pk).staff_told_at is None


# --- the match page ---------------------------------------------------------------------------


def report_url(message: Message, **query) -> str:
    url = reverse("match_message_report", args=[message.match_id, message.pk])
    return url + ("?" + "&".join(f"{key}={value}" for key, value in query.items()) if query else "")


def item(page: str, message: Message) -> str:
    """The message's line on the page: from its <li> to the next."""
    return re.split(f'<li id="message-{message.pk}"[^>]*>', page)[1].split("</li>")[0]


def page_of(client, match) -> str:
    response = client.get(reverse("match_detail", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_report_control_is_beside_others_messages_only_and_takes_two_steps(alice, bob, match, rude):
    own = chat_services.message_post(match_id=match.pk, user=bob, text="you too")
    removed = chat_services.message_post(match_id=match.pk, user=alice, text="worse words")
    chat_services.message_hide(message_id=removed.pk, hidden=True)
    page = page_of(signed_in(bob), match)
    control = item(page, rude)
    assert f'<details class="report" id="report-{rude.pk}">' in control and "<summary>Report…</summary>" in control
    assert f'action="{report_url(rude)}"' in control and f'hx-post="{report_url(rude)}"' in control
    assert "Report this message to staff? Staff read it and may remove it." in control
    assert f'<label for="report-reason-{rude.pk}">' in control and 'maxlength="200"' in control
    assert "report-form" not in item(page, own), "not one's own"
    assert "report-form" not in item(page, removed), "not one staff removed"
    assert "report-form" not in item(page_of(signed_in(alice), match), rude), "its author gets none"


def test_someone_who_may_not_open_the_match_gets_no_control_and_reports_nothing(carol, rude):
    Match.objects.filter(pk=rude.match_id).update(public=False)
    carols = signed_in(carol)
    assert carols.get(reverse("match_detail", args=[rude.match_id])).status_code == 404
    for headers in ({}, HTMX):
        refused = carols.post(report_url(rude), {"reason": "x"}, **headers)
        assert refused.status_code == 404 and NOT_FOUND in refused.content.decode()
        assert "you play like a potato" not in refused.content.decode()
    assert not MessageReport.objects.exists()


def test_a_report_with_htmx_answers_with_the_redrawn_part_and_words_beside_the_message(bob, rude):
    response = signed_in(bob).post(report_url(rude), {"reason": "insult"}, **HTMX)
    fragment = response.content.decode()
    assert response.status_code == 200 and 'id="live"' in fragment and "<html" not in fragment
    assert chat_services.REPORTED in item(fragment, rude) and "report-form" not in item(fragment, rude)
    assert MessageReport.objects.get().reason == "insult"
    again = signed_in(bob).post(report_url(rude), {"reason": "insult"}, **HTMX)
    assert again.status_code == 200 and chat_services.REPORTED_ALREADY in item(again.content.decode(), rude)
    assert MessageReport.objects.count() == 1
    assert "You reported this message to staff." in item(page_of(signed_in(bob), rude.match), rude)


def test_a_report_without_htmx_returns_to_the_message_with_the_same_words(bob, rude):
    response = signed_in(bob).post(report_url(rude, messages="all"), {"reason": ""}, follow=True)
    url = reverse("match_detail", args=[rude.match_id])
    assert response.redirect_chain == [(f"{url}?messages=all#message-{rude.pk}", 302)]
    assert chat_services.REPORTED in response.content.decode() and MessageReport.objects.get().reason == ""


def test_a_refused_report_says_why_beside_the_message_and_keeps_the_reason(alice, bob, rude):
    client = signed_in(bob)
    fragment = client.post(report_url(rude), {"reason": "é" * 201}, **HTMX)
    said = item(fragment.content.decode(), rude)
    assert fragment.status_code == 400 and "A reason may be at most 200 characters; yours has 201." in said
    assert f'<details class="report" id="report-{rude.pk}" open>' in said and f'value="{"é" * 201}"' in said
    page = client.post(report_url(rude), {"reason": "é" * 201})
    assert page.status_code == 400 and "A reason may be at most 200" in page.content.decode()
    own = signed_in(alice).post(report_url(rude), {"reason": ""}, **HTMX)  # a forged form: none is offered
    assert own.status_code == 400 and chat_services.REPORT_OWN_MESSAGE in item(own.content.decode(), rude)
    chat_services.message_hide(message_id=rude.pk, hidden=True)  # while Bob's Report was open
    late = client.post(report_url(rude), {"reason": ""}, **HTMX)
    assert late.status_code == 400 and chat_services.REPORT_HIDDEN_MESSAGE in item(late.content.decode(), rude)
    assert not MessageReport.objects.exists()


def test_a_message_not_of_that_match_is_not_found(alice, bob, rude):
    other = start_match(alice, bob)
    refused = signed_in(bob).post(reverse("match_message_report", args=[other.pk, rude.pk]), **HTMX)
    assert refused.status_code == 404 and chat_services.MESSAGE_NOT_FOUND in refused.content.decode()
    assert not MessageReport.objects.exists()


def test_the_address_opened_by_get_goes_to_the_match_page_and_a_visitor_is_asked_to_sign_in(client, bob, rude):
    response = signed_in(bob).get(report_url(rude), follow=True)
    assert response.redirect_chain == [(reverse("match_detail", args=[rude.match_id]), 302)]
    assert OPENED_NOT_SENT in response.content.decode()
    visitor = client.post(report_url(rude))
    assert visitor.status_code == 302 and reverse("account_login") in visitor["Location"]
    assert not MessageReport.objects.exists()


def test_the_reported_player_never_learns_who_reported_them(alice, bob, rude):
    alices = signed_in(alice)
    before = page_of(alices, rude.match)
    token = Match.objects.get(pk=rude.match_id).poll_token
    signed_in(bob).post(report_url(rude), {"reason": "insult"}, **HTMX)
    assert Match.objects.get(pk=rude.match_id).poll_token == token, "no page redraws for a report"
    after = page_of(alices, rude.match)
    assert item(after, rude) == item(before, rude) and "report" not in item(after, rude).lower()
    assert "insult" not in after


def test_staff_get_no_report_control_but_a_way_to_remove_the_message(staff, rude):
    """Staff reported to staff; they remove a message in the admin, where its reports are listed."""
    page = page_of(signed_in(staff), rude.match)
    said = item(page, rude)
    assert "report-form" not in said and "Report…" not in said
    assert f'href="{reverse("admin:chat_message_change", args=[rude.pk])}">Remove it in the admin</a>' in said
