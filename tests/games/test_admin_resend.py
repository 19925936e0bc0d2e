"""Sending a notification again from the admin's outbox: a copy goes out as it was written,
unless it is out of date, not sent yet, or of a kind the player unsubscribed from; staff read
the outbox but cannot edit or delete it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.services import SeatSpec
from notifications import services as notification_services
from notifications.models import Notification
from notifications.services import resending


def test_the_resend_action_queues_a_new_outbox_row(staff_client, alice, bob, django_capture_on_commit_callbacks):
    waiting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    original = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=waiting)  # still open
    Notification.objects.filter(pk=original.pk).update(sent_at=original.created_at, attempts=1)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(
            reverse("admin:notifications_notification_changelist"),
            {"action": "resend", "_selected_action": [original.pk]},
        )

    assert response.status_code == 302
    copy = Notification.objects.exclude(pk=original.pk).get(subject=original.subject)
    assert (copy.user, copy.match, copy.kind, copy.body) == (bob, original.match, original.kind, original.body)
    assert copy.sent_at is None and copy.attempts == 0
    assert len(callbacks) == 1, "the copy is handed to the worker after the commit"


def test_staff_read_the_outbox_but_cannot_edit_or_delete_a_notification(staff_client, bob, matches):
    original = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=matches["alice_bob"])
    other = Notification.objects.exclude(pk=original.pk).first()
    page = staff_client.get(reverse("admin:notifications_notification_change", args=[original.pk])).content.decode()
    assert original.subject in page and 'name="resent_from"' not in page and 'name="_save"' not in page

    staff_client.post(reverse("admin:notifications_notification_change", args=[original.pk]), {"resent_from": other.pk})
    staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {"action": "delete_selected", "_selected_action": [original.pk], "post": "yes"},
    )

    original.refresh_from_db()
    assert original.resent_from is None, "a hand-set copy would skip the checks before sending"


def test_a_resent_digest_goes_out_as_written_even_with_another_digest_waiting(staff_client, bob, matches):
    sent = Notification.objects.create(
        user=bob,
        kind=Notification.Kind.DIGEST,
        subject="2 matches wait for you",
        body="Mancala #1 ...",
        sent_at=timezone.now(),
        outcome="sent",
    )
    Notification.objects.create(user=bob, kind=Notification.Kind.DIGEST, subject="", body="")  # the next one
    never_written = Notification.objects.create(
        user=bob, kind=Notification.Kind.DIGEST, subject="", body="", sent_at=timezone.now(), outcome="skipped"
    )

    response = staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {"action": "resend", "_selected_action": [sent.pk, never_written.pk]},
        follow=True,
    )

    assert response.status_code == 200
    texts = [str(message) for message in response.context["messages"]]
    assert any(
        text.startswith(f"Notification {never_written.pk} (Daily digest to Bob): It has no text to send again")
        for text in texts
    )
    assert "1 notification queued again, to be sent as they were written." in texts
    copy = Notification.objects.get(resent_from=sent)
    assert notification_services.notification_send(notification_id=copy.pk)  # not re-rendered, not skipped
    copy.refresh_from_db()
    assert (copy.outcome, copy.body) == (Notification.Outcome.SENT, "Mancala #1 ...")


def test_a_resent_your_turn_notice_goes_out_while_it_is_still_their_turn(staff_client, alice, bob, matches):
    original = Notification.objects.create(
        user=alice,
        match=matches["alice_bob"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        sent_at=timezone.now(),
        outcome="sent",
    )
    notification_services.notification_resend(notification_id=original.pk)
    copy = Notification.objects.get(resent_from=original)
    assert notification_services.notification_send(notification_id=copy.pk)


def test_staff_cannot_resend_a_notice_that_is_out_of_date_or_not_sent_yet(staff_client, alice, bob, carol, matches):
    """A "your turn" after the turn passed, an invitation to a match that started or was
    cancelled, or a reminder still waiting for its time (it would go twice): each misled or
    pestered the player. The action says why, and queues nothing."""
    sent = {"sent_at": timezone.now(), "outcome": "sent"}
    not_bobs_turn = Notification.objects.create(
        user=bob,
        match=matches["alice_bob"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        **sent,
    )
    aborted_turn = Notification.objects.create(
        user=carol,
        match=matches["aborted"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        **sent,
    )
    accepted = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=matches["alice_bob"])
    Notification.objects.filter(pk=accepted.pk).update(**sent)
    waiting = Notification.objects.create(
        user=alice,
        match=matches["alice_bob"],
        kind=Notification.Kind.REMINDER,
        subject="A day left",
        body="Your clock runs out tomorrow.",
        due_at=timezone.now() + timedelta(days=2),
    )
    over = Notification.objects.create(
        user=alice,
        match=matches["aborted"],
        kind=Notification.Kind.MATCH_OVER,
        subject="Match over",
        body="It was aborted.",
        **sent,
    )
    before = Notification.objects.count()

    response = staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {
            "action": "resend",
            "_selected_action": [not_bobs_turn.pk, aborted_turn.pk, accepted.pk, waiting.pk, over.pk],
        },
        follow=True,
    )

    texts = [str(message) for message in response.context["messages"]]
    alice_bob, aborted = matches["alice_bob"], matches["aborted"]
    stale = resending.NO_LONGER_THEIR_TURN
    assert f"Notification {not_bobs_turn.pk} (Your turn to Bob about {alice_bob}): {stale}" in texts
    assert f"Notification {aborted_turn.pk} (Your turn to Carol about {aborted}): {stale}" in texts
    assert f"Notification {accepted.pk} (Invitation to Bob about {alice_bob}): {resending.INVITATION_CLOSED}" in texts
    assert (
        f"Notification {waiting.pk} (Reminder before the clock runs out to Alice about {alice_bob}): "
        f"{resending.NOT_SENT_YET}"
    ) in texts
    assert "1 notification queued again, to be sent as they were written." in texts, "what happened stays true"
    assert Notification.objects.count() == before + 1
    assert Notification.objects.get(resent_from__isnull=False).resent_from == over


def test_staff_cannot_resend_an_email_the_player_unsubscribed_from(staff_client, alice, bob):
    """An unsubscribe counts at once, also for what staff would send again."""
    waiting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    invitation = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=waiting)
    Notification.objects.filter(pk=invitation.pk).update(sent_at=timezone.now(), outcome="sent")
    bob.turn_notice = "none"
    bob.save()
    with pytest.raises(services.ServiceError, match="They chose in their profile to get no such email"):
        notification_services.notification_resend(notification_id=invitation.pk)
    assert not Notification.objects.filter(resent_from=invitation).exists()
