"""Reads that pages need, each a fixed number of queries whatever the number of matches or moves."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import reduce
from math import ceil
from operator import or_
from typing import Any, NamedTuple

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.expressions import Window
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Coalesce, RowNumber
from django.db.models.lookups import Exact, IsNull
from django.utils import timezone

from accounts.models import User
from games import hooks
from games.engine import all_games
from games.engine.base import Game
from games.models import LARGEST_ID, Match, MatchEvent, MoveRecord, Seat, Status, Watch, poll_token
from games.naming import seat_names
from games.prepared import Prepared

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


def keep_seats(match: Match, seats: list[Seat]) -> None:
    """Give ``match`` the seats read with it (in order, by number), as a prefetch would:
    ``match.seats.all()`` reads no more, and each seat's ``match`` is this one object."""
    for seat in seats:
        seat.match = match
    cached = match.seats.all()
    cached._result_cache, cached._prefetch_done = seats, True
    match._prefetched_objects_cache = {"seats": cached}


def _with_seats(matches: QuerySet[Match]) -> QuerySet[Match]:
    """With each seat's player and whom an AI seat replaces, in the one query for the seats."""
    return matches.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user", "former_user")))


# The least time left first; without a clock, the one that has waited longest for the player (the
# earliest last move).
URGENCY = (F("my_deadline").asc(nulls_last=True), Coalesce("last_move_at", "created_at").asc(), "pk")
# The same order read off the player's seats to act (a far simpler query to build, for one match).
SEAT_URGENCY = (
    F("deadline").asc(nulls_last=True),
    Coalesce("match__last_move_at", "match__created_at").asc(),
    "match",
)


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


TURNS_SHOWN = 8  # matches waiting for the player's move on the home page; My matches lists them all


def turns_waiting(user: User) -> list[Match]:
    """The first TURNS_SHOWN matches waiting for the player's move, the least time left first,
    as My matches lists them (the home page): one query for the matches, one for their seats."""
    waiting = _of_player(user).filter(my_turn=True).annotate(**_list_annotations(user)).defer("state")
    return list(waiting.order_by(*URGENCY)[:TURNS_SHOWN])


def _waiting_query(user_id: int) -> QuerySet:
    """How many matches wait for the player: their turn, or an invitation to answer (the top bar's
    "My matches (3)"), on the player's row. Each kind is counted by its own index on the player's
    seats (with one ``OR`` PostgreSQL joined every match in play instead); no match is of both
    kinds (one is in play, the other open)."""

    def matches(condition: Q) -> Coalesce:
        seats = Seat.objects.filter(condition, user=user_id).order_by().values("user")
        return Coalesce(Subquery(seats.annotate(matches=Count("match", distinct=True)).values("matches")), 0)

    return User.objects.filter(pk=user_id).values_list(matches(_your_turn()) + matches(unanswered_invitation()))


WAITING = Prepared(_waiting_query)  # on every full page: its SQL took 3 ms to build, 0.3 ms to run


def waiting_count(user: User) -> int:
    """One query, however many matches the player has."""
    rows = WAITING.rows(user.pk)
    return rows[0][0] if rows else 0


class NextMatch(NamedTuple):
    match: Match  # as much of it as the link reads: its number and game
    others: list[str]  # the other players' names, as the seat list gives them


def _next_match_query(user_id: int, besides: int) -> QuerySet:
    """The seats of the match other than ``besides`` that waits for the player's move with the
    least time left (the first of My matches), and the first seat of ``besides`` (a row to carry
    the count when no other match waits), each with ``waiting_count``."""
    first = Seat.objects.filter(_your_turn(), user=user_id).exclude(match=besides).order_by(*SEAT_URGENCY)
    return (
        Seat.objects.filter(Q(match=Subquery(first.values("match")[:1])) | Q(match=besides, number=0))
        .order_by("number")
        .values_list("match", "match__game", "number", "user", "ai_level", "user__display_name", "user__username")
        .annotate(waiting=Subquery(_waiting_query(user_id)))
    )


NEXT_MATCH = Prepared(_next_match_query)  # its SQL took 5 ms to build, under 1 ms to run


def next_match_and_count(user: User, *, besides: int) -> tuple[NextMatch | None, int]:
    """The next match waiting for the player's move, with the names of the others in it, and
    ``waiting_count``: one query."""
    rows = NEXT_MATCH.rows(user.pk, besides)
    if not rows:  # no match ``besides``
        return None, waiting_count(user)
    match, seats = None, []
    for match_id, game, number, user_id, ai_level, display_name, username, _waiting in rows:
        if match_id == besides:
            continue
        match = match or Match(pk=match_id, game=game)
        occupant = User(pk=user_id, display_name=display_name, username=username) if user_id else None
        seats.append(Seat(match=match, number=number, user=occupant, ai_level=ai_level))
    count = rows[0][-1]
    if match is None:
        return None, count
    names = seat_names(seats)
    return NextMatch(match, [names[seat.number] for seat in seats if seat.user_id != user.pk]), count


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


def visible_to(user: User | AnonymousUser) -> Q:
    """Who may look at a match: anyone, signed in or not, if it is public; its players (the
    invited too), those whose seat the AI took over, and staff; anyone signed in while it has a
    free seat, so they can join (a private match among invited players only is theirs alone)."""
    if not user.is_authenticated:
        return Q(public=True)
    if user.is_staff:
        return Q()
    seated = Seat.objects.filter(match=OuterRef("pk")).filter(Q(user=user) | Q(former_user=user))
    return Q(public=True) | Q(Q(status=Status.OPEN) & _open_seat()) | Q(Exists(seated))


def match_for_viewer(match_id: int, user: User | AnonymousUser) -> Match | None:
    """A match the user may look at, with seats and who played a seat before the AI took it
    (the seat list and the replay name them); ``None`` otherwise. For someone signed in, in the
    same query: whether they watch it (``watching``), whether it moved or ended since they last
    had its page open (``watch_behind``: ``services.watch_seen``) and whether their presence on
    it is worth writing (``presence_due``)."""
    matches = Match.objects.filter(visible_to(user), pk=match_id)
    if user.is_authenticated:
        watch = Watch.objects.filter(match=OuterRef("pk"), user=user)
        behind = Q(seen_version__lt=OuterRef("version")) | Q(seen_at__lt=OuterRef("finished_at"))
        mine = Seat.objects.filter(presence_due(timezone.now(), user), match=OuterRef("pk"), user=user)
        matches = matches.annotate(
            watching=Exists(watch), watch_behind=Exists(watch.filter(behind)), presence_due=Exists(mine)
        )
    return _with_seats(matches).first()


def match_visible(match_id: int, user: User | AnonymousUser) -> bool:
    """Whether the user may look at the match (``match_for_viewer`` without reading it)."""
    return Match.objects.filter(visible_to(user), pk=match_id).exists()


def match_moves(match: Match) -> list[MoveRecord]:
    return list(MoveRecord.objects.filter(match=match).order_by("ply"))


def match_level_changes(match: Match) -> list[MatchEvent]:
    """Staff changes of an AI seat's level, oldest first: the replay names each AI as it played."""
    return list(MatchEvent.objects.filter(match=match, former_ai_level__isnull=False).order_by("ply", "pk"))


def _match_log_query(match_id: int) -> QuerySet:
    # No ordering of their own: SQLite refuses an ORDER BY inside a part of a UNION.
    moves = (
        MoveRecord.objects.filter(match=match_id)
        .order_by()
        .values_list("ply", "pk", "seat", "notation", "description", Value(True))
    )
    events = (
        MatchEvent.objects.filter(match=match_id, ply__isnull=False)
        .order_by()
        .values_list("ply", "pk", Value(None, output_field=IntegerField()), Value(""), "reason", Value(False))
    )
    return moves.union(events, all=True).order_by("ply", "pk")


MATCH_LOG = Prepared(_match_log_query)


def match_log(match: Match) -> tuple[list[MoveRecord], list[MatchEvent]]:
    """The move log's moves and the events shown between them (timeouts, seats the AI took,
    extensions), each by ply, in one query: each as much of its row as the page reads (not
    saved back)."""
    log: tuple[list[MoveRecord], list[MatchEvent]] = ([], [])
    for ply, pk, seat, notation, text, is_move in MATCH_LOG.rows(match.pk):
        if is_move:
            log[0].append(MoveRecord(pk=pk, match=match, ply=ply, seat=seat, notation=notation, description=text))
        else:
            log[1].append(MatchEvent(pk=pk, match=match, ply=ply, reason=text))
    return log


def presence_due(now: datetime, user: User | int) -> Q:
    """Seats of ``user`` (or a user's id) whose presence on the match page is worth writing again: not for
    PRESENCE_WRITE_SECONDS, or at once where another app says so (``hooks.presence_now``: chat,
    when the page shows messages of others written since, which My matches would otherwise
    still call new)."""
    return _presence_due_if_seen_before(presence_written_before(now), user)


def presence_written_before(now: datetime) -> datetime:
    return now - timedelta(seconds=PRESENCE_WRITE_SECONDS)


def _presence_due_if_seen_before(moment: datetime, user: User | int) -> Q:
    due = Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=moment)
    for hook in hooks.presence_now:
        due |= hook(user)
    return due


class Poll(NamedTuple):
    token: str
    presence_due: bool  # the player has a seat whose presence is worth writing (``presence_due``)


def match_poll(match_id: int, user: User | AnonymousUser) -> Poll | None:
    """The cheap read behind polling, one query on one row by its key; ``None`` for a match
    the user may not see. The token changes with every move, every change of status (an
    abort, a resignation) and every other change open pages show (``Match.revision``).
    Whether the presence is due is asked here so that a poll writes it only then (every
    poll wrote it, an UPDATE that changed nothing nine times in ten)."""
    due: Exists | Value = Value(False)  # a visitor who is not signed in has no seat
    if user.is_authenticated:
        due = Exists(Seat.objects.filter(presence_due(timezone.now(), user), match=OuterRef("pk"), user=user))
    return _poll(_poll_row(Match.objects.filter(visible_to(user), pk=match_id), due).first())


def _player_poll_query(match_id: int, user_id: int, seen_before: datetime) -> QuerySet:
    seated = Seat.objects.filter(Q(user=user_id) | Q(former_user=user_id), match=OuterRef("pk"))
    mine = Seat.objects.filter(_presence_due_if_seen_before(seen_before, user_id), match=OuterRef("pk"), user=user_id)
    active = Exists(User.objects.filter(pk=user_id, is_active=True))
    return _poll_row(Match.objects.filter(Exists(seated), active, pk=match_id), Exists(mine))


# The poll of every open page of a player: its SQL took 3 ms to build, a fraction of that to run.
PLAYER_POLL = Prepared(_player_poll_query)


def player_poll(match_id: int, user_id: int) -> Poll | None:
    """``match_poll`` for a match the player holds or held a seat in, by the session's user id
    alone: the user is not read (an account closed since is refused in the same query). ``None``
    for anyone else (a visitor, a watcher, staff): they take ``match_poll``."""
    if match_id > LARGEST_ID:  # the address's number, which no match has
        return None
    rows = PLAYER_POLL.rows(match_id, user_id, presence_written_before(timezone.now()))
    return _poll(rows[0] if rows else None)


def _poll_row(matches: QuerySet[Match], due: Exists | Value) -> QuerySet:
    return matches.annotate(due=due).values_list("version", "status", "revision", "due")


def _poll(row: tuple | None) -> Poll | None:
    return None if row is None else Poll(poll_token(*row[:3]), bool(row[3]))


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


RELIABILITY_DAYS = 365  # reliability counts the turns of the last 12 months


class Reliability(NamedTuple):
    turns: int  # turns on a clock, in the last 12 months
    timeouts: int  # of which the clock ran out

    @property
    def share(self) -> float:
        """The share of those turns in which the clock ran out, 0 to 1 (0 without a turn)."""
        return self.timeouts / self.turns if self.turns else 0.0

    @property
    def percent(self) -> str:
        """ "3%"; "under 1%" rather than a 0% that hides a timeout."""
        share = round(100 * self.share)
        return "under 1%" if self.timeouts and not share else f"{share}%"


def player_reliability(player: User) -> Reliability:
    """How often the player's clock ran out, as Board Game Arena shows it: of their turns on a
    clock in matches played in the last 12 months (begun, moved or ended since), in their seats and
    in those the AI took from them, the ones that ran out. One query on the player's seats."""
    since = timezone.now() - timedelta(days=RELIABILITY_DAYS)
    recent = Q(match__created_at__gte=since) | Q(match__last_move_at__gte=since) | Q(match__finished_at__gte=since)
    counts = (
        Seat.objects.filter(Q(user=player) | Q(former_user=player))
        .filter(recent)
        .aggregate(turns=Coalesce(Sum("turns"), 0), timeouts=Coalesce(Sum("timeouts"), 0))
    )
    return Reliability(counts["turns"], counts["timeouts"])


def player_matches(player: User, viewer: User | AnonymousUser) -> tuple[list[Match], list[Match]]:
    """The player's matches in play (or waiting for players) and their latest finished ones that
    ``viewer`` may open (``visible_to``): a match among others stays theirs alone. Two lists
    of a fixed length at most, four queries with their seats."""
    theirs = Match.objects.filter(visible_to(viewer), pk__in=Seat.objects.filter(user=player).values("match_id")).defer(
        "state"
    )  # a list row never draws the board: a Jeexa or Mesopotamia state is kilobytes
    live = theirs.filter(status__in=[Status.ACTIVE, Status.OPEN]).order_by("-created_at", "-pk")
    done = theirs.filter(status=Status.FINISHED).order_by(F("finished_at").desc(nulls_last=True), "-created_at", "-pk")
    return list(_with_seats(live)[:IN_PLAY_SHOWN]), list(_with_seats(done)[:LATEST_FINISHED])


# --- watching ------------------------------------------------------------------------------

PUBLIC_SHOWN = 6  # public matches in play, and recently finished ones, on the home page and a game's page
WATCHING_SHOWN = 50  # matches on the Watching list of My matches, the latest to change first


class PublicMatches(NamedTuple):
    live: list[Match]  # in play, the latest to move first
    finished: list[Match]  # the latest to end first


def public_matches(game: str | None = None) -> PublicMatches:
    """Public matches to watch, of one game or all: a few in play (moved at least once) and a few
    recently finished, each with its seats and players. One query per list, read from the seats of
    the matches that the list's partial index gives in order (``Match.Meta.indexes``)."""
    public = Match.objects.filter(public=True, **({"game": game} if game else {}))
    live = public.filter(status=Status.ACTIVE, last_move_at__isnull=False).order_by("-last_move_at", "-pk")
    finished = public.filter(status=Status.FINISHED).order_by("-finished_at", "-pk")
    return PublicMatches(
        _seated_matches(live, key=lambda match: (match.last_move_at, match.pk)),
        _seated_matches(finished, key=lambda match: (match.finished_at, match.pk)),
    )


def _seated_matches(matches: QuerySet[Match], *, key: Callable[[Match], Any]) -> list[Match]:
    """The first PUBLIC_SHOWN of ``matches`` with their seats, in one query: the seats of those
    matches, each with its match and players, put back in the list's order (``key``, latest first)
    and given to their match as a prefetch would (``match.seats.all()`` reads no more); each with
    ``winners``, the names of those who won, as the match page names them."""
    seats = Seat.objects.filter(match__in=matches.values("pk")[:PUBLIC_SHOWN]).select_related(
        "match", "user", "former_user"
    )
    found: dict[int, tuple[Match, list[Seat]]] = {}
    for seat in seats.defer("match__state").order_by("match_id", "number"):
        found.setdefault(seat.match_id, (seat.match, []))[1].append(seat)
    listed = []
    for match, its_seats in sorted(found.values(), key=lambda pair: key(pair[0]), reverse=True):
        keep_seats(match, its_seats)
        names = seat_names(its_seats)
        match.winners = [names[number] for number in (match.result or {}).get("winners", []) if number in names]
        listed.append(match)
    return listed


def watched_by(user: User) -> list[Match]:
    """The matches on the user's Watching list that they may still open and do not play in, the
    latest to change first (its end, its last move, its creation), at most WATCHING_SHOWN; each with
    ``new_moves`` (moves since they last had its page open) and ``ended_since`` (it ended since
    then). One query, from the user's own watches (indexed), and one for the seats."""
    watch = Watch.objects.filter(user=user, match=OuterRef("pk"))
    matches = (
        Match.objects.filter(visible_to(user), pk__in=Watch.objects.filter(user=user).values("match_id"))
        .exclude(Exists(Seat.objects.filter(match=OuterRef("pk"), user=user)))
        .annotate(
            seen_version=Subquery(watch.values("seen_version")[:1]), seen_at=Subquery(watch.values("seen_at")[:1])
        )
        .defer("state")
        .order_by(Coalesce("finished_at", "last_move_at", "created_at").desc(), "-pk")
    )
    listed = list(_with_seats(matches)[:WATCHING_SHOWN])
    for match in listed:
        match.new_moves = max(0, match.version - match.seen_version)
        match.ended_since = bool(match.finished_at and match.finished_at > match.seen_at)
    return listed
