"""Mecca's board as a player sees it: every square answers a click (the Kaaba and the taken
squares with their reason too), the prompt counts what the colour can still place, only the
crescents of colours in play are drawn, and the end notes say who and why."""

from __future__ import annotations

import random
import re
from dataclasses import replace

from django.urls import reverse

from games.boards import board_context
from games.boards.mecca import REASONS
from games.engine import get_game
from games.models import Match
from games.rules.mecca import explain
from games.services import ClockSpec
from tests.conftest import make_user
from tests.games.conftest import start_timed_match

MECCA = get_game("mecca")
HTMX = {"HTTP_HX_REQUEST": "true"}


def placing_state(players: int = 4, seed: int = 1):
    """A game just past set-up: the first colour of round 1 is to place."""
    state = MECCA.initial_state(players, {}, seed)
    while MECCA.view(state, None)["step"] == "entrance":
        seat = MECCA.to_act(state)[0]
        state = MECCA.apply(state, seat, MECCA.legal_moves(state, seat)[0])
    return state


def board_for(state, seat):
    return board_context("mecca", MECCA.view(state, seat), seat, MECCA.legal_moves(state, seat))


def cells(board) -> dict[str, dict]:
    return {cell["name"]: cell for row in board["rows"] for cell in row["cells"]}


def test_a_click_on_the_kaaba_or_a_taken_square_gets_its_reason(client, alice, bob, carol):
    dave = make_user("dave")
    match = start_timed_match(alice, bob, carol, dave, clock=ClockSpec(), game="mecca")
    users = {0: alice, 1: bob, 2: carol, 3: dave}
    state = placing_state()
    Match.objects.filter(pk=match.pk).update(state=MECCA.dump(state))
    seat = MECCA.to_act(state)[0]
    squares = cells(board_for(state, seat))
    taken = next(name for name, cell in squares.items() if cell["pilgrim"])
    assert squares["f6"]["move"] == "f6" and squares[taken]["move"] == taken, "clickable, not pictures"
    assert not squares["f6"]["target"], "and not marked"
    client.force_login(users[seat])
    for square, reason in (
        ("f6", explain.KAABA_SQUARE),
        ("e5", explain.KAABA_SQUARE),
        (taken, explain.TAKEN.format(colour=state_colour(state, taken), square=taken)),
    ):
        response = client.post(reverse("match_move", args=[match.pk]), {"move": square, "version": 0}, **HTMX)
        assert response.status_code == 422 and reason in response.content.decode(), square
    assert Match.objects.get(pk=match.pk).version == 0


def state_colour(state, square: str) -> str:
    return MECCA.view(state, None)["board"][square]


def test_the_prompt_counts_only_the_pilgrims_the_colour_still_holds():
    state = placing_state()
    state = replace(state, round=2)
    colour = state.colour
    hand = list(state.hand)
    for left, up_to in ((17, 3), (2, 2), (1, 1)):
        hand[colour] = left
        short = replace(state, hand=tuple(hand))
        prompt = board_for(short, MECCA.to_act(short)[0])["prompt"]
        assert f"place the 1st pilgrim of the turn (up to {up_to})" in prompt, prompt


def test_in_the_first_round_the_prompt_asks_for_the_one_pilgrim_of_the_round():
    state = replace(placing_state(), round=1)
    prompt = board_for(state, MECCA.to_act(state)[0])["prompt"]
    assert "place your one pilgrim of the first round; it must touch exactly one pilgrim" in prompt, prompt
    assert "up to" not in prompt
    watcher = board_for(state, None)["prompt"]
    assert "place its one pilgrim of the first round" in watcher, watcher
    seat = MECCA.to_act(state)[0]
    line = MECCA.describe(state, seat, MECCA.legal_moves(state, seat)[0])
    assert "(its one of the first round)" in line, line


def test_only_the_crescents_of_colours_in_play_are_drawn():
    for players, drawn in (
        (4, {"yellow", "red", "green", "blue"}),
        (5, {"yellow", "red", "green", "blue", "black"}),
        (6, {"yellow", "red", "green", "blue", "black", "white"}),
    ):
        board = board_for(placing_state(players), 0)
        crescents = {cell["crescent"]["colour"] for cell in cells(board).values() if cell["crescent"]}
        assert crescents == drawn, players


def test_the_last_round_note_names_the_colours_that_placed_all_and_the_end_reason_holds_after_a_giveback():
    state = placing_state()
    hand = list(state.hand)
    hand[1] = 0  # red, seat 1's only colour, has placed all
    state = replace(state, hand=tuple(hand), final_round=True)
    notes = board_for(state, 0)["notes"]
    assert "Red placed all its pilgrims: this is the last round." in notes
    assert REASONS["emptied"] == "A player had placed all his pilgrims, so the round was completed."


def test_every_removal_of_the_last_round_is_noted_and_marked_not_only_the_latest():
    rng, state = random.Random(11), None
    for seed in range(30):
        state = MECCA.initial_state(4, {}, seed)
        while not MECCA.is_over(state) and len(state.recent_removals) < 2:
            seat = MECCA.to_act(state)[0]
            state = MECCA.apply(state, seat, rng.choice(MECCA.legal_moves(state, seat)))
        if len(state.recent_removals) >= 2:
            break
    seat = MECCA.to_act(state)[0] if not MECCA.is_over(state) else 0
    board = board_for(state, seat)
    squares = cells(board)
    for removal in MECCA.view(state, seat)["recent_removals"]:
        assert any(
            note.startswith(
                f"{removal['by'].capitalize()} removed the {removal['colour']} pilgrim on {removal['square']}"
            )
            for note in board["notes"]
        ), removal
        if not squares[removal["square"]]["pilgrim"]:
            assert squares[removal["square"]]["returned"]["colour"] == removal["colour"], "marked as gone"


def removal_state():
    """A 4-player game where the colour to act may remove a pilgrim."""
    rng = random.Random(5)
    state = placing_state()
    while MECCA.view(state, None)["step"] != "remove":
        seat = MECCA.to_act(state)[0]
        moves = [move for move in MECCA.legal_moves(state, seat) if move != "pass"]
        state = MECCA.apply(state, seat, rng.choice(moves))
    return state


def square_html(page: str, name: str) -> str:
    """The markup of one square of the page's board, from its opening tag's test id to its end."""
    return re.split(r"</(?:button|div)>", page.split(f'data-testid="square-{name}"', 1)[1], maxsplit=1)[0]


def test_the_three_marks_are_three_shapes_none_of_them_a_pilgrims_disc(client, alice, bob, carol):
    """Colour-blind safe, and never taken for a pilgrim: "×" meant both "may be removed" and "entrance
    not used", and the green dot where a pilgrim may go looked like a green pilgrim. Now a plus where a
    pilgrim may go, a red × badge on one that may be removed, hatching (and words) where nothing is in play."""
    dave = make_user("dave")
    match = start_timed_match(alice, bob, carol, dave, clock=ClockSpec(), game="mecca")
    users = {0: alice, 1: bob, 2: carol, 3: dave}
    for state, mark, other in (
        (placing_state(), "may-place", "may-remove"),
        (removal_state(), "may-remove", "may-place"),
    ):
        Match.objects.filter(pk=match.pk).update(state=MECCA.dump(state))
        seat = MECCA.to_act(state)[0]
        client.force_login(users[seat])
        page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
        view = MECCA.view(state, seat)
        assert view["targets"]
        for name in view["targets"]:
            square = square_html(page, name)
            assert f'class="{mark}"' in square and other not in square, name
        untouched = next(name for name in view["board"] if name not in view["targets"])
        assert "may-" not in square_html(page, untouched)
        for name in view["unused_entrances"]:
            square = square_html(page, name)
            assert re.search(r'class="mecca-cell mat-entrance out"', square) and "may-" not in square, name
            assert "×" not in square and "✕" not in square
        assert 'class="dot"' not in page and 'class="take"' not in page
    legend = page.split('class="mecca-legend"', 1)[1].split("</ul>", 1)[0]
    for sample, words in (
        ("may-place", "a pilgrim may go here"),
        ("may-remove", "this pilgrim may be removed"),
        ("swatch out", "not in play"),
    ):
        line = next(line for line in legend.split("<li") if sample in line)
        assert words in line, sample


def test_the_colour_table_says_it_lists_the_choosing_order_during_set_up_and_the_playing_order_after(
    client, alice, bob, carol
):
    """During set-up it was captioned "Playing order" over the order the colours choose their entrances in."""
    dave = make_user("dave")
    match = start_timed_match(alice, bob, carol, dave, clock=ClockSpec(), game="mecca")
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "<caption>Choosing entrances, in this order" in page and "Playing order" not in page
    state = placing_state()
    Match.objects.filter(pk=match.pk).update(state=MECCA.dump(state))
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "<caption>Playing order</caption>" in page
    order = MECCA.view(state, 0)["order"]
    rows = [page.index(f'data-testid="colour-{colour}"') for colour in order]
    assert rows == sorted(rows), "the rows follow the playing order"


def test_a_marked_square_says_what_choosing_it_does_at_each_step():
    """A screen reader heard "f3, allowed": it now hears what the square is marked for."""
    entrance = MECCA.initial_state(4, {}, 1)
    placing = placing_state()
    removing = removal_state()
    for state, words in (
        (entrance, "you may choose this entrance"),
        (placing, "a pilgrim may go here"),
        (removing, "may be removed"),
    ):
        seat = MECCA.to_act(state)[0]
        squares = cells(board_for(state, seat))
        marked = [cell for cell in squares.values() if cell["target"]]
        assert marked
        assert all(cell["label"].endswith(", " + words) for cell in marked), words
        assert not any(words in cell["label"] for cell in squares.values() if not cell["target"])


def test_a_marked_square_says_its_move_for_the_confirm_bar():
    """With 'Confirm each move' on, the bar said "Confirm: f1, entrance 1, you may choose this entrance"."""
    for state, said in (
        (MECCA.initial_state(4, {}, 1), r"Choose entrance \d \([a-k]\d+\)"),
        (placing_state(), r"Place a pilgrim on [a-k]\d+"),
        (removal_state(), r"Remove the [a-z]+ pilgrim on [a-k]\d+"),
    ):
        squares = cells(board_for(state, MECCA.to_act(state)[0])).values()
        assert all(re.fullmatch(said, cell["move_said"]) for cell in squares if cell["target"]), said
        assert not any(cell["move_said"] for cell in squares if not cell["target"])
