"""Leaderboard and player-page times with many players and finished matches, and what the
recompute of every rating costs.

    DATABASE_URL=postgres://… python bench/ratings.py [--players N] [--matches M] [--requests R]

Fills a throwaway database (bench/site.py's: created here, dropped at the end) with N players
and M finished matches of every game spread over the last year (a few players play far more
than the rest), rates them with the real recompute (``ratings.services.ratings_recompute``, timed),
then times R requests of each page through Django's test client after a few warm-up ones, with
its query count and the indexes its rating queries use. Prints numbers only; asserts nothing.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from itertools import accumulate
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from allauth.account.models import EmailAddress
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.db.models import Count
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from bench.site import expect_ok, keep_tasks_in_memory, logged_in, table, throwaway_database
from games.models import Match, Seat, Status, TimeControl
from ratings import selectors
from ratings.models import Rating, RatingChange
from ratings.pools import all_pools
from ratings.services import ratings_recompute

WARMUP = 5  # requests before timing starts: templates load, caches fill
CHUNK = 5000  # rows per INSERT
DAY = timedelta(days=1)

# The share of matches per pool, and how many seats a match of each game has (weights by count).
GAMES = [
    ("mancala", {"variant": "kalah"}, 30),
    ("mancala", {"variant": "egyptian"}, 10),
    ("mancala", {"variant": "ethiopian"}, 10),
    ("mancala", {"variant": "nigerian"}, 10),
    ("mecca", {}, 15),
    ("jeexa", {}, 12),
    ("mesopotamia", {"start_card": "no", "discard": "reshuffle"}, 13),
]
SEATS = {
    "mancala": {2: 1},
    "mecca": {2: 2, 3: 3, 4: 3, 5: 1, 6: 1},
    "jeexa": {2: 1, 3: 2, 4: 3, 5: 2, 6: 1, 7: 1, 8: 1},
    "mesopotamia": {2: 2, 3: 3, 4: 3},
}
AI_SHARE = 0.15  # matches with one AI seat
CASUAL_SHARE = 0.10
PRIVATE_SHARE = 0.15
RESIGNED_SHARE, TIMED_OUT_SHARE = 0.05, 0.03
# The tables whose reads grow with players and matches: the plans printed are of queries on these.
PLANNED_TABLES = {"ratings_rating", "ratings_ratingchange", "games_seat", "games_match"}


# --- the data ---------------------------------------------------------------------------


def make_players(count: int) -> list[int]:
    """``count`` players with confirmed addresses; their ids, the busiest-to-be first."""
    password = make_password("bench")  # one hash for all: hashing 10,000 times is minutes of nothing
    now = timezone.now()
    for start in range(0, count, CHUNK):
        numbers = range(start, min(start + CHUNK, count))
        users = User.objects.bulk_create(
            User(
                username=f"player{n:05d}",
                display_name=f"Player {n}",
                email=f"player{n:05d}@example.com",
                password=password,
                date_joined=now - 400 * DAY,
            )
            for n in numbers
        )
        EmailAddress.objects.bulk_create(
            EmailAddress(user=user, email=user.email, verified=True, primary=True) for user in users
        )
    return list(User.objects.order_by("pk").values_list("pk", flat=True))


def seat_count(game: str, rng: random.Random) -> int:
    counts, weights = zip(*SEATS[game].items(), strict=True)
    return rng.choices(counts, weights)[0]


def result_of(players: int, game: str, rng: random.Random) -> tuple[dict, int | None]:
    """A finished match's result as the site stores it, and the seat whose clock ran out (if one did)."""
    roll = rng.random()
    if roll < RESIGNED_SHARE + TIMED_OUT_SHARE:
        loser = rng.randrange(players)
        winners = [n for n in range(players) if n != loser]
        timed_out = roll >= RESIGNED_SHARE
        reason = "Player ran out of time" if timed_out else "Player resigned"
        return {"scores": [], "winners": winners, "reason": reason}, loser if timed_out else None
    top = 48 if game == "mancala" else 30
    scores = [rng.randint(0, top) for _ in range(players)]
    best = max(scores)
    return {"scores": scores, "winners": [n for n, s in enumerate(scores) if s == best], "reason": "played out"}, None


def make_matches(count: int, player_ids: list[int], rng: random.Random) -> None:
    """``count`` finished matches and their seats; player ``i`` sits in a share of them falling as 1/√(i+10)."""
    cumulative = list(accumulate(1 / (index + 10) ** 0.5 for index in range(len(player_ids))))
    pools = [(game, options) for game, options, _ in GAMES]
    pool_weights = [weight for _, _, weight in GAMES]
    now = timezone.now()
    for start in range(0, count, CHUNK):
        matches, seats_of = [], []
        for _ in range(min(CHUNK, count - start)):
            game, options = rng.choices(pools, pool_weights)[0]
            players = seat_count(game, rng)
            ai_seat = rng.randrange(players) if rng.random() < AI_SHARE else None
            people: list[int] = []
            while len(people) < players - (ai_seat is not None):
                chosen = player_ids[rng.choices(range(len(player_ids)), cum_weights=cumulative)[0]]
                if chosen not in people:
                    people.append(chosen)
            result, timed_out = result_of(players, game, rng)
            moves = rng.randint(20, 120)
            finished_at = now - rng.uniform(0, 365) * DAY
            clocked = rng.random() < 0.7
            matches.append(
                Match(
                    game=game,
                    options=options,
                    status=Status.FINISHED,
                    state={},  # no page under test reads a finished match's board
                    seed=rng.getrandbits(48),
                    version=moves,
                    result=result,
                    created_by_id=people[0],
                    last_move_at=finished_at,
                    finished_at=finished_at,
                    time_control=TimeControl.PER_MOVE if clocked else TimeControl.NONE,
                    days_per_move=3 if clocked else None,
                    rated=rng.random() >= CASUAL_SHARE,
                    public=rng.random() >= PRIVATE_SHARE,
                )
            )
            sitting = iter(people)
            seats_of.append(
                [
                    Seat(
                        number=number,
                        user_id=None if number == ai_seat else next(sitting),
                        ai_level=rng.choice([1, 2]) if number == ai_seat else None,
                        turns=moves // players if clocked else 0,
                        timeouts=int(number == timed_out),
                    )
                    for number in range(players)
                ]
            )
        Match.objects.bulk_create(matches)
        for match, seats in zip(matches, seats_of, strict=True):
            for seat in seats:
                seat.match_id = match.pk
        Seat.objects.bulk_create([seat for seats in seats_of for seat in seats], batch_size=CHUNK)
    # created_at is set on insert: put each match's start some days before its end, as played.
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {Match._meta.db_table} SET created_at = finished_at - version * interval '8 hours'")


def vacuum_analyze() -> None:
    """What autovacuum would have done on a site that grew this big: statistics and visibility maps."""
    with connection.cursor() as cursor:
        for model in (User, EmailAddress, Match, Seat, Rating, RatingChange):
            cursor.execute(f"VACUUM ANALYZE {model._meta.db_table}")


# --- the measures -----------------------------------------------------------------------------


def timings(request: Callable[[], HttpResponse], what: str, count: int) -> tuple[list[float], int, list[str]]:
    """Milliseconds of ``count`` requests after the warm-up; the queries of one (count and SQL)."""
    for _ in range(WARMUP):
        expect_ok(request(), what)
    with CaptureQueriesContext(connection) as queries:
        expect_ok(request(), what)
    # Read now: the next request empties the connection's log these are read from.
    captured = [query["sql"] for query in queries.captured_queries]
    times = []
    for _ in range(count):
        began = time.perf_counter()
        expect_ok(request(), what)
        times.append(1000 * (time.perf_counter() - began))
    return times, len(captured), captured


def load_average() -> str:
    """The 1, 5 and 15-minute load averages: the machine is shared, and times swing with them."""
    return " / ".join(f"{load:.1f}" for load in os.getloadavg())


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def plan_of(sql: str) -> tuple[list[str], float]:
    """The indexes (or sequential scans) a query's plan reads, and its execution time in ms."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT TEXT) {sql}")
        lines = [row[0] for row in cursor.fetchall()]
    reads = []
    for line in lines:
        if found := re.search(r"(Index Only Scan|Index Scan)(?: Backward)? using (\w+) on (\w+)", line):
            reads.append(f"{found[2]} ({'index only' if found[1] == 'Index Only Scan' else 'index'})")
        elif found := re.search(r"Bitmap Index Scan on (\w+)", line):
            reads.append(f"{found[1]} (bitmap)")
        elif found := re.search(r"Seq Scan on (\w+)", line):
            reads.append(f"{found[1]} (whole table)")
    executed = next(float(m[1]) for line in lines if (m := re.search(r"Execution Time: ([\d.]+)", line)))
    return list(dict.fromkeys(reads)), executed


def report_plans(what: str, queries: list[str]) -> None:
    """The plan of each query of one request that reads ratings, matches or seats (not the session's)."""
    print(f"  {what}:")
    for sql in queries:
        tables = set(re.findall(r'(?:FROM|JOIN) "(\w+)"', sql))
        if not sql.startswith("SELECT") or not tables & PLANNED_TABLES:
            continue
        reads, executed = plan_of(sql)
        read = re.search(r'FROM "(\w+)"', sql)
        kind = "count" if sql.startswith("SELECT COUNT(") else "rows"
        print(f"    {executed:6.2f} ms  {kind} of {read[1] if read else '?'}: {', '.join(reads) or 'no table'}")


def busiest_player() -> tuple[User, int]:
    row = (
        Seat.objects.filter(user__isnull=False, match__status=Status.FINISHED)
        .values("user_id")
        .annotate(matches=Count("pk"))
        .order_by("-matches")
        .first()
    )
    return User.objects.get(pk=row["user_id"]), row["matches"]


def biggest_pool() -> tuple[str, int]:
    """The pool with the most players on its leaderboard, and how many."""
    counts = {pool: selectors.leaderboard_rows(pool).count() for pool in all_pools()}
    pool = max(counts, key=counts.__getitem__)
    return pool, counts[pool]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000, help="players (default 10000)")
    parser.add_argument("--matches", type=int, default=100_000, help="finished matches (default 100000)")
    parser.add_argument("--requests", type=int, default=50, help="timed requests per page (default 50)")
    args = parser.parse_args()
    keep_tasks_in_memory()
    rng = random.Random(41)
    with throwaway_database() as database:
        if connection.vendor != "postgresql":
            print("Plans are read with PostgreSQL's EXPLAIN: set DATABASE_URL to a PostgreSQL server.")
            return
        print(f"Django {django.get_version()}, database: {database}, DEBUG off; load average {load_average()}\n")

        began = time.perf_counter()
        player_ids = make_players(args.players)
        make_matches(args.matches, player_ids, rng)
        filled = time.perf_counter() - began
        print(
            f"Filled {args.players} players, {args.matches} finished matches ({Seat.objects.count()} seats) "
            f"in {filled:.0f} s"
        )
        done = ratings_recompute()
        print(
            f"Recompute (ratings_recompute): {done.matches} rated matches replayed, {done.ratings} ratings, "
            f"{done.changes} changes, in {done.seconds:.1f} s"
        )
        vacuum_analyze()

        pool, listed = biggest_pool()
        pages = -(-listed // selectors.LEADERBOARD_PAGE)
        deep = min(100, pages)
        board = reverse("leaderboard", args=[pool])
        # A signed-in player in the middle of the board: their row is on another page than the first.
        middle = selectors.leaderboard_rows(pool)[listed // 2].user
        busy, busy_matches = busiest_player()
        busy_page = reverse("player", args=[busy.username])
        busy_changes = RatingChange.objects.filter(rating__user=busy).count()
        print(
            f"Leaderboard of {pool}: {listed} active players, {pages} pages; busiest player "
            f"{busy.username}: {busy_matches} finished matches, {busy_changes} rating changes\n"
        )

        visitor, signed_in, busy_self = Client(), logged_in(middle), logged_in(busy)
        pages_timed = [
            ("leaderboard page 1, visitor", lambda: visitor.get(board)),
            (f"leaderboard page {deep}, visitor", lambda: visitor.get(board, {"page": deep})),
            ("leaderboard page 1, signed in, own row elsewhere", lambda: signed_in.get(board)),
            ("busiest player's page, themselves", lambda: busy_self.get(busy_page)),
            ("busiest player's page, visitor", lambda: visitor.get(busy_page)),
        ]
        rows, plans = [], []
        for what, request in pages_timed:
            times, queries, sql = timings(request, what, args.requests)
            rows.append(
                [
                    what,
                    str(len(times)),
                    f"{percentile(times, 0.5):.1f}",
                    f"{percentile(times, 0.95):.1f}",
                    f"{max(times):.1f}",
                    str(queries),
                ]
            )
            plans.append((what, sql))
        print(f"{args.requests} requests each after {WARMUP} warm-up ones (test Client), load average {load_average()}")
        print(table(["request", "n", "p50 ms", "p95 ms", "max ms", "queries"], rows))
        print("\nPlans of the queries on ratings, matches and seats (EXPLAIN ANALYZE: execution time, what is read):")
        for what, sql in plans:
            report_plans(what, sql)


if __name__ == "__main__":
    main()
