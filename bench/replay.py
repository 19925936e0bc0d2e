"""What a replay step costs at the end of long finished matches, and whether its query count stays flat.

    python bench/replay.py [--seeds N] [--repeat R]

For each game (Mancala Ethiopian played to last as long as it can, Mecca 6 players, Jeexa 8
players, Mesopotamia 4 players) it plays ``--seeds`` finished matches (Mancala: one) through
``move_submit`` with random legal moves and keeps the longest (the dice and deals come from
each match's own secret seed, so the lengths vary from run to run). On that match a seated
player then views the last position ``--repeat`` times (the full page, as "End »" and a
reload do), steps back from the end (htmx, "◀ Back") as often, and steps forward through
every position from the start (htmx, "Next ▶"). Times are of the whole request through the
Django test client (server time: no network, no browser), in one process, which keeps the
positions it passes (games/replay.py).

Runs in a throwaway test database of its own (see bench/site.py); tasks go to an in-memory
broker. Prints numbers only; nothing here asserts on time.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.test import Client
from django.urls import reverse

from bench.site import HTMX, expect_ok, keep_tasks_in_memory, logged_in, queries_of, table, throwaway_database
from games import services
from games.models import Match, Status
from tests.conftest import make_user
from tests.games.conftest import play_moves, play_random_moves

WARMUP = 3  # requests before timing: the first ones load templates


@dataclass(frozen=True)
class Case:
    name: str
    slug: str
    seats: int
    options: dict[str, str] = field(default_factory=dict)


CASES = [
    Case("Mancala (Ethiopian, slow play)", "mancala", 2, {"variant": "ethiopian"}),
    Case("Mecca, 6 players", "mecca", 6),
    Case("Jeexa, 8 players", "jeexa", 8),
    Case("Mesopotamia, 4 players", "mesopotamia", 4),
]


def players(count: int) -> list:
    return [make_user(f"player{number}") for number in range(count)]


def finished_match(case: Case, users: list, seed: int) -> Match:
    """A match of ``case`` played to its end by random legal moves (Mancala: the move that banks least)."""
    seats = [services.SeatSpec("creator")] + [services.SeatSpec("user", username=user.username) for user in users[1:]]
    match = services.match_create(creator=users[0], game_slug=case.slug, options=case.options, seats=seats)
    for user in users[1:]:
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    by_seat = dict(enumerate(users))
    if case.slug == "mancala":
        play_moves(match, by_seat, match.game_obj.playout_limit, slowly=True)
    else:
        play_random_moves(match, by_seat, random.Random(seed))
    match.refresh_from_db()
    if match.status != Status.FINISHED:
        raise RuntimeError(f"{case.name}: seed {seed} did not finish")
    return match


def timed_get(client: Client, url: str, ply: int, htmx: bool) -> float:
    started = time.perf_counter()
    response = client.get(url, {"ply": ply}, **(HTMX if htmx else {}))
    elapsed = time.perf_counter() - started
    expect_ok(response, f"the replay at ply {ply}")
    return elapsed


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f}"


def measure(case: Case, match: Match, client: Client, repeat: int) -> list[str]:
    url = reverse("match_replay", args=[match.pk])
    last = match.version
    for _ in range(WARMUP):
        timed_get(client, url, last, htmx=False)
    end = [timed_get(client, url, last, htmx=False) for _ in range(repeat)]
    back = [timed_get(client, url, last - 1, htmx=True) for _ in range(repeat)]
    forward = [timed_get(client, url, ply, htmx=True) for ply in range(1, last + 1)]
    counts = [
        queries_of(lambda ply=ply: client.get(url, {"ply": ply}, **HTMX), "a replay step")
        for ply in (0, last // 2, last)
    ]
    return [
        case.name,
        str(last),
        ms(statistics.median(end)),
        ms(statistics.median(back)),
        ms(statistics.median(forward)),
        ms(max(forward)),
        f"{sum(forward):.1f}",
        "/".join(map(str, counts)) + (" (flat)" if len(set(counts)) == 1 else " (GROWS)"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="matches played per game; the longest is kept (3)")
    parser.add_argument("--repeat", type=int, default=9, help="timed views of the last and next-to-last ply (9)")
    args = parser.parse_args()
    keep_tasks_in_memory()
    with throwaway_database() as database:
        print(f"Django {django.get_version()}, database: {database}, DEBUG off, broker memory://\n")
        users = players(max(case.seats for case in CASES))
        client = logged_in(users[0])
        rows = []
        for case in CASES:
            started = time.perf_counter()
            seeds = 1 if case.slug == "mancala" else args.seeds  # its slow play has no chance in it
            matches = [finished_match(case, users[: case.seats], seed) for seed in range(seeds)]
            longest = max(matches, key=lambda match: match.version)
            print(
                f"{case.name}: {seeds} matches of {', '.join(str(m.version) for m in matches)} moves "
                f"played in {time.perf_counter() - started:.0f} s"
            )
            rows.append(measure(case, longest, client, args.repeat))
        print(
            f"\nReplay requests on the longest match, ms (median of {args.repeat} at the end; "
            "every step forward from the start):"
        )
        print(
            table(
                [
                    "match",
                    "moves",
                    "last ply (page)",
                    "back from end",
                    "step, median",
                    "step, max",
                    "all steps, s",
                    "queries (0/mid/last)",
                ],
                rows,
            )
        )


if __name__ == "__main__":
    main()
