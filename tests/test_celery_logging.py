"""What the logs say when a Celery task fails (config/celery.py)."""

from __future__ import annotations

import logging

from games import services, tasks


def test_a_failed_task_is_logged_with_the_match_it_was_about(monkeypatch, caplog):
    """Celery logged "Task games.tasks.ai_move[<uuid>] raised unexpected: RuntimeError(...)":
    nothing said which match the AI failed to play."""
    def broken_rules(*, match_id, expected_version):
        raise RuntimeError("the rules broke")

    monkeypatch.setattr(services, "ai_turn_play", broken_rules)
    with caplog.at_level(logging.ERROR):
        tasks.ai_move.apply((4242, 7))
    assert "games.tasks.ai_move" in caplog.text and "match_id=4242, expected_version=7" in caplog.text
