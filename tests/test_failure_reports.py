"""A request that fails (a 500) is reported where an operator sees it: every request has an id
(``X-Request-ID``, config/middleware.py) that each log line of it carries and the 500 page shows
the player, and ``ADMINS`` are mailed about it by a worker, published once the response has gone
out, with nothing secret in the mail (config/errors.py)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.core.signals import request_finished
from django.db import close_old_connections
from django.test import Client, RequestFactory
from django.urls import path, reverse

from config import errors, tasks
from config import urls as site_urls
from tests.conftest import signed_in
from tests.test_logging import log_written

NEW_ID = re.compile(r"[0-9a-f]{32}")
FAILURE = "the rules broke at ply 12"


def broken_view(request):
    raise RuntimeError(FAILURE)


# The site's addresses and its own 500 handler, and one address that fails.
urlpatterns = [path("broken/", broken_view), *site_urls.urlpatterns]
handler500 = site_urls.handler500
pytestmark = pytest.mark.urls(__name__)


@pytest.fixture
def published(monkeypatch) -> list[tuple[str, tuple]]:
    """What the site hands Celery, by task name, instead of handing it."""
    handed: list[tuple[str, tuple]] = []
    monkeypatch.setattr(errors, "publish", lambda task, args: handed.append((task.name, args)) or True)
    return handed


def closed_once_sent(response) -> None:
    """What the server does once it has sent the page, keeping the test's database connection (as
    Django's test client does)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.fixture
def debug_off(settings):
    settings.DEBUG = False
    settings.ADMINS = ["Ops <ops@example.org>"]
    return settings


def test_a_failed_request_shows_its_reference_which_the_log_line_of_the_failure_carries(db, debug_off):
    with log_written() as written:
        response = Client(raise_request_exception=False).get("/broken/")

    reference = response["X-Request-ID"]
    assert response.status_code == 500 and NEW_ID.fullmatch(reference)
    assert f"give them this reference, which tells them what went wrong: <code>{reference}</code>" in (
        response.content.decode()
    )
    log = written.getvalue()
    assert f"[{reference}] Internal Server Error: /broken/" in log
    assert f"RuntimeError: {FAILURE}" in log


def test_a_refusal_that_django_logs_after_the_middleware_carries_the_requests_id_too(client, db):
    """Django writes "Not Found: <path>" once every middleware has answered."""
    with log_written() as written:
        response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert f"[{response['X-Request-ID']}] Not Found: /no-such-page/" in written.getvalue()


def test_every_answer_has_an_id_of_its_own_or_the_one_the_proxy_gave(client, db):
    home = reverse("home")
    first, second = client.get(home)["X-Request-ID"], client.get(home)["X-Request-ID"]
    assert NEW_ID.fullmatch(first) and NEW_ID.fullmatch(second) and first != second
    assert client.get(home, HTTP_X_REQUEST_ID="edge-7f3a_01")["X-Request-ID"] == "edge-7f3a_01"
    for not_an_id in ("x" * 65, "two words", "<b>", "line\nbreak", ""):
        assert NEW_ID.fullmatch(client.get(home, HTTP_X_REQUEST_ID=not_an_id)["X-Request-ID"])


def test_a_refused_host_has_an_id_too(client, settings):
    settings.DEBUG = False
    response = client.get(reverse("home"), HTTP_HOST="evil.example")
    assert response.status_code == 400 and NEW_ID.fullmatch(response["X-Request-ID"])


def test_the_admins_are_mailed_the_failure_with_nothing_secret_in_it(debug_off, alice, published):
    browser = signed_in(alice, raise_request_exception=False)
    token = "MTI:1vWq3x:s3cr3tK3yThatConfirmsAnAddress"
    response = browser.post(f"/broken/?key={token}&page=2", {"password": "hunter2-typed-in-a-form"})

    assert mail.outbox == [], "none sent while the player waited (Django's AdminEmailHandler)"
    reference = response["X-Request-ID"]
    [(task, (subject, text))] = published
    assert task == "config.tasks.mail_admins_about_error"
    assert reference in subject and "POST /broken/?key=…&page=2" in subject
    assert f"Error reference: {reference}" in text
    assert "Request: POST /broken/?key=…&page=2" in text
    assert f"User: {alice.pk}" in text
    assert "Traceback (most recent call last)" in text and "broken_view" in text
    assert f"RuntimeError: {FAILURE}" in text
    session_key = browser.cookies[django_settings.SESSION_COOKIE_NAME].value
    for secret in (token, "hunter2-typed-in-a-form", session_key, alice.email):
        assert secret not in subject + text


def test_the_mail_is_handed_to_celery_only_once_the_response_has_gone_out(debug_off, published):
    """Django's AdminEmailHandler sent it over SMTP while the player waited for the page."""
    request = RequestFactory().get("/broken/")
    try:
        broken_view(request)
    except RuntimeError:
        response = errors.server_error(request)

    assert published == [], "not while the page is on its way"
    closed_once_sent(response)
    assert len(published) == 1


def test_nothing_is_mailed_when_no_admins_are_set(db, debug_off, published):
    debug_off.ADMINS = []
    response = Client(raise_request_exception=False).get("/broken/")
    assert response.status_code == 500 and "give them this reference" in response.content.decode()
    assert published == []


def test_paths_in_the_mail_hide_the_secrets_links_carry(debug_off, published):
    """The key of an unsubscribe link in the path, a token-like value in the query; the rest as it was."""
    request = RequestFactory().get("/accounts/unsubscribe/MTI:1vWq3x:unsubscribeToken42/?next=/matches/12/&q=bob")
    try:
        broken_view(request)
    except RuntimeError:
        closed_once_sent(errors.server_error(request))

    [(_, (subject, text))] = published
    assert "GET /accounts/unsubscribe/…/?next=/matches/12/&q=bob" in text
    assert "unsubscribeToken42" not in subject + text


def test_the_task_mails_the_admins(settings):
    settings.ADMINS = ["Ops <ops@example.org>", "dev@example.org"]
    tasks.mail_admins_about_error.apply(("[Boardgames] Server error", "Error reference: 3f9c"))

    [sent] = mail.outbox
    assert sent.to == settings.ADMINS and sent.subject == "[Boardgames] Server error"
    assert sent.body == "Error reference: 3f9c"


def test_a_mail_server_that_stays_down_costs_the_mail_not_a_failed_tasks_line_of_its_text(
    settings, monkeypatch, caplog
):
    """A failed task's line writes its arguments whole (config/celery.py): the report's text."""
    settings.ADMINS = ["ops@example.org"]

    def refused(*args, **kwargs):
        raise OSError("Connection refused")

    monkeypatch.setattr(tasks.ReadableEmail, "send", refused)
    last_try = tasks.MAIL_TRIES - 1
    result = tasks.mail_admins_about_error.apply(("[Boardgames] Server error 3f9c", "the traceback"), retries=last_try)

    assert result.successful()
    assert "could not be sent: Connection refused" in caplog.text and "the traceback" not in caplog.text
