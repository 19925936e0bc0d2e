"""Mesopotamia's cards, each by its effect and its line in the log (Endurance, Priest,
Fertility, Holy Stone, Land, Mana Theft, Teleport, Expulsion), several in one turn, and the
variants that take played cards out of the game or deal one card each at the start. Rules from
docs/rules/mesopotamia.md (the rule summary and the decisions table)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.template.loader import render_to_string

from games.boards.mesopotamia import present
from games.engine import IllegalMove
from games.rules.mesopotamia import GAME, refusals, rules
from games.rules.mesopotamia.state import CARDS, Hut, Tribe
from tests.rules.mesopotamia_positions import (
    FOREST,
    QUARRY,
    TEMPLE,
    A,
    B,
    arrange,
    legal,
    plains,
    play,
    player,
    start,
    tile_at,
    tribe,
    turn,
    with_card,
)

# --- each card -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "move", "line"),
    [
        ("endurance", "play endurance", "Blue plays Endurance for 3 more movement points."),
        ("fertility", "play fertility", "Blue plays Fertility: the next population growth brings two tribes."),
        ("mana-theft", "play mana-theft y", "Blue plays Mana Theft and takes 1 mana from Yellow."),
        ("teleport", "play teleport b1", "Blue plays Teleport on b1 at -1,0."),
    ],
)
def test_a_card_and_its_effect_make_one_sentence_in_the_log(card, move, line):
    state = player(with_card(card), 1, mana=2)
    assert GAME.describe(state, 0, move) == line


def test_card_endurance_gives_three_more_movement_points():
    state = play(with_card("endurance"), "play endurance")
    assert state.turn.mp == 5 + 3 and state.players[0].cards == ()
    assert len(state.discard) == 1


def test_several_cards_may_be_played_in_one_turn_and_the_points_shared_between_tribes():
    """The text: "You may play any number of cards during your turn", and the movement points
    "may be divided between your tribes as desired"."""
    endurances = tuple(i for i, name in enumerate(CARDS) if name == "endurance")[:2]
    base = start()
    base = replace(base, deck=tuple(c for c in base.deck if c not in endurances))
    state = turn(player(base, 0, cards=endurances))
    state = play(state, "play endurance", "play endurance")
    assert state.turn.mp == 5 + 3 + 3 and state.players[0].cards == () and len(state.discard) == 2
    state = play(state, "move b1 se", "move b2 se", "move b2 se")
    assert (tribe(state, "b1").pos, tribe(state, "b2").pos) == (TEMPLE, QUARRY) and state.turn.mp == 8


def test_card_priest_adds_one_mana_from_a_holy_place():
    base = arrange(start(), {"b4": ((-2, 0),)}, tiles=(plains(-2, 0, holy=0),))
    state = player(play(with_card("priest", base), "play priest"), 0, max_mana=8)
    assert rules.mana_gain(state, 0) == 2
    assert play(state, "end", "end").players[0].mana == 2


def test_card_fertility_makes_the_next_growth_bring_two_tribes():
    state = play(with_card("fertility", phase="action"), "play fertility", "grow -1,0")
    assert tribe(state, "b4").pos == A and tribe(state, "b5").pos == A


def test_card_holy_stone_counts_as_a_stone_delivered():
    state = play(with_card("holy-stone"), "play holy-stone")
    assert (state.players[0].mana, state.players[0].max_mana) == (1, 4)


def test_card_land_shows_the_top_three_tiles_only_to_its_player():
    state = play(with_card("land", arrange(start(), stack=("forest", "volcano", "plains", "quarry"))), "play land")
    assert GAME.view(state, 0)["peek"] == ["forest", "volcano", "plains"]
    assert "peek" not in GAME.view(state, 1) and "peek" not in GAME.view(state, None)
    state = play(state, "discover b1 nw")
    assert GAME.view(state, 0)["peek"] == ["volcano", "plains"]


def test_card_mana_theft_takes_one_mana_from_a_chosen_player():
    state = player(with_card("mana-theft"), 1, mana=2)
    assert [m for m in legal(state) if m.startswith("play")] == ["play mana-theft y"]
    state = play(state, "play mana-theft y")
    assert state.players[1].mana == 1 and state.players[0].mana == 1


def test_card_teleport_moves_any_tribe_with_its_load_but_not_onto_a_volcano():
    state = arrange(with_card("teleport"), {"y1": (B, "stone")})
    state = play(state, "play teleport y1")
    assert state.turn.phase == "target"
    assert "to 0,1" not in legal(state) and "to -1,1" not in legal(state)
    state = play(state, "to 1,-1")
    assert tribe(state, "y1") == Tribe(FOREST, "stone") and state.turn.phase == "move"


def test_the_boards_teleport_hint_does_not_promise_a_volcano():
    """The text: "A tribe may never move onto a volcano tile"; the spec: Teleport sends a tribe
    "to any tile but a volcano". The card's hint on the board says so, not "any tile"."""
    state = with_card("teleport")
    board = present(GAME.view(state, 0), 0, legal(state))
    hint = "move any tribe, with its load, to another tile (not a volcano)"
    assert [card["help"] for card in board["my_cards"]] == [hint]


def test_card_teleport_into_the_temple_delivers_the_load_for_its_owner():
    """The spec: Teleport moves a tribe "with its load to any tile but a volcano". In the
    temple the load is delivered as if the tribe had walked in; wood never enters."""
    state = player(arrange(with_card("teleport"), {"y1": (B, "stone")}), 1, mana=1, max_mana=3)
    state = play(state, "play teleport y1")
    assert GAME.describe(state, 0, "to 0,0").endswith("for Yellow: Yellow's mana 2 of 4.")
    state = play(state, "to 0,0")
    assert state.players[1].max_mana == 4 and state.players[1].mana == 2, "yellow's temple stone, not blue's"
    assert tribe(state, "y1") == Tribe(TEMPLE, "") and state.turn.phase == "move"

    offering = player(arrange(with_card("teleport"), {"b1": (FOREST, "offering", 4)}), 0, mana=4, hand=(2, 6, 7))
    delivered = play(offering, "play teleport b1", "to 0,0")
    assert delivered.players[0].delivered == (4,) and delivered.players[0].mana == 0
    assert tribe(delivered, "b1") == Tribe(None), "the carrier goes back to the supply"

    short = play(player(offering, 0, mana=3), "play teleport b1")
    assert "to 0,0" not in legal(short)
    assert GAME.explain_illegal(short, 0, "to 0,0") == refusals.MANA_SHORT.format(value=4, mana=3)
    # A rival's offering never goes in: whether Yellow could pay would tell its hidden value.
    for value, mana in ((2, 7), (7, 0)):
        rival = player(arrange(with_card("teleport"), {"y1": (B, "offering", value)}), 1, mana=mana)
        rival = play(rival, "play teleport y1")
        assert "to 0,0" not in legal(rival)
        refusal = GAME.explain_illegal(rival, 0, "to 0,0")
        assert refusal == refusals.RIVAL_OFFERING and str(value) not in refusal
    wood = play(arrange(with_card("teleport"), {"y1": (B, "wood")}), "play teleport y1")
    assert "to 0,0" not in legal(wood)
    with pytest.raises(IllegalMove, match="No wood may be carried into the temple"):
        play(wood, "to 0,0")


def test_card_expulsion_moves_a_hut_with_its_marker_to_plains_with_room():
    huts = (
        plains(-1, 0, huts=(Hut(0), Hut(2, 7))),
        plains(-2, 0),
        plains(-3, 1, holy=1),
        plains(-2, 1, huts=(Hut(1),)),
    )
    state = arrange(with_card("expulsion"), tiles=huts)
    state = play(state, "play expulsion -1,0 2")
    # Not B (two huts already), not a holy place, not where it stands.
    assert legal(state) == ["to -2,0", "to -2,1"]
    state = play(state, "to -2,0")
    assert tile_at(state, (-2, 0)).huts == (Hut(2, 7),) and tile_at(state, A).huts == (Hut(0),)
    assert state.turn.phase == "move"


def test_a_card_target_with_a_single_choice_is_not_asked():
    state = arrange(with_card("expulsion"), tiles=(plains(-2, 0),))
    state = play(state, "play expulsion -1,0 2")
    assert tile_at(state, (-2, 0)).huts == (Hut(2),) and state.turn.phase == "move"


def test_played_cards_leave_the_game_in_the_remove_variant():
    state = play(with_card("endurance", start(discard="remove")), "play endurance")
    assert state.discard == () and state.gone == (CARDS.index("endurance"),)
    assert GAME.conserved(state)["cards"] == 18
    for seat in (0, 1, None):  # played face up: everyone may see which cards left the game
        html = " ".join(
            render_to_string(
                "games/boards/mesopotamia.html",
                {"view": GAME.view(state, seat), "board": present(GAME.view(state, seat), seat, []), "match": None},
            ).split()
        )
        assert "discard 0 · out of the game 1 (Endurance) ·" in html
        assert "18 cards" not in html, "three players: cards were set aside"
    two = start(2)
    html = " ".join(
        render_to_string(
            "games/boards/mesopotamia.html",
            {"view": GAME.view(two, 0), "board": present(GAME.view(two, 0), 0, []), "match": None},
        ).split()
    )
    assert "A two-player game starts with all 18 cards (none set aside)." in html, "not 'all 18 are in play'"


def test_the_start_card_variant_deals_one_card_each_playable_at_once():
    state = start(4, start_card="yes")
    assert [len(p.cards) for p in state.players] == [1, 1, 1, 1] and len(state.deck) == 14
    assert state.players[0].cards[0] not in state.turn.fresh
    assert rules.playable_cards(state, 0)
