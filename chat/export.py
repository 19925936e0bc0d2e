"""The player's messages and reports in "Download my data" (``accounts.export``): the messages they
wrote (not the others': those are theirs) and those they reported to staff, with why."""

from __future__ import annotations

from collections.abc import Iterator

from accounts.models import User
from chat.models import Message, MessageReport


def messages(user: User) -> Iterator[dict]:
    """The messages the player wrote, oldest first, one query read a few hundred rows at a time; one
    staff removed from its match's page says so (it is still theirs)."""
    rows = (
        Message.objects.filter(author=user)
        .order_by("pk")
        .values_list("match_id", "after_move", "created_at", "text", "hidden")
    )
    for match, after_move, at, text, hidden in rows.iterator(chunk_size=500):
        yield {"match": match, "after_move": after_move, "at": at, "text": text, "removed_by_staff": hidden}


def reports(user: User) -> Iterator[dict]:
    """The messages the player reported to staff, and why (the message's words are its author's)."""
    rows = (
        MessageReport.objects.filter(reporter=user)
        .order_by("pk")
        .values_list("message__match_id", "message_id", "created_at", "reason")
    )
    for match, message, at, reason in rows.iterator(chunk_size=500):
        yield {"match": match, "message": message, "at": at, "reason": reason}
