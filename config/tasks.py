"""The site's own task, which no app's is: mailing ``ADMINS`` about a request that failed
(``config.errors``). Found by the worker through ``config.celery``."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from config.mail import ReadableEmail

log = logging.getLogger(__name__)

# Tries of one mail, a minute, two and four apart; its failure is in the log already.
MAIL_TRIES = 4


@shared_task(bind=True, ignore_result=True, max_retries=MAIL_TRIES - 1)
def mail_admins_about_error(self, subject: str, text: str) -> None:
    """Mail ``ADMINS`` the report of a failed request, built to hold no secret (``config.errors``):
    the one task given text, not ids, for there is no row to read it from (the database may be what
    failed). A mail server that stays down costs the mail, never a failed task's line of its text."""
    try:
        ReadableEmail(subject, text, to=list(settings.ADMINS)).send()
    except Exception as error:
        if self.request.retries + 1 >= MAIL_TRIES:
            log.warning("The mail to ADMINS %r could not be sent: %s", subject, error)
            return
        raise self.retry(exc=error, countdown=60 * 2**self.request.retries) from error
