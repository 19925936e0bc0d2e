"""The Celery app. Broker and schedule come from settings (``CELERY_*``)."""

import inspect
import logging
import os

from celery import Celery
from celery.signals import task_failure

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("boardgames")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.autodiscover_tasks(["config"])  # config.tasks: config is no installed app

log = logging.getLogger(__name__)


@task_failure.connect
def log_what_a_failed_task_was_given(sender=None, task_id=None, args=None, kwargs=None, **_):
    """Celery's own line for a failed task names the task and its id only, not the match it was
    about. Tasks take ids (a match, a version, a notification), never secrets, so they are logged."""
    try:
        given = inspect.signature(sender.run).bind(*(args or ()), **(kwargs or {})).arguments
    except TypeError:  # called with arguments that do not fit: log them as they came
        given = {"args": args, "kwargs": kwargs}
    log.error(
        "Task %s[%s] failed; it was given %s.",
        sender.name,
        task_id,
        ", ".join(f"{name}={value!r}" for name, value in given.items()),
    )
