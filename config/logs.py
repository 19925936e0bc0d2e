"""What the logs must not show."""

from __future__ import annotations

import logging
import re

# The path segments that are secrets (accounts/urls.py and allauth's): the key that confirms an
# address, the one that sets a new password (with the account's number before it) and the
# token that unsubscribes a player. "…/key/done/" is a page, not a key.
SECRET_IN_PATH = re.compile(r"(/accounts/(?:confirm-email|password/reset/key|unsubscribe)/)(?!done/)[^/\s\"'?#]+")
HIDDEN = "…"


class SecretsInPathsHidden(logging.Filter):
    """Writes the secret segment of such a path as "…", and keeps the rest of the line: runserver
    logs every request's path, Django every refused one ("Not Found: /accounts/unsubscribe/…/"),
    and whoever reads the log could confirm the address, set the password or unsubscribe the player."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a line whose arguments do not fit: logging itself reports it when writing
            return True
        hidden = SECRET_IN_PATH.sub(rf"\1{HIDDEN}", message)
        if hidden != message:
            record.msg, record.args = hidden, ()
        return True
