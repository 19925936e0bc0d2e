"""Download my data: what the site keeps about a player, as a JSON file (GDPR's data portability).

Only what the player may know, read as their own pages show it: their settings and addresses
here, and what the other apps keep of them (``SECTIONS``): the notifications sent them, every
match they hold or held a seat in with its seat list, result and move log, the messages they
wrote in matches (not the others': those are theirs) and the messages they reported to staff.
Never a match's stored state or seed: they are not even read.

The file is written as it is read, a few matches at a time, so a player of thousands of long
matches costs neither the server's memory nor a query per match or move.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime

from allauth.account.models import EmailAddress
from django.utils import timezone

from accounts.models import User

# The file's lists after the account, in order: (key, the entries of one player), each added by
# its app at start-up (its ``AppConfig.ready``), read as the file is written.
SECTIONS: list[tuple[str, Callable[[User], Iterable[dict]]]] = []


def file_name(user: User, today: date) -> str:
    return f"boardgames-{user.username}-{today.isoformat()}.json"


def account_data(user: User) -> Iterator[bytes]:
    """The file, piece by piece: the account, then each app's lists (``SECTIONS``) one entry at a time."""
    now = timezone.now()
    yield _dumps({"exported_at": now, "account": _account(user, now)})[:-1].encode()
    for key, entries_of in SECTIONS:
        yield f',\n "{key}": ['.encode()
        first = True
        for entry in entries_of(user):
            yield (("\n  " if first else ",\n  ") + _dumps(entry).replace("\n", "\n  ")).encode()
            first = False
        yield b"\n ]"
    yield b"\n}\n"


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=_moment)


def _moment(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not written to the file")


def _account(user: User, now: datetime) -> dict:
    addresses = EmailAddress.objects.filter(user=user).order_by("-primary", "email")
    on_vacation = user.vacation_until is not None and user.vacation_until > now
    return {
        "username": user.username,
        "display_name": user.display_name,
        "email_addresses": [
            {"address": address.email, "verified": address.verified, "primary": address.primary}
            for address in addresses
        ],
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "time_zone": user.time_zone,
        "confirm_each_move": user.confirm_moves,
        "notification_settings": {
            "when_it_is_my_turn": user.turn_notice,
            "digest_hour": user.digest_hour,
            "reminders_at_percent": user.reminder_percents,
            "email_me_when_another_player_writes": user.message_emails,
            "webhook_url": user.webhook_url,
        },
        "email_changed_at": user.email_changed_at,
        "webhook_changed_at": user.webhook_changed_at,
        # The site keeps the latest vacation and the days used in the year, no list of earlier ones.
        "vacation": {
            "on_vacation_until": user.vacation_until if on_vacation else None,
            "started_at": user.vacation_started_at,
            "ended_or_ends_at": user.vacation_until,
            "days_used_this_year": user.vacation_days_used if user.vacation_year == user.vacation_year_now(now) else 0,
            "days_left_this_year": user.vacation_days_left(now),
        },
    }
