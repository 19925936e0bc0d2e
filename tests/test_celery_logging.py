"""What the logs say when a Celery task fails (config/celery.py)."""

from __future__ import annotations

import inspect
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


# The mail to ADMINS about a server error (config/tasks.py): there is no row to read it from (the
# database may be what failed), its text is built to hold no secret, and it never fails with it.
GIVEN_TEXT = {"config.tasks.mail_admins_about_error"}


def test_every_task_of_the_site_takes_ids_only_so_that_line_holds_no_secret():
    """The line writes each argument whole: a task given an address, a token or a text (a webhook
    URL, an email) would write it to the log. Ids and versions are all a task needs."""
    from config.celery import app

    ours = {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}
    assert {"games.tasks.ai_move", "notifications.tasks.send_notification"} <= set(ours)
    for name, task in ours.items():
        if name in GIVEN_TEXT:
            continue
        taken = {param.name: param.annotation for param in inspect.signature(task.run).parameters.values()}
        assert all(annotation in ("int", int) for annotation in taken.values()), f"{name} takes {taken}"
