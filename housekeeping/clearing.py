"""What only grows and is not the product, cleared once a day (``tasks.clear_expired``):
expired sessions, expired rows of the database cache, the limits' old counts, notifications
done with long ago and old development mail files. Matches, moves and events are the product and stay.

Each clearing takes a small batch at a time, each batch its own short transaction, so no run
holds a lock for long; two runs at once take different rows (``SKIP LOCKED``) and a second
run finds nothing left to do.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Tries
from notifications.models import Notification

log = logging.getLogger(__name__)

BATCH = 1000
# Django's file backend names each file "<date>-<time>-<number>.log"; nothing else there is ours to remove.
MAIL_FILE_PATTERN = "*.log"


def expired_sessions_clear() -> int:
    """What Django's ``clearsessions`` does, in batches (its one DELETE locks every expired row at once)."""
    return _clear_in_batches(expired_sessions())


def expired_sessions() -> QuerySet[Session]:
    return Session.objects.filter(expire_date__lt=timezone.now())


def expired_cache_clear() -> int:
    """The database cache drops expired rows only once it holds ``MAX_ENTRIES``, and counts
    all its rows at every write (allauth's rate limits write at each sign-in)."""
    cleared = 0
    for alias in settings.CACHES:
        cache = caches[alias]
        if isinstance(cache, DatabaseCache):
            cleared += _expired_cache_rows_clear(cache)
    return cleared


def _expired_cache_rows_clear(cache: DatabaseCache) -> int:
    connection = connections[router.db_for_write(cache.cache_model_class)]
    table = connection.ops.quote_name(cache._table)
    # As the cache compares: whole seconds, in the form the database stores.
    now = connection.ops.adapt_datetimefield_value(timezone.now().replace(microsecond=0))
    lock = " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    batch = f"DELETE FROM {table} WHERE cache_key IN (SELECT cache_key FROM {table} WHERE expires < %s LIMIT %s{lock})"
    cleared = 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(batch, [now, BATCH])
            count = cursor.rowcount
        cleared += count
        if count < BATCH:
            return cleared


def old_tries_clear() -> int:
    """The limits' counts (``accounts.limits``) whose window began more than a day ago: the longest
    window is an hour, so a new try would start a new one anyway."""
    return _clear_in_batches(Tries.objects.filter(window_started_at__lt=timezone.now() - timedelta(days=1)))


def old_notifications_clear() -> int:
    return _clear_in_batches(old_notifications())


def old_notifications() -> QuerySet[Notification]:
    """Notifications sent, skipped or failed more than ``NOTIFICATIONS_KEEP_DAYS`` ago. Pending
    ones stay whatever their age, and so does an original whose staff copy stays (the copy
    would otherwise no longer be a copy, and be checked as a new notice)."""
    cutoff = timezone.now() - timedelta(days=settings.NOTIFICATIONS_KEEP_DAYS)
    copies_kept = Notification.objects.filter(
        Q(sent_at__isnull=True) | Q(sent_at__gte=cutoff), resent_from__isnull=False
    ).values("resent_from")
    # created_at <= sent_at: the condition on it only lets the query use the index on created_at.
    return Notification.objects.filter(created_at__lt=cutoff, sent_at__lt=cutoff).exclude(pk__in=copies_kept)


def old_mail_files_clear() -> int:
    """The development mail files (``var/mail``, when no ``EMAIL_HOST`` is set), one per
    connection, kept ``MAIL_FILES_KEEP_DAYS`` after they were last written."""
    cutoff = time.time() - settings.MAIL_FILES_KEEP_DAYS * 86400
    cleared = 0
    for path in Path(settings.MAIL_FILE_PATH).glob(MAIL_FILE_PATTERN):
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                cleared += 1
        except FileNotFoundError:  # another run took it first
            continue
    return cleared


def _clear_in_batches(expired) -> int:
    """Delete the rows of ``expired`` a batch at a time, each batch one short transaction that
    locks its rows and skips those another run has locked."""
    label = expired.model._meta.label
    cleared = 0
    while True:
        with transaction.atomic():
            batch = expired.select_for_update(skip_locked=True).order_by().values("pk")[:BATCH]
            count = expired.model.objects.filter(pk__in=batch).only("pk").delete()[1].get(label, 0)
        cleared += count
        if count < BATCH:
            return cleared
