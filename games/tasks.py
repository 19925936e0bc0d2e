"""Thin, idempotent Celery tasks. They take ids (and the version they were made for)
and call services; the periodic sweeps (Celery beat) redo whatever a lost or failed
task left and apply everything that is due: deadlines, reminders, digests, vacations, open
matches that waited too long; once a day ``clear_expired`` clears what only grows
(``games/housekeeping.py``).

A web request never waits on the broker: a failed publish trips a breaker that skips
publishing for ``BROKER_PAUSE_SECONDS``; the rows stay in the database and the relay
sweep delivers them once the broker answers again.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games import housekeeping, selectors, services
from games.models import Match, Notification, Seat, Status

log = logging.getLogger(__name__)

# A move older than this with an AI still to act means its task was lost.
AI_STALL_SECONDS = 30
# Notifications due this long ago and still unsent had their task lost: the relay sends them.
NOTIFICATION_SWEEP_AFTER_SECONDS = 60
# Kinds no task is published for: only the sweep sends them, as soon as they are due.
SCHEDULED_KINDS = (Notification.Kind.REMINDER, Notification.Kind.DIGEST, Notification.Kind.MESSAGE)
# A task retry waits at most this long; later attempts are left to the sweep (no long countdowns).
MAX_RETRY_COUNTDOWN_SECONDS = 300
BROKER_PAUSE_SECONDS = 30
MAX_SEND_ATTEMPTS = 8
SWEEP_BATCH = 200


@shared_task(ignore_result=True)
def ai_move(match_id: int, expected_version: int) -> None:
    services.ai_turn_play(match_id=match_id, expected_version=expected_version)


@shared_task(bind=True, ignore_result=True, max_retries=MAX_SEND_ATTEMPTS)
def send_notification(self, notification_id: int) -> None:
    try:
        services.notification_send(notification_id=notification_id)
    except Exception as error:
        _retry_later(self, error, f"Notification {notification_id}")


def _retry_later(task, error: Exception, what: str) -> None:
    """The mail server or webhook failed: try again later, backing off (30 s, 60 s, 120 s ...);
    past the longest wait, the sweep sends it."""
    countdown = settings.NOTIFICATION_RETRY_SECONDS * 2**task.request.retries
    if countdown > MAX_RETRY_COUNTDOWN_SECONDS:
        log.info("%s: further attempts are left to the sweep.", what)
        return
    raise task.retry(exc=error, countdown=countdown) from error


@shared_task(ignore_result=True)
def sweep_notifications() -> int:
    """The relay: send what is due and was not sent by its own task (lost, failed, or scheduled)."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=NOTIFICATION_SWEEP_AFTER_SECONDS)
    pending = (
        Notification.objects.filter(sent_at__isnull=True, due_at__lte=now)
        .filter(Q(created_at__lt=cutoff) | Q(kind__in=SCHEDULED_KINDS) | Q(attempts__gt=0))
        .order_by("due_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return _send_each(pending, lambda pk: services.notification_send(notification_id=pk), "Notification")


def _send_each(pending, send, what: str) -> int:
    """Each of ``pending`` (primary keys) sent on its own: one that fails stays for the next sweep."""
    count = 0
    for pk in pending:
        try:
            count += send(pk)
        except Exception:
            log.warning("%s %s could not be sent; it stays pending.", what, pk, exc_info=True)
    return count


@shared_task(bind=True, ignore_result=True, max_retries=MAX_SEND_ATTEMPTS)
def tell_staff_of_report(self, report_id: int) -> None:
    try:
        services.report_staff_tell(report_id=report_id)
    except Exception as error:
        _retry_later(self, error, f"Report {report_id} (telling staff)")


@shared_task(ignore_result=True)
def sweep_reports() -> int:
    """Email staff about the reports whose own task was lost or failed (as ``sweep_notifications``)."""
    cutoff = timezone.now() - timedelta(seconds=NOTIFICATION_SWEEP_AFTER_SECONDS)
    pending = (
        selectors.reports_staff_not_told()
        .filter(created_at__lt=cutoff)
        .order_by("pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return _send_each(pending, lambda pk: services.report_staff_tell(report_id=pk), "Report to staff")


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """Apply every timeout that is due. Each goes through ``match_timeout``, which locks the
    match and re-checks, so two sweeps at once (or a late one) apply it once."""
    now = timezone.now()
    due = (
        Seat.objects.filter(deadline__lte=now, to_act=True, match__status=Status.ACTIVE)
        .order_by("deadline")
        .values_list("match_id", "match__version")[:SWEEP_BATCH]
    )
    applied = 0
    for match_id, version in dict(due).items():
        try:
            applied += bool(services.match_timeout(match_id=match_id, expected_version=version))
        except Exception:
            log.exception("The timeout of match %s failed; the next sweep tries again.", match_id)
    return applied


@shared_task(ignore_result=True)
def sweep_vacations() -> int:
    """End the vacations that are over, so the clocks run again."""
    from accounts.models import User

    over = User.objects.filter(vacation_until__lte=timezone.now()).values_list("pk", flat=True)[:SWEEP_BATCH]
    ended = 0
    for user_id in over:
        try:
            services.vacation_end(user_id=user_id)
        except Exception:
            log.exception("Ending the vacation of user %s failed; the next sweep tries again.", user_id)
        else:
            ended += 1
    return ended


@shared_task(ignore_result=True)
def sweep_open_matches() -> dict[str, int]:
    """Cancel the matches still waiting for players at their ``open_until``, and tell the invited
    players who have not answered ``OPEN_MATCH_WARN_DAYS`` before. Each match goes through a
    service that locks it and re-checks, so a join that got in first wins and two sweeps at once
    act once; a batch a run, oldest first, the next run takes the rest."""
    now = timezone.now()
    waiting = Match.objects.filter(status=Status.OPEN).order_by("open_until")
    expired = list(waiting.filter(open_until__lte=now).values_list("pk", flat=True)[:SWEEP_BATCH])
    to_tell = list(
        waiting.filter(
            open_until__gt=now,
            open_until_told=False,
            open_until__lte=now + timedelta(days=settings.OPEN_MATCH_WARN_DAYS),
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    done = {"cancelled": 0, "told": 0}
    for name, service, match_ids in (
        ("cancelled", services.match_expire, expired),
        ("told", services.invitation_expiry_tell, to_tell),
    ):
        for match_id in match_ids:
            try:
                done[name] += service(match_id=match_id)
            except Exception:
                log.exception("%s for open match %s failed; the next sweep tries again.", service.__name__, match_id)
    return done


@shared_task(ignore_result=True)
def sweep_ai_turns() -> int:
    """Wake AI seats whose task was lost (for example while the broker was down)."""
    cutoff = timezone.now() - timedelta(seconds=AI_STALL_SECONDS)
    stalled = (
        Seat.objects.filter(ai_level__isnull=False, to_act=True, match__status=Status.ACTIVE)
        .exclude(match__last_move_at__gt=cutoff)
        .exclude(match__last_move_at__isnull=True, match__created_at__gt=cutoff)
        .values_list("match_id", "match__version")[:SWEEP_BATCH]
    )
    for match_id, version in stalled:
        ai_move.delay(match_id, version)
    return len(stalled)


@shared_task(ignore_result=True)
def clear_expired() -> dict[str, int]:
    """Daily: clear what only grows and is not the product (``games/housekeeping.py``). One
    clearing that fails is logged and tried again the next day; the others still run."""
    clearings = {
        "sessions": housekeeping.expired_sessions_clear,
        "cache_rows": housekeeping.expired_cache_clear,
        "notifications": housekeeping.old_notifications_clear,
        "mail_files": housekeeping.old_mail_files_clear,
    }
    cleared = {}
    for name, clear in clearings.items():
        try:
            cleared[name] = clear()
        except Exception:
            log.exception("Clearing the old %s failed; the next run tries again.", name.replace("_", " "))
    log.info("Cleared: %s.", ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in cleared.items()))
    return cleared


# --- called after a commit by services ---------------------------------------------


class BrokerBreaker:
    """Skip publishing for a while after a publish failed, so that a broker that is down
    costs one failed attempt per process and pause, not one per request."""

    def __init__(self, pause_seconds: float):
        self.pause_seconds = pause_seconds
        self._open_until = 0.0
        self._lock = threading.Lock()

    def closed(self) -> bool:
        return time.monotonic() >= self._open_until

    def trip(self) -> None:
        with self._lock:
            self._open_until = time.monotonic() + self.pause_seconds

    def reset(self) -> None:
        with self._lock:
            self._open_until = 0.0


breaker = BrokerBreaker(BROKER_PAUSE_SECONDS)


def _publish(task, args: tuple) -> bool:
    if not breaker.closed():
        log.info("Broker marked down: %s%s is left to the sweep.", task.name, args)
        return False
    try:
        # retry=False: a request must never wait on a broker that is down; the sweep catches up.
        task.apply_async(args, retry=False)
    except Exception:
        breaker.trip()
        log.warning("Could not publish %s%s; the sweep will do it.", task.name, args, exc_info=True)
        return False
    return True


def enqueue_ai_move(match_id: int, version: int) -> None:
    _publish(ai_move, (match_id, version))


def enqueue_notification(notification_id: int) -> None:
    _publish(send_notification, (notification_id,))


def enqueue_report(report_id: int) -> None:
    _publish(tell_staff_of_report, (report_id,))
