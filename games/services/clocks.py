"""Clocks: a turn's deadline, time banks, vacations that stop every clock of a player, and more
time from staff. Reminders before a deadline are the notifications app's: it hears of every
clock that starts or stops (``games.signals``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.template.defaultfilters import pluralize
from django.utils import timezone

from accounts.models import REMINDER_CHOICES, User
from games import hooks, signals
from games.models import DAY, Match, Seat, Status, TimeControl
from games.services.base import because, limit_waits, lock_match, record_event, seats_locked
from games.services.errors import NOT_IN_PLAY, NOT_STARTED, ServiceError

EXTENSION_NEEDS_REASON = "Say why the deadline is extended."


NO_RUNNING_CLOCK = "That seat has no clock running."


NO_TIME_LIMIT = "This match has no time limit, so there is no deadline to extend."


ALREADY_ON_VACATION = "You are on vacation already, so no new vacation was started."


VACATION_TOO_LONG = "You have {left} vacation day{s} left this year."
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
        seat.match = match
        signals.clocks_started.send(Match, seats=[seat], since=now)
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
        moment = (
            seat.clock_started_at + (seat.deadline - seat.clock_started_at) * share / 100
        )  # as the reminders are due
        if moment <= now and (unsent_from is None or moment < unsent_from):
            come.append(share)
    return max([seat.reminded_share, *come])


def _first_unsent_reminders(user_id: int, match_ids: list[int]) -> dict[int, datetime]:
    """For ``_share_come``: per match, when the first of the player's reminders not sent yet is due."""
    found: dict[int, datetime] = {}
    for hook in hooks.first_unsent_reminders:
        found.update(hook(user_id, match_ids))
    return found


def update_clocks(match: Match, seats: list[Seat], *, before: set[int], after: set[int]) -> None:
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
        signals.clocks_stopped.send(Match, match_ids=[match.pk], user_ids=stopped_users)
    if changed:
        Seat.objects.bulk_update(changed, CLOCK_FIELDS)


def stop_all_clocks(match: Match) -> None:
    Seat.objects.filter(match=match).update(
        to_act=False, deadline=None, clock_started_at=None, reminded_share=0, paused_seconds=None
    )
    signals.clocks_stopped.send(Match, match_ids=[match.pk], user_ids=None)


@transaction.atomic
def seat_deadline_extend(*, match_id: int, seat_number: int, hours: int, actor: User | None, reason: str) -> Seat:
    """Staff: give a seat more time, recorded with the reason."""
    if not reason.strip():
        raise ServiceError(EXTENSION_NEEDS_REASON)
    match = lock_match(match_id)
    if match.status != Status.ACTIVE:  # a match waiting for players is not "in play any more"
        raise ServiceError(NOT_STARTED if match.status == Status.OPEN else NOT_IN_PLAY)
    if match.time_control == TimeControl.NONE:
        raise ServiceError(NO_TIME_LIMIT)
    seat = seats_locked(match)[seat_number]
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
            unsent_from = _first_unsent_reminders(seat.user_id, [match.pk]).get(match.pk)
            seat.reminded_share = _share_come(seat, now, unsent_from=unsent_from)
        seat.deadline = max(seat.deadline, now) + timedelta(hours=hours)
        seat.clock_started_at = now
        signals.clocks_stopped.send(Match, match_ids=[match.pk], user_ids=[seat.user_id])
        seat.match = match
        signals.clocks_started.send(Match, seats=[seat], since=now)
    seat.save(update_fields=["deadline", "clock_started_at", "reminded_share", "paused_seconds"])
    record_event(
        match,
        reason=f"{seat.occupant_name} was given {hours} more hour{pluralize(hours)}{because(reason)}",
        actor=actor,
        in_log=True,
    )
    # Told at once: once the turn's reminders have all come, nothing else would name the new deadline.
    signals.deadline_extended.send(Match, match=match, seat=seat, hours=hours)
    return seat


def _seats_in_active_matches(user: User) -> list[Seat]:
    """The player's seats in their active matches, each match locked (in one query, whatever
    their number), and each seat read again under its lock: a move may just have started a turn."""
    match_ids = list(Seat.objects.filter(user=user, match__status=Status.ACTIVE).values_list("match_id", flat=True))
    if not match_ids:
        return []
    limit_waits()
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
    unsent_from = _first_unsent_reminders(user.pk, [seat.match_id for seat in running]) if running else {}
    for seat in running:
        if seat.deadline > now:  # a turn already late stays for the timeout sweep
            seat.reminded_share = _share_come(seat, now, unsent_from=unsent_from.get(seat.match_id))
            seat.paused_seconds, seat.deadline = _time_left(seat, now), None
            stopped.append(seat)
    if stopped:
        Seat.objects.bulk_update(stopped, ["deadline", "reminded_share", "paused_seconds"])
        signals.clocks_stopped.send(Match, match_ids=[seat.match_id for seat in stopped], user_ids=[user.pk])
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
        signals.clocks_started.send(Match, seats=restarted, since=now)
    return user
