"""A pool's statistics over its finished matches, casual or rated: how many, how often each seat
wins by player count, how long they last, and each AI level's results against people.

``compute`` reads them with two queries: an aggregate grouped by player count and winners, and
the AI seats of matches with a person. It runs nightly (``ratings.tasks.refresh_statistics``) and
stores one ``PoolStatistics`` row per pool, which the page reads (``stored``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, DurationField, Exists, ExpressionWrapper, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils import timezone

from games.engine import get_game
from games.models import Match, Seat, Status
from ratings.models import PoolStatistics
from ratings.pools import SPLIT_BY, all_pools, pool_game

DAY_SECONDS = 86400


def finished_matches(pool: str) -> QuerySet[Match]:
    """The pool's finished matches (``ratings.pools.pool_of``: a Mancala match stored without a
    variant is of the first)."""
    game, _, value = pool.partition("/")
    matches = Match.objects.filter(status=Status.FINISHED, game=game)
    if not value:
        return matches
    option = SPLIT_BY[game]
    same = Q(**{f"options__{option}": value})
    if value == get_game(game).options[option][0]:
        same |= ~Q(options__has_key=option) | Q(**{f"options__{option}": ""})
    return matches.filter(same)


def seat_count() -> Subquery:
    """A match's number of seats, as a column to group by."""
    seats = Seat.objects.filter(match=OuterRef("pk")).order_by().values("match").annotate(count=Count("pk"))
    return Subquery(seats.values("count"))


def compute(pool: str) -> dict:
    """The pool's figures, as stored in ``PoolStatistics.figures``:

    - ``matches``, ``average_moves``, ``average_days``: over every finished match;
    - ``by_players``: per player count (fewest first) ``matches``, ``seat_wins`` (each seat's wins
      alone), ``seat_shared`` (each seat's wins shared with others), ``shared`` (matches won by
      several seats), ``no_winner``, ``average_moves`` and ``average_days``;
    - ``ai_levels``: per AI level (lowest first) its matches against at least one person, ``won``
      (its seats alone), ``shared`` (with others) and ``lost``.

    Moves are the match's moves applied; days run from its creation to its end."""
    matches = finished_matches(pool)
    by_players: dict[int, dict] = {}
    groups = (
        matches.annotate(players=seat_count())
        .values("players", "result__winners")
        .annotate(
            count=Count("pk"),
            moves=Sum("version"),
            duration=Sum(ExpressionWrapper(F("finished_at") - F("created_at"), output_field=DurationField())),
        )
        .order_by()
    )
    for group in groups:
        players, winners = group["players"] or 0, group["result__winners"] or []
        row = by_players.setdefault(
            players,
            {
                "players": players,
                "matches": 0,
                "seat_wins": [0] * players,
                "seat_shared": [0] * players,
                "shared": 0,
                "no_winner": 0,
                "moves": 0,
                "seconds": 0.0,
            },
        )
        row["matches"] += group["count"]
        row["moves"] += group["moves"] or 0
        row["seconds"] += seconds(group["duration"])
        seats = [seat for seat in set(winners) if 0 <= seat < players]
        if not seats:
            row["no_winner"] += group["count"]
        elif len(seats) == 1:
            row["seat_wins"][seats[0]] += group["count"]
        else:
            row["shared"] += group["count"]
            for seat in seats:
                row["seat_shared"][seat] += group["count"]
    total = sum(row["matches"] for row in by_players.values())
    figures = {
        "matches": total,
        "average_moves": average(sum(row["moves"] for row in by_players.values()), total),
        "average_days": average(sum(row["seconds"] for row in by_players.values()), total * DAY_SECONDS, 3),
        "by_players": [],
        "ai_levels": ai_results(matches),
    }
    for players in sorted(by_players):
        row = by_players[players]
        moves, duration = row.pop("moves"), row.pop("seconds")
        row["average_moves"] = average(moves, row["matches"])
        row["average_days"] = average(duration, row["matches"] * DAY_SECONDS, 3)
        figures["by_players"].append(row)
    return figures


def ai_results(matches: QuerySet[Match]) -> list[dict]:
    """Each AI level's won, shared and lost matches against people: a match counts once per level,
    whatever its seats there; won where the winners are its seats alone. A seat the AI took from a
    person during play is the person's, not the level's (as ratings count it)."""
    person = Seat.objects.filter(match=OuterRef("match")).filter(Q(user__isnull=False) | Q(taken_over_at__isnull=False))
    seats = (
        Seat.objects.filter(match__in=matches, ai_level__isnull=False, taken_over_at__isnull=True)
        .filter(Exists(person))
        .values_list("ai_level", "match_id", "number", "match__result__winners")
        .order_by()
    )
    # (level, match) → the level's seats there and the match's winners; read a chunk at a time.
    played: dict[tuple[int, int], tuple[set[int], set[int]]] = {}
    for level, match_id, number, winners in seats.iterator(chunk_size=2000):
        played.setdefault((level, match_id), (set(), set(winners or [])))[0].add(number)
    levels: dict[int, dict] = {}
    for (level, _), (own, winners) in played.items():
        row = levels.setdefault(level, {"level": level, "matches": 0, "won": 0, "shared": 0, "lost": 0})
        row["matches"] += 1
        if not winners & own:
            row["lost"] += 1
        elif winners <= own:
            row["won"] += 1
        else:
            row["shared"] += 1
    return [levels[level] for level in sorted(levels)]


def seconds(duration: timedelta | float | int | None) -> float:
    """A summed duration in seconds (SQLite may give microseconds as a number)."""
    if duration is None:
        return 0.0
    if isinstance(duration, timedelta):
        return duration.total_seconds()
    return duration / 1_000_000


def average(amount: float, count: float, digits: int = 1) -> float | None:
    return round(amount / count, digits) if count else None


def refresh(pool: str) -> PoolStatistics:
    """Compute the pool's figures and store them, replacing the last."""
    figures = compute(pool)
    row, _ = PoolStatistics.objects.update_or_create(
        pool=pool, defaults={"figures": figures, "computed_at": timezone.now()}
    )
    return row


def refresh_all() -> list[PoolStatistics]:
    return [refresh(pool) for pool in all_pools()]


def stored(pool: str) -> PoolStatistics:
    """The pool's stored figures: one query. A pool with no row yet (a new site, before the first
    night's refresh) has its figures computed and stored now, so the page always shows figures."""
    row = PoolStatistics.objects.filter(pool=pool).first()
    return row if row is not None else refresh(pool)


# --- the page --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatRow:
    name: str  # "Seat 1 (moves first)"
    won: int
    won_share: str  # "52%"
    shared: int


@dataclass(frozen=True)
class PlayerCountTable:
    players: int
    matches: int
    seats: list[SeatRow]
    shared: int
    no_winner: int
    average_moves: float | None
    average_length: str  # "3.5 days"


@dataclass(frozen=True)
class AiLevelResults:
    name: str  # "AI (Strong)"
    matches: int
    won: int
    shared: int
    lost: int
    won_share: str


@dataclass(frozen=True)
class Statistics:
    computed_at: datetime
    matches: int
    average_moves: float | None
    average_length: str
    by_players: list[PlayerCountTable]
    ai_levels: list[AiLevelResults]


def days_words(days: float | None) -> str:
    """ "3.5 days", or "5 hours" for matches played within a day, "under an hour"."""
    if days is None:
        return "–"
    if days >= 1:
        days = round(days, 1)
        return f"{days:g} day{'' if days == 1 else 's'}"
    hours = round(days * 24)
    return "under an hour" if hours < 1 else f"{hours} hour{'' if hours == 1 else 's'}"


def share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "–"


def statistics_page(row: PoolStatistics) -> Statistics:
    """The stored figures as the page's tables: shares in percent, seats and AI levels by name."""
    figures = row.figures
    levels = get_game(pool_game(row.pool)).ai_levels
    tables = [
        PlayerCountTable(
            players=table["players"],
            matches=table["matches"],
            seats=[
                SeatRow(
                    f"Seat {number + 1}" + (" (moves first)" if number == 0 else ""),
                    won,
                    share(won, table["matches"]),
                    table["seat_shared"][number],
                )
                for number, won in enumerate(table["seat_wins"])
            ],
            shared=table["shared"],
            no_winner=table["no_winner"],
            average_moves=table["average_moves"],
            average_length=days_words(table["average_days"]),
        )
        for table in figures["by_players"]
    ]
    ai_levels = [
        AiLevelResults(
            f"AI ({levels.get(result['level'], result['level'])})",
            result["matches"],
            result["won"],
            result["shared"],
            result["lost"],
            share(result["won"], result["matches"]),
        )
        for result in figures["ai_levels"]
    ]
    return Statistics(
        row.computed_at,
        figures["matches"],
        figures["average_moves"],
        days_words(figures["average_days"]),
        tables,
        ai_levels,
    )
