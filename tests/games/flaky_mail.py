"""An email backend for tests whose mail server is down for its next few sends, then
recovers: failed sends raise like a dropped SMTP connection, later ones land in
``mail.outbox`` as with the locmem backend.

Django builds a new backend for every send, so the count of failures to come lives on
the class; a test sets it with ``FlakyBackend.fail_next(n)``.
"""

from __future__ import annotations

import smtplib
import threading

from django.core.mail.backends.locmem import EmailBackend as LocmemBackend

SERVER_DOWN = "Connection unexpectedly closed (test mail server is down)"


class FlakyBackend(LocmemBackend):
    _lock = threading.Lock()
    _failures_left = 0
    failed = 0

    @classmethod
    def fail_next(cls, count: int) -> None:
        with cls._lock:
            cls._failures_left = count
            cls.failed = 0

    def send_messages(self, email_messages):
        with self._lock:
            down = FlakyBackend._failures_left > 0
            if down:
                FlakyBackend._failures_left -= 1
                FlakyBackend.failed += 1
        if down:
            raise smtplib.SMTPServerDisconnected(SERVER_DOWN)
        return super().send_messages(email_messages)
