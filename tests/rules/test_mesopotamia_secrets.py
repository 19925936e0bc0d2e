"""Mesopotamia's secrecy guarantees: no view and no line of the move log shows another seat's
offering markers or cards, or the order of the stack; building a hut, picking up a marker and
drawing a card read the same whatever is hidden; every secret is revealed after the game."""

from __future__ import annotations

import json
import random

import pytest

from games.rules.mesopotamia import GAME
from games.rules.mesopotamia.state import CARDS, OFFERINGS, Hut, State, card_id, offering_id
from tests.rules.mesopotamia_positions import A, arrange, plains, play, player, site_state, start, turn, with_card

# --- secrets --------------------------------------------------------------------------------------


def hidden_of(state: State, seat: int) -> tuple[list[str], list[str]]:
    """(ids, card names) that only ``seat`` may see right now."""
    ids = GAME.secrets(state, seat)
    names = [CARDS[c] for c in state.players[seat].cards]
    return ids, names


PUBLIC_CARD_KEYS = ("discard", "out_of_game")


def strip_public_cards(view: dict, viewer: int | None) -> dict:
    """The view without the places where cards are shown face up to the viewer: played
    cards, the viewer's own hand and its own moves."""
    view = {k: v for k, v in view.items() if k not in (*PUBLIC_CARD_KEYS, "legal_moves")}
    view["turn"] = {k: v for k, v in view["turn"].items() if k != "pending"}  # a card being played
    if viewer is not None:
        view["players"] = [{k: v for k, v in p.items() if k != "hand"} for p in view["players"]]
    return view


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {"start_card": "yes"}), (4, {"discard": "remove"})])
def test_views_and_the_move_log_never_show_another_seats_secrets_or_the_stack(players, options):
    for seed in (11, 12):
        rng = random.Random(seed)
        state = GAME.initial_state(players, options, seed)
        while not GAME.is_over(state):
            seat = state.turn.seat
            move = rng.choice(GAME.legal_moves(state, seat)) if rng.random() < 0.7 else GAME.ai_move(state, seat, 2, 1)
            line = GAME.describe(state, seat, move)
            if move == "draw":
                assert not any(name.replace("-", " ") in line.lower() for name in CARDS), line
            views = {viewer: GAME.view(state, viewer) for viewer in [None, *range(players)]}
            stack_text = json.dumps(list(state.stack))
            for viewer, view in views.items():
                text = json.dumps(strip_public_cards(view, viewer))
                peeked_all = viewer is not None and state.known_top[viewer] >= len(state.stack)
                assert "stack_order" not in view and "deck_order" not in view
                assert len(state.stack) < 2 or peeked_all or stack_text not in text
                if viewer is None or not state.known_top[viewer]:
                    assert "peek" not in view
                for other in range(players):
                    if other == viewer:
                        continue
                    ids, names = hidden_of(state, other)
                    assert not any(i in text or i in line for i in ids), (viewer, other)
                    if other != viewer and viewer is not None:
                        assert "hand" not in view["players"][other] and "offerings" not in view["players"][other]
                    for card in names:
                        assert f'"{card}"' not in text
            state = GAME.apply(state, seat, move)
        assert GAME.secrets(state, 0) == []


def test_building_a_hut_reads_the_same_whatever_marker_goes_under_it():
    state = site_state("wood", "")
    lines = {GAME.describe(state, 0, f"hut -2,0 {v}") for v in OFFERINGS}
    assert len(lines) == 1 and "hidden offering" in lines.pop()
    after = play(state, "hut -2,0 6")
    other = json.dumps(GAME.view(after, 1))
    assert offering_id(0, 6) not in other
    assert GAME.view(after, 1)["tiles"][-1]["huts"] == [{"owner": 0, "colour": "blue", "offering": True}]
    assert GAME.view(after, 0)["tiles"][-1]["huts"][0]["value"] == 6


def test_picking_up_a_marker_and_drawing_a_card_read_the_same_for_every_value():
    state = turn(arrange(start(), tiles=(plains(-1, 0, huts=(Hut(0, 6), Hut(0, 2))),)))
    assert GAME.describe(state, 0, "carry b1 offering 6") == GAME.describe(state, 0, "carry b1 offering 2")
    draws = {GAME.describe(turn(arrange(start(), deck=(c, 0)), phase="action"), 0, "draw") for c in range(18)}
    assert draws == {"Blue draws a card."}


def test_a_carried_marker_shows_only_to_its_owner():
    state = arrange(start(), {"b1": (A, "offering", 7)})
    assert GAME.view(state, 0)["tribes"][0]["value"] == 7
    assert "value" not in GAME.view(state, 1)["tribes"][0]
    assert GAME.view(state, 1)["tribes"][0]["load"] == "offering"


def test_cards_in_hand_show_only_to_their_holder_until_the_end():
    state = with_card("teleport")
    assert GAME.view(state, 0)["players"][0]["hand"][0]["name"] == "teleport"
    assert card_id(state.players[0].cards[0]) not in json.dumps(GAME.view(state, 1))
    assert GAME.view(state, 1)["players"][0]["cards"] == 1


def test_after_the_game_every_secret_is_revealed():
    state = player(turn(arrange(start(), {"b1": (A, "offering", 7)})), 0, mana=7, hand=(), delivered=(2, 4, 6))
    state = player(state, 1, cards=(3,))
    state = arrange(state, tiles=(plains(-2, 0, huts=(Hut(1, 6),)),))
    over = play(state, "move b1 se")
    view = json.dumps(GAME.view(over, 2))
    assert offering_id(1, 6) in view and card_id(3) in view
    assert GAME.view(over, 2)["stack_order"] == list(over.stack)
    assert GAME.view(over, 2)["deck_order"] == [CARDS[c] for c in over.deck] and over.deck
