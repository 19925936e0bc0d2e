"""Reads of the outbox that are more than a filter."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from accounts.models import User
from chat.models import Message
from games.models import Seat, Status
from notifications.models import Notification


def with_resend_facts(notifications: QuerySet[Notification]) -> QuerySet[Notification]:
    """Notifications with what says whether a copy would still be true, read in their own
    query however many there are (``notifications.services.resend_refusal``): ``their_turn``, the player's
    seat is to act in the match, in play; ``still_invited``, their invitation to the match
    still waits for an answer."""
    theirs = Seat.objects.filter(match=OuterRef("match"), user=OuterRef("user"))
    removed = Message.objects.filter(match=OuterRef("match"), pk__gte=OuterRef("first_message"), hidden=True)
    return notifications.annotate(
        their_turn=Exists(theirs.filter(to_act=True, match__status=Status.ACTIVE)),
        still_invited=Exists(theirs.filter(accepted=False, match__status=Status.OPEN)),
        removed_since=Exists(removed),
    )


def failures_to_show(user: User) -> QuerySet[Notification]:
    """The last failed deliveries that still concern the current email address and webhook URL."""
    failures = Notification.objects.filter(
        user=user,
        outcome=Notification.Outcome.FAILED,
        sent_at__gte=timezone.now() - timedelta(days=settings.FAILURES_SHOWN_DAYS),
    )
    if user.email_changed_at:
        failures = failures.exclude(channel=Notification.Channel.EMAIL, sent_at__lt=user.email_changed_at)
    if user.webhook_changed_at:
        failures = failures.exclude(channel=Notification.Channel.WEBHOOK, sent_at__lt=user.webhook_changed_at)
    return failures.order_by("-sent_at")[:5]
