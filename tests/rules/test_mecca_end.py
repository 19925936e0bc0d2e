"""Mecca: the end of the game and its score. It ends at once when no colour can place, or after
the round in which a player placed all their pilgrims; a crescent counts twice for its own
colour, a draw goes to the most pilgrims close to the Kaaba, players of two colours add both up.
From the rule text (as summarised in docs/rules/mecca.md) and our reading of it (its decisions
table)."""

from __future__ import annotations

import pytest

from games.engine import IllegalMove, Outcome
from games.engine.base import GAME_IS_OVER
from games.rules.mecca import GAME
from games.rules.mecca.rules import BLOCKED, COLOURS_IN_PLAY, EMPTIED, OVER, REMOVE, State, turn_order
from tests.rules.mecca_positions import BLUE, GREEN, RED, YELLOW, _rows, play, position, seat_of, sq

# --- Finishing the game -----------------------------------------------------------------------

# From a real game (entrances: yellow k7, red f1, green a7, blue f11; order yellow, red, green,
# blue). Red's three squares i3, i4, j4 each close the last squares anybody could start from.
BLOCKED_POSITION = """
    ....GRB....
    .......Y...
    ...GB.R....
    ..BY..B....
    ..R......Y.
    R..Y...BG.R
    G.BG...RY.Y
    .....G.....
    ..G.YB..Y..
    ...BG..R...
    .....B.....
"""


def _blocked_state() -> State:
    state = position(BLOCKED_POSITION, colour=RED, rnd=5)
    assert turn_order(state.entrances) == (YELLOW, RED, GREEN, BLUE)
    return state


@pytest.mark.parametrize("move", ["i3", "i4", "j4"])
def test_the_game_ends_at_once_when_no_colour_can_place(move):
    """ "None of the players can place a Pilgrim on the board. In this case, the game ends
    immediately" — here after red's turn, before green and blue play their turns."""
    state = _blocked_state()
    assert GAME.legal_moves(state, RED) == ["i3", "i4", "j4"]
    after = play(state, move)
    assert GAME.is_over(after) and after.reason == BLOCKED and GAME.to_act(after) == ()
    assert min(after.hand) > 0, "nobody placed all his pilgrims"
    assert GAME.describe(state, RED, move).endswith("no colour can place a pilgrim, so the game ends.")
    assert refused_when_over(after) == GAME_IS_OVER


def refused_when_over(state: State) -> str:
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, 0, "f3")
    return str(error.value)


# Green leads on points: a7, g2 and i4.
GREEN_LEADS = """
    .....Y.....
    ......G....
    .......B...
    ........G..
    R..........
    ...........
    G.........B
    ...........
    ...........
    ...........
    ...........
"""


def play_out(state: State) -> State:
    while not GAME.is_over(state):
        state = play(state, GAME.legal_moves(state, seat_of(state))[0])
    return state


def test_a_player_who_placed_all_his_pilgrims_ends_the_game_when_the_round_is_complete():
    """ "A player has placed all his/her Pilgrims on the board. If such is the case, the turn
    is completed, so that all the players have taken the same number of turns." Red's hand
    is set to its last pilgrim."""
    state = position(GREEN_LEADS, colour=RED, hand={RED: 1})
    after = play(state, "e2")
    assert after.final_round and not GAME.is_over(after)
    assert GAME.describe(state, RED, "e2") == (
        "Red places a pilgrim on e2 (1st of the turn); Red has no pilgrim left to place; "
        "a player has placed all his pilgrims, so this round is the last."
    )
    # Green and blue still play this round, then the game ends.
    assert GAME.view(after, None)["colour_to_act"] == "green"
    colours = []
    while not GAME.is_over(after):
        colours.append(after.colour)
        after = play(after, GAME.legal_moves(after, seat_of(after))[0])
    assert set(colours) == {GREEN, BLUE}
    assert after.reason == EMPTIED
    outcome = GAME.outcome(after)
    assert outcome.scores[GREEN] > outcome.scores[RED]
    assert outcome.winners == (RED,), "If only one player has placed all his Pilgrims, s/he is the winner"


def test_a_player_who_empties_his_hand_with_the_rounds_last_turn_ends_the_game_and_the_log_says_why():
    """Blue, last in the order, places its last pilgrim: the round is complete at once. The
    log said only "the round is complete, so the game ends", not why that round was the last,
    and blue wins on that, with fewer points than green."""
    state = position(GREEN_LEADS, colour=BLUE, hand={BLUE: 1})
    after = play(state, "b4")
    assert after.reason == EMPTIED and GAME.outcome(after) == Outcome(scores=(1, 1, 3, 3), winners=(BLUE,))
    assert GAME.describe(state, BLUE, "b4") == (
        "Blue places a pilgrim on b4 (1st of the turn); Blue has no pilgrim left to place; "
        "a player has placed all his pilgrims; the round is complete, so the game ends."
    )
    assert GAME.win_reason(after) == "Player 4 placed all their pilgrims"


def test_when_two_players_placed_all_their_pilgrims_the_points_decide():
    """ "In any other case, each player adds up the number of Pilgrims s/he has placed.\""""
    state = position(GREEN_LEADS, colour=RED, hand={RED: 1, BLUE: 1})
    last = play_out(play(state, "e2"))
    assert last.reason == EMPTIED and last.hand[RED] == last.hand[BLUE] == 0
    outcome = GAME.outcome(last)
    assert outcome.winners == (GREEN,)
    assert GAME.view(last, None)["scores"][RED]["placed_all"] is True
    assert GAME.win_reason(last) == "", "the best total won: no reason to give"


def test_the_last_round_is_played_out_even_if_the_empty_hand_gets_a_pilgrim_back():
    """[code] The last round, once started, is played to its end; winning by the empty-hand
    rule needs an empty hand at the end. Green removes red's e2, and the yellow on d3 that
    it leaves alone goes back too."""
    picture = _rows(
        {"f1": "Y", "a5": "R", "a7": "G", "k7": "B", "e2": "R", "d3": "Y"}, keep=("f1", "a5", "a7", "k7"), colours=4
    )
    state = position(picture, colour=GREEN, placed=3, step=REMOVE, hand={RED: 0}, final_round=True)
    after = play(state, "xe2")
    assert after.hand[RED] == 1 and after.final_round
    assert after.last_removal.returned == ((sq("d3"), YELLOW),)
    assert GAME.view(after, None)["colour_to_act"] == "blue"
    last = play(after, GAME.legal_moves(after, BLUE)[0])
    last = play_out(last)
    assert last.reason == EMPTIED and last.round == state.round
    assert GAME.view(last, None)["scores"][RED]["placed_all"] is False


SCORING = """
    .....Y.....
    ...........
    ..YR.......
    ...G.......
    R..........
    ...........
    G.........B
    ...........
    ..RB.......
    ...........
    ...........
"""


def test_a_pilgrim_on_a_crescent_of_its_own_colour_counts_twice():
    """ "If a player has a Pilgrim on a square with a crescent moon in his/her color, it
    counts twice." c3 is yellow's crescent, c9 red's; d3 and d9 carry none."""
    state = position(SCORING)
    over = State(
        *[OVER if n == "step" else (-1 if n == "colour" else getattr(state, n)) for n in State.__dataclass_fields__]
    )
    outcome = GAME.outcome(over)
    # yellow f1 + c3 (crescent) = 3; red a5 + d3 + c9 (crescent) = 4; green a7 + d4 = 2; blue k7 + d9 = 2
    assert outcome.scores == (3, 4, 2, 2)
    assert outcome.winners == (RED,)
    view = GAME.view(over, None)
    assert view["scores"][0] == {
        "seat": 0,
        "colours": ["yellow"],
        "pilgrims": 2,
        "crescents": 1,
        "total": 3,
        "kaaba": 0,
        "placed_all": False,
    }


def _finished(picture: str, players: int = 4) -> State:
    state = position(picture, players=players)
    fields = {name: getattr(state, name) for name in State.__dataclass_fields__}
    fields.update(step=OVER, colour=-1, reason=BLOCKED)
    return State(**fields)


def test_a_crescent_of_another_colour_counts_once():
    picture = SCORING.replace("..YR.......", "..RY.......", 1)  # red on yellow's crescent c3
    outcome = GAME.outcome(_finished(picture))
    assert outcome.scores == (2, 4, 2, 2)  # red: a5, c3, c9 (own crescent, twice)


def test_a_draw_goes_to_the_most_pilgrims_close_to_the_kaaba():
    """ "If there is a draw, the player with the most Pilgrims in those squares close to
    the black stone, the Kaaba, is the winner." d4 is close to the Kaaba."""
    picture = """
        .....Y.....
        ...........
        ...R.......
        ...G.......
        R..........
        ...........
        G.........B
        ........Y..
        ...........
        ...........
        ...........
    """
    outcome = GAME.outcome(_finished(picture))
    assert outcome.scores == (2, 2, 2, 1)
    assert outcome.winners == (GREEN,)


def test_players_still_tied_all_win():
    """ "If there is still a draw, all the players involved in the draw are declared winners.\""""
    picture = """
        .....Y.....
        ...........
        ...R.......
        ...........
        R..........
        ...........
        G.........B
        ...........
        .......G...
        ...........
        ......Y....
    """
    outcome = GAME.outcome(_finished(picture))
    assert outcome.scores == (2, 2, 2, 1)
    assert outcome.winners == (YELLOW, RED, GREEN)


@pytest.mark.parametrize("players", [2, 3])
def test_two_colour_players_add_up_both_colours(players):
    """ "The winner is the player who, by adding up the Pilgrims in the two colors of his/her
    choice, has managed to accommodate the most Pilgrims.\""""
    picture = _rows(
        {
            "f1": "Y",
            "a5": "R",
            "a7": "G",
            "k7": "B",
            "f11": "K",
            "k5": "W",
            "c3": "Y",
            "e3": "G",
            "c9": "R",
            "e10": "B",
        },
        keep=("f1", "a5", "a7", "k7", "f11", "k5"),
        colours=COLOURS_IN_PLAY[players],
    )
    state = _finished(picture, players=players)
    outcome = GAME.outcome(state)
    if players == 2:  # yellow+green against red+blue
        assert GAME.view(state, None)["colours"] == [["yellow", "green"], ["red", "blue"]]
        assert outcome.scores == (3 + 3, 3 + 2)
        assert outcome.winners == (0,)
    else:  # yellow+blue, red+black, green+white
        assert GAME.view(state, None)["colours"] == [["yellow", "blue"], ["red", "black"], ["green", "white"]]
        assert outcome.scores == (3 + 2, 3 + 1, 3 + 1)
