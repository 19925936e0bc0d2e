"""Limits against flooding: how many times a player may do one thing in a window of time.

Each count is a row (``Tries``) locked while it changes, so tries sent at the same moment, by
any number of web processes, are counted one after the other: at most ``most`` pass, however
many arrive together.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Tries


@transaction.atomic
def allowed(key: str, most: int, seconds: int) -> bool:
    """Whether one more try under ``key`` is allowed: at most ``most`` in the ``seconds`` from the
    window's first try (refused tries count too)."""
    now = timezone.now()
    # The same three queries whether the count exists yet or not (get_or_create's are more the first time).
    Tries.objects.bulk_create([Tries(key=key, window_started_at=now)], ignore_conflicts=True)
    tries = Tries.objects.select_for_update().get(key=key)
    if tries.window_started_at <= now - timedelta(seconds=seconds):
        tries.window_started_at, tries.count = now, 0
    tries.count += 1
    tries.save(update_fields=["window_started_at", "count"])
    return tries.count <= most


def give_back(key: str) -> None:
    """A try that turned out not to count (a right password): the one it took is given back."""
    Tries.objects.filter(key=key, count__gt=0).update(count=F("count") - 1)


def forget(key: str) -> None:
    Tries.objects.filter(key=key).delete()
