"""Every write to a match goes through here: the views, the tasks and the admin call
these functions and nothing else changes a match.

A move is one short transaction: lock the match row, check the version the player saw,
apply the move through the pure rules, store the new state and the move record, write
the notifications to the outbox, and only after the commit hand work to Celery.
"""

from __future__ import annotations

import logging
import secrets as pysecrets
import smtplib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from functools import partial

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, F, Max, Min, Q, Value, When
from django.template.defaultfilters import pluralize
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import REMINDER_CHOICES, TurnNotice, User
from accounts.unsubscribe import MESSAGES, REMINDERS, TURN_EMAILS, unsubscribe_url
from config import limits
from config.mail import ReadableEmail, conversation
from games import selectors, tasks, webhooks
from games.boards import seat_colours
from games.engine import IllegalMove, get_game
from games.engine.rng import new_seed
from games.models import (
    DAY,
    DAYS_PER_MOVE_CHOICES,
    STATUS_TRANSITIONS,
    Match,
    MatchEvent,
    Message,
    MessageReport,
    MoveRecord,
    Notification,
    OnTimeout,
    Seat,
    Status,
    TimeControl,
    names_in_words,
    scores_by_name,
    seat_names,
    with_player_names,
)

log = logging.getLogger(__name__)

NOT_IN_PLAY = "This match is not in play any more."
NOT_STARTED = "This match has not started yet: it is waiting for players."
RESIGN_BEFORE_START = (
    "This match has not started yet, so there is nothing to resign: decline the invitation, "
    "or withdraw the match if you created it."
)
ALREADY_ENDED = {  # why staff cannot abort a match
    Status.ABORTED: "This match is already cancelled.",
    Status.FINISHED: "This match is already over; there is nothing to abort.",
}
NOT_OPEN = "This match is no longer waiting for players."
SEAT_TAKEN = "Another player took the last seat just before you."
ALREADY_ACCEPTED = "You have already accepted this invitation."
NOT_OPEN_ANY_MORE = {  # why a match no longer takes joins, acceptances or withdrawals
    Status.ACTIVE: "This match has already started.",
    Status.ABORTED: "This match was cancelled.",
    Status.FINISHED: "This match is over.",
}
NOT_SENT_YET = "It has not gone out yet: it goes at its time, so sending it now would send it twice."
NO_LONGER_THEIR_TURN = "It is out of date: it is no longer their turn in that match, so it would mislead them."
INVITATION_CLOSED = "It is out of date: the invitation is no longer open, so it would mislead them."
EMAIL_NOT_WANTED = "They chose in their profile to get no such email, so it is not sent again."
NO_WEBHOOK_NOW = "They have no webhook any more, so it is not sent again."
NO_EMAIL_NOW = "They have no email address any more, so it is not sent again."
NOTHING_TO_RESEND = "It has no text to send again (a digest is written when it goes out, and this one never did)."
ACCOUNT_CLOSED = "Their account is closed, so nothing more is sent to them."
CREATOR_CLOSED = "Your account is closed, so no match was made."
NOT_YOUR_TURN = "It is not your turn."
NOT_YOUR_MATCH = "You are not playing in this match."
NOT_FINISHED = "A rematch can only follow a match that was played to the end."
CREATED, ACCEPTED = "created", "accepted"  # what match_rematch did
REMATCH_WITHDRAWN = (
    "The rematch you were offered was cancelled before you accepted it, so you have joined nothing. "
    "You may offer a new rematch."
)
NO_REMATCH_OF_CANCELLED = "This match was cancelled, so there is nothing to play again: start a new match instead."
STALE_MOVE = (
    "The board changed since you loaded it (a move was played, perhaps from another tab or window), "
    "so yours was not played. Here is the current position."
)
ALREADY_SEATED = "You already have a seat in this match."
ACCEPT_INSTEAD = "You are invited to this match: accept the invitation to take your seat."
YOUR_OWN_MATCH = "You created this match, so there is no invitation for you to answer."
NO_OPEN_SEAT = "There is no open seat left in this match."
NO_INVITATION = "You have no invitation to this match."
WAITS_FOR_CLOSED_ACCOUNT = "This match waits for {names}, whose account{s} {are} closed, so it can never start."
UNKNOWN_PLAYER = "There is no player called “{name}”."
UNCONFIRMED_PLAYER = (
    "“{name}” has not confirmed their email address yet, so they cannot sign in to play. Invite them once they have."
)
INVITED_SELF = "You cannot invite yourself; you already have a seat."
INVITED_TWICE = "“{name}” is invited twice."
# The limits on what one player may ask of the others (settings.OPEN_MATCHES_PER_PLAYER and the next two).
TOO_MANY_OPEN = (
    "You already have {count} matches waiting for players, the most one player may have at once. "
    "Cancel one of them (on its page), or wait until players join them, before you start another. "
    "A match against the AI alone starts at once, so you may start one of those."
)
TOO_MANY_INVITATIONS_TO_ONE = (
    "“{name}” has {count} of your invitations still to answer, the most one player may "
    "have from another at once. Wait for their answers, or cancel one of those matches, "
    "before you invite them again."
)
TOO_MANY_INVITATIONS_A_DAY = (
    "You sent {sent} invitation{s} in the last 24 hours and this match would send {new} "
    "more: one player may send at most {most} a day. Leave seats open for anyone to join "
    "instead, or invite again tomorrow."
)
UNKNOWN_AI_LEVEL = "{game} has no AI level {level}."
ONLY_CREATOR_CANCELS = "Only the player who created this match can cancel it."
TIME_RAN_OUT = "Your time for this move ran out."
BAD_DAYS_PER_MOVE = "Choose 1, 2, 3, 5, 7 or 14 days per move."
BAD_TIME_BANK = "A time bank needs at least one day to start with, and a cap no smaller than that."
UNKNOWN_TIME_CONTROL = "There is no such time control."
NO_RUNNING_CLOCK = "That seat has no clock running."
NO_TIME_LIMIT = "This match has no time limit, so there is no deadline to extend."
EXTENSION_NEEDS_REASON = "Say why the deadline is extended."
ALREADY_ON_VACATION = "You are on vacation already, so no new vacation was started."
VACATION_TOO_LONG = "You have {left} vacation day{s} left this year."
# A message in a match (message_post): why one is refused, with what was typed left where it was.
MESSAGE_LENGTH = 500
MESSAGE_EMPTY = "Write something first."
MESSAGE_TOO_LONG = "A message may be at most {most} characters; yours has {count}. Shorten it and send it again."
MESSAGE_NUL = "Your message holds a NUL character, which nothing here accepts; nothing was sent."
MESSAGE_NOT_A_PLAYER = "Only the players of this match can write here."
MESSAGE_ACCOUNT_CLOSED = "Your account is closed, so nothing was sent."
MESSAGES_TOO_FAST = "You are writing too fast; wait a minute."
MESSAGES_WINDOW_SECONDS = 60
# A report of a message to staff (message_report).
REPORT_REASON_LENGTH = 200
REPORT_REASON_TOO_LONG = "A reason may be at most {most} characters; yours has {count}."
REPORT_REASON_NUL = "Your reason holds a NUL character, which nothing here accepts; nothing was reported."
REPORT_OWN_MESSAGE = "This is your own message: there is nothing to report."
REPORT_HIDDEN_MESSAGE = "Staff removed this message already."
MESSAGE_NOT_FOUND = "There is no such message, or it is not yours to see."
REPORTED = "Reported. Staff will look at it."
REPORTED_ALREADY = "You reported this message already."
REPORTS_TOO_FAST = "You reported many messages in the last hour; wait a while before you report another."
REPORTS_WINDOW_SECONDS = 3600

# Why messages written before staff deactivated the player are not sent (the account cannot sign in).
PLAYER_DEACTIVATED = "The player's account is deactivated."
NO_EMAIL_ADDRESS = "The player has no email address."  # one who closed their account, which staff opened again

# Notices about the player's turn: not sent once it is over, and written again as they go out.
TURN_NOTICES = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER, Notification.Kind.EXTENSION)
# What a player who chose the daily digest reads there rather than in an email of its own.
IN_THE_DIGEST = (Notification.Kind.YOUR_TURN, Notification.Kind.MESSAGE)

# A notice of messages lists at most this many (the first ones), then says how many more; its
# subject quotes at most this many characters of a lone message.
MESSAGES_LISTED = 10
SUBJECT_QUOTE = 60
MESSAGES_SEEN = "The player read them on the match page."
MESSAGES_REMOVED = "Staff removed every message it told of."
NO_SEAT_NOW = "The player has no seat in the match any more."
QUOTES_A_REMOVED_MESSAGE = "It quotes a message staff removed since, so it is not sent again."

# A player seen on the match page this recently gets no "your turn" message about it.
PRESENCE_SECONDS = 90
MAX_SEND_ATTEMPTS = tasks.MAX_SEND_ATTEMPTS

# Seconds a sender may hold a notification before another sender may try it again.
NOTIFICATION_CLAIM_SECONDS = 300
LOCK_TIMEOUT = "5s"
STATEMENT_TIMEOUT = "15s"


class ServiceError(Exception):
    """A request the site refuses; ``message`` is written for the player, ``status`` is HTTP."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class AlreadyDone(ServiceError):
    """What was asked is so already (Join or Accept pressed twice, a second tab): the page
    shows the match with these words, not a refusal."""


class MoveRejected(ServiceError):
    status = 422


class StaleMove(ServiceError):
    status = 409


class NotAllowed(ServiceError):
    status = 403


class TooFast(ServiceError):
    status = 429


class NotFound(ServiceError):
    """Nothing there, or nothing the user may see: the site's not-found answer."""

    status = 404


class PermanentFailure(Exception):
    """A delivery that will never succeed (address refused, webhook gone): not retried."""


@dataclass(frozen=True)
class ClockSpec:
    """The time control a creator chose; see README, "Time controls"."""

    time_control: str = TimeControl.NONE
    days_per_move: int | None = None
    bank_initial_days: int | None = None
    bank_increment_days: int | None = None
    bank_cap_days: int | None = None
    on_timeout: str = OnTimeout.LOSE


@dataclass(frozen=True)
class SeatSpec:
    """Who sits on a new match's seat: the creator, nobody yet, an invited player or an AI."""

    kind: str  # "creator", "open", "user", "ai"
    username: str = ""
    ai_level: int | None = None


# --- helpers -----------------------------------------------------------------------


def _limit_waits() -> None:
    """A lock held too long, or a statement that hangs, fails the transaction rather than the request hanging."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            cursor.execute(f"SET LOCAL statement_timeout = '{STATEMENT_TIMEOUT}'")


def _lock_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends: the one serialisation point of moves."""
    _limit_waits()
    return Match.objects.select_for_update().get(pk=match_id)


def _set_status(match: Match, to: str, *, reason: str, actor: User | None = None, in_log: bool = False) -> None:
    if to not in STATUS_TRANSITIONS[match.status]:
        raise ServiceError(f"A match that is {match.get_status_display().lower()} cannot become {to}.")
    MatchEvent.objects.create(
        match=match,
        from_status=match.status,
        to_status=to,
        reason=reason,
        actor=actor,
        ply=match.version if in_log else None,
    )
    match.status = to
    _touch(match)


def _record_event(
    match: Match,
    *,
    reason: str,
    actor: User | None = None,
    in_log: bool = False,
    level_change: tuple[int, int] | None = None,
) -> None:
    """A seating or clock change that keeps the status, kept beside the status changes;
    ``level_change`` is the seat whose AI level staff changed and its former level."""
    seat, former_ai_level = level_change or (None, None)
    MatchEvent.objects.create(
        match=match,
        from_status=match.status,
        to_status=match.status,
        reason=reason,
        actor=actor,
        ply=match.version if in_log else None,
        seat=seat,
        former_ai_level=former_ai_level,
    )
    _touch(match)


def _touch(match: Match) -> None:
    """A change open pages should redraw that is not a move (the row is locked by the caller)."""
    match.revision += 1
    Match.objects.filter(pk=match.pk).update(revision=match.revision)


def _match_url(match: Match) -> str:
    return settings.SITE_URL + reverse("match_detail", args=[match.pk])


# --- the outbox ----------------------------------------------------------------------


def _email_wanted(user: User, kind: str) -> bool:
    if kind == Notification.Kind.REMINDER:
        return bool(user.reminders)
    if kind == Notification.Kind.MESSAGE:
        return user.message_emails and user.turn_notice == TurnNotice.INSTANT
    return user.turn_notice == TurnNotice.INSTANT or (
        user.turn_notice == TurnNotice.DIGEST and kind != Notification.Kind.YOUR_TURN
    )


def _notify(
    user: User, match: Match, kind: str, template: str, context: dict, *, due_at: datetime | None = None
) -> None:
    """Write the message to the outbox, one row per channel the player chose. Rows due now
    are handed to a task after the commit; the relay sweep sends whatever is left."""
    for notification in _outbox_rows(user, match, kind, template, context, due_at=due_at):
        notification.save(force_insert=True)
        if due_at is None:
            transaction.on_commit(partial(tasks.enqueue_notification, notification.pk), robust=True)


def _outbox_rows(
    user: User, match: Match, kind: str, template: str, context: dict, *, due_at: datetime | None = None
) -> list[Notification]:
    """The rows ``_notify`` writes, not saved yet: rows due later can be written many at once."""
    now = timezone.now()
    channels = _channels(user, kind, now)
    if kind == Notification.Kind.YOUR_TURN and channels:
        # One unread "your turn" per match and channel is enough. One still waiting (held back while the
        # player had just left the page, or for a mail server) now tells of this turn, and whether the
        # player has looked at the match since is counted from this turn's start, when it is written.
        waiting = Notification.objects.filter(user=user, match=match, kind=kind, sent_at__isnull=True)
        pending = set(waiting.values_list("channel", flat=True))
        if pending:
            waiting.update(created_at=now)
        channels = [channel for channel in channels if channel not in pending]
    if not channels:
        return []
    subject, body = _written(user, match, template, context)
    return [
        Notification(
            user=user,
            match=match,
            kind=kind,
            channel=channel,
            subject=subject,
            body=body if channel == Notification.Channel.EMAIL else f"{subject}\n{_match_url(match)}",
            due_at=due_at or now,
        )
        for channel in channels
    ]


def _channels(user: User, kind: str, now: datetime) -> list[str]:
    """The channels a notice goes by, as the player chose. A digest player reads a "your turn"
    or a message in the digest, which this sets going, and gets no email of its own."""
    channels = []
    if kind in IN_THE_DIGEST and user.turn_notice == TurnNotice.DIGEST:
        if kind != Notification.Kind.MESSAGE or user.message_emails:
            _digest_schedule(user, now)
    elif _email_wanted(user, kind):
        channels.append(Notification.Channel.EMAIL)
    if user.webhook_url:
        channels.append(Notification.Channel.WEBHOOK)
    return channels


def _tell_of_message(match: Match, message: Message) -> None:
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


def _written(user: User, match: Match, template: str, context: dict) -> tuple[str, str]:
    """A notice's subject and email body, every moment in it on the player's clock."""
    context = {"user": user, "match": match, "url": _match_url(match), **context}
    with timezone.override(user.zone):
        subject = render_to_string(f"emails/{template}_subject.txt", context, using="text").strip()
        body = render_to_string(f"emails/{template}.txt", context, using="text")
    return subject, body


def _result_words(match: Match, seats: list[Seat], reader: Seat) -> dict[str, str]:
    """What a match-over email tells the player on ``reader`` of the result, by the names
    the match page shows: in a word for the subject (``verdict``), in a sentence that says
    who won and why (``outcome``), and the score. A reader whose seat the AI took over
    reads the result of that seat, played by the AI ("AI (Strong), in your former seat, lost")."""
    names = seat_names(seats)
    winners, reason = match.result["winners"], match.result["reason"]
    won_by = names_in_words([names[number] for number in winners])
    tie_break = " on the tie-break" if match.won_on_tie_break else ""
    left = reader.user_id is None
    yours, you = ("your former seat ", f"{names[reader.number]}, in your former seat,") if left else ("you ", "You")
    if len(winners) == len(seats):
        verdict, outcome = "a draw", f"It is a draw: {won_by} share the win"
    elif reader.number not in winners:
        won = f"won{tie_break}" if len(winners) == 1 else "share the win"
        verdict, outcome = f"{yours}lost", f"{you} lost: {won_by} {won}"
    elif len(winners) == 1:
        verdict, outcome = f"{yours}won", f"{you} won{tie_break}"
    else:
        others = names_in_words([names[number] for number in winners if number != reader.number])
        shares = "shares" if left else "share"
        verdict, outcome = f"{yours}{shares} the win", f"{you} {shares} the win with {others}"
    if reason != "played out":
        outcome += f" ({reason})"
    score = scores_by_name(names, match.result["scores"])
    return {"verdict": verdict, "outcome": f"{outcome}.", "score": score}


def _readers(seats: list[Seat], *, but: int | None = None) -> list[tuple[Seat, User]]:
    """Who hears how a match ended (or that it was cancelled), with their seat: every person
    seated or invited, and those whose seat the AI took over while it was in play (they took
    part; a closed account hears nothing). ``but``: a person who knows already (their own
    move or action ended it)."""
    readers = []
    for seat in seats:
        if seat.user_id is not None:
            person = seat.user
        elif seat.taken_over_at is not None and seat.former_user is not None and seat.former_user.is_active:
            person = seat.former_user
        else:
            continue
        if person.pk != but:
            readers.append((seat, person))
    return readers


def _tell_the_result(match: Match, seats: list[Seat], readers: list[tuple[Seat, User]], *, last_move: str = "") -> None:
    for seat, user in readers:
        _notify(
            user,
            match,
            Notification.Kind.MATCH_OVER,
            "match_over",
            {"last_move": last_move, "taken_over_at": seat.taken_over_at, **_result_words(match, seats, seat)},
        )


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
    if user.turn_notice == TurnNotice.DIGEST and (selectors.matches_to_act(user) or _digest_news(user)):
        _digest_schedule(user, now)
    # Only those still to come: one due already (the sweep runs every half minute) or waiting
    # to be tried again would not be written again, its time being past.
    unclaimed.filter(kind=Notification.Kind.REMINDER, due_at__gt=now, attempts=0).delete()
    running = Seat.objects.filter(
        user=user, to_act=True, deadline__isnull=False, clock_started_at__isnull=False, match__status=Status.ACTIVE
    ).select_related("match", "user")
    Notification.objects.bulk_create(
        [row for seat in running for row in _reminder_rows(seat.match, seat, seat.clock_started_at, now=now)]
    )


def _digest_schedule(user: User, now: datetime, *, just_sent: bool = False) -> None:
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


def _cancel_reminders(match: Match, user_ids: list[int] | None = None) -> None:
    """Reminders of a turn that ended, or whose deadline moved, are not needed any more."""
    pending = Notification.objects.filter(match=match, kind=Notification.Kind.REMINDER, sent_at__isnull=True)
    if user_ids is not None:
        pending = pending.filter(user_id__in=user_ids)
    pending.delete()


# --- clocks ----------------------------------------------------------------------------

CLOCK_FIELDS = ["deadline", "clock_started_at", "reminded_share", "bank_seconds", "paused_seconds"]
# Every share of the turn's time a player may be reminded at (50, 80, 95).
REMINDER_SHARES = sorted({int(part) for value, _ in REMINDER_CHOICES for part in value.split(",") if part})


def _on_vacation(user: User | None, now: datetime) -> bool:
    return user is not None and user.vacation_until is not None and user.vacation_until > now


def _time_left(seat: Seat, now: datetime) -> int | None:
    # Kept in whole seconds (a vacation's stopped clock, a bank's balance): rounded, not cut,
    # so that a turn does not lose up to a second each time its clock stops.
    if seat.deadline is not None:
        return max(0, round((seat.deadline - now).total_seconds()))
    return seat.paused_seconds


def _turn_seconds(match: Match, seat: Seat) -> int | None:
    if match.time_control == TimeControl.PER_MOVE:
        return match.days_per_move * DAY
    if match.time_control == TimeControl.BANK:
        return seat.bank_seconds if seat.bank_seconds is not None else match.bank_initial_days * DAY
    return None


def _clock_start(match: Match, seat: Seat, now: datetime) -> bool:
    """Start the clock of a person whose turn begins; a player on vacation gets it stopped."""
    available = _turn_seconds(match, seat)
    if available is None or seat.user_id is None:
        return False
    seat.clock_started_at, seat.reminded_share = now, 0
    if _on_vacation(seat.user, now):
        seat.deadline, seat.paused_seconds = None, available
    else:
        seat.deadline, seat.paused_seconds = now + timedelta(seconds=available), None
        _schedule_reminders(match, seat, now)
    return True


def _clock_stop(match: Match, seat: Seat, now: datetime, *, turn_done: bool) -> bool:
    """Stop a seat's clock; a finished turn on a time bank keeps what was left plus the increment."""
    left = _time_left(seat, now)
    if left is None and seat.clock_started_at is None:
        return False
    if match.time_control == TimeControl.BANK and turn_done and left is not None:
        seat.bank_seconds = min(match.bank_cap_days * DAY, left + match.bank_increment_days * DAY)
    seat.deadline = seat.clock_started_at = seat.paused_seconds = None
    seat.reminded_share = 0
    return True


def _schedule_reminders(match: Match, seat: Seat, since: datetime) -> None:
    Notification.objects.bulk_create(_reminder_rows(match, seat, since))


def _reminder_rows(match: Match, seat: Seat, since: datetime, *, now: datetime | None = None) -> list[Notification]:
    """Reminder rows (not saved) due when the given share of the time from ``since`` to the
    deadline is used; none already due at ``now`` (when given), and none for a share whose
    moment came in this turn before the clock stopped or moved (``seat.reminded_share``)."""
    rows = []
    for percent in seat.user.reminder_percents:
        due = since + (seat.deadline - since) * percent / 100
        if percent > seat.reminded_share and (now is None or due > now):
            rows += _outbox_rows(
                seat.user, match, Notification.Kind.REMINDER, "reminder", {"deadline": seat.deadline}, due_at=due
            )
    return rows


def _share_come(seat: Seat, now: datetime, *, unsent_from: datetime | None = None) -> int:
    """Before a running clock stops or its deadline moves: the highest share of the turn whose
    reminder moment has come (sent, or not wanted then), counted from the clock's last start
    to the deadline it had; any possible share, so that one chosen later is not sent late.
    ``unsent_from``: when the first of the turn's reminders still waiting to go out was due
    (the sweep comes every half minute, a failed one waits to be tried again). Its share has
    not come: its row goes with the old deadline, and it comes after the restart, naming the
    deadline that holds then (sent during a vacation, it would name one the stopped clock no
    longer has)."""
    if seat.clock_started_at is None or seat.deadline is None:
        return seat.reminded_share
    come = []
    for share in REMINDER_SHARES:
        moment = seat.clock_started_at + (seat.deadline - seat.clock_started_at) * share / 100  # as _reminder_rows
        if moment <= now and (unsent_from is None or moment < unsent_from):
            come.append(share)
    return max([seat.reminded_share, *come])


def _first_unsent_reminders(user: User, match_ids: list[int]) -> dict[int, datetime]:
    """For ``_share_come``: per match, when the first of the player's reminders not sent yet is due."""
    return dict(
        Notification.objects.filter(
            user=user, match_id__in=match_ids, kind=Notification.Kind.REMINDER, sent_at__isnull=True
        )
        .order_by()
        .values("match_id")
        .annotate(first=Min("due_at"))
        .values_list("match_id", "first")
    )


def _update_clocks(match: Match, seats: list[Seat], *, before: set[int], after: set[int]) -> None:
    now = timezone.now()
    changed, stopped_users = [], []
    for seat in seats:
        if seat.number in before and seat.number not in after:
            if _clock_stop(match, seat, now, turn_done=True):
                changed.append(seat)
                stopped_users.append(seat.user_id)
        elif (
            seat.number in after
            and seat.number not in before
            and match.status == Status.ACTIVE
            and _clock_start(match, seat, now)
        ):
            changed.append(seat)
    if stopped_users:
        _cancel_reminders(match, stopped_users)
    if changed:
        Seat.objects.bulk_update(changed, CLOCK_FIELDS)


def _after_position_change(match: Match, seats: list[Seat], *, mover: int | None, last_move: str) -> None:
    """Bring seats, status, AI tasks and emails in line with the match's new state."""
    game = match.game_obj
    state = game.load(match.state)
    to_act = set(game.to_act(state))
    before = {seat.number for seat in seats if seat.to_act}
    _update_clocks(match, seats, before=before, after=set() if game.is_over(state) else to_act)
    Seat.objects.filter(match=match).update(
        to_act=Case(When(number__in=to_act, then=Value(True)), default=Value(False))
    )
    for seat in seats:
        seat.to_act = seat.number in to_act
    if game.is_over(state):
        outcome = game.outcome(state)
        # A reason only where the scores do not explain the result (Mecca: an empty hand wins).
        reason = with_player_names(game.win_reason(state), seat_names(seats)) or "played out"
        match.result = {"scores": list(outcome.scores), "winners": list(outcome.winners), "reason": reason}
        match.finished_at = timezone.now()
        _set_status(match, Status.FINISHED, reason="The game ended.")
        moved = next((seat.user_id for seat in seats if seat.number == mover), None)
        _tell_the_result(match, seats, _readers(seats, but=moved), last_move=last_move)
        return
    for seat in seats:
        if seat.number not in to_act:
            continue
        if seat.is_ai:
            transaction.on_commit(partial(tasks.enqueue_ai_move, match.pk, match.version), robust=True)
        elif seat.user_id and seat.number != mover:
            _notify(seat.user, match, Notification.Kind.YOUR_TURN, "your_turn", _turn_context(match, seat))


def _turn_context(match: Match, seat: Seat) -> dict:
    """What a "your turn" email says: the moves since the player's last, and their clock."""
    return {**_since_your_last_move(match, seat), **_clock_context(seat)}


def _clock_context(seat: Seat) -> dict:
    """The seat's clock as the emails say it: its deadline, or the time left while a vacation stops it."""
    return {"deadline": seat.deadline, "paused": seat.paused_seconds}


SINCE_SHOWN = 12  # moves a "your turn" email lists at most, the latest


def _since_your_last_move(match: Match, seat: Seat) -> dict:
    """What happened since the seat's own last move (a Mecca turn is several moves, and
    other colours or the AI may have played several turns), with what the move log shows
    between moves (the AI taking a seat, more time): the latest SINCE_SHOWN lines."""
    mine = MoveRecord.objects.filter(match=match, seat=seat.number).aggregate(last=Max("ply"))["last"]
    first = 0 if mine is None else mine + 1
    moves = MoveRecord.objects.filter(match=match, ply__gte=first).order_by("-ply")
    events = MatchEvent.objects.filter(match=match, ply__gte=first).order_by("-ply", "-pk")  # in the log: a ply
    # An event at ply p came after move p - 1 and before move p: newest first, a move before its events.
    lines = sorted(
        [(ply, 1, text) for ply, text in moves.values_list("ply", "description")[: SINCE_SHOWN + 1]]
        + [(ply, 0, text) for ply, text in events.values_list("ply", "reason")[: SINCE_SHOWN + 1]],
        reverse=True,
    )
    texts = [text for _ply, _order, text in lines]
    more_before = len(texts) > SINCE_SHOWN
    total = moves.count() + events.count() if more_before else len(texts)  # "12 of 30": what was left out
    return {"since": texts[:SINCE_SHOWN][::-1], "more_before": more_before, "total": total, "first_turn": mine is None}


def _start(match: Match, seats: list[Seat], *, actor: User | None) -> None:
    _set_status(match, Status.ACTIVE, reason="Every seat is taken.", actor=actor)
    if match.time_control == TimeControl.BANK:
        bank = match.bank_initial_days * DAY
        Seat.objects.filter(match=match, user__isnull=False).update(bank_seconds=bank)
        for seat in seats:
            seat.bank_seconds = bank if seat.user_id else None
    # The player whose action started the match is looking at it: no email for them.
    actor_seat = next((seat for seat in seats if actor and seat.user_id == actor.pk), None)
    _after_position_change(match, seats, mover=actor_seat.number if actor_seat else None, last_move="")
    if actor_seat is not None and actor_seat.to_act and actor.turn_notice == TurnNotice.DIGEST:
        # Yet the match may wait for them for days, and the "your turn" not written is what sets a digest going.
        _digest_schedule(actor, timezone.now())


def _seats_locked(match: Match) -> list[Seat]:
    return list(match.seats.select_related("user", "former_user").order_by("number"))


def _seat_of(seats: list[Seat], user: User) -> Seat | None:
    return next((seat for seat in seats if seat.user_id == user.pk), None)


# --- creating and joining ------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    creator: User,
    game_slug: str,
    options: dict[str, str],
    seats: list[SeatSpec],
    clock: ClockSpec | None = None,
    rematch_of: Match | None = None,
) -> Match:
    """A new match; it starts at once when no seat waits for a player."""
    game = get_game(game_slug)
    options = game.resolve_options(options)
    seed = new_seed()
    state = game.initial_state(len(seats), options, seed)  # ValueError for a bad player count
    _within_limits(creator, seats)
    match = Match.objects.create(
        game=game.slug,
        options=options,
        state=game.dump(state),
        seed=seed,
        created_by=creator,
        rematch_of=rematch_of,
        open_to_all=any(spec.kind == "open" for spec in seats),
        open_until=_open_until(),
        **clock_fields(clock or ClockSpec(), players=len(seats)),
    )
    MatchEvent.objects.create(match=match, to_status=Status.OPEN, reason="Match created.", actor=creator)
    invited: set[int] = set()
    rows = []
    for number, spec in enumerate(seats):
        seat = Seat(match=match, number=number)
        if spec.kind == "creator":
            seat.user = creator
        elif spec.kind == "ai":
            if spec.ai_level not in game.ai_levels:
                raise ServiceError(UNKNOWN_AI_LEVEL.format(game=game.name, level=spec.ai_level))
            seat.ai_level = spec.ai_level
        elif spec.kind == "user":
            seat.user = invitee(name=spec.username, creator=creator, invited=invited)
            seat.accepted, seat.invited = False, True
        rows.append(seat)
    if sum(spec.kind == "creator" for spec in seats) != 1:
        raise ServiceError("The creator takes exactly one seat.")
    Seat.objects.bulk_create(rows)
    for seat in rows:
        if seat.user_id and not seat.accepted:
            _notify(seat.user, match, Notification.Kind.INVITATION, "invitation", {"creator": creator})
    if all(seat.accepted and not seat.is_open for seat in rows):
        _start(match, _seats_locked(match), actor=creator)
    match.save()
    return match


def invitee(*, name: str, creator: User, invited: set[int]) -> User:
    """The player called ``name`` (a username, any case) whom ``creator`` may invite, added to
    ``invited`` (the ids of the players invited to the match's other seats); ``ServiceError``
    saying why not. The new-match form asks it for every seat, to name every problem at once."""
    name = name.strip()
    user = User.objects.filter(username__iexact=name, is_active=True).first()
    if user is None:
        raise ServiceError(UNKNOWN_PLAYER.format(name=name))
    if user.pk == creator.pk:
        raise ServiceError(INVITED_SELF)
    # Anyone may sign up with someone else's address: until it is confirmed, an
    # invitation would email a stranger, and the match would wait for a player who cannot sign in.
    if not EmailAddress.objects.filter(user=user, verified=True).exists():
        raise ServiceError(UNCONFIRMED_PLAYER.format(name=name))
    if user.pk in invited:
        raise ServiceError(INVITED_TWICE.format(name=user.username))
    if not creator.is_staff:  # one player's invitations must not fill another's inbox
        waiting = Seat.objects.filter(selectors.unanswered_invitation(), user=user, match__created_by=creator).count()
        if waiting >= settings.PENDING_INVITATIONS_TO_ONE_PLAYER:
            raise ServiceError(TOO_MANY_INVITATIONS_TO_ONE.format(name=user.public_name, count=waiting))
    invited.add(user.pk)
    return user


def _within_limits(creator: User, seats: list[SeatSpec]) -> None:
    """Refuse a match that would leave its creator with too many matches waiting for players
    (the lobby is everyone's) or send too many invitations in a day (each one is an email);
    the limit on invitations to one player is ``invitee``'s. Staff are not limited: they
    can do far more from the admin, and may set up many matches for an event.

    The creator's row is locked until the match is stored, so two matches sent at once (two
    tabs, a script) are counted one after the other and cannot both pass the last free place.
    A match against the AI alone starts at once: it waits for nobody and is not limited."""
    new_invitations = sum(spec.kind == "user" for spec in seats)
    if creator.is_staff or not any(spec.kind in ("open", "user") for spec in seats):
        return
    _limit_waits()
    # no_key, as vacation_start: a move in another match writes rows pointing at this user.
    if not User.objects.select_for_update(no_key=True).filter(pk=creator.pk).values_list("is_active", flat=True).get():
        raise ServiceError(CREATOR_CLOSED)  # the account was closed meanwhile: nobody could ever settle this match
    waiting = Match.objects.filter(created_by=creator, status=Status.OPEN).count()
    if waiting >= settings.OPEN_MATCHES_PER_PLAYER:
        raise ServiceError(TOO_MANY_OPEN.format(count=waiting))
    if new_invitations:
        sent = Seat.objects.filter(
            invited=True, match__created_by=creator, match__created_at__gt=timezone.now() - timedelta(days=1)
        ).count()
        if sent + new_invitations > settings.INVITATIONS_PER_DAY:
            raise ServiceError(
                TOO_MANY_INVITATIONS_A_DAY.format(
                    sent=sent, s=pluralize(sent), new=new_invitations, most=settings.INVITATIONS_PER_DAY
                )
            )


def clock_fields(clock: ClockSpec, *, players: int) -> dict:
    """A match's clock columns for ``clock``; ``ServiceError`` for a clock the site does not offer."""
    # With more than two players a late player cannot simply lose: the AI takes the seat.
    on_timeout = OnTimeout.AI if players > 2 else clock.on_timeout
    if on_timeout not in OnTimeout.values:
        raise ServiceError(UNKNOWN_TIME_CONTROL)
    if clock.time_control == TimeControl.NONE:
        return {"time_control": TimeControl.NONE, "on_timeout": on_timeout}
    if clock.time_control == TimeControl.PER_MOVE:
        if clock.days_per_move not in DAYS_PER_MOVE_CHOICES:
            raise ServiceError(BAD_DAYS_PER_MOVE)
        return {"time_control": TimeControl.PER_MOVE, "days_per_move": clock.days_per_move, "on_timeout": on_timeout}
    if clock.time_control == TimeControl.BANK:
        initial, increment, cap = clock.bank_initial_days, clock.bank_increment_days, clock.bank_cap_days
        if not initial or initial < 1 or increment is None or increment < 0 or cap is None or cap < initial:
            raise ServiceError(BAD_TIME_BANK)
        return {
            "time_control": TimeControl.BANK,
            "bank_initial_days": initial,
            "bank_increment_days": increment,
            "bank_cap_days": cap,
            "on_timeout": on_timeout,
        }
    raise ServiceError(UNKNOWN_TIME_CONTROL)


@transaction.atomic
def match_rematch(*, match_id: int, user: User, accepting: int | None = None) -> tuple[Match, str]:
    """The same game, options, clock and players again, each seat moved round by one so
    that someone else starts: the other people are invited, AI seats keep their level.
    A match has one rematch: whoever asks after it exists gets that one, and is seated in
    it. ``accepting`` is the rematch a player's page offered them: if it was cancelled
    since, the player is told so rather than made the host of a new one. Returns the
    rematch and what this call did: CREATED, ACCEPTED or "" (nothing)."""
    match = _lock_match(match_id)  # two players asking at once get the same rematch
    seats = _seats_locked(match)
    if _seat_of(seats, user) is None:
        raise NotAllowed(NOT_YOUR_MATCH)
    # A declined or withdrawn rematch stays as it is, and a new one may be offered.
    existing = Match.objects.filter(rematch_of=match).exclude(status=Status.ABORTED).first()
    if (
        existing is None
        and accepting is not None
        and Match.objects.filter(pk=accepting, rematch_of=match, status=Status.ABORTED).exists()
    ):
        raise ServiceError(REMATCH_WITHDRAWN)  # and none offered since: the player decides again
    if existing is not None:
        invited = existing.seats.filter(user=user, accepted=False).exists()
        if invited and existing.status == Status.OPEN:
            match_accept(match_id=existing.pk, user=user)  # asking for the rematch is saying yes to it
            return existing, ACCEPTED
        return existing, ""
    if match.status != Status.FINISHED:
        raise ServiceError(NOT_FINISHED if match.status != Status.ABORTED else NO_REMATCH_OF_CANCELLED)
    specs = []
    for seat in seats[-1:] + seats[:-1]:  # the last seat becomes the first, the first the second, …
        if seat.is_ai:
            specs.append(SeatSpec("ai", ai_level=seat.ai_level))
        elif seat.user_id == user.pk:
            specs.append(SeatSpec("creator"))
        elif seat.user_id is not None and seat.user.is_active:
            specs.append(SeatSpec("user", username=seat.user.username))
        else:
            specs.append(SeatSpec("open"))  # a closed account: anyone may take the seat
    clock = ClockSpec(
        time_control=match.time_control,
        days_per_move=match.days_per_move,
        bank_initial_days=match.bank_initial_days,
        bank_increment_days=match.bank_increment_days,
        bank_cap_days=match.bank_cap_days,
        on_timeout=match.on_timeout,
    )
    rematch = match_create(
        creator=user, game_slug=match.game, options=match.options, seats=specs, clock=clock, rematch_of=match
    )
    return rematch, CREATED


def creator_seats(*, seats: list[SeatSpec], position: str) -> list[SeatSpec]:
    """Put the creator first, last or at a random place among the other seats."""
    index = {"first": 0, "last": len(seats)}.get(position)
    if index is None:
        index = pysecrets.randbelow(len(seats) + 1)
    return [*seats[:index], SeatSpec("creator"), *seats[index:]]


def _no_longer_open(
    match: Match, seats: list[Seat], user: User, *, joining: bool = False, accepting: bool = False
) -> ServiceError:
    """Why a match that was open a moment ago takes no join, acceptance or withdrawal now,
    in the words of what happened (a race lost, a second tab, a creator who withdrew)."""
    seat = _seat_of(seats, user)
    if match.status == Status.ACTIVE and seat is None:
        return ServiceError(SEAT_TAKEN)
    if match.status == Status.ACTIVE and seat.accepted and (joining or seat.user_id != match.created_by_id):
        # "Join" pressed twice took a seat, it accepted no invitation.
        error = AlreadyDone if joining or accepting else ServiceError  # a Decline is refused
        return error(f"{ALREADY_SEATED if joining else ALREADY_ACCEPTED} {NOT_OPEN_ANY_MORE[Status.ACTIVE]}")
    if match.status == Status.ABORTED:  # say why: "Bob declined the invitation, so the match is cancelled."
        ended = match.events.filter(to_status=Status.ABORTED).exclude(from_status=Status.ABORTED).last()
        if ended is not None:
            return ServiceError(ended.reason)
    return ServiceError(NOT_OPEN_ANY_MORE.get(match.status, NOT_OPEN))


@transaction.atomic
def match_join(*, match_id: int, user: User) -> Match:
    match = _lock_match(match_id)
    seats = _seats_locked(match)
    if match.status != Status.OPEN:
        raise _no_longer_open(match, seats, user, joining=True)
    if mine := _seat_of(seats, user):
        raise AlreadyDone(ALREADY_SEATED) if mine.accepted else ServiceError(ACCEPT_INSTEAD)
    if why := waits_for_closed_account(seats):
        raise ServiceError(why)
    seat = next((seat for seat in seats if seat.is_open), None)
    if seat is None:
        raise ServiceError(NO_OPEN_SEAT)
    seat.user = user
    seat.save(update_fields=["user"])
    _record_event(match, reason=f"{user.public_name} took seat {seat.number + 1}.", actor=user)
    _start_if_full(match, seats, actor=user)
    return match


def waits_for_closed_account(seats: list[Seat]) -> str:
    """Why a match still open can never start, or "": a seat held or offered to a player whose
    account is closed (before closing an account cancelled such matches; see
    ``accounts.services.user_deactivate``). Nobody may join it or accept; declining ends it."""
    closed = [seat.user.public_name for seat in seats if seat.user_id and not seat.user.is_active]
    if not closed:
        return ""
    several = len(closed) > 1
    return WAITS_FOR_CLOSED_ACCOUNT.format(
        names=names_in_words(closed), s="s" if several else "", are="are" if several else "is"
    )


def _already_answered(match: Match, user: User, *, accepting: bool) -> ServiceError:
    """Accept or Decline pressed by someone whose seat is taken already: its creator, or an
    invited player who said yes before (to whom a second Accept is no error)."""
    if match.created_by_id == user.pk:
        return ServiceError(YOUR_OWN_MATCH)
    return AlreadyDone(ALREADY_ACCEPTED) if accepting else ServiceError(ALREADY_ACCEPTED)


def _invitation_to_answer(match_id: int, user: User, *, accepting: bool) -> tuple[Match, list[Seat], Seat]:
    """The locked match, its seats and the user's seat, for Accept or Decline: refused
    when the match is no longer open or the user has no invitation still to answer."""
    match = _lock_match(match_id)
    seats = _seats_locked(match)
    if match.status != Status.OPEN:
        raise _no_longer_open(match, seats, user, accepting=accepting)
    seat = _seat_of(seats, user)
    if seat is None:
        raise NotAllowed(NO_INVITATION)
    if seat.accepted:
        raise _already_answered(match, user, accepting=accepting)
    return match, seats, seat


@transaction.atomic
def match_accept(*, match_id: int, user: User) -> Match:
    match, seats, seat = _invitation_to_answer(match_id, user, accepting=True)
    if why := waits_for_closed_account(seats):
        raise ServiceError(why)
    seat.accepted = True
    seat.save(update_fields=["accepted"])
    _record_event(match, reason=f"{user.public_name} accepted the invitation.", actor=user)
    _start_if_full(match, seats, actor=user)
    return match


@transaction.atomic
def match_decline(*, match_id: int, user: User) -> Match:
    match, seats, _seat = _invitation_to_answer(match_id, user, accepting=False)
    _cancel_open(match, seats, f"{user.public_name} declined the invitation, so the match is cancelled.", actor=user)
    return match


def _cancel_open(match: Match, seats: list[Seat], why: str, *, actor: User | None) -> None:
    """End a match still waiting for players (declined, withdrawn, expired): everyone seated
    or invited but ``actor`` hears ``why``. The match row is locked by the caller."""
    _set_status(match, Status.ABORTED, reason=why, actor=actor, in_log=True)
    match.finished_at = timezone.now()  # finished matches are listed by when they ended
    match.save(update_fields=["status", "finished_at"])
    _tell_players(match, seats, why, but=actor)


def _start_if_full(match: Match, seats: list[Seat], *, actor: User) -> None:
    if all(seat.accepted and not seat.is_open for seat in seats):
        _start(match, seats, actor=actor)
    else:  # a seat was taken: a match that is filling up gets its whole waiting time again
        match.open_until, match.open_until_told = _open_until(), False
    match.save()


def _open_until() -> datetime:
    return timezone.now() + timedelta(days=settings.OPEN_MATCH_EXPIRY_DAYS)


# --- open matches that wait too long --------------------------------------------------


@transaction.atomic
def match_expire(*, match_id: int) -> bool:
    """Cancel a match still waiting for players at its ``open_until``, telling everyone seated
    or invited why. The match row is locked and re-checked, so a join or an acceptance that got
    in first wins (and gave it more time), and two sweeps at once cancel it once."""
    match = _lock_match(match_id)
    if match.status != Status.OPEN or match.open_until is None or match.open_until > timezone.now():
        return False
    seats = _seats_locked(match)
    _cancel_open(match, seats, _expiry_words(seats), actor=None)
    return True


def _expiry_words(seats: list[Seat]) -> str:
    """ "Bob did not answer the invitation in 14 days, so the match is cancelled." """
    silent = [seat.user.public_name for seat in seats if seat.user_id and not seat.accepted]
    free = sum(seat.is_open for seat in seats)
    parts = []
    if silent:
        parts.append(
            f"{names_in_words(silent)} did not answer {'the invitation' if len(silent) == 1 else 'their invitations'}"
        )
    if free:
        parts.append("nobody took the open seat" if free == 1 else f"nobody took the {free} open seats")
    what = " and ".join(parts) or "nobody took the match up"  # not reached: an open match waits for someone
    return f"{what[:1].upper()}{what[1:]} in {settings.OPEN_MATCH_EXPIRY_DAYS} days, so the match is cancelled."


@transaction.atomic
def invitation_expiry_tell(*, match_id: int) -> int:
    """``OPEN_MATCH_WARN_DAYS`` before an open match runs out: tell the invited players who have
    not answered yet, once (``open_until_told``, set under the row lock). How many were told."""
    now = timezone.now()
    match = _lock_match(match_id)
    if (
        match.status != Status.OPEN
        or match.open_until_told
        or match.open_until is None
        or not now < match.open_until <= now + timedelta(days=settings.OPEN_MATCH_WARN_DAYS)
    ):
        return 0
    match.open_until_told = True
    match.save(update_fields=["open_until_told"])
    silent = [seat.user for seat in _seats_locked(match) if seat.user_id and not seat.accepted and seat.user.is_active]
    for user in silent:
        _notify(
            user,
            match,
            Notification.Kind.INVITATION,
            "invitation_expiring",
            {"creator": match.created_by, "open_until": match.open_until},
        )
    return len(silent)


# --- playing -------------------------------------------------------------------------


@transaction.atomic
def move_submit(
    *,
    match_id: int,
    move: str,
    expected_version: int,
    user: User | None = None,
    ai_seat: int | None = None,
) -> MoveRecord:
    """Apply one move by ``user`` (or by the AI on ``ai_seat``) to the version they saw.
    The same move sent twice by the same seat (a double click, a resent form) is the one
    already played: its record comes back and nothing else happens."""
    match = _lock_match(match_id)
    seats = _seats_locked(match)
    if user is not None:
        seat = _seat_of(seats, user)
        if seat is None:
            raise NotAllowed(NOT_YOUR_MATCH)
    else:
        seat = seats[ai_seat]
        if not seat.is_ai:
            raise NotAllowed("That seat is not played by the AI.")
    if expected_version < match.version and (played := _same_move_played(match, seat, move, expected_version)):
        return played
    if match.status != Status.ACTIVE:
        raise MoveRejected(NOT_STARTED if match.status == Status.OPEN else NOT_IN_PLAY)
    if expected_version != match.version:
        raise StaleMove(STALE_MOVE)
    game = match.game_obj
    state = game.load(match.state)
    if seat.number not in game.to_act(state):
        raise MoveRejected(NOT_YOUR_TURN)
    if seat.deadline is not None and seat.deadline <= timezone.now():
        raise MoveRejected(TIME_RAN_OUT)  # the deadline sweep applies the timeout
    try:
        new_state = game.apply(state, seat.number, move)
    except IllegalMove as error:
        raise MoveRejected(str(error)) from None
    record = MoveRecord.objects.create(
        match=match,
        ply=match.version,
        seat=seat.number,
        notation=game.normalize(move),
        # Names at the time of the move: the log keeps saying who made it after a seat changes hands.
        description=with_player_names(
            game.describe(state, seat.number, move), seat_names(seats), seat_colours(game.slug, game.view(state, None))
        ),
        by_ai=seat.is_ai,
    )
    match.state = game.dump(new_state)
    match.version += 1  # safe: the row is locked
    match.last_move_at = record.created_at
    _after_position_change(match, seats, mover=seat.number, last_move=record.description)
    match.save(update_fields=["state", "version", "last_move_at", "status", "result", "finished_at"])
    return record


def _same_move_played(match: Match, seat: Seat, move: str, ply: int) -> MoveRecord | None:
    record = MoveRecord.objects.filter(match=match, ply=ply, seat=seat.number).first()  # (match, ply) is unique
    return record if record is not None and record.notation == match.game_obj.normalize(move) else None


@transaction.atomic
def match_resign(*, match_id: int, user: User) -> Match:
    """Two players: the other one wins. More: the AI takes the seat and plays on."""
    match = _lock_match(match_id)
    seats = _seats_locked(match)
    seat = _seat_of(seats, user)
    if seat is None:  # first: "decline the invitation" would be no answer for someone not invited
        raise NotAllowed(NOT_YOUR_MATCH)
    if match.status != Status.ACTIVE:
        raise ServiceError(RESIGN_BEFORE_START if match.status == Status.OPEN else NOT_IN_PLAY)
    if len(seats) > 2:
        _hand_seat_to_ai(
            match,
            seats,
            seat,
            level=max(match.game_obj.ai_levels),
            reason=f"{user.public_name} resigned; the AI plays on.",
            actor=user,
        )
        return match
    winners = [s.number for s in seats if s.number != seat.number]
    match.result = {"scores": [], "winners": winners, "reason": f"{user.public_name} resigned"}
    match.finished_at = timezone.now()
    _set_status(match, Status.FINISHED, reason=f"{user.public_name} resigned.", actor=user, in_log=True)
    _stop_all_clocks(match)
    match.save(update_fields=["status", "result", "finished_at"])
    _tell_the_result(match, seats, _readers(seats, but=user.pk))
    return match


@transaction.atomic
def match_cancel(*, match_id: int, user: User) -> Match:
    """The creator withdraws a match nobody has started playing."""
    match = _lock_match(match_id)
    if match.status != Status.OPEN:
        raise ServiceError(NOT_OPEN_ANY_MORE.get(match.status, NOT_OPEN))
    if match.created_by_id != user.pk:
        raise NotAllowed(ONLY_CREATOR_CANCELS)
    # Those invited and those who joined hear of it.
    _cancel_open(match, _seats_locked(match), f"{user.public_name} withdrew the match before it started.", actor=user)
    return match


# --- staff ---------------------------------------------------------------------------


@transaction.atomic
def match_abort(*, match_id: int, actor: User | None, reason: str, why: str = "") -> Match:
    """Staff end a match that is not over (``reason``: theirs, told to the players). ``why``: the
    whole sentence instead, when it was no staff decision (a player closed their account)."""
    match = _lock_match(match_id)
    if match.status in ALREADY_ENDED:
        raise ServiceError(ALREADY_ENDED[match.status])
    why = why or f"Staff aborted the match{_because(reason)}"
    _set_status(match, Status.ABORTED, reason=why, actor=actor, in_log=True)
    _stop_all_clocks(match)
    match.finished_at = timezone.now()
    match.save(update_fields=["status", "finished_at"])
    _tell_players(match, _seats_locked(match), why)
    return match


def _because(reason: str) -> str:
    """Staff's reason as the end of a sentence: ": Cheating reported." (or just "." without one);
    one that ends its sentence itself ("Cheating, again!") gets no second mark."""
    reason = reason.strip().rstrip(".")
    if reason.endswith(("!", "?", "…")):
        return f": {reason}"
    return f": {reason}." if reason else "."


def _tell_players(match: Match, seats: list[Seat], why: str, *, but: User | None = None) -> None:
    """Every person seated (invited or not), and whoever's seat the AI took in play, except
    ``but``, hears that the match was cancelled, and why."""
    for seat, user in _readers(seats, but=getattr(but, "pk", None)):
        _notify(
            user,
            match,
            Notification.Kind.MATCH_OVER,
            "match_cancelled",
            {"why": why, "taken_over_at": seat.taken_over_at},
        )


@transaction.atomic
def seat_replace_by_ai(
    *, match_id: int, seat_number: int, level: int, actor: User | None, reason: str, why: str = ""
) -> Match:
    """Staff give a seat to the AI (``reason``: theirs, in the move log and told to the player).
    ``why``: the whole sentence instead, when it was no staff decision (a player closed their account)."""
    match = _lock_match(match_id)
    if match.status not in (Status.OPEN, Status.ACTIVE):
        raise ServiceError(NOT_IN_PLAY)
    if level not in match.game_obj.ai_levels:
        raise ServiceError(UNKNOWN_AI_LEVEL.format(game=match.game_obj.name, level=level))
    seats = _seats_locked(match)
    seat = seats[seat_number]
    person, invited, before = seat.user, not seat.accepted, seat.occupant_name
    because = _because(reason)
    if seat.is_ai and seat.ai_level == level:
        raise ServiceError(f"The AI already plays seat {seat_number + 1} at that level.")
    if seat.is_ai:  # another level: staff make the game easier or harder for the others
        former_level, seat.ai_level = seat.ai_level, level
        seat.save(update_fields=["ai_level"])
        _record_event(
            match,
            reason=f"Staff gave seat {seat_number + 1} to {seat.occupant_name} instead of {before}{because}",
            actor=actor,
            in_log=True,
            level_change=(seat_number, former_level),
        )
        if match.status == Status.ACTIVE and seat.to_act:
            transaction.on_commit(partial(tasks.enqueue_ai_move, match.pk, match.version), robust=True)
        return match
    if person is None:
        whose = f"the open seat (player {seat_number + 1})"
    else:
        whose = f"{before}'s {'invited ' if invited else ''}seat"
    _hand_seat_to_ai(
        match, seats, seat, level=level, reason=why or f"Staff gave {whose} to the AI{because}", actor=actor
    )
    if person is not None:
        told = why or f"Staff gave your {'invited ' if invited else ''}seat to the AI{because}"
        _notify(person, match, Notification.Kind.SEAT_TAKEN, "seat_taken", {"why": told, "invited": invited})
    if match.status == Status.OPEN:
        _start_if_full(match, seats, actor=actor)
    return match


def _stop_all_clocks(match: Match) -> None:
    Seat.objects.filter(match=match).update(
        to_act=False, deadline=None, clock_started_at=None, reminded_share=0, paused_seconds=None
    )
    _cancel_reminders(match)


def _hand_seat_to_ai(match: Match, seats: list[Seat], seat: Seat, *, level: int, reason: str, actor) -> None:
    if seat.user_id:
        _cancel_reminders(match, [seat.user_id])
        seat.former_user = seat.user  # they may still watch (an invited one too: the email says so)
        # In play they took part, and hear how it ends; before the start (an invitation withdrawn) they took none.
        seat.taken_over_at = timezone.now() if match.status == Status.ACTIVE else None
    seat.user, seat.ai_level, seat.accepted = None, level, True
    seat.deadline = seat.clock_started_at = seat.bank_seconds = seat.paused_seconds = None  # the AI has no clock
    seat.reminded_share = 0
    seat.save(update_fields=["user", "ai_level", "accepted", "former_user", "taken_over_at", *CLOCK_FIELDS])
    _record_event(match, reason=reason, actor=actor, in_log=True)
    if match.status == Status.ACTIVE and seat.to_act:
        transaction.on_commit(partial(tasks.enqueue_ai_move, match.pk, match.version), robust=True)


def resend_refusal(notice: Notification) -> str:
    """Why staff may not send ``notice`` again, or "" (the admin offers "Send again" only then).
    ``notice`` is read through ``selectors.with_resend_facts``, with its player. A turn notice
    or an invitation sent again must still be true; the other kinds tell of something that
    happened and stays so."""
    if not notice.body:
        return NOTHING_TO_RESEND
    if notice.sent_at is None and notice.outcome == Notification.Outcome.PENDING:
        return NOT_SENT_YET
    user = notice.user
    if not user.is_active:
        return ACCOUNT_CLOSED  # a copy skips the checks made when sending: it would reach a closed account
    if notice.channel == Notification.Channel.EMAIL and not _email_wanted(user, notice.kind):
        return EMAIL_NOT_WANTED  # staff may not undo an unsubscribe
    if notice.channel == Notification.Channel.WEBHOOK and not user.webhook_url:
        return NO_WEBHOOK_NOW
    if notice.channel == Notification.Channel.EMAIL and not user.email:
        return NO_EMAIL_NOW
    if notice.match_id is None:
        return ""
    if notice.kind in TURN_NOTICES and not notice.their_turn:
        return NO_LONGER_THEIR_TURN
    if notice.kind == Notification.Kind.INVITATION and not notice.still_invited:
        return INVITATION_CLOSED
    if (
        notice.kind == Notification.Kind.MESSAGE
        and notice.removed_since
        and any(
            _indented(text) in notice.body
            for text in Message.objects.filter(
                match_id=notice.match_id, pk__gte=notice.first_message_id, hidden=True
            ).values_list("text", flat=True)
        )
    ):
        return QUOTES_A_REMOVED_MESSAGE  # a copy goes out as it was written: the text staff removed with it
    return ""


def notification_resend(*, notification_id: int) -> Notification:
    """Staff: send a notice again, as it was written, in a new outbox row (returned)."""
    original = selectors.with_resend_facts(Notification.objects.select_related("match", "user")).get(pk=notification_id)
    if refusal := resend_refusal(original):
        raise ServiceError(refusal)
    with transaction.atomic():
        copy = Notification.objects.create(
            user=original.user,
            match=original.match,
            kind=original.kind,
            channel=original.channel,
            subject=original.subject,
            body=original.body,
            resent_from=original,
        )
        transaction.on_commit(partial(tasks.enqueue_notification, copy.pk), robust=True)
    return copy


# --- AI and email delivery (called by tasks) -------------------------------------------


def ai_turn_play(*, match_id: int, expected_version: int) -> MoveRecord | None:
    """Compute and submit the AI's move; nothing when the match has moved on meanwhile."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Status.ACTIVE or match.version != expected_version:
        return None
    game = match.game_obj
    state = game.load(match.state)
    ai_seats = {seat.number: seat.ai_level for seat in match.seats.filter(ai_level__isnull=False)}
    acting = [number for number in game.to_act(state) if number in ai_seats]
    if not acting:
        return None
    seat = acting[0]
    # Thinking happens outside any transaction; the result is tied to the version it was computed for.
    move = game.ai_move(state, seat, ai_seats[seat], seed=match.seed ^ expected_version)
    try:
        return move_submit(match_id=match_id, move=move, expected_version=expected_version, ai_seat=seat)
    except StaleMove:
        return None
    except MoveRejected as rejected:
        if rejected.message == NOT_IN_PLAY:  # resigned or aborted meanwhile: that keeps the version
            return None
        raise


def notification_send(*, notification_id: int) -> bool:
    """Claim the row, deliver it, mark it done. False when another sender has it, it went
    out already, it is not needed any more (skipped), it waits a little longer (a "your
    turn" for a player who had the match open a moment ago) or it failed for good."""
    now = timezone.now()
    claimed = Notification.objects.filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now), pk=notification_id, sent_at__isnull=True
    ).update(claimed_until=now + timedelta(seconds=NOTIFICATION_CLAIM_SECONDS), attempts=F("attempts") + 1)
    if not claimed:
        return False
    notification = Notification.objects.select_related("user", "match").get(pk=notification_id)
    reason, told_upto = "", None
    if not notification.resent_from_id:  # a copy staff asked for goes out as it was written
        seat = _turn_seat(notification)
        reason = _skip_reason(notification, seat, now)
        later = None
        if not reason and notification.kind == Notification.Kind.MESSAGE:
            reason, later, told_upto = _messages_render(notification, now)
        elif not reason:
            later = _seen_before_the_turn(notification, seat, now)
        if not reason and later:
            # Not an attempt to deliver: the claim is handed back with the new time.
            Notification.objects.filter(pk=notification_id).update(
                claimed_until=None, due_at=later, attempts=F("attempts") - 1
            )
            return False
        if not reason and notification.kind == Notification.Kind.DIGEST:
            reason = _digest_render(notification)
        elif not reason and seat is not None:
            _turn_render(notification, seat)
    if reason:
        _close(notification, Notification.Outcome.SKIPPED, reason, told_upto=told_upto)
        return False
    try:
        _deliver(notification)
    except Exception as error:
        if isinstance(error, PermanentFailure) or notification.attempts >= MAX_SEND_ATTEMPTS:
            log.warning("Notification %s failed for good: %s", notification_id, error)
            _close(notification, Notification.Outcome.FAILED, str(error) or type(error).__name__, told_upto=told_upto)
            _next_digest(notification)  # the address may be corrected by tomorrow
            return False
        backoff = settings.NOTIFICATION_RETRY_SECONDS * 2 ** (notification.attempts - 1)
        Notification.objects.filter(pk=notification_id).update(
            claimed_until=None,
            last_error=(str(error) or type(error).__name__)[:300],
            due_at=timezone.now() + timedelta(seconds=backoff),
        )
        raise
    _close(notification, Notification.Outcome.SENT, "", told_upto=told_upto)
    _next_digest(notification)
    return True


def _next_digest(notification: Notification) -> None:
    """After a digest went out, or failed for good: tomorrow's, as what waited today may wait still."""
    if notification.kind == Notification.Kind.DIGEST:
        _digest_schedule(notification.user, timezone.now(), just_sent=True)


def _close(notification: Notification, outcome: str, error: str, *, told_upto: int | None = None) -> None:
    """Mark it done. A notice of messages that told of those up to ``told_upto`` (their last id)
    is closed with its match locked, as ``message_post`` locks it: a message written after that
    one, which found this notice waiting and left it to tell of it, gets a notice of its own."""
    if told_upto is None:
        _mark_done(notification, outcome, error)
        return
    with transaction.atomic():
        match = _lock_match(notification.match_id)
        _mark_done(notification, outcome, error)
        later = (
            Message.objects.filter(match=match, pk__gt=told_upto)
            .exclude(author_id=notification.user_id)
            .order_by("pk")
            .first()
        )
        if later is not None and notification.user.is_active:
            Notification.objects.bulk_create(
                [
                    Notification(
                        user=notification.user,
                        match=match,
                        kind=Notification.Kind.MESSAGE,
                        channel=notification.channel,
                        first_message=later,
                        due_at=later.created_at + timedelta(seconds=settings.MESSAGE_NOTICE_DELAY_SECONDS),
                    )
                ],
                ignore_conflicts=True,
            )


def _mark_done(notification: Notification, outcome: str, error: str) -> None:
    Notification.objects.filter(pk=notification.pk).update(
        sent_at=timezone.now(), outcome=outcome, last_error=error[:300], claimed_until=None
    )


def _turn_seat(notification: Notification) -> Seat | None:
    """For a notice about the player's turn (TURN_NOTICES): their seat if it is still to act in
    a match in play (read once, for both checks below)."""
    if notification.match_id is None or notification.kind not in TURN_NOTICES:
        return None
    return Seat.objects.filter(
        match_id=notification.match_id, user_id=notification.user_id, to_act=True, match__status=Status.ACTIVE
    ).first()


def _skip_reason(notification: Notification, seat: Seat | None, now: datetime) -> str:
    """Why a message is not wanted or not needed any more, or "": the player may have
    changed their email settings since it was written, and a "your turn" or a reminder
    may be out of date (``seat``: its ``_turn_seat``)."""
    kind = notification.kind
    if not notification.user.is_active:
        return PLAYER_DEACTIVATED
    if notification.channel == Notification.Channel.EMAIL and not notification.user.email:
        return NO_EMAIL_ADDRESS  # Django would send to nobody and count it sent
    if notification.channel == Notification.Channel.WEBHOOK and not notification.user.webhook_url:
        return "The player removed the webhook."
    if kind == Notification.Kind.REMINDER and not notification.user.reminders:
        return "The player turned reminders off."  # by email and webhook alike, as when they are written
    if (
        notification.channel == Notification.Channel.EMAIL
        and kind != Notification.Kind.DIGEST
        and not _email_wanted(notification.user, kind)
    ):
        return "The player turned these emails off."
    if (
        kind == Notification.Kind.INVITATION
        and notification.match_id is not None
        and not Seat.objects.filter(
            match_id=notification.match_id, user_id=notification.user_id, accepted=False, match__status=Status.OPEN
        ).exists()
    ):
        # Held back (a mail server down) past its answer or the match's cancellation: it would
        # arrive after the cancellation notice and invite to a match that is gone.
        return "The invitation is no longer open: answered, withdrawn or cancelled."
    if notification.match_id is None or notification.kind not in TURN_NOTICES:
        return ""
    if seat is None:
        return "The player's turn is over."
    if notification.kind == Notification.Kind.REMINDER and seat.deadline is None:
        return "The player's clock is stopped."
    if (
        notification.kind == Notification.Kind.YOUR_TURN
        and seat.last_seen_at is not None
        and seat.last_seen_at >= now - timedelta(seconds=PRESENCE_SECONDS)
        and seat.last_seen_at >= notification.created_at
    ):  # written when the turn began
        return "The player is looking at the match."
    return ""


def _seen_before_the_turn(notification: Notification, seat: Seat | None, now: datetime) -> datetime | None:
    """For a "your turn": when to look again, if the player had the match open until just
    before the turn began. They may still be looking (their page says "Your turn" then, and
    presence is written every half minute) or may have closed it a moment before; skipped
    outright, the message was lost for good in the second case."""
    if notification.kind != Notification.Kind.YOUR_TURN or seat is None:
        return None
    last_seen = seat.last_seen_at
    if last_seen is None or last_seen >= notification.created_at:
        return None
    later = last_seen + timedelta(seconds=PRESENCE_SECONDS)
    return later if later > now else None


def _messages_render(notification: Notification, now: datetime) -> tuple[str, datetime | None, int]:
    """A notice of messages as it goes out: of the messages the others wrote since its first, those
    staff did not remove and the player has not read on the match page (written after the page
    last recorded them there). Returns why it is not needed ("" if it is), when to look again (the
    player had the page open a moment ago, and may be reading them now: once the page has been
    quiet for PRESENCE_SECONDS), and the id of the last message of the match it took into account."""
    user, match = notification.user, notification.match
    written = list(
        Message.objects.filter(match=match, pk__gte=notification.first_message_id or 0)
        .select_related("author")
        .order_by("pk")
    )
    told_upto = written[-1].pk if written else notification.first_message_id or 0
    others = [message for message in written if message.author_id != user.pk]
    shown = [message for message in others if not message.hidden]
    seat = Seat.objects.filter(match=match, user=user).first()
    seen = seat.last_seen_at if seat else None
    unseen = [message for message in shown if seen is None or message.created_at > seen]
    if seat is None:
        return NO_SEAT_NOW, None, told_upto
    if others and not shown:
        return MESSAGES_REMOVED, None, told_upto
    if not unseen:
        return MESSAGES_SEEN, None, told_upto
    if seen is not None and seen + timedelta(seconds=PRESENCE_SECONDS) > now:
        return "", seen + timedelta(seconds=PRESENCE_SECONDS), told_upto
    url = f"{_match_url(match)}#messages"
    subject, notification.body = _written(
        user,
        match,
        "message",
        {
            "url": url,
            "authors": _authors(unseen),
            "count": len(unseen),
            "quote": _quote(unseen[0].text),
            "messages": [
                (_author_name(message), message.created_at, _indented(message.text))
                for message in unseen[:MESSAGES_LISTED]
            ],
            "more": max(0, len(unseen) - MESSAGES_LISTED),
        },
    )
    notification.subject = subject[:200]
    if notification.channel == Notification.Channel.WEBHOOK:
        notification.body = f"{notification.subject}\n{url}"
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)
    return "", None, told_upto


def _author_name(message: Message) -> str:
    return message.author.public_name if message.author else "A former player"


def _authors(messages: list[Message]) -> str:
    """Who wrote them, in the order they first wrote: "Bob", "Bob and Carol", "Bob and 3 others"."""
    names = list(dict.fromkeys(_author_name(message) for message in messages))
    return names_in_words(names) if len(names) <= 2 else f"{names[0]} and {len(names) - 1} others"


def _quote(text: str) -> str:
    """A message in a subject: one line, at most SUBJECT_QUOTE characters."""
    line = " ".join(text.split())
    return line if len(line) <= SUBJECT_QUOTE else f"{line[: SUBJECT_QUOTE - 1].rstrip()}…"


def _indented(text: str) -> str:
    """A message in an email's body: each of its lines set in by two spaces, under its author."""
    return "\n".join(f"  {line}" for line in text.split("\n"))


def _digest_news(user: User) -> list[Match]:
    """The matches whose messages a digest tells of: those the player has not read and no earlier
    digest told of (``selectors.matches_with_unseen_messages``), if they want to hear of messages."""
    if not user.message_emails:
        return []
    last = Notification.objects.filter(
        user=user,
        kind=Notification.Kind.DIGEST,
        outcome=Notification.Outcome.SENT,
        resent_from__isnull=True,
    ).aggregate(last=Max("sent_at"))["last"]
    return selectors.matches_with_unseen_messages(user, since=last)


def _digest_render(notification: Notification) -> str:
    user = notification.user
    matches = selectors.matches_to_act(user)
    news = _digest_news(user) if user.turn_notice == TurnNotice.DIGEST else []
    if user.turn_notice != TurnNotice.DIGEST or not (matches or news):
        return "Nothing waits for the player."
    context = {"user": user, "matches": matches, "news": news, "site_url": settings.SITE_URL}
    with timezone.override(user.zone):
        notification.subject = render_to_string("emails/digest_subject.txt", context, using="text").strip()
        notification.body = render_to_string("emails/digest.txt", context, using="text")
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)
    return ""


def _turn_render(notification: Notification, seat: Seat) -> None:
    """A "your turn", a reminder or a notice of more time, written again as it goes out: while it waited (a
    player who just left the page, a mail server down) the player may have changed time
    zone, staff moved the deadline or a vacation stopped the clock, and it must say the
    deadline as it then stands, on the player's clock. ``seat``: its ``_turn_seat``."""
    if notification.channel != Notification.Channel.EMAIL:
        return  # a webhook's notice says no time
    seat.match, seat.user = notification.match, notification.user
    if notification.kind == Notification.Kind.YOUR_TURN:
        template, context = "your_turn", _turn_context(seat.match, seat)
    elif notification.kind == Notification.Kind.EXTENSION:
        template, context = "extension", _clock_context(seat)
    else:
        template, context = "reminder", {"deadline": seat.deadline}
    subject, notification.body = _written(notification.user, seat.match, template, context)
    if notification.kind != Notification.Kind.EXTENSION:  # whose subject, the hours staff gave, stays true
        notification.subject = subject
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)


def _deliver(notification: Notification) -> None:
    if notification.channel == Notification.Channel.WEBHOOK:
        _post_webhook(notification)
    else:
        _send_email(notification)


def _send_email(notification: Notification) -> None:
    topic = {Notification.Kind.REMINDER: REMINDERS, Notification.Kind.MESSAGE: MESSAGES}.get(
        notification.kind, TURN_EMAILS
    )
    url = unsubscribe_url(notification.user_id, topic)
    body = f"{notification.body.rstrip()}\n\n-- \nUnsubscribe with one click: {url}\n"
    headers = {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    if notification.match_id is not None:  # a digest, about several matches, stands alone
        headers |= conversation(f"match-{notification.match_id}")
    message = ReadableEmail(notification.subject, body, to=[notification.user.email], headers=headers)
    try:
        message.send()
    except smtplib.SMTPRecipientsRefused as error:
        codes = [code for code, _ in error.recipients.values()]
        if codes and all(code >= 500 for code in codes):
            raise PermanentFailure(f"The mail server refused the address: {error.recipients}") from error
        raise
    except smtplib.SMTPResponseException as error:
        if error.smtp_code >= 500:
            raise PermanentFailure(
                f"The mail server refused the message: {error.smtp_code} {error.smtp_error!r}"
            ) from error
        raise


def _post_webhook(notification: Notification) -> None:
    try:
        webhooks.post(notification.user.webhook_url, notification.body)
    except webhooks.Refused as refused:
        raise PermanentFailure(str(refused)) from refused


# --- clocks: timeouts, extensions, vacations, presence ------------------------------------


@transaction.atomic
def match_timeout(*, match_id: int, expected_version: int, now: datetime | None = None) -> list[int]:
    """Apply the timeout of every seat whose deadline passed, once: the match row is locked
    and the version and deadlines re-checked, so a move that got in first wins."""
    now = now or timezone.now()
    match = _lock_match(match_id)
    if match.status != Status.ACTIVE or match.version != expected_version:
        return []
    seats = _seats_locked(match)
    late = [seat for seat in seats if seat.to_act and seat.deadline is not None and seat.deadline <= now]
    if not late:
        return []
    people = [(seat, seat.user) for seat in seats if seat.user_id]
    names = ", ".join(seat.occupant_name for seat in late)
    if len(seats) == 2 and match.on_timeout == OnTimeout.LOSE:
        loser = late[0]
        match.result = {
            "scores": [],
            "winners": [s.number for s in seats if s.number != loser.number],
            "reason": f"{loser.occupant_name} ran out of time",
        }
        match.finished_at = now
        _set_status(match, Status.FINISHED, reason=f"{loser.occupant_name} ran out of time.", in_log=True)
        _stop_all_clocks(match)
        match.save(update_fields=["status", "result", "finished_at"])
        what = f"{loser.occupant_name} ran out of time and lost, so you won."  # two players: the reader won
        yours = "You ran out of time and lost."
        # Whoever's seat the AI took earlier hears the result as after any other end of the match.
        _tell_the_result(match, seats, [(seat, user) for seat, user in _readers(seats) if seat.user_id is None])
    else:
        level = max(match.game_obj.ai_levels)
        for seat in late:
            _hand_seat_to_ai(
                match,
                seats,
                seat,
                level=level,
                actor=None,
                reason=f"{seat.occupant_name} ran out of time; the AI plays on.",
            )
        what = f"{names} ran out of time; the AI plays on."
        yours = "You ran out of time; the AI took your seat and plays on. You can still watch the match."
    late_users = {seat.former_user_id or seat.user_id for seat in late}
    for _, user in people:
        _notify(user, match, Notification.Kind.TIMEOUT, "timeout", {"what": yours if user.pk in late_users else what})
    return [seat.number for seat in late]


@transaction.atomic
def seat_deadline_extend(*, match_id: int, seat_number: int, hours: int, actor: User | None, reason: str) -> Seat:
    """Staff: give a seat more time, recorded with the reason."""
    if not reason.strip():
        raise ServiceError(EXTENSION_NEEDS_REASON)
    match = _lock_match(match_id)
    if match.status != Status.ACTIVE:  # a match waiting for players is not "in play any more"
        raise ServiceError(NOT_STARTED if match.status == Status.OPEN else NOT_IN_PLAY)
    if match.time_control == TimeControl.NONE:
        raise ServiceError(NO_TIME_LIMIT)
    seat = _seats_locked(match)[seat_number]
    if seat.deadline is None and seat.paused_seconds is None:
        raise ServiceError(NO_RUNNING_CLOCK)
    now = timezone.now()
    if seat.deadline is None:
        seat.paused_seconds += hours * 3600
    else:
        if seat.deadline <= now:
            # The turn ran out (the timeout sweep had not come yet): every reminder it had named
            # a deadline that is gone, and nothing else tells the player of the new one, counted
            # from now: its reminders come as in a new turn.
            seat.reminded_share = 0
        else:  # reminded of once in a turn, however long it gets
            unsent_from = _first_unsent_reminders(seat.user, [match.pk]).get(match.pk)
            seat.reminded_share = _share_come(seat, now, unsent_from=unsent_from)
        seat.deadline = max(seat.deadline, now) + timedelta(hours=hours)
        seat.clock_started_at = now
        _cancel_reminders(match, [seat.user_id])
        _schedule_reminders(match, seat, now)
    seat.save(update_fields=["deadline", "clock_started_at", "reminded_share", "paused_seconds"])
    _record_event(
        match,
        reason=f"{seat.occupant_name} was given {hours} more hour{pluralize(hours)}{_because(reason)}",
        actor=actor,
        in_log=True,
    )
    # Told at once: once the turn's reminders have all come, nothing else would name the new deadline.
    _notify(seat.user, match, Notification.Kind.EXTENSION, "extension", {"hours": hours, **_clock_context(seat)})
    return seat


def _seats_in_active_matches(user: User) -> list[Seat]:
    """The player's seats in their active matches, each match locked (in one query, whatever
    their number), and each seat read again under its lock: a move may just have started a turn."""
    match_ids = list(Seat.objects.filter(user=user, match__status=Status.ACTIVE).values_list("match_id", flat=True))
    if not match_ids:
        return []
    _limit_waits()
    # Ascending ids: every service that locks several matches takes them in one order.
    matches = {match.pk: match for match in Match.objects.select_for_update().filter(pk__in=match_ids).order_by("pk")}
    seats = list(Seat.objects.filter(match_id__in=match_ids, user=user).order_by("match_id"))
    for seat in seats:
        seat.match, seat.user = matches[seat.match_id], user
    # "on vacation until …" shows on every page of the match (the rows are locked: see _touch).
    Match.objects.filter(pk__in=match_ids).update(revision=F("revision") + 1)
    return seats


@transaction.atomic
def vacation_start(*, user_id: int, days: int) -> User:
    """Stop every clock of the player for ``days`` days, out of a yearly allowance."""
    now = timezone.now()
    # no_key: a move locks its match and then writes rows that point at this user (a foreign
    # key check takes KEY SHARE on the user); FOR UPDATE here would wait on that move while it
    # waits on us: a deadlock.
    user = User.objects.select_for_update(no_key=True).get(pk=user_id)
    if _on_vacation(user, now):
        raise ServiceError(ALREADY_ON_VACATION)
    if user.vacation_year != (year := user.vacation_year_now(now)):
        user.vacation_year, user.vacation_days_used = year, 0
    left = user.vacation_days_left(now)
    if not 1 <= days <= left:
        raise ServiceError(VACATION_TOO_LONG.format(left=left, s=pluralize(left)))
    user.vacation_started_at, user.vacation_until = now, now + timedelta(days=days)
    user.vacation_days_used += days
    user.save(update_fields=["vacation_started_at", "vacation_until", "vacation_year", "vacation_days_used"])
    stopped = []
    running = [seat for seat in _seats_in_active_matches(user) if seat.deadline is not None]
    unsent_from = _first_unsent_reminders(user, [seat.match_id for seat in running]) if running else {}
    for seat in running:
        if seat.deadline > now:  # a turn already late stays for the timeout sweep
            seat.reminded_share = _share_come(seat, now, unsent_from=unsent_from.get(seat.match_id))
            seat.paused_seconds, seat.deadline = _time_left(seat, now), None
            stopped.append(seat)
    if stopped:
        Seat.objects.bulk_update(stopped, ["deadline", "reminded_share", "paused_seconds"])
        Notification.objects.filter(
            match_id__in=[seat.match_id for seat in stopped],
            user=user,
            kind=Notification.Kind.REMINDER,
            sent_at__isnull=True,
        ).delete()
    return user


@transaction.atomic
def vacation_end(*, user_id: int) -> User:
    """End a vacation (early, by the player, or when it is over, by the sweep): the clocks
    run again with the time they had left; unused whole days go back to the allowance."""
    now = timezone.now()
    user = User.objects.select_for_update(no_key=True).get(pk=user_id)  # no_key: see vacation_start
    if user.vacation_until is None:
        return user
    if user.vacation_until > now and user.vacation_year == user.vacation_year_now(now):
        unused = int((user.vacation_until - now).total_seconds() // DAY)
        user.vacation_days_used = max(0, user.vacation_days_used - unused)
    user.vacation_started_at = user.vacation_until = None
    user.save(update_fields=["vacation_started_at", "vacation_until", "vacation_days_used"])
    restarted = []
    for seat in _seats_in_active_matches(user):
        if seat.paused_seconds is not None and seat.to_act:
            seat.deadline, seat.paused_seconds = now + timedelta(seconds=seat.paused_seconds), None
            seat.clock_started_at = now
            restarted.append(seat)
    if restarted:
        Seat.objects.bulk_update(restarted, ["deadline", "clock_started_at", "paused_seconds"])
        Notification.objects.bulk_create([row for seat in restarted for row in _reminder_rows(seat.match, seat, now)])
    return user


def seat_seen(*, match_id: int, user: User) -> None:
    """Record that the player has the match open; at most one row write per PRESENCE_WRITE_SECONDS,
    but at once when others wrote since (the page shows their messages: no longer new on My matches)."""
    now = timezone.now()
    Seat.objects.filter(selectors.presence_due(now, user), match_id=match_id, user=user).update(last_seen_at=now)


# --- messages between the players ----------------------------------------------------


def message_text(text: str) -> str:
    """What is stored of a typed message: a browser sends a line break as CR LF (two
    characters where the player sees one), and spaces round it say nothing."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _message_refusal(text: str) -> str:
    if "\x00" in text:  # PostgreSQL refuses it in text (the site's middleware answers forms with one first)
        return MESSAGE_NUL
    if not text:
        return MESSAGE_EMPTY
    if len(text) > MESSAGE_LENGTH:
        return MESSAGE_TOO_LONG.format(most=MESSAGE_LENGTH, count=len(text))
    return ""


def _message_allowed(user: User) -> bool:
    return limits.allowed(f"match-messages:{user.pk}", settings.MESSAGES_PER_MINUTE, MESSAGES_WINDOW_SECONDS)


@transaction.atomic
def message_post(*, match_id: int, user: User, text: str) -> Message:
    """A message from a player seated in the match (invited and not yet answered too, in a match
    of any status), written after the moves played so far. The match's revision moves on in the
    same transaction, so the others' open pages redraw with it at their next poll."""
    text = message_text(text)
    if refusal := _message_refusal(text):
        raise ServiceError(refusal)
    if not user.is_active:
        raise NotAllowed(MESSAGE_ACCOUNT_CLOSED)
    match = _lock_match(match_id)
    if not Seat.objects.filter(match=match, user=user).exists():
        raise NotAllowed(MESSAGE_NOT_A_PLAYER)
    if not _message_allowed(user):
        raise TooFast(MESSAGES_TOO_FAST)
    message = Message.objects.create(match=match, author=user, text=text, after_move=match.version)
    _touch(match)
    _tell_of_message(match, message)
    return message


@transaction.atomic
def message_hide(*, message_id: int, hidden: bool) -> Message:
    """Staff remove a message from the match page (or put it back); open pages redraw."""
    match_id = Message.objects.values_list("match_id", flat=True).get(pk=message_id)
    match = _lock_match(match_id)
    message = Message.objects.get(pk=message_id)
    if message.hidden != hidden:
        message.hidden = hidden
        message.save(update_fields=["hidden"])
        _touch(match)
    return message


def _report_allowed(user: User) -> bool:
    return limits.allowed(f"message-reports:{user.pk}", settings.REPORTS_PER_HOUR, REPORTS_WINDOW_SECONDS)


@transaction.atomic
def message_report(*, match_id: int, message_id: int, user: User, reason: str) -> MessageReport:
    """A player tells staff that someone else's message is out of place: whoever may open the
    match may report what they read there, once per message."""
    reason = message_text(reason)
    if "\x00" in reason:
        raise ServiceError(REPORT_REASON_NUL)
    if len(reason) > REPORT_REASON_LENGTH:
        raise ServiceError(REPORT_REASON_TOO_LONG.format(most=REPORT_REASON_LENGTH, count=len(reason)))
    if not selectors.match_visible(match_id, user):
        raise NotFound(MESSAGE_NOT_FOUND)
    # Locked, so that of two first reports at once only one is the first (the one that tells staff).
    message = Message.objects.select_for_update().filter(pk=message_id, match_id=match_id).first()
    if message is None:
        raise NotFound(MESSAGE_NOT_FOUND)
    if message.author_id == user.pk:
        raise ServiceError(REPORT_OWN_MESSAGE)
    if message.hidden:
        raise ServiceError(REPORT_HIDDEN_MESSAGE)
    if MessageReport.objects.filter(message=message, reporter=user).exists():
        raise AlreadyDone(REPORTED_ALREADY)
    if not _report_allowed(user):
        raise TooFast(REPORTS_TOO_FAST)
    first = not MessageReport.objects.filter(message=message).exists()
    report = MessageReport.objects.create(message=message, reporter=user, reason=reason)
    if first:  # staff get one email per message; the admin counts the reports that follow
        transaction.on_commit(partial(tasks.enqueue_report, report.pk), robust=True)
    return report


def report_staff_tell(*, report_id: int) -> bool:
    """Email the staff addresses (``MANAGERS``) about a message's first report; False when there is
    nothing to send: told already (a task delivered twice, the sweep), not the first report, or no
    address set. The report is claimed before the email goes, so two senders never both send it; a
    send that fails hands the claim back for the task's retry or the sweep, and a sender that dies
    between the two leaves it told: at most one email per message."""
    if not settings.MANAGERS:
        return False
    claimed = selectors.reports_staff_not_told().filter(pk=report_id).update(staff_told_at=timezone.now())
    if not claimed:
        return False
    report = MessageReport.objects.select_related("message__match", "message__author", "reporter").get(pk=report_id)
    message = report.message
    context = {
        "report": report,
        "message": message,
        "match": message.match,
        "author": message.author,
        "reporter": report.reporter,
        "match_url": _match_url(message.match),
        "admin_url": settings.SITE_URL + reverse("admin:games_message_change", args=[message.pk]),
    }
    with timezone.override(UTC):
        subject = render_to_string("emails/message_reported_subject.txt", context, using="text").strip()
        body = render_to_string("emails/message_reported.txt", context, using="text")
    try:
        ReadableEmail(subject, body, to=list(settings.MANAGERS)).send()
    except Exception:
        MessageReport.objects.filter(pk=report_id).update(staff_told_at=None)
        raise
    return True
