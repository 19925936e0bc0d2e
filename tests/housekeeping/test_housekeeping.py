"""The daily clearing (``housekeeping_tasks.clear_expired``): what only grows and is not the product goes,
in batches, and nothing else: expired sessions and cache rows, notifications done with long
ago, old development mail files. Two runs at once clear each row once."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from accounts import limits
from accounts.models import Tries
from config.celery import app
from games.models import Status
from housekeeping import clearing
from housekeeping import tasks as housekeeping_tasks
from notifications.models import Notification
from tests.conftest import start_match
from tests.games.test_race import require_postgresql, run_together

SMALL_BATCH = 3  # several batches from a few rows


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(clearing, "BATCH", SMALL_BATCH)


@pytest.fixture
def cache_emptied():
    """The cache table is no model's: a transactional test's flush leaves its rows to the next test."""
    cache.clear()
    yield
    cache.clear()


def sessions(count: int, *, expired: bool) -> set[str]:
    keys = set()
    for _ in range(count):
        store = SessionStore()
        store["who"] = "someone"
        store.create()
        keys.add(store.session_key)
    moved = timedelta(days=-1 if expired else 1)
    Session.objects.filter(pk__in=keys).update(expire_date=timezone.now() + moved)
    return keys


def cache_rows(prefix: str, count: int, *, expired: bool) -> list[str]:
    """As allauth's rate limits leave them: a counter per key, with a timeout."""
    keys = [f"{prefix}-{n}" for n in range(count)]
    cache.set_many(dict.fromkeys(keys, 1), timeout=300)
    if expired:
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE django_cache SET expires = %s WHERE cache_key LIKE %s",
                [timezone.now() - timedelta(seconds=1), f"%{prefix}-%"],
            )
    return keys


def cache_keys() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM django_cache")
        return {key.split(":", 2)[-1] for (key,) in cursor.fetchall()}  # the cache's ":1:" prefix off


def notification(
    user,
    *,
    created_days_ago: float,
    sent_days_ago: float | None,
    outcome: str = Notification.Outcome.SENT,
    resent_from=None,
) -> Notification:
    now = timezone.now()
    row = Notification.objects.create(
        user=user, kind=Notification.Kind.YOUR_TURN, subject="s", body="b", resent_from=resent_from
    )
    sent_at = None if sent_days_ago is None else now - timedelta(days=sent_days_ago)
    Notification.objects.filter(pk=row.pk).update(
        created_at=now - timedelta(days=created_days_ago),
        due_at=now - timedelta(days=created_days_ago),
        sent_at=sent_at,
        outcome=outcome if sent_at else Notification.Outcome.PENDING,
    )
    return row


@pytest.mark.django_db
def test_it_clears_expired_sessions_in_batches_and_keeps_the_live_ones(small_batches):
    """Django never ran ``clearsessions``: every expired session stayed in the table for good."""
    expired, live = sessions(SMALL_BATCH * 2 + 1, expired=True), sessions(2, expired=False)

    assert housekeeping_tasks.clear_expired()["sessions"] == len(expired)
    assert set(Session.objects.values_list("pk", flat=True)) == live
    assert housekeeping_tasks.clear_expired()["sessions"] == 0, "a second run finds nothing to do"


@pytest.mark.django_db
def test_it_clears_expired_cache_rows_and_keeps_the_live_counters(small_batches, cache_emptied):
    """The database cache dropped expired rows only once it held MAX_ENTRIES (a million)."""
    cache_rows("old", SMALL_BATCH * 2 + 1, expired=True)
    live = cache_rows("live", 2, expired=False)

    assert housekeeping_tasks.clear_expired()["cache_rows"] == SMALL_BATCH * 2 + 1
    assert cache_keys() == set(live)
    assert cache.get_many(live) == dict.fromkeys(live, 1)
    assert housekeeping_tasks.clear_expired()["cache_rows"] == 0


@pytest.mark.django_db
def test_it_clears_the_limits_counts_of_windows_long_over(small_batches, clock):
    """A count per player and thing tried (accounts.limits) would otherwise stay for good."""
    old = [f"old-{n}" for n in range(SMALL_BATCH * 2 + 1)]
    for key in old:
        limits.allowed(key, 10, 3600)
    clock.advance(days=1, seconds=1)
    limits.allowed("live", 10, 3600)

    assert housekeeping_tasks.clear_expired()["tries"] == len(old)
    assert list(Tries.objects.values_list("key", flat=True)) == ["live"]
    assert housekeeping_tasks.clear_expired()["tries"] == 0


@pytest.mark.django_db
def test_it_clears_notifications_done_with_long_ago_and_keeps_the_rest(alice, settings):
    """The outbox kept every notification ever sent or skipped, for good."""
    settings.NOTIFICATIONS_KEEP_DAYS = 90
    old_sent = notification(alice, created_days_ago=92, sent_days_ago=91)
    old_failed = notification(alice, created_days_ago=100, sent_days_ago=99, outcome=Notification.Outcome.FAILED)
    old_skipped = notification(alice, created_days_ago=95, sent_days_ago=95, outcome=Notification.Outcome.SKIPPED)
    recent = notification(alice, created_days_ago=100, sent_days_ago=89)  # retried for days: its sending counts
    pending = notification(alice, created_days_ago=200, sent_days_ago=None)
    copied_lately = notification(alice, created_days_ago=120, sent_days_ago=120)
    recent_copy = notification(alice, created_days_ago=1, sent_days_ago=1, resent_from=copied_lately)
    copied_now = notification(alice, created_days_ago=120, sent_days_ago=120)
    pending_copy = notification(alice, created_days_ago=0, sent_days_ago=None, resent_from=copied_now)
    copied_long_ago = notification(alice, created_days_ago=120, sent_days_ago=120)
    old_copy = notification(alice, created_days_ago=95, sent_days_ago=95, resent_from=copied_long_ago)

    assert housekeeping_tasks.clear_expired()["notifications"] == 5
    kept = {recent, pending, copied_lately, recent_copy, copied_now, pending_copy}
    assert set(Notification.objects.all()) == kept
    assert not {old_sent, old_failed, old_skipped, copied_long_ago, old_copy} & set(Notification.objects.all())
    # A copy kept is still a copy: it goes out as it was written, not checked as a new notice.
    assert Notification.objects.get(pk=pending_copy.pk).resent_from_id == copied_now.pk
    assert Notification.objects.get(pk=recent_copy.pk).resent_from_id == copied_lately.pk
    assert housekeeping_tasks.clear_expired()["notifications"] == 0


@pytest.mark.django_db
def test_it_clears_no_match_data(alice, bob, settings):
    """Matches, moves and events are the product: only the notifications about them go."""
    settings.NOTIFICATIONS_KEEP_DAYS = 30
    match = start_match(alice, bob)
    match.status = Status.FINISHED
    match.save(update_fields=["status"])
    long_ago = timezone.now() - timedelta(days=400)
    match.events.update(created_at=long_ago)
    match.moves.update(created_at=long_ago)
    events, moves = match.events.count(), match.moves.count()
    Notification.objects.update(created_at=long_ago, sent_at=long_ago, outcome=Notification.Outcome.SENT)

    housekeeping_tasks.clear_expired()

    assert match.events.count() == events and match.moves.count() == moves
    assert type(match).objects.filter(pk=match.pk).exists()


@pytest.mark.django_db
def test_it_clears_old_development_mail_files_only(tmp_path, settings):
    """Every email of the development backend stayed under var/mail for good."""
    settings.MAIL_FILE_PATH = tmp_path
    settings.MAIL_FILES_KEEP_DAYS = 14
    old, new, theirs = tmp_path / "20250101-120000-1.log", tmp_path / "20250301-120000-2.log", tmp_path / "notes.txt"
    for path in (old, new, theirs):
        path.write_text("From: ...")
    fifteen_days_ago = time.time() - 15 * 86400
    for path in (old, theirs):
        os.utime(path, (fifteen_days_ago, fifteen_days_ago))

    assert housekeeping_tasks.clear_expired()["mail_files"] == 1
    assert sorted(tmp_path.iterdir()) == [new, theirs]
    assert housekeeping_tasks.clear_expired()["mail_files"] == 0


@pytest.mark.django_db
def test_no_mail_folder_is_nothing_to_clear(tmp_path, settings):
    settings.MAIL_FILE_PATH = tmp_path / "never-written"
    assert housekeeping_tasks.clear_expired()["mail_files"] == 0


@pytest.mark.django_db
def test_one_clearing_that_fails_does_not_stop_the_others(monkeypatch, caplog):
    def broken():
        raise RuntimeError("the cache table is gone")

    monkeypatch.setattr(clearing, "expired_cache_clear", broken)
    expired = sessions(2, expired=True)

    cleared = housekeeping_tasks.clear_expired()

    assert "cache_rows" not in cleared and cleared["sessions"] == len(expired)
    assert "Clearing the old cache rows failed; the next run tries again." in caplog.text


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_clear_each_row_once_and_nothing_live(small_batches, cache_emptied, alice):
    require_postgresql()
    expired, live = sessions(SMALL_BATCH * 5, expired=True), sessions(2, expired=False)
    cache_rows("old", SMALL_BATCH * 5, expired=True)
    live_counters = cache_rows("live", 2, expired=False)
    for _ in range(SMALL_BATCH * 5):
        notification(alice, created_days_ago=400, sent_days_ago=400)

    results = run_together(housekeeping_tasks.clear_expired, housekeeping_tasks.clear_expired)

    assert not [result for result in results if isinstance(result, Exception)], results
    for name in ("sessions", "cache_rows", "notifications"):
        assert sum(result[name] for result in results) == SMALL_BATCH * 5, name
    assert set(Session.objects.values_list("pk", flat=True)) == live and not expired & live
    assert cache_keys() == set(live_counters)
    assert not Notification.objects.exists()


def test_beat_runs_the_clearing_once_a_day():
    entry = app.conf.beat_schedule["clear-expired"]
    assert entry["task"] == housekeeping_tasks.clear_expired.name
    now = timezone.now()
    assert entry["schedule"].is_due(now - timedelta(hours=25)).is_due, "due a day after the last run"
    assert not entry["schedule"].is_due(now).is_due, "not again right after a run"
