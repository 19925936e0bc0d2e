"""The demo accounts ``python3 run.py`` makes, and the passwords it prints for them."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command

from accounts.models import User
from games.models import Match, Status

pytestmark = pytest.mark.django_db


def seed_demo() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_a_new_database_gets_the_only_passwords_printed_for_its_accounts(settings, tmp_path):
    """Run first on SQLite, then with DATABASE_URL set (or with db.sqlite3 removed): the new
    database's demo accounts get new passwords, and the old ones, which no longer sign in,
    are neither kept nor printed."""
    settings.VAR_DIR = tmp_path
    seed_demo()
    Match.objects.all().delete()
    User.objects.all().delete()  # a new, empty database

    printed = seed_demo()

    lines = (tmp_path / "demo-credentials.txt").read_text().splitlines()
    assert [line.split()[1] for line in lines] == ["alice", "bob", "staff"]
    for line in lines:
        assert User.objects.get(username=line.split()[1]).check_password(line.split()[-1]), line
        assert line in printed
    assert printed.count("password:") == 3


def test_a_second_run_on_the_same_database_keeps_and_prints_the_same_passwords(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    first = seed_demo()

    assert seed_demo() == first
    assert User.objects.filter(username__in=["alice", "bob", "staff"]).count() == 3


def test_the_demo_matches_waiting_for_players_get_their_whole_time_from_the_seeding(settings, tmp_path, clock):
    settings.VAR_DIR = tmp_path
    seed_demo()
    waiting = Match.objects.filter(status=Status.OPEN)
    assert waiting.count() == 2, "an invitation to alice and an open challenge"
    assert {match.open_until for match in waiting} == {clock.now + timedelta(days=settings.OPEN_MATCH_EXPIRY_DAYS)}
