"""Download my data: what the site keeps about a player, as a JSON file (GDPR's data portability).

Only what the player may know, read as their own pages show it: their settings and addresses,
the notifications sent them, every match they hold or held a seat in with its seat list,
result and move log, the messages they wrote in matches (not the others': those are theirs) and the
messages they reported to staff.
The log's lines are the ones every viewer of the match reads (written with no secret in them:
tests/games/test_secrets.py); a move's notation only for the player's own moves (another
seat's can name a hidden offering: "hut 3 5"). Never a match's stored state or seed: they are
not even read.

The file is written as it is read, a few matches at a time, so a player of thousands of long
matches costs neither the server's memory nor a query per match or move.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from functools import lru_cache
from itertools import groupby

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db.models import Prefetch, Q
from django.utils import timezone

from accounts.models import User
from games.boards import seat_colours
from games.engine import get_game
from games.models import (
    Match,
    MatchEvent,
    Message,
    MessageReport,
    MoveRecord,
    Notification,
    Seat,
    Status,
    seat_names,
)

MATCHES_PER_READ = 50  # matches read together (4 queries): 200 long matches are 4 reads


def file_name(user: User, today: date) -> str:
    return f"boardgames-{user.username}-{today.isoformat()}.json"


def account_data(user: User) -> Iterator[bytes]:
    """The file, piece by piece: the account and notifications, then one match at a time."""
    now = timezone.now()
    head = {"exported_at": now, "account": _account(user, now), "notifications": _notifications(user, now)}
    yield _dumps(head)[:-1].encode()
    for key, entries in (("matches", _matches(user)), ("messages", _messages(user)), ("reports", _reports(user))):
        yield f',\n "{key}": ['.encode()
        first = True
        for entry in entries:
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


def _notifications(user: User, now: datetime) -> list[dict]:
    """The notifications of the days the site keeps them (``NOTIFICATIONS_KEEP_DAYS``), pending ones too."""
    since = now - timedelta(days=settings.NOTIFICATIONS_KEEP_DAYS)
    kept = Notification.objects.filter(user=user, created_at__gte=since)
    rows = kept.order_by("created_at", "pk").values_list(
        "kind", "channel", "subject", "match_id", "created_at", "due_at", "outcome", "sent_at"
    )
    return [
        {
            "kind": kind,
            "channel": channel,
            "subject": subject,
            "match": match,
            "created_at": created,
            "due_at": due,
            "status": outcome or "pending",
            "done_at": sent,
        }
        for kind, channel, subject, match, created, due, outcome, sent in rows
    ]


def _matches(user: User) -> Iterator[dict]:
    ids = list(
        Seat.objects.filter(Q(user=user) | Q(former_user=user))
        .order_by("match_id")
        .values_list("match_id", flat=True)
        .distinct()
    )
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user", "former_user"))
    for start in range(0, len(ids), MATCHES_PER_READ):
        chunk = ids[start : start + MATCHES_PER_READ]
        matches = Match.objects.filter(pk__in=chunk).defer("state", "seed").prefetch_related(seats).order_by("pk")
        moves = (
            MoveRecord.objects.filter(match_id__in=chunk)
            .order_by("match_id", "ply")
            .values_list("match_id", "ply", "seat", "notation", "description", "by_ai", "created_at")
        )
        events = MatchEvent.objects.filter(match_id__in=chunk, ply__isnull=False).order_by("match_id", "ply", "pk")
        moves_of = {match: list(rows) for match, rows in groupby(moves, key=lambda row: row[0])}
        events_of = {match: list(rows) for match, rows in groupby(events, key=lambda event: event.match_id)}
        for match in matches:
            yield _match(match, user, moves_of.get(match.pk, []), events_of.get(match.pk, []))


def _match(match: Match, user: User, moves: list[tuple], events: list[MatchEvent]) -> dict:
    seats = list(match.seats.all())
    names = seat_names(seats)  # as the result line and the log tell seats apart
    colours = _colours(match.game, len(seats), json.dumps(match.options, sort_keys=True))
    mine = next(seat for seat in seats if user.pk in (seat.user_id, seat.former_user_id))
    seated = mine.user_id == user.pk
    result = match.result or None
    return {
        "id": match.pk,
        "name": str(match),
        "game": match.game,
        "options": match.options,
        "options_label": match.options_label,
        "clock": match.clock_terms,
        "status": match.status,
        "created_at": match.created_at,
        "last_move_at": match.last_move_at,
        "finished_at": match.finished_at,
        "your_seat": {
            "number": mine.number + 1,
            "colour": colours.get(mine.number) or None,
            "seated": seated,
            "ai_took_it_at": None if seated else mine.taken_over_at,
        },
        "seats": [
            {
                "number": seat.number + 1,
                "name": seat.occupant_name,
                "colour": colours.get(seat.number) or None,
                "you": seat.user_id == user.pk,
                "replacing": seat.former_user.public_name if seat.former_user_id else None,
            }
            for seat in seats
        ],
        "result": result
        and {
            "winners": [names[number] for number in result.get("winners", [])],
            "scores": result.get("scores", []),
            "reason": result.get("reason", ""),
        },
        "your_result": _your_result(match, mine.number) if seated else None,
        # Every line of the log as the match page shows it; the notation of the player's own moves only.
        "moves": [
            {
                "number": ply + 1,
                "seat": seat + 1,
                "description": description,
                "at": at,
                **({"notation": notation} if seat == mine.number and not by_ai else {}),
            }
            for _, ply, seat, notation, description, by_ai, at in moves
        ],
        "log_events": [{"after_move": event.ply, "text": event.reason, "at": event.created_at} for event in events],
    }


def _messages(user: User) -> Iterator[dict]:
    """The messages the player wrote, oldest first, one query read a few hundred rows at a time; one
    staff removed from its match's page says so (it is still theirs)."""
    rows = (
        Message.objects.filter(author=user)
        .order_by("pk")
        .values_list("match_id", "after_move", "created_at", "text", "hidden")
    )
    for match, after_move, at, text, hidden in rows.iterator(chunk_size=500):
        yield {"match": match, "after_move": after_move, "at": at, "text": text, "removed_by_staff": hidden}


def _reports(user: User) -> Iterator[dict]:
    """The messages the player reported to staff, and why (the message's words are its author's)."""
    rows = (
        MessageReport.objects.filter(reporter=user)
        .order_by("pk")
        .values_list("message__match_id", "message_id", "created_at", "reason")
    )
    for match, message, at, reason in rows.iterator(chunk_size=500):
        yield {"match": match, "message": message, "at": at, "reason": reason}


def _your_result(match: Match, number: int) -> str | None:
    """As My matches says it: "won", "shared win", "lost"."""
    if match.status != Status.FINISHED or not match.result:
        return None
    winners = match.result.get("winners", [])
    if number not in winners:
        return "lost"
    return "shared win" if len(winners) > 1 else "won"


@lru_cache(maxsize=64)
def _colours(slug: str, players: int, options: str) -> dict[int, str]:
    """Each seat's colours in words, as the seat list gives them. They follow from the number of
    players alone, so they are read from a new game's public view, not from the match's state."""
    game = get_game(slug)
    return seat_colours(slug, game.view(game.initial_state(players, json.loads(options), 0), None))
