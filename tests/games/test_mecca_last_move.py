"""The Mecca board marks what the last move changed: the square of each pilgrim placed (an
entrance taken too), the pilgrim removed and those that went back with it, in the order they
happened, each square with its latest change; several moves (a turn's placements, or everything
since the viewer's own move) as one. The page puts ``data-last-move`` on each such square, and
the board as a picture (the home page) is a drawing: no form, no button, no id."""

from __future__ import annotations

import random

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from games.boards import LastMove, board_context
from games.boards.mecca import LAST_ORDER_CAP, PLACED, REMOVED, RETURNED, _changes
from games.engine import get_game
from games.models import Match
from games.services import ClockSpec
from tests.conftest import make_user
from tests.games.conftest import play_random_moves, start_timed_match
from tests.games.test_mancala_board import Node, Tree
from tests.games.test_mecca_board import cells, placing_state

MECCA = get_game("mecca")


def marks_of(state, *played: tuple[int, str], seat: int | None = 0) -> dict[str, tuple[str, int, str]]:
    """Square -> (what happened, its place in the order, the pilgrim's colour)."""
    changed, span = _changes(LastMove(MECCA.view(state, seat), played))
    assert span == len(played)
    return {name: (mark["kind"], mark["order"], mark["colour"]) for name, mark in changed.items()}


def play(state, *moves: str) -> tuple[object, list[tuple[int, str]]]:
    played = []
    for move in moves:
        seat = MECCA.to_act(state)[0]
        played.append((seat, move))
        state = MECCA.apply(state, seat, move)
    return state, played


def present(before, played, seat: int | None = 0) -> dict:
    after = before
    for mover, move in played:
        after = MECCA.apply(after, mover, move)
    legal = MECCA.legal_moves(after, seat) if seat is not None and MECCA.to_act(after) == (seat,) else []
    return board_context(
        "mecca", MECCA.view(after, seat), seat, legal, LastMove(MECCA.view(before, seat), tuple(played))
    )


def a_removal_with_returns():
    """A position whose colour to act may remove a pilgrim that leaves another one alone, and that
    removal: the removed pilgrim and every isolated one go back."""
    for seed in range(60):
        rng = random.Random(seed)
        state = MECCA.initial_state(4, {}, seed)
        while not MECCA.is_over(state):
            seat = MECCA.to_act(state)[0]
            for move in MECCA.legal_moves(state, seat):
                if move.startswith("x"):
                    after = MECCA.apply(state, seat, move)
                    if after.last_removal and after.last_removal.returned:
                        return state, move
            state = MECCA.apply(state, seat, rng.choice(MECCA.legal_moves(state, seat)))
    raise AssertionError("no removal left a pilgrim alone in 60 seeded games")


def test_an_entrance_taken_is_marked_as_a_pilgrim_placed():
    state = MECCA.initial_state(4, {}, 1)
    entrance = MECCA.legal_moves(state, 0)[0]
    assert marks_of(state, (0, entrance)) == {entrance: (PLACED, 0, "yellow")}


def test_a_turns_placements_are_marked_in_the_order_they_were_made():
    state = placing_state()
    colour = MECCA.view(state, None)["colour_to_act"]
    first = MECCA.legal_moves(state, MECCA.to_act(state)[0])[0]
    middle, _ = play(state, first)
    moves = [first]
    if MECCA.to_act(middle) == MECCA.to_act(state) and MECCA.view(middle, None)["step"] == "place":
        moves.append(MECCA.legal_moves(middle, MECCA.to_act(middle)[0])[0])
    _, played = play(state, *moves)
    assert marks_of(state, *played) == {move: (PLACED, order, colour) for order, move in enumerate(moves)}
    board = present(state, played, seat=played[0][0])
    square = cells(board)[first]
    assert square["pilgrim"]["colour"] == colour and square["last"]["kind"] == PLACED
    when = "in the last move" if len(moves) == 1 else f"in the last {len(moves)} moves"
    assert f"{colour} pilgrim, placed {when}" in square["label"]
    assert board["last_span"] == when


def test_a_removal_marks_the_pilgrim_removed_then_those_gone_back_each_as_a_ghost_of_its_colour():
    state, move = a_removal_with_returns()
    seat = MECCA.to_act(state)[0]
    removal = MECCA.apply(state, seat, move).last_removal
    view = MECCA.view(MECCA.apply(state, seat, move), None)["last_removal"]
    expected = {view["square"]: (REMOVED, 0, view["colour"])}
    expected |= {name: (RETURNED, order, colour) for order, (name, colour) in enumerate(view["returned"], start=1)}
    assert marks_of(state, (seat, move)) == expected
    assert len(removal.returned) >= 1
    squares = cells(present(state, [(seat, move)], seat=None))
    for name, (kind, _, colour) in expected.items():
        assert not squares[name]["pilgrim"] and squares[name]["returned"]["colour"] == colour, name
        words = "removed" if kind == REMOVED else "gone back to its owner"
        assert f"its {colour} pilgrim {words} in the last move" in squares[name]["label"], name


@pytest.mark.parametrize("seed", [2, 9])
def test_every_square_a_random_game_changed_is_marked_with_its_latest_change(seed):
    rng = random.Random(seed)
    state = MECCA.initial_state(5, {}, seed)
    while not MECCA.is_over(state):
        before, played = state, []
        for _ in range(rng.choice((1, 3, 6))):  # one move, a turn, or all since the viewer's own
            if MECCA.is_over(state):
                break
            seat = MECCA.to_act(state)[0]
            move = rng.choice(MECCA.legal_moves(state, seat))
            played.append((seat, move))
            state = MECCA.apply(state, seat, move)
        marks = marks_of(before, *played)
        was, now = MECCA.view(before, None)["board"], MECCA.view(state, None)["board"]
        assert {name for name in was.keys() | now.keys() if was.get(name) != now.get(name)} <= set(marks)
        for name, (kind, _, colour) in marks.items():
            if kind == PLACED:
                assert now.get(name) == colour, (name, played)
            else:
                assert name not in now, (name, played)
        orders = sorted(order for _, order, _ in marks.values())
        assert len(set(orders)) == len(orders) or orders[-1] == LAST_ORDER_CAP


def test_no_last_move_marks_nothing():
    board = present(placing_state(), [])
    assert not any(cell["last"] for cell in cells(board).values()) and board["last_span"] == ""
    board = board_context("mecca", MECCA.view(placing_state(), 0), 0, [])
    assert not any(cell["last"] for cell in cells(board).values())


def elements(html: str) -> list[Node]:
    return Tree(html).root.find_all(lambda node: node.tag != "document")


@pytest.mark.django_db
def test_the_board_puts_data_last_move_and_the_order_on_each_changed_square(alice, bob, carol):
    match = start_timed_match(alice, bob, carol, make_user("dave"), clock=ClockSpec(), game="mecca")
    state, move = a_removal_with_returns()
    seat = MECCA.to_act(state)[0]
    board = present(state, [(seat, move)], seat=None)
    html = render_to_string("games/boards/mecca.html", {"match": match, "board": board, "names": {}, "seats": []})
    marked = {
        node.attrs["data-testid"].removeprefix("square-"): (node.attrs["data-last-move"], int(node.attrs["data-order"]))
        for node in elements(html)
        if "data-last-move" in node.attrs
    }
    expected = marks_of(state, (seat, move), seat=None)
    assert marked == {name: (kind, order) for name, (kind, order, _) in expected.items()}
    assert "ringed: what changed in the last move" in html
    assert "style=" not in html, "our CSP forbids inline styles: the order is an attribute"


@pytest.mark.django_db
def test_the_match_page_marks_the_latest_removal_for_every_player(client, alice, bob, carol):
    dave = make_user("dave")
    users = [alice, bob, carol, dave]
    match = start_timed_match(alice, bob, carol, dave, clock=ClockSpec(), game="mecca")

    def removed_last() -> bool:
        latest = match.moves.order_by("-ply").first()
        return bool(latest and latest.notation.startswith("x"))

    assert not play_random_moves(match, users, random.Random(4), until=removed_last), "a removal before the end"
    removal = MECCA.view(MECCA.load(Match.objects.get(pk=match.pk).state), None)["last_removal"]
    for user in users:
        client.force_login(user)
        page = Tree(client.get(reverse("match_detail", args=[match.pk])).content.decode()).root
        square = page.find(lambda node, name=removal["square"]: node.attrs.get("data-testid") == f"square-{name}")
        assert square.attrs.get("data-last-move") == REMOVED, user


def test_the_board_as_a_picture_draws_no_form_button_link_id_or_test_id():
    state, move = a_removal_with_returns()
    seat = MECCA.to_act(state)[0]
    board = present(state, [(seat, move)], seat=None)
    html = render_to_string("games/boards/mecca.html", {"picture": True, "board": board, "names": {}, "seats": []})
    nodes = elements(html)
    assert not [node.tag for node in nodes if node.tag in ("form", "button", "a", "input")]
    assert not [node.attrs for node in nodes if {"id", "data-testid", "name"} & set(node.attrs)]
    (picture,) = [node for node in nodes if node.attrs.get("role") == "img"]
    assert picture.attrs["aria-label"].startswith("A Mecca board")
    assert len(picture.find_all(lambda node: node.has_class("mecca-cell"))) == 121
    assert not picture.find_all(lambda node: node.has_class("may-place") or node.has_class("may-remove"))
