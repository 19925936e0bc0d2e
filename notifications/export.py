"""The player's notifications in "Download my data" (``accounts.export``)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from notifications.models import Notification


def notifications(user: User) -> list[dict]:
    """The notifications of the days the site keeps them (``NOTIFICATIONS_KEEP_DAYS``), pending ones too."""
    since = timezone.now() - timedelta(days=settings.NOTIFICATIONS_KEEP_DAYS)
    kept = Notification.objects.filter(user=user, created_at__gte=since)
    rows = kept.order_by("created_at", "pk").values_list(
        "kind", "channel", "subject", "match_id", "created_at", "due_at", "outcome", "sent_at"
    )
    return [
        {
            "kind": kind,
            "channel": channel,
            "subject": subject,
            "match": match,
            "created_at": created,
            "due_at": due,
            "status": outcome or "pending",
            "done_at": sent,
        }
        for kind, channel, subject, match, created, due, outcome, sent in rows
    ]
