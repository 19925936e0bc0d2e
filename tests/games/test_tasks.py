"""Tasks with a real Celery worker on the real Redis broker: the AI answers, emails go
out once, a failing mail server is retried, and the sweeps redo what a lost task left.

The worker runs in a thread of the test process (``start_worker``, solo pool), with its
own database connection, so the tests are transactional; it shares ``mail.outbox``.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.core import mail
from django.db import connections
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError

from config.celery import app
from games import services, tasks
from games.models import Match, MoveRecord, Seat
from games.services import SeatSpec
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.accounts.conftest import profile_data
from tests.conftest import route_tasks_to, start_match
from tests.games.conftest import start_timed_match
from tests.games.flaky_mail import SERVER_DOWN, FlakyBackend
from tests.games.test_race import require_postgresql, run_together

pytestmark = pytest.mark.django_db(transaction=True)

WORKER_TIMEOUT_SECONDS = 20
POLL_SECONDS = 0.02
NO_REDIS = "Worker tests need the Redis broker: run with REDIS_URL=redis://127.0.0.1:6379/0 (the broker is {url!r})."


def wait_until(condition: Callable[[], object], *, what: str, timeout: float = WORKER_TIMEOUT_SECONDS):
    """Poll until ``condition()`` is truthy and return its value; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout} s waiting for {what}")
        time.sleep(POLL_SECONDS)


@pytest.fixture
def worker(transactional_db):
    """A Celery worker on the Redis broker; yields the (task name, task id) of every task it finished.

    Other test runs may share that Redis, so our tasks go to a queue of this process's own, emptied
    first: nobody else's worker plays our tasks against their database, nor ours theirs.
    """
    broker_url = app.conf.broker_url or ""
    assert broker_url.startswith("redis://"), NO_REDIS.format(url=broker_url)
    default_queue = app.conf.task_default_queue
    queue = f"tests-games-{os.getpid()}"
    route_tasks_to(queue)
    finished: list[tuple[str, str]] = []

    def record(sender=None, task_id=None, **kwargs):
        finished.append((sender.name, task_id))
        # The worker thread's connections would outlive the test and keep the test database busy.
        connections.close_all()

    task_postrun.connect(record, weak=False)
    try:
        app.control.purge()
        with start_worker(app, perform_ping_check=False, pool="solo", shutdown_timeout=30):
            yield finished
    finally:
        task_postrun.disconnect(record)
        with app.connection_for_write() as connection:
            private_queue = app.amqp.default_queue(connection.default_channel)
            private_queue.declare()  # so that this channel knows its bindings and deletes them too
            private_queue.delete()
        route_tasks_to(default_queue)


def sent_mail(notification: Notification) -> list:
    return [
        message
        for message in mail.outbox
        if message.subject == notification.subject and message.to == [notification.user.email]
    ]


def notification_sent(notification_id: int) -> bool:
    return Notification.objects.filter(pk=notification_id, sent_at__isnull=False).exists()


def make_overdue(*notifications: Notification) -> None:
    """As if written a while ago and their task lost."""
    past = timezone.now() - timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS + 60)
    Notification.objects.filter(pk__in=[n.pk for n in notifications]).update(created_at=past)


@pytest.mark.worker
def test_it_answers_a_human_move_with_an_ai_move_through_the_worker(worker, alice):
    match = start_match(alice, ai_level=1)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    wait_until(
        lambda: Seat.objects.filter(match=match, number=0, to_act=True).exists(),
        what="the AI to answer and give the turn back to Alice",
    )
    match.refresh_from_db()
    assert match.version >= 2
    records = list(MoveRecord.objects.filter(match=match))
    assert [record.ply for record in records] == list(range(match.version))
    assert not records[0].by_ai
    assert records[1].by_ai and records[1].seat == 1
    assert any(name == "games.tasks.ai_move" for name, _ in worker)
    your_turn = Notification.objects.get(user=alice, kind=Notification.Kind.YOUR_TURN)
    wait_until(lambda: notification_sent(your_turn.pk), what="Alice's 'your turn' email")


@pytest.mark.worker
def test_it_sends_the_your_turn_email_through_the_worker_exactly_once(worker, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)

    wait_until(lambda: notification_sent(notification.pk), what="the worker to send Bob's email")
    # The same task delivered again (acks_late, a redelivery) finds the row sent and does nothing.
    duplicate = notification_tasks.send_notification.delay(notification.pk)
    wait_until(lambda: ("notifications.tasks.send_notification", duplicate.id) in worker, what="the duplicate task")

    messages = sent_mail(notification)
    assert len(messages) == 1
    assert messages[0].to == ["bob@example.com"]
    assert f"/matches/{match.pk}/" in messages[0].body
    notification.refresh_from_db()
    assert notification.attempts == 1 and notification.last_error == ""


@pytest.mark.worker
def test_it_retries_a_failed_email_until_the_mail_server_recovers(worker, alice, bob, settings):
    settings.MAILERS = {"default": {"BACKEND": "tests.games.flaky_mail.FlakyBackend"}}
    settings.NOTIFICATION_RETRY_SECONDS = 0.5
    match = start_match(alice, bob)
    wait_until(
        lambda: not Notification.objects.filter(sent_at__isnull=True).exists(),
        what="Bob's invitation and Alice's first 'your turn', before the mail server fails",
    )
    FlakyBackend.fail_next(2)

    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    failing = wait_until(
        lambda: (
            Notification.objects.filter(pk=notification.pk, sent_at__isnull=True)
            .exclude(last_error="")
            .values("attempts", "last_error", "claimed_until")
            .first()
        ),
        what="a failed attempt to be recorded",
    )
    assert SERVER_DOWN in failing["last_error"]
    assert failing["claimed_until"] is None, "a failed send releases its claim for the retry and the sweep"

    wait_until(lambda: notification_sent(notification.pk), what="the retry after the mail server recovered")
    notification.refresh_from_db()
    assert FlakyBackend.failed == 2
    assert notification.attempts == 3
    assert notification.last_error == ""
    assert len(sent_mail(notification)) == 1


def test_the_notification_sweep_sends_a_notification_whose_task_was_lost_once(bob, carol):
    lost = Notification.objects.create(user=bob, kind=Notification.Kind.YOUR_TURN, subject="Lost", body="...")
    fresh = Notification.objects.create(user=carol, kind=Notification.Kind.YOUR_TURN, subject="Fresh", body="...")
    make_overdue(lost)

    assert notification_tasks.sweep_notifications() == 1
    assert notification_tasks.sweep_notifications() == 0
    assert [(message.subject, message.to) for message in mail.outbox] == [("Lost", ["bob@example.com"])]
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert lost.sent_at is not None and lost.attempts == 1
    assert fresh.sent_at is None, "a recent notification is left to its own task"


def test_two_notification_sweeps_running_at_once_send_each_email_once(alice, bob, carol):
    require_postgresql()
    users = [alice, bob, carol]
    pending = Notification.objects.bulk_create(
        Notification(user=users[number % 3], kind=Notification.Kind.YOUR_TURN, subject=f"Pending {number}", body="...")
        for number in range(30)
    )
    make_overdue(*pending)

    counts = run_together(notification_tasks.sweep_notifications, notification_tasks.sweep_notifications)

    assert all(isinstance(count, int) for count in counts), counts
    assert sum(counts) == 30
    assert sorted(message.subject for message in mail.outbox) == sorted(n.subject for n in pending)
    assert set(Notification.objects.values_list("attempts", flat=True)) == {1}
    assert not Notification.objects.filter(sent_at__isnull=True).exists()


@pytest.mark.worker
def test_the_ai_sweep_wakes_an_ai_seat_whose_task_was_lost(worker, alice, monkeypatch, caplog):
    def broker_down(*args):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", broker_down)  # Alice against the AI alone
    match = start_match(alice, ai_level=1)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    monkeypatch.undo()
    assert "Connection refused" in caplog.text, "the failed publish is logged, and the move stands"
    match.refresh_from_db()
    assert match.version == 1

    assert tasks.sweep_ai_turns() == 0, "an AI turn that just began is left to its own task"
    Match.objects.filter(pk=match.pk).update(last_move_at=timezone.now() - timedelta(minutes=5))
    assert tasks.sweep_ai_turns() == 1

    wait_until(lambda: Seat.objects.filter(match=match, number=0, to_act=True).exists(), what="the woken AI to move")
    assert MoveRecord.objects.filter(match=match, ply=1, by_ai=True).exists()


@pytest.mark.worker
def test_the_worker_sends_a_held_your_turn_on_the_players_new_clock_and_no_reminder_of_a_turn_played(
    worker, clock, alice, bob, client
):
    """Through the worker: Bob's "your turn" waited (he had just closed the page) while he
    moved to India, and goes out on his new clock; his half-time reminder, due 10 s before he
    moved and not swept yet, does not go out after the move."""
    clock.now = datetime.fromisoformat("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob, clock=services.ClockSpec(time_control="per_move", days_per_move=1))
    client.force_login(bob)
    client.get(reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, HTTP_HX_REQUEST="true")
    clock.advance(seconds=20)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)  # Bob's deadline: 11:00:20Z
    your_turn = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    held = wait_until(
        lambda: (
            Notification.objects.filter(pk=your_turn.pk, attempts=0, due_at__gt=clock.now)
            .values_list("due_at", flat=True)
            .first()
        ),
        what="the worker to hold Bob's email back",
    )
    client.post(reverse("profile"), profile_data(display_name="Bob", webhook_url="", time_zone="Asia/Kolkata"))

    clock.now = held + timedelta(seconds=1)
    sweep = notification_tasks.sweep_notifications.delay()
    wait_until(lambda: ("notifications.tasks.sweep_notifications", sweep.id) in worker, what="the sweep")
    [email] = sent_mail(Notification.objects.get(pk=your_turn.pk))
    assert "Your time runs out on Sunday 29 March 2026, 16:30 IST (Asia/Kolkata)" in email.body

    clock.now = datetime.fromisoformat("2026-03-28T23:00:30Z")  # half time was 10 s ago
    assert (
        Notification.objects.filter(
            user=bob, kind=Notification.Kind.REMINDER, sent_at__isnull=True, due_at__lt=clock.now
        ).count()
        == 1
    )
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    sweep = notification_tasks.sweep_notifications.delay()
    wait_until(lambda: ("notifications.tasks.sweep_notifications", sweep.id) in worker, what="the sweep")
    assert not [
        message
        for message in mail.outbox
        if message.to == [bob.email] and message.subject.startswith("Time is running out")
    ]


def test_the_ai_moves_several_people_wait_for_go_ahead_of_those_of_a_match_against_the_ai_alone(
    monkeypatch, alice, bob
):
    published = []
    monkeypatch.setattr(tasks.ai_move, "apply_async", lambda args, **options: published.append((args, options)))
    alone = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("ai", ai_level=1), SeatSpec("creator")]
    )
    several = services.match_create(
        creator=alice,
        game_slug="jeexa",
        options={},
        seats=[SeatSpec("ai", ai_level=1), SeatSpec("creator"), SeatSpec("user", username="bob")],
    )
    services.match_accept(match_id=several.pk, user=bob)
    assert [(args[0], options.get("priority")) for args, options in published] == [
        (alone.pk, tasks.AI_ALONE_PRIORITY),
        (several.pk, None),
    ]


def test_the_broker_hands_out_the_ai_moves_people_wait_for_first():
    """Redis keeps a list per priority and a worker reads them in order (kombu's priority_steps)."""
    queue = f"priorities-{uuid.uuid4().hex}"
    for match_id in (1, 2, 3):
        tasks.ai_move.apply_async((match_id, 0), queue=queue, priority=tasks.AI_ALONE_PRIORITY)
    tasks.ai_move.apply_async((99, 0), queue=queue)
    with app.connection_for_read() as connection:
        waiting = connection.SimpleQueue(queue)
        try:
            order = [waiting.get(timeout=5).payload[0][0] for _ in range(4)]
        finally:
            waiting.queue.delete()
            waiting.close()
    assert order[0] == 99, order
