"""Demo accounts and matches for a fresh site. Idempotent: a second run only prints.

Passwords are made up on the first run and kept in ``var/demo-credentials.txt`` (never
committed), so no credential lives in the repository.
"""

from __future__ import annotations

import secrets

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User
from games import services
from games.engine import get_game
from games.models import Match
from games.services import SeatSpec

DEMO_USERS = [
    # username, display name, staff
    ("alice", "Alice", False),
    ("bob", "Bob", False),
    ("staff", "Staff", True),
]
FINISHED_DEMO_MATCHES = 4


class Command(BaseCommand):
    help = "Create the demo players, the staff account and a few matches (AI opponents included)."

    def handle(self, *args, **options):
        credentials_file = settings.VAR_DIR / "demo-credentials.txt"
        lines = {}
        for username, display_name, staff in DEMO_USERS:
            if User.objects.filter(username=username).exists():
                continue
            password = secrets.token_urlsafe(9)
            email = f"{username}@example.com"
            user = User.objects.create_user(
                username=username,
                email=email,
                password=password,
                display_name=display_name,
                is_staff=staff,
                is_superuser=staff,
            )
            EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
            lines[username] = f"{'staff' if staff else 'player':6}  {username:6}  password: {password}"
        if lines:
            settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
            # An account made now is in a new database (db.sqlite3 removed, DATABASE_URL set): the
            # password kept for its name was the old database's, and printed first it did not sign in.
            kept = credentials_file.read_text().splitlines() if credentials_file.exists() else []
            kept = [line for line in kept if line.split()[1:2] and line.split()[1] not in lines]
            credentials_file.write_text("\n".join([*kept, *lines.values()]) + "\n")
        if not Match.objects.exists():
            self._demo_matches()
        self.stdout.write(f"Demo accounts (also in {credentials_file}):")
        self.stdout.write(credentials_file.read_text() if credentials_file.exists() else "  (none)")

    def _demo_matches(self) -> None:
        alice = User.objects.get(username="alice")
        bob = User.objects.get(username="bob")
        strong = max(get_game("mancala").ai_levels)
        services.match_create(
            creator=alice,
            game_slug="mancala",
            options={"variant": "egyptian"},
            seats=[SeatSpec("creator"), SeatSpec("ai", ai_level=strong)],
        )
        services.match_create(
            creator=bob,
            game_slug="mancala",
            options={"variant": "kalah"},
            seats=[SeatSpec("creator"), SeatSpec("user", username="alice")],
        )
        services.match_create(
            creator=bob,
            game_slug="mancala",
            options={"variant": "nigerian"},
            seats=[SeatSpec("creator"), SeatSpec("open")],
        )
        for number in range(FINISHED_DEMO_MATCHES):
            self._finished_match(*((alice, bob) if number % 2 else (bob, alice)), seed=number)

    def _finished_match(self, creator: User, opponent: User, *, seed: int) -> None:
        """A rated Kalah match played to its end as the Easy AI would play both seats: the leaderboard,
        the players' pages and the statistics have something to show on a fresh site."""
        seats = [SeatSpec("creator"), SeatSpec("user", username=opponent.username)]
        match = services.match_create(creator=creator, game_slug="mancala", options={"variant": "kalah"}, seats=seats)
        services.match_accept(match_id=match.pk, user=opponent)
        game, players = match.game_obj, {0: creator, 1: opponent}
        for _ in range(game.playout_limit):
            match.refresh_from_db()
            state = game.load(match.state)
            if game.is_over(state):
                return
            seat = game.to_act(state)[0]
            move = game.ai_move(state, seat, min(game.ai_levels), seed=seed * 1000 + match.version)
            services.move_submit(match_id=match.pk, move=move, expected_version=match.version, user=players[seat])
