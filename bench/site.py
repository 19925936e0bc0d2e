"""What a move costs through the whole site, whether query counts stay flat as a game
grows, and how strong the Mancala AI is.

    python bench/site.py [--moves N] [--ai-games G] [--old PATH] [--json FILE]

With ``--old PATH`` (a checkout of an older commit, e.g. ``git worktree add /tmp/old <rev>``)
the same measurement runs twice, each in a process of its own: this file's code against the
site at PATH (its views, services, settings, templates), then against this checkout; then
the key figures of both are printed side by side. ``--json FILE`` writes those figures.

Everything runs in a throwaway test database (a temporary SQLite file, or a PostgreSQL
database of its own when DATABASE_URL names one), created here and dropped at the end,
so real data is never touched. The tasks the moves schedule go to an in-memory broker:
no Celery worker anywhere runs them. Prints numbers only; nothing here asserts on time.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
MEASURED_SITE = "BENCH_MEASURED_SITE"  # set by --old: the checkout whose site this process measures
ROOT = Path(os.environ.get(MEASURED_SITE) or BENCHES.parent).resolve()
sys.path.insert(0, str(ROOT))
if "bench" not in sys.modules:  # run as a script: the measuring code stays this checkout's, whichever site
    sys.modules["bench"] = types.ModuleType("bench")
    sys.modules["bench"].__path__ = [str(BENCHES)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
warnings.filterwarnings("ignore", "No directory at", UserWarning)  # whitenoise, before collectstatic

import django

django.setup()

from django.db import connection, transaction
from django.db.models.functions import Now
from django.http import HttpResponse
from django.test import Client
from django.test.utils import (
    CaptureQueriesContext,
    override_settings,
    setup_test_environment,
    teardown_test_environment,
)
from django.urls import include, path, reverse
from django.utils import timezone

from bench import mancala_ai
from config.celery import app as celery_app
from games.engine import get_game
from games.models import Match, Status
from notifications.models import Notification
from tests.conftest import make_user, start_match
from tests.games.conftest import play_moves

MANCALA = get_game("mancala")
HTMX = {"HTTP_HX_REQUEST": "true"}
WARMUP = 5  # requests run before timing starts: the first ones load templates and fill caches
LONG_GAME = 200


# --- the comparison view: one write by primary key, nothing else ------------------------


def bare_write(request, pk: int) -> HttpResponse:
    with transaction.atomic():
        Match.objects.filter(pk=pk).update(last_move_at=Now())
    return HttpResponse("ok")


# With the site's own addresses: its middleware names some of them (the sign-in page) on every htmx request.
urlpatterns = [path("bare/<int:pk>/", bare_write, name="bare_write"), path("", include("config.urls"))]


# --- set-up ---------------------------------------------------------------------------


@contextmanager
def throwaway_database() -> Iterator[str]:
    """A fresh, migrated test database for the duration; yields a description of it."""
    setup_test_environment(debug=False)
    real_name = connection.settings_dict["NAME"]
    with tempfile.TemporaryDirectory() as tmp:
        test_settings = connection.settings_dict["TEST"]
        if connection.vendor == "sqlite":
            # A file, like the site's own database (WAL, immediate transactions), not :memory:.
            test_settings["NAME"] = str(Path(tmp) / "bench.sqlite3")
        else:
            # Never the test_<name> a test run may be using right now.
            test_settings["NAME"] = f"test_{real_name}_bench_{os.getpid()}"
        name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            yield f"{connection.vendor} ({name})"
        finally:
            connection.creation.destroy_test_db(real_name, verbosity=0)
            teardown_test_environment()


def keep_tasks_in_memory() -> None:
    celery_app.conf.broker_url = "memory://localhost/"
    # The default (no REDIS_URL) names the filesystem transport itself, which would win over the URL.
    celery_app.conf.broker_transport = None
    celery_app.conf.broker_transport_options = {}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def expect_ok(response: HttpResponse, what: str) -> HttpResponse:
    if response.status_code != 200:
        raise RuntimeError(f"{what} answered {response.status_code}: {response.content[:300]!r}")
    return response


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [headers, ["-" * width for width in widths], *rows]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) for line in lines)


# --- the old and the new side by side (--old) ------------------------------------------------

Figures = dict[str, float | int | None]  # what --json writes: a figure's name -> its value, in print order


def write_figures(path: Path, about: str, figures: Figures) -> None:
    path.write_text(json.dumps({"about": about, "figures": figures}))


def without_option(argv: list[str], option: str) -> list[str]:
    """``argv`` less ``option`` and its value (the parsers with --old take no abbreviations)."""
    kept, skip = [], False
    for word in argv:
        if skip or word.startswith(f"{option}="):
            skip = False
        elif word == option:
            skip = True
        else:
            kept.append(word)
    return kept


def shown(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def ratio(old: float | int | None, new: float | int | None) -> str:
    if old is None or new is None:
        return "-"
    if old == new:
        return "="
    return f"{new / old:.2f}x" if old else "-"


def side_by_side(old: dict, new: dict) -> str:
    names = list(dict.fromkeys([*old["figures"], *new["figures"]]))
    rows = [
        [name, shown(a := old["figures"].get(name)), shown(b := new["figures"].get(name)), ratio(a, b)]
        for name in names
    ]
    return table(["figure", "old", "new", "new / old"], rows)


def old_and_new(
    script: Path, old: Path, argv: list[str], json_path: Path | None, between: Callable[[], None] = lambda: None
) -> None:
    """Runs ``script`` with ``argv`` twice, each time in a fresh process of this interpreter:
    on the site at ``old``, then on this checkout's; its output passes through, then both
    runs' figures are printed side by side (and written to ``json_path`` as {"old": …, "new": …}).
    ``between`` runs after the old run."""
    if not (old / "manage.py").is_file():
        sys.exit(f"{old} is not a checkout of this site: it has no manage.py.")
    argv = without_option(without_option(argv, "--old"), "--json")
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, root in [("old", old.resolve()), ("new", BENCHES.parent)]:
            if name == "new":
                between()
            print(f"===== {name}: the site at {root} =====\n", flush=True)
            figures = Path(tmp) / f"{name}.json"
            finished = subprocess.run(
                [sys.executable, str(script), *argv, "--json", str(figures)],
                cwd=root,
                env={**os.environ, MEASURED_SITE: str(root)},
            )
            if finished.returncode:
                sys.exit(f"The {name} run stopped with exit status {finished.returncode}; its output is above.")
            runs[name] = json.loads(figures.read_text())
            print(flush=True)
    print(f"===== old ({old.resolve()}) and new ({BENCHES.parent}) side by side =====")
    print(f"old: {runs['old']['about']}\nnew: {runs['new']['about']}\n")
    print(side_by_side(runs["old"], runs["new"]))
    if json_path:
        json_path.write_text(json.dumps(runs))


# --- (a) time of a move against a bare write ---------------------------------------------


def timed(request: Callable[[], HttpResponse], what: str) -> float:
    started = time.perf_counter()
    response = request()
    elapsed = time.perf_counter() - started
    expect_ok(response, what)
    return elapsed


def move_headers(match: Match) -> dict[str, str]:
    """A move's headers as site.js sends them: HTMX, and the match's revision the page shows."""
    return {**HTMX, "HTTP_X_LIVE_REVISION": str(match.revision)}


def move_times(clients: dict[int, Client], alice, bob, count: int) -> tuple[list[float], int]:
    """Seconds per HTMX move request, two human players, new Egyptian matches as games end."""
    times: list[float] = []
    matches = 0
    match = None
    while len(times) < count + WARMUP:
        if match is None or match.status != Status.ACTIVE:
            match, matches = start_match(alice, bob), matches + 1
        state = MANCALA.load(match.state)
        seat = MANCALA.to_act(state)[0]
        data = {"move": MANCALA.ai_move(state, seat, 1, seed=match.version), "version": match.version}
        url = reverse("match_move", args=[match.pk])
        headers = move_headers(match)
        times.append(timed(lambda c=clients[seat], u=url, d=data, h=headers: c.post(u, d, **h), "a move"))
        match.refresh_from_db()
    return times[WARMUP:], matches


def bare_times(client: Client, match_pk: int, count: int) -> list[float]:
    url = f"/bare/{match_pk}/"
    with override_settings(ROOT_URLCONF=__name__):
        times = [timed(lambda: client.post(url, **HTMX), "the bare view") for _ in range(count + WARMUP)]
    return times[WARMUP:]


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20, method="inclusive")[-1] if len(times) > 1 else times[0]


MEASURES = [("median", statistics.median), ("p95", p95), ("mean", statistics.mean)]


def time_row(name: str, times: list[float]) -> list[str]:
    return [
        name,
        str(len(times)),
        *(f"{1000 * figure(times):.2f}" for figure in (statistics.mean, statistics.median, p95)),
    ]


def time_figures(name: str, times: list[float]) -> Figures:
    return {f"{name} {label} ms": 1000 * figure(times) for label, figure in MEASURES}


def report_move_cost(alice, bob, count: int) -> Figures:
    clients = {0: logged_in(alice), 1: logged_in(bob)}
    moves, matches = move_times(clients, alice, bob, count)
    bare = bare_times(clients[0], Match.objects.first().pk, count)
    print(
        f"(a) One request through the whole stack (test Client, HTMX, logged in; {WARMUP} warm-up requests "
        f"not counted). Moves: two human players, {matches} Egyptian matches."
    )
    print(
        table(
            ["request", "n", "mean ms", "median ms", "p95 ms"],
            [time_row("move (match_move view)", moves), time_row("bare view, one UPDATE by pk", bare)],
        )
    )
    print(
        f"ratio move / bare: mean {statistics.mean(moves) / statistics.mean(bare):.1f}x, "
        f"median {statistics.median(moves) / statistics.median(bare):.1f}x\n"
    )
    return {
        **time_figures("move", moves),
        **time_figures("bare write", bare),
        "move / bare write, median": statistics.median(moves) / statistics.median(bare),
    }


# --- (b) query counts after 1 and after 200 moves -------------------------------------------


def queries_of(request: Callable[[], HttpResponse], what: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        expect_ok(request(), what)
    return len(queries.captured_queries)


def move_queries(match: Match, clients: dict[int, Client]) -> int:
    """Queries of one HTMX move that hands the turn to the other player."""
    state = MANCALA.load(match.state)
    seat = MANCALA.to_act(state)[0]
    legal = MANCALA.legal_moves(state, seat)
    move = next(m for m in legal if MANCALA.to_act(MANCALA.apply(state, seat, m)) != (seat,))
    url = reverse("match_move", args=[match.pk])
    data = {"move": move, "version": match.version}
    return queries_of(lambda: clients[seat].post(url, data, **move_headers(match)), "a move")


def count_row(name: str, counts: list[int]) -> list[str]:
    return [name, *map(str, counts), "equal" if counts[0] == counts[1] else "NOT equal"]


def report_query_counts(alice, bob) -> Figures:
    users, clients = {0: alice, 1: bob}, {0: logged_in(alice), 1: logged_in(bob)}
    short, long = start_match(alice, bob, variant="ethiopian"), start_match(alice, bob, variant="ethiopian")
    play_moves(short, users, 1)
    play_moves(long, users, LONG_GAME, slowly=True)  # the move that banks least keeps the game going
    # A pending "your turn" email suppresses the next one: make both matches owe the same email work.
    Notification.objects.update(sent_at=timezone.now())
    games = [Match.objects.get(pk=match.pk) for match in (short, long)]
    pages = [
        queries_of(lambda m=m: clients[0].get(reverse("match_detail", args=[m.pk])), "the match page") for m in games
    ]
    moves = [move_queries(m, clients) for m in games]
    print(f"(b) SQL queries per request, Ethiopian match after {games[0].version} and after {games[1].version} moves.")
    print(
        table(
            ["request", f"after {games[0].version}", f"after {games[1].version}", "verdict"],
            [
                count_row("match page (full GET)", pages),
                count_row("move (HTMX POST)", moves),
            ],
        )
    )
    print()
    return {
        f"{request} queries, after {match.version} move{'s' * (match.version != 1)}": count
        for request, counts in [("match page", pages), ("move", moves)]
        for match, count in zip(games, counts, strict=True)
    }


# --- (c) the AI -------------------------------------------------------------------------------


def report_ai(games: int) -> None:
    print(f"(c) Mancala AI (bench/mancala_ai.py {games}):")
    mancala_ai.main([str(games)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--moves", type=int, default=200, help="timed move requests (default 200)")
    parser.add_argument("--ai-games", type=int, default=6, help="AI games per pairing; 0 skips (default 6)")
    parser.add_argument("--old", type=Path, help="an older checkout, measured first, then side by side with this")
    parser.add_argument("--json", type=Path, help="write the key figures to this file")
    args = parser.parse_args()
    if args.old:
        old_and_new(Path(__file__), args.old, sys.argv[1:], args.json)
        return
    keep_tasks_in_memory()
    # One pair plays match after match, each an invitation: --moves in the thousands passes a day's limit.
    with throwaway_database() as database, override_settings(INVITATIONS_PER_DAY=sys.maxsize):
        about = f"Django {django.get_version()}, database: {database}, DEBUG off, broker memory://"
        print(f"{about}\n")
        alice, bob = make_user("alice"), make_user("bob")
        figures = report_move_cost(alice, bob, args.moves) | report_query_counts(alice, bob)
    if args.json:
        write_figures(args.json, about, figures)
    if args.ai_games:
        report_ai(args.ai_games)


if __name__ == "__main__":
    main()
