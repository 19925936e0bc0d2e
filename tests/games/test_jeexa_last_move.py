"""What the Jeexa board marks as the last move (``data-last-move``, in the order of the changes):
the piece placed, the cell a stolen piece left and where it went, the die of a new turn, the puzzle
that won a hand; which steps reveal something (``step_reveals``); and the board as a picture."""

from __future__ import annotations

import random
from html.parser import HTMLParser
from types import SimpleNamespace

from django.template.loader import render_to_string

from games.boards import LastMove, board_context
from games.boards import step_reveals as platform_step_reveals
from games.boards.jeexa import present, step_reveals
from games.engine import get_game
from games.engine.words import plain
from tests.html_check import html_problems

GAME = get_game("jeexa")


def random_game(players: int, seed: int, until) -> tuple[list, list]:
    """States and moves of a seeded random game, up to the first state ``until`` accepts."""
    rng, state = random.Random(seed), GAME.initial_state(players, {}, seed)
    states, moves = [state], []
    while not until(states, moves):
        seat = GAME.to_act(state)[0]
        move = rng.choice(GAME.legal_moves(state, seat))
        state = GAME.apply(state, seat, move)
        states.append(state)
        moves.append((seat, move))
    return states, moves


def last_move(states, moves, start: int, end: int, seat: int | None = None) -> tuple[dict, LastMove]:
    """The view after move ``end`` and what changed since the position after ``start`` moves."""
    return GAME.view(states[end], seat), LastMove(GAME.view(states[start], seat), tuple(moves[start:end]))


class Marked(HTMLParser):
    """Each element carrying ``data-last-move``: its tag, attributes and the test id of the puzzle it is in."""

    def __init__(self, html: str):
        super().__init__()
        self.open: list[dict] = []
        self.marked: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        puzzle = next((a["data-testid"] for a in reversed(self.open) if "data-testid" in a), None)
        if "data-last-move" in attrs:
            self.marked.append({"tag": tag, "puzzle": puzzle, **attrs})
        if tag not in {"input", "path", "circle", "rect", "text"}:
            self.open.append(attrs)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in {"input", "path", "circle", "rect", "text"}:
            self.open.pop()

    def handle_endtag(self, tag):
        if tag not in {"input", "path", "circle", "rect", "text"} and self.open:
            self.open.pop()


def render(view: dict, board: dict, names=None) -> str:
    match = SimpleNamespace(pk=1, version=0)
    return render_to_string("games/boards/jeexa.html", {"view": view, "board": board, "match": match, "names": names})


def marked(view: dict, last: LastMove, seat: int | None = None) -> list[dict]:
    return Marked(render(view, present(view, seat, [], last))).marked


def cells(marks: list[dict]) -> list[tuple[str | None, str, str]]:
    """(puzzle, cell, order) of each marked cell, in the order of the changes."""
    found = [(m["puzzle"], m["data-cell"], m["data-order"]) for m in marks if m["tag"] == "td"]
    return sorted(found, key=lambda mark: int(mark[2]))


# --- a placement ---------------------------------------------------------------------------


def test_a_placement_marks_its_cell_then_the_next_players_roll():
    states, moves = random_game(3, 5, lambda states, moves: len(moves) == 4)
    seat, move = moves[3]
    x, y, _rotation = move.split(",")
    view, last = last_move(states, moves, 3, 4)
    marks = marked(view, last)
    assert cells(marks) == [(f"puzzle-{seat}", f"{x},{y}", "0")]
    (die,) = [m for m in marks if m["tag"] == "svg"]
    assert "jx-die" in die["class"] and die["data-order"] == "1", "the roll comes after the placement"
    assert len(marks) == 2, "nothing else changed"


def test_nothing_is_marked_without_a_last_move_or_when_nothing_was_played():
    states, _moves = random_game(3, 5, lambda states, moves: len(moves) == 4)
    view = GAME.view(states[4], 0)
    assert Marked(render(view, present(view, 0, [], None))).marked == []
    assert marked(view, LastMove(view, ())) == []


def test_since_the_viewers_own_last_move_every_turn_of_the_others_is_marked_in_order():
    """A player coming back sees every piece the others placed since their own last move."""
    states, moves = random_game(3, 5, lambda states, moves: len(moves) == 6)
    assert moves[3][0] == 0
    view, last = last_move(states, moves, 4, 6, seat=0)  # from Player 1's move on: Players 2 and 3
    marks = marked(view, last, seat=0)
    assert [(puzzle, order) for puzzle, _cell, order in cells(marks)] == [("puzzle-1", "0"), ("puzzle-2", "1")]
    assert [m["data-order"] for m in marks if m["tag"] == "svg"] == ["2"], "then Player 1's own roll"


# --- a steal -------------------------------------------------------------------------------


def joker_turn() -> tuple[list, list, int]:
    """Seed 5's game up to a turn that earns a joker and spends it on a steal: where that turn starts."""
    states, moves = random_game(3, 5, lambda states, moves: len(moves) >= 2 and moves[-2][1].startswith("steal "))
    start = len(moves) - 3  # the placement that earned the joker, the steal, the stolen piece placed
    return states, moves, start


def test_a_steal_marks_the_cell_it_left_and_where_the_piece_went():
    states, moves, start = joker_turn()
    (thief, earned), (_, steal), (_, placed) = moves[start:]
    _word, victim, left = steal.split(" ")
    view, last = last_move(states, moves, start, start + 3)
    marks = marked(view, last, seat=None)
    at = lambda move: ",".join(move.split(",")[:2])  # noqa: E731
    assert cells(marks) == [
        (f"puzzle-{thief}", at(earned), "0"),
        (f"puzzle-{victim}", left, "1"),
        (f"puzzle-{thief}", at(placed), "2"),
    ]
    html = render(view, present(view, None, [], last), names={int(victim): "Vera", thief: "Tom"})
    assert "was just stolen by Tom" in html and "just placed, stolen from Vera" in html
    assert 'class="jx-piece jx-ghost"' in html, "the cell left shows the outline of the piece that was there"
    assert html_problems(html, whole_page=False) == []


def test_a_stolen_piece_not_placed_yet_is_marked_in_hand_after_the_cell_it_left():
    states, moves, start = joker_turn()
    _word, victim, left = moves[start + 1][1].split(" ")
    view, last = last_move(states, moves, start, start + 2)
    marks = marked(view, last)
    assert [(m["puzzle"], m["data-cell"], m["data-order"]) for m in marks if m["tag"] == "td"][-1] == (
        f"puzzle-{victim}",
        left,
        "1",
    )
    (in_hand,) = [m for m in marks if m.get("data-testid") == "in-hand"]
    assert in_hand["data-order"] == "2"


def test_a_steal_taken_by_itself_is_marked_before_the_placement_of_what_it_took():
    """The only piece a joker could take is taken inside the move: no steal is played, yet its cell
    is marked, before the stolen piece's placement."""
    states, moves = random_game(
        2, 19, lambda states, moves: any("the only piece" in plain(event) for event in states[-1].events)
    )
    states, moves = random_game(2, 19, lambda s, m: len(m) == len(moves) + 1)  # and that piece placed
    start = len(moves) - 2
    view, last = last_move(states, moves, start, start + 2)
    marked_cells = cells(marked(view, last))
    thief = moves[-1][0]
    assert len(marked_cells) == 3
    earned, left, landed = marked_cells
    assert earned[0] == landed[0] == f"puzzle-{thief}" and left[0] != f"puzzle-{thief}"
    assert [earned[2], left[2], landed[2]] == ["0", "1", "2"]


# --- a new hand ----------------------------------------------------------------------------


def test_the_start_of_a_new_hand_marks_the_winning_puzzle_its_new_pieces_and_the_roll():
    states, moves = random_game(3, 5, lambda states, moves: states[-1].hand == 2 and len(states[-1].grids[0]) == 0)
    ended = len(moves) - 1
    while states[ended].hand == 2:  # back to the move that won hand 1
        ended -= 1
    states, moves = random_game(3, 5, lambda s, m: len(m) == ended + 3)  # and two pieces of hand 2
    view, last = last_move(states, moves, ended, ended + 3)
    marks = marked(view, last)
    winner = states[ended + 1].last_hand.winner
    won = [m for m in marks if m.get("data-testid") == f"last-hand-{winner + 1}"]
    assert len(won) == 1 and won[0]["data-order"] == "0", "the hand's end comes first"
    new_pieces = cells(marks)
    assert [order for _puzzle, _cell, order in new_pieces] == ["1", "2"]
    assert all(cell == "0,0" for _puzzle, cell, _order in new_pieces), "first pieces go in the middle"
    (die,) = [m for m in marks if m["tag"] == "svg"]
    assert die["data-order"] == "3"


# --- the platform's calls --------------------------------------------------------------------


def test_the_platform_passes_the_last_move_through():
    states, moves = random_game(3, 5, lambda states, moves: len(moves) == 4)
    view, last = last_move(states, moves, 3, 4)
    assert board_context("jeexa", view, None, [], last) == present(view, None, [], last)


def test_a_step_that_rolls_for_the_same_player_reveals_and_the_steps_of_a_turn_do_not():
    """Within a turn (a placement earning a joker, the steal, the stolen piece placed) nothing new
    is shown; the winner of a hand, who starts the next one, is rolled for at once."""
    states, moves, start = joker_turn()
    mover = moves[start][0]
    for index in range(start, start + 2):
        before, after = GAME.view(states[index], mover), GAME.view(states[index + 1], mover)
        assert after["to_move"] == mover and not step_reveals(before, after)
        assert not platform_step_reveals("jeexa", before, after)
    before, after = GAME.view(states[start + 2], mover), GAME.view(states[start + 3], mover)
    assert step_reveals(before, after), "the turn ended with the next player's roll"

    states, moves = random_game(3, 5, lambda states, moves: states[-1].hand == 2)
    winner = moves[-1][0]
    before, after = GAME.view(states[-2], winner), GAME.view(states[-1], winner)
    assert after["to_move"] == winner and step_reveals(before, after)


def test_a_player_rolled_for_again_after_every_other_roll_found_nothing_has_seen_a_roll():
    """Only purple 6s are left: the other player's roll misses, and the turn comes back to the mover."""
    from tests.rules.test_jeexa import position

    for seed in range(200):
        state = position([(0, 0, 2, 0)], [(0, 0, 2, 0)], piece=2, pile=(0, 0, 0, 0, 0, 3), seed=seed)
        after = GAME.apply(state, 0, "0,-1,0")
        if after.to_move == 0:
            break
    assert after.to_move == 0 and after.die == 6
    assert step_reveals(GAME.view(state, 0), GAME.view(after, 0))


# --- the picture -----------------------------------------------------------------------------


def test_the_picture_draws_the_puzzles_and_the_roll_with_nothing_to_press_or_name():
    states, _moves = random_game(3, 5, lambda states, moves: len(moves) == 30)
    view = GAME.view(states[-1], None)
    board = present(view, None, [], None)
    html = render_to_string(
        "games/boards/jeexa.html",
        {"picture": True, "board": board, "view": view, "names": ["Ann", "Ben", "Cy"], "seats": []},
    )
    assert html.count('role="img"') == 1 and 'aria-label="A game of Jeexa: 3 puzzles' in html
    for absent in ("<form", "<button", "<a ", " id=", "data-testid", "popover", "<input"):
        assert absent not in html, absent
    assert html.count("<table") == 3 and 'class="jx-die"' in html
    assert "Scores per hand" not in html and "Pile" not in html
    assert html_problems(html, whole_page=False) == []
