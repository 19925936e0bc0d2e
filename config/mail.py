"""How the site's emails are built and, by default, delivered.

``ReadableEmail`` is the message every email of the site is sent as (the game notices
and allauth's). ``ConsoleAndFileEmailBackend`` is the default backend: every message is
printed to the console and kept as a file under ``var/mail/``, so a player on a fresh
machine can open their confirmation link. ``conversation`` gives the headers that make
a mail program show many emails as one conversation."""

from __future__ import annotations

import email.policy
from email.utils import make_msgid
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend

RFC5322_MAX_LINE = 998


def site_domain() -> str:
    """The host of ``SITE_URL``, the right side of the site's Message-IDs (Django's default
    is this machine's name, "localhost" on many, which says nothing of the site)."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"[{host}]" if ":" in host else host  # an IPv6 address is written in brackets there


def conversation(topic: str) -> dict[str, str]:
    """The headers that put an email in the conversation about ``topic`` ("match-12"): a
    root no email carries, which each refers to, as mail programs that thread by
    references (Thunderbird, Apple Mail) group them under."""
    root = f"<{topic}@{site_domain()}>"
    return {"References": root, "In-Reply-To": root}


class ReadableEmail(EmailMultiAlternatives):
    """An email whose lines may be as long as RFC 5322 allows (998), as Django's were before
    6.0. Django 6 builds messages with Python's email policy, whose 78 characters make a
    body with a longer line quoted-printable (a link split by ``=`` and a line break, which
    a player copying it from a file or the console gets wrong) and fold a long
    ``List-Unsubscribe`` URL into RFC 2047 encoded words, which mail programs do not read
    there. With no alternatives it is a plain one-part message.

    Every email of the site is sent by a program: ``Auto-Submitted`` (RFC 3834) asks
    vacation responders not to answer it."""

    def __init__(self, *args, headers: dict[str, str] | None = None, **kwargs):
        headers = {
            "Message-ID": make_msgid(domain=site_domain()),
            "Auto-Submitted": "auto-generated",
            **(headers or {}),
        }
        super().__init__(*args, headers=headers, **kwargs)

    def message(self, *, policy: email.policy.Policy | None = None):
        # The SMTP backend passes its own policy (CRLF line ends): keep it, only widen the lines.
        policy = policy or email.policy.default
        return super().message(policy=policy.clone(max_line_length=RFC5322_MAX_LINE))


class ConsoleAndFileEmailBackend(FileBackend):
    def __init__(self, *, alias=None, file_path=None, **kwargs):
        super().__init__(alias=alias, file_path=file_path, **kwargs)
        self.console = ConsoleBackend(alias=alias)

    def send_messages(self, email_messages):
        self.console.send_messages(email_messages)
        return super().send_messages(email_messages)
