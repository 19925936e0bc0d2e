"""The outbox hears what happens in matches, chat and accounts (their signals, connected in
``NotificationsConfig.ready``) and writes the notices, in the transaction of the change."""

from __future__ import annotations

from django.utils import timezone

from accounts.models import TurnNotice
from notifications.models import Notification
from notifications.services import outbox
from notifications.services.texts import clock_context, result_words

Kind = Notification.Kind


def invited(sender, *, match, user, creator, **_) -> None:
    outbox.notify(user, match, Kind.INVITATION, "invitation", {"creator": creator})


def invitation_expiring(sender, *, match, user, **_) -> None:
    context = {"creator": match.created_by, "open_until": match.open_until}
    outbox.notify(user, match, Kind.INVITATION, "invitation_expiring", context)


def turn_started(sender, *, match, seat, watching, **_) -> None:
    if not watching:
        outbox.notify_turn(match, seat)
    elif seat.user.turn_notice == TurnNotice.DIGEST:
        # No email for the player looking at the match, yet it may wait for them for days: the
        # "your turn" not written is what sets a digest going.
        outbox.digest_schedule(seat.user, timezone.now())


def match_ended(sender, *, match, seats, seat, user, last_move, **_) -> None:
    context = {"last_move": last_move, "taken_over_at": seat.taken_over_at, **result_words(match, seats, seat)}
    outbox.notify(user, match, Kind.MATCH_OVER, "match_over", context)


def match_cancelled(sender, *, match, seat, user, why, **_) -> None:
    outbox.notify(user, match, Kind.MATCH_OVER, "match_cancelled", {"why": why, "taken_over_at": seat.taken_over_at})


def timed_out(sender, *, match, user, what, **_) -> None:
    outbox.notify(user, match, Kind.TIMEOUT, "timeout", {"what": what})


def seat_taken(sender, *, match, user, why, invited, **_) -> None:
    outbox.notify(user, match, Kind.SEAT_TAKEN, "seat_taken", {"why": why, "invited": invited})


def deadline_extended(sender, *, match, seat, hours, **_) -> None:
    outbox.notify(seat.user, match, Kind.EXTENSION, "extension", {"hours": hours, **clock_context(seat)})


def clocks_started(sender, *, seats, since, **_) -> None:
    outbox.reminders_schedule(seats, since)


def clocks_stopped(sender, *, match_ids, user_ids, **_) -> None:
    outbox.reminders_cancel(match_ids, user_ids)


def message_posted(sender, *, match, message, **_) -> None:
    outbox.tell_of_message(match, message)


def notification_settings_changed(sender, *, user_id, **_) -> None:
    outbox.notification_settings_changed(user_id=user_id)
