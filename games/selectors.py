"""Reads that pages need, each a fixed number of queries whatever the number of matches or moves."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import reduce
from math import ceil
from operator import or_
from typing import NamedTuple

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db.models import Case, Count, Exists, F, IntegerField, Max, OuterRef, Prefetch, Q, QuerySet, Subquery, When
from django.db.models.expressions import Window
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Coalesce, RowNumber
from django.db.models.lookups import Exact, IsNull
from django.utils import timezone

from accounts.models import User
from games import hooks
from games.engine import all_games
from games.engine.base import Game
from games.models import Match, MatchEvent, MoveRecord, Seat, Status, poll_token
from games.naming import seat_names

LATEST_FINISHED = 20  # finished matches on My matches (and on a player's page); the rest are a page away
IN_PLAY_SHOWN = 50  # matches in play on a player's page
# Open challenges the lobby lists, the newest first: however many players post them, the page stays small
# (10,000 open challenges of 500 players: 50 rows, 23 KB, the same 5 queries, the list's 1-3 ms by its index).
LOBBY_SHOWN = 50
# And at most this many of one player's (their newest): a few players at the per-player cap
# (settings.OPEN_MATCHES_PER_PLAYER) would fill the whole list.
LOBBY_SHOWN_PER_CREATOR = 5
SUGGESTED_OPPONENTS = 20  # names the new-match form offers in its invite fields
# The match page records its viewer at most this often (one conditional UPDATE).
PRESENCE_WRITE_SECONDS = 30


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    """With each seat's player and whom an AI seat replaces, in the one query for the seats."""
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user", "former_user")))


# The least time left first; without a clock, the one that has waited longest for the player (the
# earliest last move).
URGENCY = (F("my_deadline").asc(nulls_last=True), Coalesce("last_move_at", "created_at").asc(), "pk")


def matches_of(user: User) -> list[Match]:
    """The player's matches: "your turn" first (the least time left first), then the rest in
    play, waiting, and the latest finished (all of them: ``finished_matches_of``). Matches
    whose seat the AI took from the player are there too (``seated`` is False): the player
    may still watch them."""
    live = (
        _of_player(user)
        .filter(status__in=[Status.ACTIVE, Status.OPEN])
        .order_by(F("my_turn").desc(), Case(When(status=Status.ACTIVE, then=0), default=1), *URGENCY)
    )
    return list(live.annotate(**_list_annotations(user))) + list(finished_matches_of(user)[:LATEST_FINISHED])


def _your_turn() -> Q:
    """A seat (with ``user``) whose player must move now: "your turn" wherever the site says it
    (My matches, the digest, the top bar's count, the match page's next match)."""
    return Q(to_act=True, match__status=Status.ACTIVE)


def unanswered_invitation() -> Q:
    """A seat (with ``user``) offered to a player who has not answered yet, in a match that can
    still start (``invitations_for``; the top bar counts them; ``services.invitee`` limits them)."""
    return Q(accepted=False, match__status=Status.OPEN) & ~Q(_waits_for_a_closed_account("match"))


def finished_matches_of(user: User) -> QuerySet[Match]:
    """The player's finished and aborted matches, the latest to end first (a page at a time):
    a match begun long ago that ended today leads the list."""
    return (
        _of_player(user)
        .filter(status__in=[Status.FINISHED, Status.ABORTED])
        .annotate(**_list_annotations(user))
        .order_by(F("finished_at").desc(nulls_last=True), "-created_at", "-pk")
    )


def _list_annotations(user: User) -> dict:
    """What other apps add to each match of the player's lists (``hooks.match_list_annotations``:
    chat's count of new messages), inside the list's one query."""
    return {name: value for hook in hooks.match_list_annotations for name, value in hook(user).items()}


def _of_player(user: User) -> QuerySet[Match]:
    """Every match the player has or had a seat in, newest first, with their seat's turn and deadline."""
    seat_of_user = Seat.objects.filter(match=OuterRef("pk"), user=user)
    # From the player's own seats (indexed by user), not a test run on every match on the site.
    mine = Seat.objects.filter(Q(user=user) | Q(former_user=user)).values("match_id")
    return _with_seats(
        Match.objects.filter(pk__in=mine)
        .annotate(
            seated=Exists(seat_of_user),
            my_turn=Exists(seat_of_user.filter(_your_turn())),
            my_deadline=Subquery(seat_of_user.filter(_your_turn()).values("deadline")[:1]),
        )
        .order_by("-created_at", "-pk")
    )


def matches_to_act(user: User) -> list[Match]:
    """Matches in play waiting for the player, the least time left first (for the digest):
    these alone (it read all the player's live and latest finished matches to pick them)."""
    return list(_of_player(user).filter(my_turn=True).order_by(*URGENCY))


def waiting_count(user: User) -> int:
    """How many matches wait for the player: their turn, or an invitation to answer (the top
    bar's "My matches (3)"). One query on the player's seats, however many matches they have: each
    kind read by its own index (with one ``OR`` PostgreSQL joined every match in play instead)."""
    turns = Seat.objects.filter(_your_turn(), user=user).order_by().values("match")
    return turns.union(Seat.objects.filter(unanswered_invitation(), user=user).order_by().values("match")).count()


class NextMatch(NamedTuple):
    match: Match
    others: list[str]  # the other players' names, as the seat list gives them


def next_match_to_act(user: User, *, besides: int) -> NextMatch | None:
    """The match other than ``besides`` that waits for the player's move with the least time
    left (the first of My matches), with the names of the others in it: one query, for its seats."""
    first = _of_player(user).filter(my_turn=True).exclude(pk=besides).order_by(*URGENCY).values("pk")[:1]
    seats = list(Seat.objects.filter(match=Subquery(first)).select_related("match", "user").defer("match__state"))
    if not seats:
        return None
    names = seat_names(seats)
    return NextMatch(seats[0].match, [names[seat.number] for seat in seats if seat.user_id != user.pk])


def _open_seat() -> Exists:
    return Exists(Seat.objects.filter(match=OuterRef("pk"), user__isnull=True, ai_level__isnull=True))


def _waits_for_a_closed_account(match_field: str = "pk") -> Exists:
    """A seat held or offered to a player whose account is closed: the match could never start.
    Closing an account cancels such matches (accounts.services.user_deactivate); these are
    those of accounts closed before it did, until staff run ``close_deactivated_accounts``.
    ``match_field``: where the outer query has the match (a seat's is "match")."""
    return Exists(Seat.objects.filter(match=OuterRef(match_field), user__is_active=False))


def lobby_open_matches(user: User) -> list[Match]:
    """Open challenges others posted that still have a free seat, the newest ``LOBBY_SHOWN``,
    of each creator their newest ``LOBBY_SHOWN_PER_CREATOR``. Each has ``creator_open``: how
    many of its creator's were ranked (more than shown: some of theirs are left off)."""
    mine = Seat.objects.filter(match=OuterRef("pk"), user=user)
    newest = ("-created_at", "-pk")
    open_ones = (
        Match.objects.filter(status=Status.OPEN)
        .filter(_open_seat())
        .exclude(Exists(mine))
        .exclude(_waits_for_a_closed_account())
        .order_by(*newest)
    )
    # Ranked among the newest few hundred only, read by the index (ranking all 10,000 took 20-35 ms):
    # none has more than OPEN_MATCHES_PER_PLAYER, so these hold LOBBY_SHOWN to list, if there are as many.
    # (Staff are not limited: many of theirs may leave fewer listed, and the page says more may wait.)
    candidates = LOBBY_SHOWN * ceil(settings.OPEN_MATCHES_PER_PLAYER / LOBBY_SHOWN_PER_CREATOR)
    matches = (
        Match.objects.filter(pk__in=open_ones.values("pk")[:candidates])
        .annotate(
            creator_rank=Window(RowNumber(), partition_by=F("created_by"), order_by=newest),
            creator_open=Window(Count("pk"), partition_by=F("created_by")),
        )
        .filter(creator_rank__lte=LOBBY_SHOWN_PER_CREATOR)
    )
    return list(_with_seats(matches.order_by(*newest))[:LOBBY_SHOWN])


def invitations_for(user: User) -> list[Match]:
    theirs = Seat.objects.filter(unanswered_invitation(), match=OuterRef("pk"), user=user)
    matches = Match.objects.filter(Exists(theirs))
    return list(_with_seats(matches).select_related("created_by"))  # "Bob invites you"


def _visible_to(user: User) -> Q:
    """Who may look at a match: its players (the invited too), those whose seat the AI took
    over, and staff; anyone signed in while it has a free seat, so they can join (a match
    among invited players only is theirs alone)."""
    if user.is_staff:
        return Q()
    seated = Seat.objects.filter(match=OuterRef("pk")).filter(Q(user=user) | Q(former_user=user))
    return Q(Q(status=Status.OPEN) & _open_seat()) | Q(Exists(seated))


def match_for_viewer(match_id: int, user: User) -> Match | None:
    """A match the user may look at, with seats and who played a seat before the AI took it
    (the seat list and the replay name them); ``None`` otherwise."""
    return _with_seats(Match.objects.filter(_visible_to(user), pk=match_id)).first()


def match_visible(match_id: int, user: User) -> bool:
    """Whether the user may look at the match (``match_for_viewer`` without reading it)."""
    return Match.objects.filter(_visible_to(user), pk=match_id).exists()


def match_moves(match: Match) -> list[MoveRecord]:
    return list(MoveRecord.objects.filter(match=match).order_by("ply"))


def match_level_changes(match: Match) -> list[MatchEvent]:
    """Staff changes of an AI seat's level, oldest first: the replay names each AI as it played."""
    return list(MatchEvent.objects.filter(match=match, former_ai_level__isnull=False).order_by("ply", "pk"))


def match_log_events(match: Match) -> list[MatchEvent]:
    """Events shown in the move log (timeouts, seats the AI took, extensions), by ply."""
    return list(MatchEvent.objects.filter(match=match, ply__isnull=False).order_by("ply", "pk"))


def presence_due(now: datetime, user: User) -> Q:
    """Seats of ``user`` whose presence on the match page is worth writing again: not for
    PRESENCE_WRITE_SECONDS, or at once where another app says so (``hooks.presence_now``: chat,
    when the page shows messages of others written since, which My matches would otherwise
    still call new)."""
    due = Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=now - timedelta(seconds=PRESENCE_WRITE_SECONDS))
    for hook in hooks.presence_now:
        due |= hook(user)
    return due


class Poll(NamedTuple):
    token: str
    presence_due: bool  # the player has a seat whose presence is worth writing (``presence_due``)


def match_poll(match_id: int, user: User) -> Poll | None:
    """The cheap read behind polling, one query on one row by its key; ``None`` for a match
    the user may not see. The token changes with every move, every change of status (an
    abort, a resignation) and every other change open pages show (``Match.revision``).
    Whether the presence is due is asked here so that a poll writes it only then (every
    poll wrote it, an UPDATE that changed nothing nine times in ten)."""
    due = Exists(Seat.objects.filter(presence_due(timezone.now(), user), match=OuterRef("pk"), user=user))
    row = (
        Match.objects.filter(_visible_to(user), pk=match_id)
        .annotate(due=due)
        .values_list("version", "status", "revision", "due")
        .first()
    )
    return None if row is None else Poll(poll_token(*row[:3]), row[3])


def recent_opponents(user: User) -> list[User]:
    """The players ``user`` shared a match with lately (its last move, or its start), the latest
    first, each once, at most ``SUGGESTED_OPPONENTS``: those the new-match form would let them
    invite (``services.invitee``: an open account, a confirmed address). One query, from the
    player's own seats (a match whose seat the AI took from them counts)."""
    mine = Seat.objects.filter(Q(user=user) | Q(former_user=user)).values("match_id")
    confirmed = EmailAddress.objects.filter(user=OuterRef("pk"), verified=True)
    return list(
        User.objects.filter(Exists(confirmed), is_active=True, seats__match__in=mine)
        .exclude(pk=user.pk)
        .annotate(last_played=Max(Coalesce("seats__match__last_move_at", "seats__match__created_at")))
        .order_by("-last_played", "pk")
        .only("username", "display_name")[:SUGGESTED_OPPONENTS]
    )


# --- a player's page ---------------------------------------------------------------------


def player_named(username: str) -> User | None:
    """The player whose page is at ``username``, with ``invitable``: their address is confirmed,
    so that an invitation can reach them (``services.invitee``)."""
    confirmed = EmailAddress.objects.filter(user=OuterRef("pk"), verified=True)
    return User.objects.filter(username=username).annotate(invitable=Exists(confirmed)).first()


class GameRecord(NamedTuple):
    game: Game
    finished: int
    won: int
    shared: int  # a win shared with others (a draw among them)

    @property
    def lost(self) -> int:
        return self.finished - self.won - self.shared


def _winner(index: int) -> Cast:
    """The ``index``-th seat number in the match's ``result["winners"]`` (NULL past the end), in
    the query on seats: JSON containment of a column's value has no form SQLite and PostgreSQL share."""
    return Cast(KeyTextTransform(str(index), KeyTransform("winners", "match__result")), IntegerField())


def player_record(player: User) -> list[GameRecord]:
    """Per game, the finished matches the player sat in to the end, and how many they won alone,
    shared or lost, as My matches says of each ("you won", "shared win", "you lost"). One query:
    a seat is among the winners when one of the result's winner numbers is its own. Cancelled
    matches, and those whose seat the AI took from the player, do not count."""
    most = max(game.max_players for game in all_games())
    won = reduce(or_, (Q(Exact(_winner(index), F("number"))) for index in range(most)))
    alone = Q(IsNull(_winner(1), True))
    rows = (
        Seat.objects.filter(user=player, match__status=Status.FINISHED)
        .order_by()
        .values("match__game")
        .annotate(finished=Count("pk"), won=Count("pk", filter=won & alone), shared=Count("pk", filter=won & ~alone))
    )
    counts = {row["match__game"]: row for row in rows}
    return [
        GameRecord(game, **{key: counts[game.slug][key] for key in ("finished", "won", "shared")})
        for game in all_games()
        if game.slug in counts
    ]


def player_matches(player: User, viewer: User) -> tuple[list[Match], list[Match]]:
    """The player's matches in play (or waiting for players) and their latest finished ones that
    ``viewer`` may open (``_visible_to``): a match among others stays theirs alone. Two lists
    of a fixed length at most, four queries with their seats."""
    theirs = Match.objects.filter(
        _visible_to(viewer), pk__in=Seat.objects.filter(user=player).values("match_id")
    ).defer("state")  # a list row never draws the board: a Jeexa or Mesopotamia state is kilobytes
    live = theirs.filter(status__in=[Status.ACTIVE, Status.OPEN]).order_by("-created_at", "-pk")
    done = theirs.filter(status=Status.FINISHED).order_by(F("finished_at").desc(nulls_last=True), "-created_at", "-pk")
    return list(_with_seats(live)[:IN_PLAY_SHOWN]), list(_with_seats(done)[:LATEST_FINISHED])
