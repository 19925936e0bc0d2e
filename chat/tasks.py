"""Thin, idempotent Celery tasks for reports to staff: email staff about a message's first
report, and the sweep (beat) that sends those whose own task was lost or failed.

Services import this module to publish; a task imports the services inside its body.
"""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from chat.selectors import reports_staff_not_told
from config.publish import MAX_SEND_ATTEMPTS, SWEEP_BATCH, publish, retry_later, send_each

# Reports this old whose email has not gone out had their task lost: the sweep sends them.
REPORT_SWEEP_AFTER_SECONDS = 60


@shared_task(bind=True, ignore_result=True, max_retries=MAX_SEND_ATTEMPTS)
def tell_staff_of_report(self, report_id: int) -> None:
    from chat.services import report_staff_tell

    try:
        report_staff_tell(report_id=report_id)
    except Exception as error:
        retry_later(self, error, f"Report {report_id} (telling staff)")


@shared_task(ignore_result=True)
def sweep_reports() -> int:
    """Email staff about the reports whose own task was lost or failed (as the outbox's relay)."""
    from chat.services import report_staff_tell

    cutoff = timezone.now() - timedelta(seconds=REPORT_SWEEP_AFTER_SECONDS)
    pending = (
        reports_staff_not_told().filter(created_at__lt=cutoff).order_by("pk").values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return send_each(pending, lambda pk: report_staff_tell(report_id=pk), "Report to staff")


def enqueue_report(report_id: int) -> None:
    publish(tell_staff_of_report, (report_id,))
