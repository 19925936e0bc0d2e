"""What the daily clearing (``housekeeping.tasks.clear_expired``) costs on a big backlog, and what a
sign-in's cache write costs before and after it.

    python bench/housekeeping.py [--rows N]

Fills a throwaway database (bench/site.py's: created here, dropped at the end) with N expired
sessions, N expired cache rows and N notifications sent long ago, plus a few live ones of each,
then times one run, a second run (nothing left to do), and Django's own ``clearsessions`` (one
DELETE) on the same N sessions for comparison. Prints numbers only; nothing here asserts on time.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from bench.site import table, throwaway_database
from housekeeping import clearing
from housekeeping import tasks as housekeeping_tasks
from notifications.models import Notification
from tests.conftest import make_user

LIVE = 100  # live rows of each kind, which must stay
CACHE_WRITES = 50  # timed cache writes (each counts the whole table, as Django's database cache does)
CHUNK = 5000


def fill(rows: int) -> None:
    now = timezone.now()
    past, future = now - timedelta(days=1), now + timedelta(days=1)
    user = make_user("alice")
    for start in range(0, rows + LIVE, CHUNK):
        numbers = range(start, min(start + CHUNK, rows + LIVE))
        Session.objects.bulk_create(
            Session(session_key=f"bench{n:035d}", session_data="x", expire_date=past if n < rows else future)
            for n in numbers
        )
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO django_cache (cache_key, value, expires) VALUES (%s, %s, %s)",
                [(f":1:bench-{n}", "gAVLAS4=", past if n < rows else future) for n in numbers],
            )
        Notification.objects.bulk_create(
            Notification(
                user=user,
                kind=Notification.Kind.YOUR_TURN,
                subject="Your turn",
                body="x" * 400,
                sent_at=now - timedelta(days=100 if n < rows else 1),
                outcome=Notification.Outcome.SENT,
            )
            for n in numbers
        )
    long_ago = now - timedelta(days=101)
    Notification.objects.filter(sent_at__lt=now - timedelta(days=99)).update(created_at=long_ago, due_at=long_ago)
    with connection.cursor() as cursor:
        for name in ("django_session", "django_cache", "games_notification"):
            cursor.execute(f"ANALYZE {name}" if connection.vendor == "postgresql" else f'ANALYZE "{name}"')


def cache_write_ms() -> float:
    times = []
    for n in range(CACHE_WRITES):
        began = time.perf_counter()
        cache.set(f"bench-write-{n}", n, 300)
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def timed(call) -> tuple[object, float]:
    began = time.perf_counter()
    result = call()
    return result, time.perf_counter() - began


def plan(queryset) -> str:
    """The database's plan for one batch's selection, on one line."""
    selection = queryset.select_for_update(skip_locked=True).order_by().values_list("pk", flat=True)
    with transaction.atomic():
        lines = selection[: clearing.BATCH].explain().splitlines()
    return "\n    ".join(line.split("  (cost")[0] for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="expired rows of each kind (default 100000)")
    args = parser.parse_args()
    with throwaway_database() as database:
        print(
            f"Database: {database}; {args.rows} expired rows of each kind, {LIVE} live, batches of {clearing.BATCH}\n"
        )
        began = time.perf_counter()
        fill(args.rows)
        print(f"Filled in {time.perf_counter() - began:.1f} s\n")
        print("Plans of one batch's selection:")
        print(f"  sessions:\n    {plan(clearing.expired_sessions())}")
        print(f"  notifications:\n    {plan(clearing.old_notifications())}\n")

        write_before = cache_write_ms()
        rows, total = [], 0.0
        for name, clear in [
            ("sessions", clearing.expired_sessions_clear),
            ("cache rows", clearing.expired_cache_clear),
            ("notifications", clearing.old_notifications_clear),
        ]:
            count, seconds = timed(clear)
            batches = -(-count // clearing.BATCH)
            rows.append([name, str(count), f"{seconds:.2f} s", f"{seconds / max(batches, 1) * 1000:.1f} ms"])
            total += seconds
        print(table(["cleared", "rows", "time", "per batch"], rows))
        write_after = cache_write_ms()
        again, second = timed(housekeeping_tasks.clear_expired)
        print(
            f"\nOne run: {total:.2f} s; a second run (the whole task) found {sum(again.values())} rows "
            f"in {second * 1000:.0f} ms"
        )
        print(
            f"A cache write (a sign-in's rate-limit counter), median of {CACHE_WRITES}: "
            f"{write_before:.2f} ms with the backlog, {write_after:.2f} ms after"
        )
        assert Session.objects.count() == LIVE, "live sessions must stay"

        Session.objects.all().delete()
        fill_sessions_only = [
            Session(session_key=f"again{n:035d}", session_data="x", expire_date=timezone.now() - timedelta(days=1))
            for n in range(args.rows)
        ]
        Session.objects.bulk_create(fill_sessions_only, batch_size=CHUNK)
        _, django_own = timed(SessionStore.clear_expired)
        assert not Session.objects.exists()
        print(f"Django's clearsessions on {args.rows} expired sessions: {django_own:.2f} s in one transaction")


if __name__ == "__main__":
    main()
