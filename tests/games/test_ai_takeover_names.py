"""Who played a seat, named alike everywhere: the AI that took a seat over says whom it
replaces in the lobby and in My matches as on the match page, and Mecca's board names the
player who placed all their pilgrims as the result above it does."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from games import services
from games.models import Match
from games.rules.mecca.rules import colours_of
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
    services.move_submit(match_id=match.pk, move=move, expected_version=match.version,
                         user=match.seats.get(number=seat).user)
    match.refresh_from_db()
    assert match.result["reason"] == "Bob placed all their pilgrims"

    result, board = result_and_board(client, match, alice)

    assert "Bob placed all their pilgrims" in result
    reason = page_text(re.search(r'<p class="mecca-reason">(.*?)</p>', board, re.S)[1])
    assert reason == "Bob (red and blue) placed all their pilgrims, so the round was completed."
