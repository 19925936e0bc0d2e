"""One-click unsubscribe: a signed token names a user and what to stop, no login needed."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.urls import reverse

from accounts.models import TurnNotice

SALT = "accounts.unsubscribe"
# What a link stops: turn emails (and invitations, results), reminders, or the emails of players' messages.
TURN_EMAILS = "turn"
REMINDERS = "reminders"
MESSAGES = "messages"
TOPICS = {
    TURN_EMAILS: (
        "game emails (your turn, invitations, results, timeouts, more time from staff, cancellations, "
        "new messages, the daily digest)"
    ),
    REMINDERS: "reminders before a clock runs out",
    MESSAGES: "emails when another player writes in your matches",
}
# Per topic: the field a link sets and the value that stops it.
STOPS = {
    TURN_EMAILS: ("turn_notice", TurnNotice.NONE),
    REMINDERS: ("reminders", ""),
    MESSAGES: ("message_emails", False),
}


def make_token(user_id: int, topic: str) -> str:
    return signing.dumps({"u": user_id, "t": topic}, salt=SALT, compress=True)


def read_token(token: str) -> tuple[int, str] | None:
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if data.get("t") not in TOPICS:
        return None
    return data["u"], data["t"]


def unsubscribe_url(user_id: int, topic: str) -> str:
    return settings.SITE_URL + reverse("unsubscribe", args=[make_token(user_id, topic)])
