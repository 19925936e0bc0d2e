"""What the Jeexa board tells a player: a finished hand outlines the pieces each player scored, so
the score can be checked by eye, and a spot's label names what its placement really makes."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from games.boards.jeexa import present
from games.engine import get_game
from tests.games.test_jeexa_last_move import random_game, render
from tests.html_check import html_problems
from tests.rules.test_jeexa import COLUMN, PAIR, position

GAME = get_game("jeexa")


class Outlined(HTMLParser):
    """Per finished-hand puzzle (its test id): the cells drawn outlined as scored, and its heading."""

    def __init__(self, html: str):
        super().__init__()
        self.puzzle: str | None = None
        self.depth = 0
        self.cell: str | None = None
        self.outlined: dict[str, set[str]] = {}
        self.heading: dict[str, str] = {}
        self.in_heading = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        if attrs.get("data-testid", "").startswith("last-hand-"):
            self.puzzle, self.depth = attrs["data-testid"], 0
            self.outlined[self.puzzle] = set()
        if self.puzzle is None:
            return
        if tag == "div":
            self.depth += 1
        if tag == "td":
            self.cell = attrs.get("data-cell")
        if tag == "svg" and "jx-goal-piece" in attrs.get("class", "").split():
            self.outlined[self.puzzle].add(self.cell or "")
        self.in_heading = tag == "h4"

    def handle_endtag(self, tag):
        if self.puzzle is None:
            return
        if tag == "h4":
            self.in_heading = False
        if tag == "div":
            self.depth -= 1
            if self.depth == 0:
                self.puzzle = None

    def handle_data(self, data):
        if self.puzzle and self.in_heading:
            self.heading[self.puzzle] = self.heading.get(self.puzzle, "") + data


def test_a_finished_hand_outlines_the_pieces_each_player_scored():
    states, _moves = random_game(3, 5, lambda states, moves: states[-1].hand == 2)
    view = GAME.view(states[-1], 0)
    result = view["last_hand"]
    html = render(view, present(view, 0, []), names={0: "Ann", 1: "Ben", 2: "Cy"})
    found = Outlined(html)
    for seat, cells in enumerate(result["scored"]):
        number = f"last-hand-{seat + 1}"
        assert found.outlined[number] == {f"{x},{y}" for x, y in cells}
        points = result["scores"][seat]
        assert f": {points} point" in found.heading[number]
        assert ("(won the hand)" in found.heading[number]) == (seat == result["winner"])
    assert sum(map(len, result["scored"])) > len(result["scored"][result["winner"]]), "the others scored pieces too"
    assert "everyone else's best partial goal" in html
    assert html.count(", scored</span>") == sum(map(len, result["scored"])), "a screen reader hears it too"
    assert html_problems(html, whole_page=False) == []


def spot_labels(state) -> list[str]:
    view = GAME.view(state, state.to_move)
    html = render(view, present(view, state.to_move, GAME.legal_moves(state, state.to_move)))
    return re.findall(r'aria-label="(Place it at [^"]*)"', html)


def test_a_spot_that_wins_the_hand_says_so_in_its_label_and_promises_no_joker():
    mine = [(0, 0, 2, 0), (1, -1, 6, 90)]  # a purple whose west slot faces 0,-1: a gap there
    state = position(mine, COLUMN, COLUMN, piece=2, hand=2)
    assert "Place it at 0,-1 turned 0°: 1 join, completes the pair and wins the hand" in spot_labels(state)
    assert "Place it at 0,-1 turned 0°: 1 join, 1 joker" in spot_labels(replace(state, hand=3))


def test_a_spot_whose_joker_could_take_nothing_says_so_in_its_label():
    mine = [(0, 0, 2, 0), (1, -1, 6, 90)]
    state = position(mine, PAIR, piece=2, hand=3)
    assert "Place it at 0,-1 turned 0°: 1 join, 1 joker, but no piece can be stolen" in spot_labels(state)
