"""What the logs must not show, and which request a line was written in."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The path segments that are secrets (accounts/urls.py and allauth's): the key that confirms an
# address, the one that sets a new password (with the account's number before it) and the
# token that unsubscribes a player. "…/key/done/" is a page, not a key.
SECRET_IN_PATH = re.compile(r"(/accounts/(?:confirm-email|password/reset/key|unsubscribe)/)(?!done/)[^/\s\"'?#]+")
HIDDEN = "…"
# A query's value that may be a secret: long, and letters and digits mixed ("?key=MTI:1vWq3x:…").
TOKEN_LIKE = re.compile(r"(?=.*[0-9])(?=.*[A-Za-z])\S{16,}")


def secrets_hidden(text: str) -> str:
    """``text`` with the secret segment of each such path written as "…"."""
    return SECRET_IN_PATH.sub(rf"\1{HIDDEN}", text)


def path_for_the_log(full_path: str) -> str:
    """A request's path and query with the secrets links carry hidden: the path's (``secrets_hidden``)
    and each value of the query that looks like a token."""
    path, question, query = full_path.partition("?")
    values = (pair.partition("=") for pair in query.split("&")) if question else ()
    hidden = "&".join(
        f"{name}{equals}{HIDDEN if TOKEN_LIKE.fullmatch(value) else value}" for name, equals, value in values
    )
    return secrets_hidden(path) + question + hidden


class SecretsInPathsHidden(logging.Filter):
    """Writes the secret segment of such a path as "…", and keeps the rest of the line: runserver
    logs every request's path, Django every refused one ("Not Found: /accounts/unsubscribe/…/"),
    and whoever reads the log could confirm the address, set the password or unsubscribe the player."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a line whose arguments do not fit: logging itself reports it when writing
            return True
        hidden = secrets_hidden(message)
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True


# The id of the request this thread is answering (config.middleware.RequestId); "" outside one.
_request_id: ContextVar[str] = ContextVar("request_id", default="")


def request_id() -> str:
    return _request_id.get()


@contextmanager
def request_id_set(value: str) -> Iterator[None]:
    """Lines logged inside carry ``value`` as their request's id."""
    token = _request_id.set(value)
    try:
        yield
    finally:
        _request_id.reset(token)


class RequestIdAttached(logging.Filter):
    """Gives every line its request's id (``record.request_id``, "" outside a request), which the
    500 page shows the player: the line an operator is told of is found by it. Django writes its
    line about a refused request ("Not Found: /x") once the middleware is done, with the request."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id() or getattr(getattr(record, "request", None), "request_id", "")
        return True


class RequestIdFirst(logging.Formatter):
    """A line written while answering a request starts with its id: "[3f9c…] Internal Server Error: /x"."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        request_id = getattr(record, "request_id", "")  # set by RequestIdAttached
        return f"[{request_id}] {line}" if request_id else line
