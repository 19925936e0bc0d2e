"""Fixtures and helpers shared by the account tests: signing up, the link an email holds, and
the profile form as a browser sends it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import tasks
from tests.conftest import PASSWORD


@pytest.fixture
def ai_moves(monkeypatch):
    """The AI moves asked for, as (match id, version), instead of published to Celery."""
    calls = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(args))
    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", lambda *args: calls.append(args))
    return calls


LINK = re.compile(r"https?://\S+")


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(
        reverse("account_signup"),
        {
            "email": email,
            "username": username,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def link_in(message) -> str:
    return LINK.findall(message.body)[0].replace("http://testserver", "")


def profile_data(**changes) -> dict:
    return {
        "display_name": "Alice",
        "time_zone": "UTC",
        "turn_notice": "instant",
        "digest_hour": "8",
        "reminders": "50,80",
        "webhook_url": "https://hooks.example.com/old",
        **changes,
    }
