"""Handing work to Celery without a web request ever waiting on the broker.

A failed publish trips a breaker that skips publishing for ``BROKER_PAUSE_SECONDS``; the work
is kept in the database (outbox rows, an AI seat to act) and the beat sweeps do it once the
broker answers again. The retry helpers are the ones every sending task shares.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from django.conf import settings

log = logging.getLogger(__name__)

BROKER_PAUSE_SECONDS = 30
# Tries of one email or webhook post (its task's retries, then the sweep's) before it fails for good.
MAX_SEND_ATTEMPTS = 8
# Rows one run of a sweep takes at most; the next run takes the rest.
SWEEP_BATCH = 200
# A task retry waits at most this long; later attempts are left to the sweep (no long countdowns).
MAX_RETRY_COUNTDOWN_SECONDS = 300


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


def publish(task, args: tuple, **options) -> bool:
    """Queue ``task`` with ``args`` (and Celery's ``options``, such as a priority) once, or leave it to
    the sweeps; never raises, never waits."""
    if not breaker.closed():
        log.info("Broker marked down: %s%s is left to the sweep.", task.name, args)
        return False
    try:
        # retry=False: a request must never wait on a broker that is down; the sweep catches up.
        task.apply_async(args, retry=False, **options)
    except Exception:
        breaker.trip()
        log.warning("Could not publish %s%s; the sweep will do it.", task.name, args, exc_info=True)
        return False
    return True


def retry_later(task, error: Exception, what: str) -> None:
    """The mail server or webhook failed: try again later, backing off (30 s, 60 s, 120 s ...);
    past the longest wait, the sweep sends it."""
    countdown = settings.NOTIFICATION_RETRY_SECONDS * 2**task.request.retries
    if countdown > MAX_RETRY_COUNTDOWN_SECONDS:
        log.info("%s: further attempts are left to the sweep.", what)
        return
    raise task.retry(exc=error, countdown=countdown) from error


def send_each(pending: Iterable[int], send: Callable[[int], bool], what: str) -> int:
    """Each of ``pending`` (primary keys) sent on its own: one that fails stays for the next sweep."""
    count = 0
    for pk in pending:
        try:
            count += send(pk)
        except Exception:
            log.warning("%s %s could not be sent; it stays pending.", what, pk, exc_info=True)
    return count
