"""The error pages (400, 403, 404, 500, and the site's own 403 for a stale form, 405 and 429) render
in the site's layout also for a request with no user, no session and no database to read them from:
one refused before the middleware gave it a user (an unknown ``Host``), or one that came while the
database was down. A signed-in player still sees their name in the top bar of a plain 404."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.db import OperationalError, connection
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import get_resolver, reverse

from accounts.views import csrf_failure
from tests.conftest import signed_in

HEADINGS = {400: "Nothing was done", 403: "Not allowed", 404: "Not found", 500: "Something went wrong"}
RAISED = {400: SuspiciousOperation("forged"), 403: PermissionDenied(), 404: Http404()}


def bare_request() -> HttpRequest:
    """A request as Django has it before any middleware ran: no user, no session, no messages."""
    return RequestFactory().get("/matches/12/")


def in_the_sites_layout(page: str) -> bool:
    return '<header class="topbar">' in page and '<main id="content"' in page


def signed_out_top_bar(page: str) -> bool:
    return f'href="{reverse("account_login")}"' in page and f'href="{reverse("profile")}"' not in page


@pytest.mark.parametrize("status", [400, 403, 404, 500])
def test_each_error_page_renders_in_the_layout_with_no_user_no_session_and_no_database(status):
    """No ``db`` fixture: a query fails the test. The 400 page for an unknown Host was a 500: its
    top bar asked how many matches wait for ``request.user``, which was not set yet."""
    handler = get_resolver().resolve_error_handler(status)
    response = handler(bare_request(), *([RAISED[status]] if status in RAISED else []))

    page = response.content.decode()
    assert response.status_code == status
    assert HEADINGS[status] in page and in_the_sites_layout(page)
    if status != 500:  # the 500 page has a bare top bar of its own (templates/500.html)
        assert signed_out_top_bar(page)


@pytest.mark.parametrize("template", ["403_csrf.html", "405.html", "429.html"])
def test_the_sites_other_refusals_render_with_no_user_no_session_and_no_database(template):
    page = render_to_string(template, request=bare_request())
    assert in_the_sites_layout(page) and signed_out_top_bar(page)


def test_a_form_refused_as_forged_renders_with_no_user_no_session_and_no_database():
    response = csrf_failure(RequestFactory().post("/matches/12/move/"), reason="CSRF token missing.")
    assert response.status_code == 403 and in_the_sites_layout(response.content.decode())


@pytest.mark.parametrize("host", ["evil.example", ""])
def test_a_host_the_site_does_not_serve_gets_the_400_page_not_a_500(client, settings, host):
    """``curl -H 'Host: evil.example'`` (or an empty Host) got "Server Error (500)" with debug off."""
    settings.DEBUG = False
    response = client.get(reverse("home"), HTTP_HOST=host)

    page = response.content.decode()
    assert response.status_code == 400
    assert HEADINGS[400] in page and in_the_sites_layout(page) and signed_out_top_bar(page)


def database_down(execute, sql, params, many, context):
    raise OperationalError("connection to server failed: Connection refused")


def test_a_signed_in_players_404_while_the_database_is_down_shows_the_signed_out_top_bar(alice):
    """The session and the user are read from the database: with it down, the 404 page itself failed."""
    request = RequestFactory().get("/nowhere/")
    request.COOKIES[django_settings.SESSION_COOKIE_NAME] = signed_in(alice).session.session_key
    SessionMiddleware(lambda request: None).process_request(request)
    AuthenticationMiddleware(lambda request: None).process_request(request)

    with connection.execute_wrapper(database_down):
        response = get_resolver().resolve_error_handler(404)(request, Http404())

    page = response.content.decode()
    assert response.status_code == 404 and in_the_sites_layout(page) and signed_out_top_bar(page)


def test_a_signed_in_players_404_keeps_their_name_in_the_top_bar(alice):
    response = signed_in(alice).get("/no-such-page/")

    page = response.content.decode()
    assert response.status_code == 404 and HEADINGS[404] in page
    assert f'href="{reverse("profile")}">Alice</a>' in page
