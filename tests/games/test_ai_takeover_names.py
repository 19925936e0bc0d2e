"""Who played a seat, named alike everywhere: the AI that took a seat over says whom it
replaces in the lobby and in My matches as on the match page, and Mecca's board names the
player who placed all their pilgrims as the result above it does."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from games.models import Match
from games.rules.mecca.rules import colours_of
from games.services import SeatSpec
from tests.games.conftest import start_timed_match
from tests.games.test_board_results import new_match, page_text, result_and_board


def test_the_mecca_board_names_the_player_who_placed_all_their_pilgrims(client, alice, bob, monkeypatch):
    match = new_match("mecca", alice, bob, seed=0, monkeypatch=monkeypatch)
    game = match.game_obj
    state = game.load(match.state)
    while game.view(state, None)["step"] == "entrance":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_moves(state, seat)[0])
    hand = list(state.hand)
    for colour in colours_of(1, 2):  # Bob's red and blue have one pilgrim left each
        hand[colour] = 1
    state, rng = replace(state, hand=tuple(hand)), random.Random(0)
    while True:
        seat = game.to_act(state)[0]
        move = rng.choice(game.legal_moves(state, seat))
        after = game.apply(state, seat, move)
        if game.is_over(after):
            break
        state = after
    Match.objects.filter(pk=match.pk).update(state=game.dump(state))
    services.move_submit(
        match_id=match.pk, move=move, expected_version=match.version, user=match.seats.get(number=seat).user
    )
    match.refresh_from_db()
    assert match.result["reason"] == "Bob placed all their pilgrims"

    result, board = result_and_board(client, match, alice)

    assert "Bob placed all their pilgrims" in result
    reason = page_text(re.search(r'<p class="mecca-reason">(.*?)</p>', board, re.S)[1])
    assert reason == "Bob (red and blue) placed all their pilgrims, so the round was completed."


def players_cell(client, user, page: str, match: Match) -> str:
    """The players of ``match`` in the list on ``page`` (the lobby, My matches), as ``user`` reads them."""
    client.force_login(user)
    html = client.get(reverse(page)).content.decode()
    row = html.split(f'href="{reverse("match_detail", args=[match.pk])}"')[1]
    return page_text(re.search(r'<td class="players">(.*?)</td>', row, re.S)[1])


def queries(client, page: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(reverse(page)).status_code == 200
    return len(captured.captured_queries)


def test_my_matches_names_whom_the_ai_replaces_as_the_match_page_does(client, alice, bob, carol, staff):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=match.pk, user=bob)

    assert players_cell(client, alice, "dashboard", match) == "Alice · AI (Strong) (replacing Bob) · Carol"
    assert players_cell(client, bob, "dashboard", match) == "Alice · AI (Strong) (replacing you) · Carol"


def test_the_lobby_names_whom_the_ai_replaces_on_an_invited_seat(client, alice, bob, carol, staff):
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username), SeatSpec("open")]
    match = services.match_create(creator=alice, game_slug="jeexa", options={}, seats=seats)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="")

    assert players_cell(client, carol, "lobby", match) == "Alice · AI (Easy) (replacing Bob) · Open seat"


def test_naming_whom_the_ai_replaces_costs_no_query_per_match(client, alice, bob, carol, staff):
    start_timed_match(alice, bob, carol, game="jeexa")
    services.match_create(
        creator=bob,
        game_slug="jeexa",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username=carol.username), SeatSpec("open")],
    )
    client.force_login(alice)
    before = {page: queries(client, page) for page in ("dashboard", "lobby")}
    for _ in range(3):
        match = start_timed_match(alice, bob, carol, game="jeexa")
        services.match_resign(match_id=match.pk, user=bob)
        services.seat_replace_by_ai(match_id=match.pk, seat_number=2, level=1, actor=staff, reason="")
        open_match = services.match_create(
            creator=bob,
            game_slug="jeexa",
            options={},
            seats=[SeatSpec("creator"), SeatSpec("user", username=carol.username), SeatSpec("open")],
        )
        services.seat_replace_by_ai(match_id=open_match.pk, seat_number=1, level=1, actor=staff, reason="")

    assert {page: queries(client, page) for page in ("dashboard", "lobby")} == before
