"""What the logs write (config/logs.py, wired in settings.LOGGING): the keys and tokens that
links carry in their path (confirming an address, resetting a password, unsubscribing) are
written as "…", the rest of each line as it was. Whoever reads the log of ``python3 run.py``
(runserver prints every request) could otherwise confirm an address, set a password or
unsubscribe a player."""

from __future__ import annotations

import contextlib
import io
import logging

import pytest
from django.core.servers.basehttp import WSGIRequestHandler
from django.urls import reverse

from accounts import unsubscribe

KEY = "MTI:1vWq3x:s3cr3tK3yThatConfirmsAnAddress"


def secret_paths(user_id: int = 1) -> dict[str, tuple[str, str]]:
    """Each link that carries a secret, as the site makes it, with the secret and what is logged instead."""
    token = unsubscribe.make_token(user_id, unsubscribe.TURN_EMAILS)
    confirm = reverse("account_confirm_email", args=[KEY])
    reset = reverse("account_reset_password_from_key", kwargs={"uidb36": "3f", "key": "cz4k7q-0a1b2c3d4e5f60718293"})
    stop = reverse("unsubscribe", args=[token])
    return {
        "confirm an address": (confirm, KEY, confirm.replace(KEY, "…")),
        "reset a password": (reset, "cz4k7q-0a1b2c3d4e5f60718293", "/accounts/password/reset/key/…/"),
        "unsubscribe": (stop, token, stop.replace(token, "…")),
    }


@contextlib.contextmanager
def log_written():
    """What the configured handlers write, whichever logger the line comes from (runserver's
    ``django.server`` has a handler of its own), collected instead of going to the console."""
    handlers = {
        handler
        for name in ("", "django", "django.request", "django.server")
        for handler in logging.getLogger(name).handlers
        if type(handler) is logging.StreamHandler
    }
    written = io.StringIO()
    streams = {handler: handler.setStream(written) for handler in handlers}
    try:
        yield written
    finally:
        for handler, stream in streams.items():
            handler.setStream(stream)


def runserver_logs(path: str, status: int = 200) -> str:
    """The line ``runserver`` writes for a request, by its own code."""
    request = WSGIRequestHandler.__new__(WSGIRequestHandler)
    request.request, request.requestline = None, f"GET {path} HTTP/1.1"
    with log_written() as written:
        request.log_request(status, 1234)
    return written.getvalue()


@pytest.mark.parametrize("link", ["confirm an address", "reset a password", "unsubscribe"])
def test_runserver_logs_a_link_with_a_secret_without_it(link):
    path, secret, shown = secret_paths()[link]
    line = runserver_logs(path, 302)
    assert secret not in line
    assert f'"GET {shown} HTTP/1.1" 302 1234' in line, "the rest of the line as it was"


def test_runserver_logs_other_paths_whole():
    for path in (
        "/matches/12/",
        "/accounts/password/reset/key/done/",
        "/accounts/confirm-email/",
        "/accounts/profile/?next=/accounts/unsubscribe/",
    ):
        assert f'"GET {path} HTTP/1.1" 200 1234' in runserver_logs(path)


def test_a_refused_link_is_logged_without_its_token(client, db):
    """A link of a deleted account (or a forged one) is answered 404, and Django logs "Not Found: <path>"."""
    path, token, shown = secret_paths(user_id=424242)["unsubscribe"]
    with log_written() as written:
        assert client.get(path).status_code == 404
    assert f"Not Found: {shown}" in written.getvalue()
    assert token not in written.getvalue()
