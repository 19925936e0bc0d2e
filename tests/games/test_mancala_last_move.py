"""The Mancala board marks what the last move changed: the tile sown from, every hole a coin
was dropped in, in sowing order, both mancalas where they gained, the tiles a capture or a
bank emptied and those swept at the end; several moves (Kalah's extra turn, or everything since
the viewer's own move) as one union, ordered move after move. And the board as a picture (the
home page) is a drawing: no form, no button, no link, no id."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from django.template.loader import render_to_string

from games.boards import LastMove, board_context
from games.boards.mancala import FROM, GAINED, SOWN, SWEPT, TAKEN, _changes
from games.engine import get_game
from games.rules.mancala.rules import HOLES, STORE, VARIANTS, hole
from tests.conftest import start_match
from tests.games.test_mancala_board import Node, Tree

MANCALA = get_game("mancala")


def position(variant: str, tiles, mancalas, to_move: int = 0):
    state = MANCALA.initial_state(2, {"variant": variant}, 1)
    return replace(
        state, tiles=(tuple(tiles[0]), tuple(tiles[1])), mancalas=tuple(mancalas), to_move=to_move, over=False
    )


def marks_of(state, *played: tuple[int, str], seat: int = 0) -> dict[int, tuple[str, int]]:
    """Ring hole -> (how it changed, its place in the order), as the board is told the moves."""
    changed, span = _changes(LastMove(MANCALA.view(state, seat), played))
    assert span == len(played)
    return {h: (mark["kind"], mark["order"]) for h, mark in changed.items()}


def present(state, played, seat: int = 0) -> dict:
    after = state
    for mover, move in played:
        after = MANCALA.apply(after, mover, move)
    last = LastMove(MANCALA.view(state, seat), tuple(played))
    return board_context("mancala", MANCALA.view(after, seat), seat, MANCALA.legal_moves(after, seat), last)


def test_a_capture_marks_the_sowing_then_the_mancala_and_both_tiles_it_emptied():
    # Tile 1's one coin lands in empty tile 2, across from the other player's tile 5 (4 coins).
    state = position("egyptian", [[1, 0, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4]], [0, 0])
    assert marks_of(state, (0, "1")) == {
        hole(0, 0): (FROM, 0),
        hole(0, 1): (TAKEN, 1),  # sown into, then captured: the capture is what it shows
        STORE[0]: (SOWN, 2),
        hole(1, 4): (TAKEN, 3),
    }
    board = present(state, [(0, "1")])
    assert board["bottom"][1]["last"]["said"] == "Captured in the last move."
    assert board["top"][1]["last"]["kind"] == TAKEN and board["top"][1]["number"] == 5
    assert board["my_store_last"]["kind"] == GAINED and board["my_store_last"]["delta"] == "+5"
    assert board["their_store_last"] is None


def test_a_sowing_that_laps_the_board_marks_every_hole_once_in_order_and_keeps_its_start():
    state = position("egyptian", [[14, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]], [0, 0])
    marks = marks_of(state, (0, "1"))
    assert STORE[1] not in marks, "the other player's mancala is skipped"
    assert sorted(marks) == [h for h in range(HOLES) if h != STORE[1]]
    assert marks[hole(0, 0)] == (FROM, 0), "its own coin back on the lap does not hide where it started"
    # Hole after hole, counterclockwise from the start: the order the coins went in.
    assert [marks[h][1] for h in range(1, 13)] == list(range(1, 13))
    board = present(state, [(0, "1")])
    assert board["bottom"][0]["last"]["delta"] == "−13"  # 14 picked up, 1 back on the lap
    assert board["bottom"][1]["last"]["delta"] == "+2"


def test_kalahs_extra_turn_marks_both_moves_the_second_after_the_first():
    state = MANCALA.initial_state(2, {"variant": "kalah"}, 1)
    first = MANCALA.apply(state, 0, "3")
    assert MANCALA.to_act(first) == (0,), "the last coin reached the mancala: another move"
    marks = marks_of(state, (0, "3"), (0, "1"))
    assert marks == {
        hole(0, 2): (FROM, 0),  # sown into again by the second move: still where the first started
        hole(0, 3): (SOWN, 1),
        hole(0, 4): (SOWN, 2),
        hole(0, 5): (SOWN, 3),
        STORE[0]: (SOWN, 4),
        hole(0, 0): (FROM, 5),
        hole(0, 1): (SOWN, 6),
    }
    board = present(state, [(0, "3"), (0, "1")], seat=1)
    assert board["last_span"] == "in the last 2 moves"
    # Seen by the other player, whose row is the bottom one: the mover's row on top, right to left.
    assert [tile["last"]["order"] if tile["last"] else None for tile in board["top"]] == [3, 2, 1, 0, 6, 5]


def test_a_nigerian_bank_and_relay_are_marked():
    # Tile 1's coin makes tile 2's four: its owner banks it. Then tile 3's two coins end on tile 5, which
    # already had two: the sowing carries on from there.
    banked = position("nigerian", [[1, 3, 2, 0, 2, 4], [1, 1, 1, 1, 1, 1]], [0, 0])
    assert marks_of(banked, (0, "1")) == {hole(0, 0): (FROM, 0), hole(0, 1): (TAKEN, 1), STORE[0]: (SOWN, 2)}
    assert present(banked, [(0, "1")])["bottom"][1]["last"]["said"] == "Banked by the 4-coin rule in the last move."
    relay = position("nigerian", [[0, 0, 2, 0, 1, 0], [1, 1, 1, 1, 1, 1]], [0, 0])
    marks = marks_of(relay, (0, "3"))
    assert marks[hole(0, 2)] == (FROM, 0) and marks[hole(0, 4)][0] == FROM, "picked up again: the relay"
    assert marks[hole(0, 5)] == (SOWN, 3)


def test_the_end_of_the_game_marks_the_tiles_swept_into_the_mancalas():
    state = position("egyptian", [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 3]], [23, 21])
    assert marks_of(state, (0, "6")) == {
        hole(0, 5): (FROM, 0),
        STORE[0]: (SOWN, 1),
        hole(1, 5): (SWEPT, 2),
        STORE[1]: (SWEPT, 3),
    }
    board = present(state, [(0, "6")])
    assert board["top"][0]["last"]["said"] == "Banked by its owner as the game ended."
    assert board["their_store_last"]["delta"] == "+3"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_change_of_a_random_game_is_marked_and_nothing_else(variant):
    rng = random.Random(variant)
    state = MANCALA.initial_state(2, {"variant": variant}, 3)
    while not MANCALA.is_over(state):
        before = state
        played = []
        for _ in range(rng.choice((1, 2, 3))):  # a move, or all the moves since the viewer's own
            if MANCALA.is_over(state):
                break
            seat = MANCALA.to_act(state)[0]
            move = rng.choice(MANCALA.legal_moves(state, seat))
            played.append((seat, move))
            state = MANCALA.apply(state, seat, move)
        marks = marks_of(before, *played)
        changed = {h for h in range(HOLES) if before.board[h] != state.board[h]}
        assert changed <= set(marks), (before, played)
        assert sorted(order for _, order in marks.values()) == list(range(len(marks)))


def test_no_last_move_marks_nothing():
    state = MANCALA.initial_state(2, {"variant": "egyptian"}, 1)
    board = board_context("mancala", MANCALA.view(state, 0), 0, MANCALA.legal_moves(state, 0))
    assert not any(tile["last"] for tile in board["top"] + board["bottom"])
    assert board["last_span"] == ""


def elements(html: str) -> list[Node]:
    return Tree(html).root.find_all(lambda node: node.tag != "document")


@pytest.mark.django_db
def test_the_board_puts_data_last_move_and_the_order_on_each_changed_tile_and_mancala(alice, bob):
    match = start_match(alice, bob)
    state = position("egyptian", [[1, 0, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4]], [0, 0])
    board = present(state, [(0, "1")], seat=1)
    html = render_to_string(
        "games/boards/mancala.html", {"match": match, "board": board, "names": ["Alice", "Bob"], "seats": []}
    )
    marked = [node for node in elements(html) if "data-last-move" in node.attrs]
    # Bob's view: his own tile 5 (a capture took it) and Alice's row and mancala.
    where = {
        node.attrs.get("data-testid") or node.attrs["class"]: (node.attrs["data-last-move"], node.attrs["data-order"])
        for node in marked
    }
    assert where == {
        "tile-0-1": ("from", "0"),
        "tile-0-2": ("taken", "1"),
        "store store-left": ("gained", "2"),
        "tile-1-5": ("taken", "3"),
    }
    tile = next(node for node in marked if node.attrs.get("data-testid") == "tile-1-5")
    assert "Tile 5 of player 2: 0 coins. Captured in the last move." in tile.text
    assert "style" not in html, "our CSP forbids inline styles: the order is an attribute"


@pytest.mark.django_db
def test_the_whole_tile_is_the_button_and_an_ethiopian_tile_opens_its_two_ways(alice, bob):
    for variant in ("egyptian", "ethiopian"):
        match = start_match(alice, bob, variant=variant)
        state = MANCALA.load(match.state)
        board = board_context("mancala", MANCALA.view(state, 0), 0, MANCALA.legal_moves(state, 0))
        html = render_to_string(
            "games/boards/mancala.html", {"match": match, "board": board, "names": ["Alice", "Bob"], "seats": []}
        )
        tiles = Tree(html).root.find_all(lambda node: node.attrs.get("data-testid", "").startswith("tile-0-"))
        for tile in tiles:
            pit = tile.find(lambda node: node.has_class("pit"))
            assert pit.tag == "button" and pit.has_class("sow"), "the pit itself, coins, count and number"
            assert pit.find_all(lambda node: node.has_class("well")) and not pit.find_all(
                lambda node, pit=pit: node.tag == "button" and node is not pit
            ), "no button inside the pit"
            if variant == "egyptian":
                assert pit.attrs["name"] == "move" and pit.attrs["value"] == tile.attrs["data-testid"][-1]
                continue
            ways = tile.find(lambda node: "popover" in node.attrs)
            assert pit.attrs["popovertarget"] == ways.attrs["id"] and pit.attrs["type"] == "button"
            assert pit.attrs["aria-label"].endswith(": choose the way")
            arrows = ways.find_all(lambda node: node.tag == "button")
            assert [(button.text, button.attrs["aria-label"].split(") ", 1)[1]) for button in arrows] == [
                ("◀", "clockwise (to your left)"),
                ("▶", "counterclockwise (to your right)"),
            ]


def test_the_board_as_a_picture_draws_no_form_button_link_id_or_test_id():
    state = MANCALA.initial_state(2, {"variant": "kalah"}, 1)
    for seat, move in ((0, "3"), (0, "1"), (1, "2")):
        state = MANCALA.apply(state, seat, move)
    view = MANCALA.view(state, None)
    html = render_to_string(
        "games/boards/mancala.html",
        {
            "picture": True,
            "board": board_context("mancala", view, None, []),
            "view": view,
            "names": ["A", "B"],
            "seats": [],
        },
    )
    nodes = elements(html)
    assert not [node.tag for node in nodes if node.tag in ("form", "button", "a", "input")]
    assert not [node.attrs for node in nodes if {"id", "data-testid", "popovertarget", "name"} & set(node.attrs)]
    (board,) = [node for node in nodes if node.attrs.get("role") == "img"]
    assert board.has_class("mancala") and board.attrs["aria-label"].startswith("A Mancala board")
    assert len(board.find_all(lambda node: node.has_class("pit"))) == 12
    assert len(board.find_all(lambda node: node.has_class("store"))) == 2
