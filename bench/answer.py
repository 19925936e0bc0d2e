"""How soon an AI's answer appears on an open match page, and what an idle open page costs.

    DATABASE_URL=postgres://… REDIS_URL=redis://…/N python bench/answer.py [--moves K]

On a throwaway PostgreSQL database it starts the site as bench/load.py does (gunicorn, a
Celery worker and beat, DEBUG off), signs a player in to Chromium and plays K moves against
the Easy AI in Mancala matches, each by clicking a pit. For every answer it takes the time
from the AI move's commit (its record's ``created_at``) to the moment the page's board showed
the new position (a MutationObserver on ``#board[data-ply]``, stamped in the page with the
same clock). Then it leaves one page open on a match that waits for a person who is away and
counts what that idle page asks of the server over a minute: requests and SQL queries (the
"nothing changed" poll's queries, counted through Django's test client on the same database).

It prints numbers only and asserts nothing. REDIS_URL must name a Redis database no other
worker reads.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop in this thread

import django

django.setup()

from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from playwright.sync_api import sync_playwright

from accounts.models import User
from bench.load import Site, free_port, percentile
from bench.site import throwaway_database
from games import services
from games.models import Match, MoveRecord
from games.services import SeatSpec
from tests.conftest import make_user

WATCH_BOARD = """() => {
  window.__shown = {};
  const stamp = () => {
    const board = document.getElementById("board");
    if (board && !(board.dataset.ply in window.__shown)) window.__shown[board.dataset.ply] = Date.now();
  };
  stamp();
  new MutationObserver(stamp).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def signed_in_cookie(user: User, port: int, secret_key: str) -> dict:
    settings.SECRET_KEY = secret_key  # the site's: it reads the session this signs
    client = Client()
    client.force_login(user)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": f"http://127.0.0.1:{port}"}


def ai_match(player: User) -> Match:
    seats = [SeatSpec("creator"), SeatSpec("ai", ai_level=1)]
    return services.match_create(creator=player, game_slug="mancala", options={"variant": "kalah"}, seats=seats)


def answer_times(page, port: int, player: User, moves: int) -> list[float]:
    """Seconds from each AI answer's commit to its appearance on the open page."""
    times: list[float] = []
    while len(times) < moves:
        match = ai_match(player)
        page.goto(f"http://127.0.0.1:{port}{match.get_absolute_url()}")
        page.evaluate(WATCH_BOARD)
        stalled_at = time.monotonic() + 60
        while len(times) < moves:
            match.refresh_from_db()
            if match.status != "active":
                break
            pit = page.locator('#board [name="move"]:not([disabled])').first
            if not pit.count():  # the AI is still to answer an earlier move
                if time.monotonic() > stalled_at:
                    picture = Path(tempfile.gettempdir()) / "answer-stalled.png"
                    page.screenshot(path=str(picture))
                    raise RuntimeError(f"no pit to click for 60 s: see {picture}")
                page.wait_for_timeout(200)
                continue
            stalled_at = time.monotonic() + 60
            version = match.version
            pit.click()
            # The player's move (Kalah may give another turn: then there is no answer to wait for).
            page.wait_for_function(f"() => Number(document.getElementById('board').dataset.ply) > {version}")
            ai = MoveRecord.objects.filter(match=match, ply__gte=version + 1, by_ai=True).order_by("ply")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not ai.exists():
                match.refresh_from_db()
                if match.status != "active" or not match.seats.get(number=1).to_act:
                    break
                time.sleep(0.05)
            answer = ai.first()
            if answer is None:
                continue
            page.wait_for_function(
                f"() => Object.keys(window.__shown).some((ply) => Number(ply) > {answer.ply})", timeout=30_000
            )
            shown = page.evaluate(
                "(ply) => Math.min(...Object.entries(window.__shown)"
                ".filter(([shown]) => Number(shown) > ply).map(([, at]) => at))",
                answer.ply,
            )
            times.append(shown / 1000 - answer.created_at.timestamp())
            print(f"  answer {len(times)}: {times[-1]:.2f} s", file=sys.stderr, flush=True)
    return times


def idle_cost(page, port: int, player: User, away: User, seconds: int) -> tuple[int, int, int]:
    """Requests an idle open page made in ``seconds``, and the queries of one "nothing changed" poll
    (between two of the presence writes it makes at most every 30 s)."""
    seats = [SeatSpec("creator"), SeatSpec("user", username=away.username)]
    match = services.match_create(creator=player, game_slug="mancala", options={"variant": "kalah"}, seats=seats)
    services.match_accept(match_id=match.pk, user=away)
    match.refresh_from_db()
    state = match.game_obj.load(match.state)
    services.move_submit(
        match_id=match.pk, user=player, move=match.game_obj.legal_moves(state, 0)[-1], expected_version=0
    )
    match.refresh_from_db()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"http://127.0.0.1:{port}{match.get_absolute_url()}")
    requests.clear()
    page.wait_for_timeout(seconds * 1000)
    client = Client()
    client.force_login(player)
    url = reverse("match_poll", args=[match.pk]) + f"?token={match.poll_token}"
    client.get(url, HTTP_HX_REQUEST="true")  # the first may write the player's presence (every 30 s at most)
    with CaptureQueriesContext(connection) as queries:
        status = client.get(url, HTTP_HX_REQUEST="true").status_code
    return len(requests), len(queries.captured_queries), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="AI answers to time (default 40)")
    parser.add_argument("--idle-seconds", type=int, default=60, help="how long the idle page stays open (default 60)")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("bench/answer.py needs DATABASE_URL naming a PostgreSQL server (it starts gunicorn on it).")
    with throwaway_database() as database, tempfile.TemporaryDirectory() as var:
        player, away = make_user("watcher", confirm_moves=False), make_user("away")  # a click is the move
        port = free_port()
        site = Site(Path(var), port, web_workers=2, threads=1, concurrency=1)
        site.start()
        print("site started", file=sys.stderr, flush=True)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
                context = browser.new_context(viewport={"width": 1366, "height": 900})
                context.add_cookies([signed_in_cookie(player, port, site.env["DJANGO_SECRET_KEY"])])
                page = context.new_page()
                times = answer_times(page, port, player, args.moves)
                idle_page = context.new_page()
                requests, queries, status = idle_cost(idle_page, port, player, away, args.idle_seconds)
                browser.close()
        finally:
            site.stop_all()
            with connection.cursor() as cursor:  # a worker's child may linger: the database is dropped next
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            connection.close()  # the test database is dropped next: no session of ours may be left on it
        print(f"Database {database}; gunicorn 2 sync workers, Celery worker (concurrency 1) and beat.")
        print(f"AI answer, commit to shown on the open page ({len(times)} answers, Easy AI, Kalah):")
        print(f"  p50 {percentile(times, 0.5):.2f} s   p95 {percentile(times, 0.95):.2f} s   max {max(times):.2f} s")
        per_minute = requests * 60 / args.idle_seconds
        print(f"Idle open page (a person to act, away), {args.idle_seconds} s:")
        print(f"  {per_minute:.0f} requests a minute; a 'nothing changed' poll is {queries} queries (HTTP {status})")
        print(f"  = {per_minute * queries:.0f} queries a minute per idle page")


if __name__ == "__main__":
    main()
