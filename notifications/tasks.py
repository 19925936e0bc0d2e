"""Thin, idempotent Celery tasks for the outbox: send one notice, and the relay sweep (beat)
that sends whatever is due and was not sent by its own task (lost, failed, or due later).

Services import this module to publish; a task imports the services inside its body.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.db.models import Q
from django.utils import timezone

from config.publish import MAX_SEND_ATTEMPTS, SWEEP_BATCH, publish, retry_later, send_each
from notifications.models import Notification

# Notifications due this long ago and still unsent had their task lost: the relay sends them.
NOTIFICATION_SWEEP_AFTER_SECONDS = 60
# Kinds no task is published for: only the sweep sends them, as soon as they are due.
SCHEDULED_KINDS = (Notification.Kind.REMINDER, Notification.Kind.DIGEST, Notification.Kind.MESSAGE)


@shared_task(bind=True, ignore_result=True, max_retries=MAX_SEND_ATTEMPTS)
def send_notification(self, notification_id: int) -> None:
    from notifications.services import notification_send

    try:
        notification_send(notification_id=notification_id)
    except Exception as error:
        retry_later(self, error, f"Notification {notification_id}")


@shared_task(ignore_result=True)
def sweep_notifications() -> int:
    """The relay: send what is due and was not sent by its own task (lost, failed, or scheduled)."""
    from notifications.services import notification_send

    now = timezone.now()
    cutoff = now - timedelta(seconds=NOTIFICATION_SWEEP_AFTER_SECONDS)
    pending = (
        Notification.objects.filter(sent_at__isnull=True, due_at__lte=now)
        .filter(Q(created_at__lt=cutoff) | Q(kind__in=SCHEDULED_KINDS) | Q(attempts__gt=0))
        .order_by("due_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return send_each(pending, lambda pk: notification_send(notification_id=pk), "Notification")


def enqueue_notification(notification_id: int) -> None:
    publish(send_notification, (notification_id,))
