"""Writing the outbox: one row per notice and channel the player chose, in the transaction of
what causes it (a move, a timeout, a message). Rows due now are handed to a task after the
commit; the relay sweep sends whatever is left, and the rows due later (reminders, digests,
notices of messages) when their time comes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Min, Q
from django.utils import timezone

from accounts.models import TurnNotice, User
from chat.models import Message
from games import selectors
from games.models import Match, Seat, Status
from notifications import tasks
from notifications.models import Notification
from notifications.services.texts import (
    digest_news,
    match_url,
    turn_context_and_waiting,
    waiting_turn_notices,
    written,
)

# What a player who chose the daily digest reads there rather than in an email of its own.
IN_THE_DIGEST = (Notification.Kind.YOUR_TURN, Notification.Kind.MESSAGE)


def email_wanted(user: User, kind: str) -> bool:
    if kind == Notification.Kind.REMINDER:
        return bool(user.reminders)
    if kind == Notification.Kind.MESSAGE:
        return user.message_emails and user.turn_notice == TurnNotice.INSTANT
    return user.turn_notice == TurnNotice.INSTANT or (
        user.turn_notice == TurnNotice.DIGEST and kind != Notification.Kind.YOUR_TURN
    )


def notify(
    user: User, match: Match, kind: str, template: str, context: dict, *, due_at: datetime | None = None
) -> None:
    """Write the message to the outbox, one row per channel the player chose. Rows due now
    are handed to a task after the commit; the relay sweep sends whatever is left.
    A "your turn" goes by ``notify_turn``."""
    _save(outbox_rows(user, match, kind, template, context, due_at=due_at), send_now=due_at is None)


def notify_turn(match: Match, seat: Seat) -> None:
    """A "your turn" to the seat's player, on each channel they chose. One unread "your turn" per match
    and channel is enough: one still waiting (held back while the player had just left the page, or for
    a mail server) now tells of this turn, and whether the player has looked at the match since is
    counted from this turn's start, when it is written."""
    user, kind, now = seat.user, Notification.Kind.YOUR_TURN, timezone.now()
    channels = _channels(user, kind, now)
    if not channels:
        return  # no email or webhook (a digest, set going by _channels, tells of it): nothing to read
    context, pending = turn_context_and_waiting(match, seat)
    if pending:
        waiting_turn_notices(user.pk, match.pk).update(created_at=now)
    fresh = [channel for channel in channels if channel not in pending]
    _save(_rows(user, match, kind, "your_turn", context, fresh, due_at=now), send_now=True)


def outbox_rows(
    user: User, match: Match, kind: str, template: str, context: dict, *, due_at: datetime | None = None
) -> list[Notification]:
    """The rows ``notify`` writes, not saved yet: rows due later can be written many at once."""
    now = timezone.now()
    return _rows(user, match, kind, template, context, _channels(user, kind, now), due_at=due_at or now)


def _rows(
    user: User, match: Match, kind: str, template: str, context: dict, channels: list[str], *, due_at: datetime
) -> list[Notification]:
    """One row per channel, not saved: the email's body in full, a webhook's the subject and the link."""
    if not channels:
        return []
    subject, body = written(user, match, template, context)
    return [
        Notification(
            user=user,
            match=match,
            kind=kind,
            channel=channel,
            subject=subject,
            body=body if channel == Notification.Channel.EMAIL else f"{subject}\n{match_url(match)}",
            due_at=due_at,
        )
        for channel in channels
    ]


def _save(rows: list[Notification], *, send_now: bool) -> None:
    rows = Notification.objects.bulk_create(rows)
    if send_now:
        for notification in rows:  # each row's own task: a failed send is retried alone
            transaction.on_commit(partial(tasks.enqueue_notification, notification.pk), robust=True)


def _channels(user: User, kind: str, now: datetime) -> list[str]:
    """The channels a notice goes by, as the player chose. A digest player reads a "your turn"
    or a message in the digest, which this sets going, and gets no email of its own."""
    channels = []
    if kind in IN_THE_DIGEST and user.turn_notice == TurnNotice.DIGEST:
        if kind != Notification.Kind.MESSAGE or user.message_emails:
            digest_schedule(user, now)
    elif email_wanted(user, kind):
        channels.append(Notification.Channel.EMAIL)
    if user.webhook_url:
        channels.append(Notification.Channel.WEBHOOK)
    return channels


def next_digest_at(user: User, now: datetime, *, sent_last: datetime | None = None) -> datetime:
    """The next time the clock shows the player's digest hour, in their time zone, once per
    local day: an hour the clocks go back over counts the first time it comes (fold 0), and
    an hour they skip is taken 24 hours after the day before's. Instants are compared, not
    clock readings: in Chatham (+13:45, back at 03:45 to 02:45) a digest for 3 o'clock sent
    at 02:50 the second time round had 03:00 still ahead on the clock, and went again.
    ``sent_last``: when the latest digest went out; one sent on this local day (before the
    player moved their hour or zone) was the day's, and the next comes the next day."""
    zone = user.zone
    today = now.astimezone(zone).date()
    at = datetime.combine(today, dt_time(user.digest_hour), tzinfo=zone).astimezone(UTC)
    if at > now and (sent_last is None or sent_last.astimezone(zone).date() != today):
        return at
    return datetime.combine(today + timedelta(days=1), dt_time(user.digest_hour), tzinfo=zone).astimezone(UTC)


@transaction.atomic
def notification_settings_changed(*, user_id: int) -> None:
    """After a player changed their email settings: the pending digest goes out at the
    new hour in the new time zone, or is not needed; a player who chose the digest while
    matches wait for them gets one. The reminders of the turns running now are those the
    player asks for now (at half time, 80 %, ... of each turn; none that would be late).
    (Messages already written are checked against the settings when they are sent.)"""
    user = User.objects.get(pk=user_id)
    now = timezone.now()
    unclaimed = Notification.objects.filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now), user=user, sent_at__isnull=True
    )
    unclaimed.filter(kind=Notification.Kind.DIGEST).delete()
    if user.turn_notice == TurnNotice.DIGEST and (selectors.matches_to_act(user) or digest_news(user)):
        digest_schedule(user, now)
    # Only those still to come: one due already (the sweep runs every half minute) or waiting
    # to be tried again would not be written again, its time being past.
    unclaimed.filter(kind=Notification.Kind.REMINDER, due_at__gt=now, attempts=0).delete()
    running = Seat.objects.filter(
        user=user, to_act=True, deadline__isnull=False, clock_started_at__isnull=False, match__status=Status.ACTIVE
    ).select_related("match", "user")
    Notification.objects.bulk_create(
        [row for seat in running for row in reminder_rows(seat.match, seat, seat.clock_started_at, now=now)]
    )


def digest_schedule(user: User, now: datetime, *, just_sent: bool = False) -> None:
    """At most one pending digest per player (a partial unique index); its content is
    written when it is sent, from the matches then waiting for the player. One digest a
    local day: a player who moves their hour (8 to 20) after today's went out gets the next
    tomorrow at the new hour (``just_sent``: the one that went out is the last, and the hour
    it was due at is past)."""
    due = next_digest_at(user, now)
    if not just_sent and due.astimezone(user.zone).date() == now.astimezone(user.zone).date():
        sent_last = Notification.objects.filter(
            user=user,
            kind=Notification.Kind.DIGEST,
            outcome=Notification.Outcome.SENT,
            resent_from__isnull=True,
        ).aggregate(last=Max("sent_at"))["last"]
        due = next_digest_at(user, now, sent_last=sent_last)
    Notification.objects.bulk_create(
        [Notification(user=user, kind=Notification.Kind.DIGEST, due_at=due)], ignore_conflicts=True
    )


def reminder_rows(match: Match, seat: Seat, since: datetime, *, now: datetime | None = None) -> list[Notification]:
    """Reminder rows (not saved) due when the given share of the time from ``since`` to the
    deadline is used; none already due at ``now`` (when given), and none for a share whose
    moment came in this turn before the clock stopped or moved (``seat.reminded_share``)."""
    rows = []
    for percent in seat.user.reminder_percents:
        due = since + (seat.deadline - since) * percent / 100
        if percent > seat.reminded_share and (now is None or due > now):
            rows += outbox_rows(
                seat.user, match, Notification.Kind.REMINDER, "reminder", {"deadline": seat.deadline}, due_at=due
            )
    return rows


def tell_of_message(match: Match, message: Message) -> None:
    """After a message (``match`` locked): a notice to every other player seated, the invited too,
    whose account is open, due ``MESSAGE_NOTICE_DELAY_SECONDS`` later. One waiting already for
    a player tells of this message too (a burst makes one email); it is written as it goes out,
    of the messages the player has not read by then. The lock keeps the sender from closing one
    meanwhile (``_close``)."""
    now = timezone.now()
    due = now + timedelta(seconds=settings.MESSAGE_NOTICE_DELAY_SECONDS)
    readers = [
        seat.user
        for seat in match.seats.select_related("user")
        if seat.user_id not in (None, message.author_id) and seat.user.is_active
    ]
    waiting = set(
        Notification.objects.filter(
            match=match, kind=Notification.Kind.MESSAGE, sent_at__isnull=True, resent_from__isnull=True
        ).values_list("user_id", "channel")
    )
    Notification.objects.bulk_create(
        [
            Notification(
                user=user,
                match=match,
                kind=Notification.Kind.MESSAGE,
                channel=channel,
                first_message=message,
                due_at=due,
            )
            for user in readers
            for channel in _channels(user, Notification.Kind.MESSAGE, now)
            if (user.pk, channel) not in waiting
        ]
    )


def reminders_schedule(seats: list[Seat], since: datetime) -> None:
    """The reminders of clocks that started at ``since`` (each seat with its match and player)."""
    Notification.objects.bulk_create([row for seat in seats for row in reminder_rows(seat.match, seat, since)])


def reminders_cancel(match_ids: list[int], user_ids: list[int] | None) -> None:
    """Reminders of a turn that ended, or whose deadline moved, are not needed any more."""
    pending = Notification.objects.filter(match_id__in=match_ids, kind=Notification.Kind.REMINDER, sent_at__isnull=True)
    if user_ids is not None:
        pending = pending.filter(user_id__in=user_ids)
    pending.delete()


def first_unsent_reminders(user_id: int, match_ids: list[int]) -> dict[int, datetime]:
    """Per match, when the first of the player's reminders not sent yet is due."""
    return dict(
        Notification.objects.filter(
            user_id=user_id, match_id__in=match_ids, kind=Notification.Kind.REMINDER, sent_at__isnull=True
        )
        .order_by()
        .values("match_id")
        .annotate(first=Min("due_at"))
        .values_list("match_id", "first")
    )
