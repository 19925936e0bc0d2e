"""What the pages players keep open cost in SQL queries, pinned: a move through the whole site, the
match page, its "nothing changed" poll, My matches and the lobby. The same after 1 move as after
200, and for a player with 1 match as with 1,000. Counted without the test's savepoints
(SAVEPOINT, RELEASE), which outside a test are the transaction's BEGIN and COMMIT."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.engine import get_game
from games.models import Match, Seat
from notifications.models import Notification
from tests.conftest import start_match
from tests.games.conftest import HTMX, play_moves

pytestmark = pytest.mark.django_db

MANCALA = get_game("mancala")
# Session, user; the match locked with its seats (and the lock's time limits set), the record, the
# seats, the "your turn" notice (2: the lines since the player's last move with the notices waiting,
# the row), the match; then the page drawn from the match and seats the move read: the log, the
# next match waiting with the top bar's count. The messages stay as the page shows them.
MOVE = 10
# Session, user, the match (and whether the presence is due: not here), its seats, the log,
# messages, the top bar's count.
PAGE = 7
POLL = 2  # session, match: the user is not read (games.selectors.player_poll)
MY_MATCHES = 8
LOBBY = 5


def queries(client, method: str, url: str, data: dict | None = None, **headers) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url, data or {}, **HTMX, **headers)
    assert response.status_code in (200, 204), response.content[:300]
    return sum(not query["sql"].startswith(("SAVEPOINT", "RELEASE")) for query in captured.captured_queries)


def costs(client, match: Match, mover) -> dict[str, int]:
    """Each page's count, the match page opened once before (its presence written then), then
    the mover's move to the other player, who hears of it (no email waits)."""
    page = reverse("match_detail", args=[match.pk])
    client.force_login(mover)
    client.get(page)
    match.refresh_from_db()
    counted = {
        "page": queries(client, "get", page),
        "poll": queries(client, "get", reverse("match_poll", args=[match.pk]) + f"?token={match.poll_token}"),
        "my matches": queries(client, "get", reverse("dashboard")),
        "lobby": queries(client, "get", reverse("lobby")),
    }
    Notification.objects.update(sent_at=timezone.now())
    state = MANCALA.load(match.state)
    seat = MANCALA.to_act(state)[0]
    passing = [m for m in MANCALA.legal_moves(state, seat) if MANCALA.to_act(MANCALA.apply(state, seat, m)) != (seat,)]
    data = {"move": passing[0], "version": match.version}
    # As site.js sends it: the messages the page shows are kept (games.views.match._parts_unchanged).
    kept = {"HTTP_X_LIVE_REVISION": str(match.revision)}
    counted["move"] = queries(client, "post", reverse("match_move", args=[match.pk]), data, **kept)
    counted["page, their turn"] = queries(client, "get", page)  # the next match waiting comes with the count
    return counted


BUDGET = {"page": PAGE, "poll": POLL, "my matches": MY_MATCHES, "lobby": LOBBY, "move": MOVE, "page, their turn": PAGE}


def test_the_counts_after_one_move_and_after_200(client, alice, bob):
    short, long = start_match(alice, bob, variant="ethiopian"), start_match(alice, bob, variant="ethiopian")
    users = {0: alice, 1: bob}
    play_moves(short, users, 1)
    play_moves(long, users, 200, slowly=True)
    for match in (short, long):
        match.refresh_from_db()
        mover = users[MANCALA.to_act(MANCALA.load(match.state))[0]]
        assert costs(client, match, mover) == BUDGET, match.version


def test_the_counts_with_one_match_and_with_1000(client, alice, bob):
    first = start_match(alice, bob)
    assert costs(client, first, alice) == BUDGET
    # 999 more in play with Bob, each waiting for Alice (copies of one just started).
    fresh = start_match(alice, bob)
    copies = Match.objects.bulk_create(
        Match(**{f.attname: getattr(fresh, f.attname) for f in Match._meta.concrete_fields if not f.primary_key})
        for _ in range(999)
    )
    Seat.objects.bulk_create(
        Seat(match=copy, number=seat.number, user_id=seat.user_id, to_act=seat.to_act)
        for copy in copies
        for seat in fresh.seats.all()
    )
    assert costs(client, fresh, alice) == BUDGET
