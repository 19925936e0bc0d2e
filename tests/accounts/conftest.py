"""Fixtures shared by the account tests."""

from __future__ import annotations

import pytest

from games import tasks


@pytest.fixture
def ai_moves(monkeypatch):
    """The AI moves asked for, as (match id, version), instead of published to Celery."""
    calls = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(args))
    return calls
