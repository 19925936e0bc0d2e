"""The outbox relay against a real broker that goes away: a redis-server of this test's own
is stopped during a move, the move is still accepted quickly, and once Redis is back beat's
sweeps (run through a real worker) deliver every notification exactly once and wake the AI.
Also: two relay sweeps at once, and a sender that died holding a claim."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta

import kombu.utils.functional
import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.core import mail
from django.db import connections
from django.utils import timezone

from config import publish
from config.celery import app
from games import services, tasks
from games.models import Match, MoveRecord, Seat
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery
from tests.conftest import route_tasks_to, start_match
from tests.games.test_race import require_postgresql, run_together
from tests.games.test_tasks import wait_until
from tests.local_servers import SpareRedis, StallingMailServer, free_port

pytestmark = pytest.mark.django_db(transaction=True)


def use_broker(url: str) -> None:
    """Point the app (publishing and new workers) at another broker; drop pooled connections."""
    app.conf.broker_url = url
    app.conf.broker_write_url = url
    app.conf.broker_read_url = url
    app._pool = None
    app.amqp._producer_pool = None
    publish.breaker.reset()


@pytest.fixture
def spare_redis():
    redis = SpareRedis()
    redis.start()
    original = app.conf.broker_url
    use_broker(redis.url)
    try:
        yield redis
    finally:
        redis.stop()
        use_broker(original)


def worker_on(finished: list):
    def record(sender=None, task_id=None, **kwargs):
        finished.append(sender.name)
        connections.close_all()

    task_postrun.connect(record, weak=False)
    return record


@pytest.fixture
def broker_waits(monkeypatch) -> list[float]:
    """The pauses kombu takes between attempts to reach the broker (recorded, not slept): a
    move must not wait on a broker that is down, so a publish must make none."""
    waits: list[float] = []
    monkeypatch.setattr(kombu.utils.functional, "sleep", waits.append)
    return waits


@pytest.mark.worker
def test_moves_are_accepted_quickly_with_redis_down_and_everything_is_delivered_once_it_is_back(
    spare_redis, alice, bob, carol, caplog, broker_waits
):
    require_postgresql()
    queue = f"tests-relay-{os.getpid()}"
    default_queue = app.conf.task_default_queue
    route_tasks_to(queue)
    try:
        human = start_match(alice, bob)
        versus_ai = start_match(carol, ai_level=1)
        Notification.objects.update(sent_at=timezone.now(), outcome="sent")  # the start's emails are not the point

        spare_redis.stop()
        services.move_submit(match_id=human.pk, user=alice, move="1", expected_version=0)
        services.move_submit(match_id=versus_ai.pk, user=carol, move="1", expected_version=0)
        assert broker_waits == [], "the moves waited between attempts to reach the broker"
        assert not publish.breaker.closed(), "the failed publish tripped the breaker"
        assert "the sweep will do it" in caplog.text
        pending = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
        assert pending.sent_at is None

        spare_redis.start()  # back, empty: whatever was in the broker is gone
        publish.breaker.reset()
        finished: list[str] = []
        record = worker_on(finished)
        try:
            app.control.purge()
            with start_worker(app, perform_ping_check=False, pool="solo", shutdown_timeout=30):
                # What beat does every half minute, a little later than the tasks' own grace.
                Notification.objects.filter(pk=pending.pk).update(
                    created_at=timezone.now()
                    - timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS + 1)
                )
                Match.objects.filter(pk=versus_ai.pk).update(
                    last_move_at=timezone.now() - timedelta(seconds=tasks.AI_STALL_SECONDS + 1)
                )
                notification_tasks.sweep_notifications.delay()
                tasks.sweep_ai_turns.delay()
                notification_tasks.sweep_notifications.delay()  # a second, overlapping relay run
                wait_until(
                    lambda: Notification.objects.filter(pk=pending.pk, sent_at__isnull=False).exists(),
                    what="the relay to deliver Bob's email",
                )
                # The AI may earn another sowing (last seed in its store): its turn is over only
                # when Carol is to act again.
                wait_until(
                    lambda: Seat.objects.filter(match=versus_ai, number=0, to_act=True).exists(),
                    what="the AI's turn after the sweep woke it",
                )
                wait_until(
                    lambda: finished.count("notifications.tasks.sweep_notifications") == 2,
                    what="both relay runs to finish",
                )
        finally:
            task_postrun.disconnect(record)
        assert len([m for m in mail.outbox if m.to == ["bob@example.com"]]) == 1
        assert MoveRecord.objects.filter(match=versus_ai, by_ai=True).exists()
    finally:
        route_tasks_to(default_queue)


def test_a_move_is_accepted_quickly_when_it_must_connect_to_a_redis_that_is_down(alice, bob, broker_waits):
    """A web process started while Redis is down, or the first publish after the breaker's
    pause, has no connection to reuse: kombu's connection retries (2 s, then 4 s) kept the
    move waiting 6 s, once per process and pause."""
    require_postgresql()
    match = start_match(alice, bob)
    original = app.conf.broker_url
    use_broker(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there, nothing connected before
    try:
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    finally:
        use_broker(original)
    assert broker_waits == [], "the move waited between attempts to connect to a broker that is down"
    assert Notification.objects.filter(user=bob, kind=Notification.Kind.YOUR_TURN, sent_at__isnull=True).exists()


def test_a_notification_whose_sender_died_holding_the_claim_is_sent_once_after_the_claim_expires(alice, bob):
    require_postgresql()
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    # A worker claimed it and was killed before it could send or release it.
    Notification.objects.filter(pk=notification.pk).update(
        claimed_until=timezone.now() + timedelta(seconds=delivery.NOTIFICATION_CLAIM_SECONDS),
        attempts=1,
        created_at=timezone.now() - timedelta(minutes=5),
    )
    assert notification_tasks.sweep_notifications() == 0, "the claim still holds"
    Notification.objects.filter(pk=notification.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    sent = run_together(notification_tasks.sweep_notifications, notification_tasks.sweep_notifications)
    assert sorted(sent) == [0, 1], "two relay runs at once: one sends, the other finds it claimed or sent"
    assert len([m for m in mail.outbox if m.to == ["bob@example.com"] and "Your turn" in m.subject]) == 1


@pytest.mark.worker
def test_an_email_whose_worker_was_killed_mid_send_is_sent_once_by_the_relay(alice, bob, clock, settings):
    """A real worker process is killed (SIGKILL) while the mail server holds its message;
    the row stays claimed, and once the claim expires the relay sends it exactly once."""
    require_postgresql()
    assert (app.conf.broker_url or "").startswith("redis://"), "needs the Redis broker"
    queue = f"tests-kill-{os.getpid()}"
    default_queue = app.conf.task_default_queue
    with StallingMailServer() as server:
        settings.MAILERS = server.mailer
        database = connections["default"].settings_dict
        env = {
            **os.environ,
            "REDIS_URL": app.conf.broker_url,
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(server.controller.port),
            "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        }
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-Q",
                queue,
                "--pool",
                "solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "warning",
            ],
            env=env,
            cwd=settings.BASE_DIR,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        route_tasks_to(queue)
        try:
            match = start_match(alice, bob)
            Notification.objects.update(sent_at=timezone.now(), outcome="sent")
            services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
            notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
            # A new worker process: on a busy machine it took over 30 s to start and take the task.
            assert server.stalled.wait(timeout=120), "the worker never started sending"
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)

            notification.refresh_from_db()
            assert notification.sent_at is None and notification.claimed_until is not None
            assert notification.attempts == 1
            assert notification_tasks.sweep_notifications() == 0, "the dead worker's claim still holds"
            clock.advance(seconds=delivery.NOTIFICATION_CLAIM_SECONDS + 60)
            assert notification_tasks.sweep_notifications() == 1
            assert notification_tasks.sweep_notifications() == 0
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)
            with app.connection_for_write() as connection:
                private_queue = app.amqp.default_queue(connection.default_channel)
                private_queue.declare()
                private_queue.delete()
            route_tasks_to(default_queue)
        assert [message.rcpt_tos for message in server.messages] == [["bob@example.com"]]
        notification.refresh_from_db()
        assert notification.outcome == "sent" and notification.attempts == 2
