"""Limits against flooding: how many times a player may do one thing in a window of time."""

from __future__ import annotations

from django.core.cache import cache
from django.utils import timezone


def allowed(key: str, most: int, seconds: int) -> bool:
    """Whether one more try under ``key`` is allowed: at most ``most`` in the ``seconds`` from the
    window's first try (refused tries count too). Counted in the cache, the database's, which every
    web process shares. Not with ``cache.incr``: the database cache writes the count back with its
    default timeout (5 minutes), which moved the window's end at every try. Two processes at the same
    instant may both pass; a limit against flooding needs no more."""
    now = timezone.now().timestamp()
    started, count = cache.get(key) or (now, 0)
    if now >= started + seconds:
        started, count = now, 0
    cache.set(key, (started, count + 1), started + seconds - now)
    return count < most
