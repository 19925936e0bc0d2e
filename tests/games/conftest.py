"""Helpers and fixtures shared by the game tests: matches with a time control, random play
through the services and moves as the easy AI chooses them, a signed-in player's and a staff
member's browser, and the queries a page takes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.engine import get_game
from games.models import Match
from games.services import ClockSpec, SeatSpec
from tests.conftest import start_match


def play_random_moves(match, players, rng, *, until=lambda: False, limit: int | None = None) -> bool:
    """Random legal moves through ``move_submit``, ``players[seat]`` making each seat's, until
    ``until()`` holds, ``limit`` moves are made or the game is over; whether it is over."""
    game = match.game_obj
    for _ in range(game.playout_limit if limit is None else limit):
        match.refresh_from_db()
        state = game.load(match.state)
        if game.is_over(state):
            return True
        if until():
            return False
        seat = game.to_act(state)[0]
        services.move_submit(
            match_id=match.pk,
            move=rng.choice(game.legal_moves(state, seat)),
            expected_version=match.version,
            user=players[seat],
        )
    match.refresh_from_db()
    return game.is_over(game.load(match.state))


PER_MOVE_2_DAYS = ClockSpec(time_control="per_move", days_per_move=2)


def start_timed_match(creator, *opponents, clock: ClockSpec = PER_MOVE_2_DAYS, game="mancala", options=None):
    """A started match with a time control: the creator on seat 0, then the opponents (accepted)."""
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=user.username) for user in opponents)]
    match = services.match_create(creator=creator, game_slug=game, options=options or {}, seats=seats, clock=clock)
    for user in opponents:
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match


# --- the site's pages ---

MANCALA = get_game("mancala")
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def play_moves(match, users, count, *, slowly=False):
    """Play ``count`` moves (fewer if the game ends). The easy AI chooses, or, ``slowly``,
    the move that banks the fewest coins, which keeps an Ethiopian game going for hundreds of moves."""
    for _ in range(count):
        match.refresh_from_db()
        state = MANCALA.load(match.state)
        if MANCALA.is_over(state):
            return
        seat = MANCALA.to_act(state)[0]
        if slowly:
            move = min(
                MANCALA.legal_moves(state, seat),
                key=lambda m: sum(MANCALA.view(MANCALA.apply(state, seat, m), None)["mancalas"]),
            )
        else:
            move = MANCALA.ai_move(state, seat, 1, seed=match.version)
        services.move_submit(match_id=match.pk, user=users[seat], move=move, expected_version=match.version)


def count_queries(client, method, url, data=None):
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, data or {}, **HTMX)
    assert response.status_code in (200, 302)
    return len(queries.captured_queries)


def waiting_for_alice_since(alice, bob, *, hours: tuple[int, ...]) -> list[Match]:
    """Matches without a clock where it is Alice's turn again, since her last move ``hours`` ago each."""
    matches = [start_match(alice, bob) for _ in hours]
    now = timezone.now()
    for match, ago in zip(matches, hours, strict=True):
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
        services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
        Match.objects.filter(pk=match.pk).update(last_move_at=now - timedelta(hours=ago))
    return matches


# --- the staff admin ---

CHANGELIST = reverse("admin:games_match_changelist")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def matches(alice, bob, carol, staff):
    """One match in each state worth finding: alice-bob and carol-AI in play, carol's open
    challenge, and an aborted bob-carol match."""
    aborted = start_match(bob, carol)
    services.match_abort(match_id=aborted.pk, actor=staff, reason="Test")
    return {
        "alice_bob": start_match(alice, bob),
        "carol_ai": start_match(carol, ai_level=2),
        "open": services.match_create(
            creator=carol, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
        ),
        "aborted": aborted,
    }
