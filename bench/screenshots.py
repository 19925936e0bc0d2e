"""Screenshots of a match of every game, at a desktop's size and a phone's, as a player sees it.

    python bench/screenshots.py [--out docs/screenshots]

Plays a few seeded random moves of each game in a throwaway database (bench/site.py's), serves the
site on a local port and takes each match page in Debian's Chromium (``/usr/bin/chromium``) at
1366x900 and 390x844. The Mecca one at desktop size is also the README's picture
(``docs/screenshot-match.png``). Prints the files it wrote.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs an event loop in this thread

import django

django.setup()

from django.conf import settings
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.test import Client
from django.test.testcases import LiveServerThread
from playwright.sync_api import sync_playwright

from bench.site import keep_tasks_in_memory, throwaway_database
from games import services
from games.models import Match
from games.services import SeatSpec
from tests.conftest import make_user
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.games.conftest import play_random_moves

SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
# Each game with its players and how far into the game the picture is taken (moves).
GAMES = {
    "mancala": (2, {"variant": "egyptian"}, 9),
    "mecca": (4, {}, 30),
    "jeexa": (3, {}, 40),
    "mesopotamia": (3, {}, 60),
}
PLAYERS = ("alice", "bob", "carol", "dave")
README_PICTURE = ROOT / "docs" / "screenshot-match.png"


def match_of(slug: str, players: list, options: dict, moves: int) -> Match:
    """A match of ``slug`` between ``players`` (the first creates it), ``moves`` seeded random moves in."""
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=player.username) for player in players[1:])]
    match = services.match_create(creator=players[0], game_slug=slug, options=options, seats=seats)
    for player in players[1:]:
        services.match_accept(match_id=match.pk, user=player)
    play_random_moves(match, players, random.Random(slug), limit=moves)
    match.refresh_from_db()
    return match


def session_cookie(user, server: str) -> dict:
    client = Client()
    client.force_login(user)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": server}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    keep_tasks_in_memory()
    with throwaway_database():
        people = [make_user(name, display_name=name.capitalize()) for name in PLAYERS]
        matches = {
            slug: match_of(slug, people[:count], options, moves) for slug, (count, options, moves) in GAMES.items()
        }
        server = LiveServerThread("127.0.0.1", StaticFilesHandler)
        server.daemon = True
        server.start()
        server.is_ready.wait()
        address = f"http://127.0.0.1:{server.port}"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                for slug, match in matches.items():
                    for size, (width, height) in SIZES.items():
                        context = browser.new_context(viewport={"width": width, "height": height})
                        context.add_cookies([session_cookie(people[0], address)])
                        page = context.new_page()
                        page.goto(f"{address}/matches/{match.pk}/")
                        path = args.out / f"{slug}-{size}.png"
                        page.screenshot(path=path)
                        context.close()
                        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
                browser.close()
        finally:
            server.terminate()
    shutil.copyfile(args.out / "mecca-desktop.png", README_PICTURE)
    print(README_PICTURE.relative_to(ROOT))


if __name__ == "__main__":
    main()
