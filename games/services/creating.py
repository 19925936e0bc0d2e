"""Starting a match: its seats (the creator, open seats, invited players, AI levels), its clock,
the limits on what one player may ask of the others, and rematches."""

from __future__ import annotations

import secrets as pysecrets
from dataclasses import dataclass
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.template.defaultfilters import pluralize
from django.utils import timezone

from accounts.models import User
from games import selectors, signals
from games.engine import get_game
from games.engine.rng import new_seed
from games.models import DAYS_PER_MOVE_CHOICES, Match, MatchEvent, OnTimeout, Seat, Status, TimeControl
from games.services.base import limit_waits, lock_match, seat_of, seats_locked
from games.services.errors import NOT_YOUR_MATCH, UNKNOWN_AI_LEVEL, NotAllowed, ServiceError
from games.services.joining import match_accept
from games.services.turns import open_until, start

CREATOR_CLOSED = "Your account is closed, so no match was made."


NOT_FINISHED = "A rematch can only follow a match that was played to the end."


NO_REMATCH_OF_CANCELLED = "This match was cancelled, so there is nothing to play again: start a new match instead."


REMATCH_WITHDRAWN = (
    "The rematch you were offered was cancelled before you accepted it, so you have joined nothing. "
    "You may offer a new rematch."
)


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


TOO_MANY_AGAINST_THE_AI = (
    "You already have {count} matches against the AI alone in play, the most one player may have at once "
    "(the AI's moves take the site's time). Finish or resign one of them before you start another, "
    "or invite a player."
)
BAD_DAYS_PER_MOVE = "Choose 1, 2, 3, 5, 7 or 14 days per move."


BAD_TIME_BANK = "A time bank needs at least one day to start with, and a cap no smaller than that."


UNKNOWN_TIME_CONTROL = "There is no such time control."
CREATED, ACCEPTED = "created", "accepted"  # what match_rematch did


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


@transaction.atomic
def match_create(
    *,
    creator: User,
    game_slug: str,
    options: dict[str, str],
    seats: list[SeatSpec],
    clock: ClockSpec | None = None,
    rematch_of: Match | None = None,
    rated: bool = True,
    public: bool = True,
    chat_public: bool = False,
) -> Match:
    """A new match; it starts at once when no seat waits for a player. ``rated``: its result changes
    the ratings; ``public``: anyone may watch it; ``chat_public``: those watching read the messages."""
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
        rated=rated,
        public=public,
        chat_public=chat_public,
        open_to_all=any(spec.kind == "open" for spec in seats),
        open_until=open_until(),
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
            signals.invited.send(Match, match=match, user=seat.user, creator=creator)
    if all(seat.accepted and not seat.is_open for seat in rows):
        start(match, seats_locked(match), actor=creator)
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

    A match against the AI alone starts at once: it waits for nobody, but each of its AI moves
    is a worker's time, so a player may have only ``AI_ONLY_MATCHES_PER_PLAYER`` of them in play.

    The creator's row is locked until the match is stored, so two matches sent at once (two
    tabs, a script) are counted one after the other and cannot both pass the last free place."""
    if creator.is_staff:
        return
    limit_waits()
    # no_key, as vacation_start: a move in another match writes rows pointing at this user.
    if not User.objects.select_for_update(no_key=True).filter(pk=creator.pk).values_list("is_active", flat=True).get():
        raise ServiceError(CREATOR_CLOSED)  # the account was closed meanwhile: nobody could ever settle this match
    if all(spec.kind in ("creator", "ai") for spec in seats):
        _ai_only_within_limit(creator)
        return
    new_invitations = sum(spec.kind == "user" for spec in seats)
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


def _ai_only_within_limit(creator: User) -> None:
    """The creator's matches in play without another person in them (against the AI alone, or
    left to it: a player who resigned such a match)."""
    others = Seat.objects.filter(match=OuterRef("pk"), user__isnull=False).exclude(user=creator)
    playing = Match.objects.filter(created_by=creator, status=Status.ACTIVE).exclude(Exists(others)).count()
    if playing >= settings.AI_ONLY_MATCHES_PER_PLAYER:
        raise ServiceError(TOO_MANY_AGAINST_THE_AI.format(count=playing))


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
    match = lock_match(match_id)  # two players asking at once get the same rematch
    seats = seats_locked(match)
    if seat_of(seats, user) is None:
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
        creator=user,
        game_slug=match.game,
        options=match.options,
        seats=specs,
        clock=clock,
        rematch_of=match,
        rated=match.rated,
        public=match.public,
        chat_public=match.chat_public,
    )
    return rematch, CREATED


def creator_seats(*, seats: list[SeatSpec], position: str) -> list[SeatSpec]:
    """Put the creator first, last or at a random place among the other seats."""
    index = {"first": 0, "last": len(seats)}.get(position)
    if index is None:
        index = pysecrets.randbelow(len(seats) + 1)
    return [*seats[:index], SeatSpec("creator"), *seats[index:]]
