"""Shared fixtures: three personas (alice and bob play, carol is outside), matches, and a clock the
tests move forward instead of waiting."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import services
from games.services import SeatSpec

PASSWORD = "correct-horse-battery-staple"


class Clock:
    """Stands in for ``timezone.now()`` everywhere (services, tasks, model defaults)."""

    def __init__(self):
        self.now = timezone.now()

    def __call__(self):
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(timezone, "now", fake)
    return fake


@pytest.fixture(autouse=True)
def broker_breaker_closed():
    """A test that made publishing fail must not leave the next one skipping the broker."""
    from config.publish import breaker

    breaker.reset()
    yield
    breaker.reset()


@pytest.fixture(autouse=True)
def root_log_level_kept():
    """A Celery worker started in a test sets the root logger to ERROR; later tests would
    no longer see the warnings they check."""
    root = logging.getLogger()
    level = root.level
    yield
    root.setLevel(level)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """PBKDF2 on purpose takes a good part of a second; tests make many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def route_tasks_to(queue: str) -> None:
    """Make ``queue`` the one Celery tasks are published to and consumed from (the app
    caches its queues), so a test's worker plays only this test run's tasks."""
    from config.celery import app

    app.conf.task_default_queue = queue
    for cached in ("queues", "default_queue", "router"):
        delattr(app.amqp, cached)


def signed_in(user: User, **options) -> Client:
    """A browser of its own, signed in as ``user`` (``options``: the test client's)."""
    client = Client(**options)
    client.force_login(user)
    return client


def make_user(username: str, **extra) -> User:
    user = User.objects.create_user(username=username, email=f"{username}@example.com", password=PASSWORD, **extra)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


@pytest.fixture
def alice(db):
    return make_user("alice", display_name="Alice")


@pytest.fixture
def bob(db):
    return make_user("bob", display_name="Bob")


@pytest.fixture
def carol(db):
    return make_user("carol", display_name="Carol")


@pytest.fixture
def staff(db):
    return make_user("staffer", is_staff=True, is_superuser=True)


def start_match(creator, opponent=None, *, variant="egyptian", ai_level=None):
    """A started Mancala match: creator on seat 0, then the opponent (accepted) or an AI."""
    if ai_level is not None:
        seats = [SeatSpec("creator"), SeatSpec("ai", ai_level=ai_level)]
        return services.match_create(creator=creator, game_slug="mancala", options={"variant": variant}, seats=seats)
    seats = [SeatSpec("creator"), SeatSpec("user", username=opponent.username)]
    match = services.match_create(creator=creator, game_slug="mancala", options={"variant": variant}, seats=seats)
    services.match_accept(match_id=match.pk, user=opponent)
    match.refresh_from_db()
    return match


@pytest.fixture
def match(alice, bob):
    return start_match(alice, bob)
