"""A request that failed (a 500): the page the player sees, with the reference its log lines carry,
and the report mailed to ``ADMINS`` by a worker, handed over once the response has gone out."""

from __future__ import annotations

import sys
import traceback

from django.conf import settings
from django.http import HttpRequest, HttpResponseServerError
from django.template import loader

from config import logs
from config.publish import publish
from config.tasks import mail_admins_about_error


def server_error(request: HttpRequest) -> HttpResponseServerError:
    """The 500 handler (``handler500``), which Django calls with debug off while it handles the
    exception. The page renders with no request, database or static files' manifest (500.html).
    Django's AdminEmailHandler sent its mail over SMTP while the player waited for the page; the
    report is published to Celery when the server closes the response, after sending it."""
    reference = logs.request_id()
    response = HttpResponseServerError(loader.get_template("500.html").render({"request_id": reference}))
    if settings.ADMINS:
        subject, text = failure_report(request, reference)
        # What close() calls once the server has sent the page (Django's hook; not in its stubs).
        on_close = response._resource_closers  # type: ignore[attr-defined]
        on_close.append(lambda: publish(mail_admins_about_error, (subject, text)))
    return response


def failure_report(request: HttpRequest, reference: str) -> tuple[str, str]:
    """The mail's subject and text for the exception being handled: the request's id, method and
    path (its secrets hidden, ``config.logs``), the user's id, the exception and its traceback.
    Never what the player sent: no form, body, cookie, header or session."""
    path = logs.path_for_the_log(request.get_full_path())
    subject = " ".join(f"[{settings.SITE_NAME}] Server error {reference}: {request.method} {path}".split())
    error = sys.exception()
    lines = [
        f"Error reference: {reference}",
        f"Request: {request.method} {path}",
        f"User: {_user_id(request)}",
        "",
        "".join(traceback.format_exception(error)) if error else "No exception was being handled.",
    ]
    return subject, logs.secrets_hidden("\n".join(lines))


def _user_id(request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    if user is None:
        return "none yet (the request failed before the session was read)"
    try:
        return str(user.pk) if user.is_authenticated else "not signed in"
    except Exception:  # reading the session or the user failed: the database may be what failed
        return "unknown (the session could not be read)"
