"""Mecca's computer players: legal and repeatable moves at every level; the strong AI's choices
of entrance and removal, its learned value read from the text's worked example, and its look a
round ahead, with four players only."""

from __future__ import annotations

import pytest

from games.engine import IllegalMove
from games.rules.mecca import GAME, ai, value
from games.rules.mecca.rules import open_squares, placement_squares
from tests.rules.mecca_positions import BLUE, COUNTER_EXAMPLE, GREEN, RED, WORKED_EXAMPLE, YELLOW, play, position

# --- The computer players ---------------------------------------------------------------------


@pytest.mark.parametrize("level", sorted(GAME.ai_levels))
def test_ai_moves_are_legal_and_repeatable(level):
    state = play(position(WORKED_EXAMPLE), "d10", "f10", "h4")
    move = GAME.ai_move(state, RED, level, seed=3)
    assert move in GAME.legal_moves(state, RED)
    assert GAME.ai_move(state, RED, level, seed=3) == move
    with pytest.raises(IllegalMove):
        GAME.ai_move(state, YELLOW, level, seed=3)


def test_an_unknown_ai_level_is_refused():
    with pytest.raises(ValueError, match="no AI level"):
        GAME.ai_move(position(WORKED_EXAMPLE), RED, 9, seed=1)


def test_the_strong_ai_removes_a_pilgrim_that_also_sends_an_isolated_one_back():
    """Removing i6 costs blue one pilgrim and green another: the best removal here."""
    state = play(position(WORKED_EXAMPLE), "d10", "f10", "h4")
    assert GAME.ai_move(state, RED, 2, seed=1) == "xi6"


@pytest.mark.parametrize("seed", range(6))
def test_the_strong_ai_as_yellow_takes_a7_or_k5_with_four_colours(seed):
    """Measured: yellow won by half a pilgrim more there than on f1 or f11."""
    assert GAME.ai_move(GAME.initial_state(4, {}, seed), YELLOW, 2, seed=seed) in ("a7", "k5")


def test_the_strong_ai_takes_the_first_free_entrance_after_yellows():
    """So that it plays as early in the round as it can: counter-clockwise (f1, a5, a7, f11, k7,
    k5) the entrance after yellow's a7 is f11, and once f11 is taken, k7."""
    state = play(GAME.initial_state(4, {}, seed=1), "a7")
    assert GAME.ai_move(state, RED, 2, seed=1) == "f11"
    state = play(GAME.initial_state(4, {}, seed=1), "a7", "f11")
    assert GAME.ai_move(state, GREEN, 2, seed=1) == "k7"


def _worked_example_as_red_sees_it() -> list[float]:
    state = position(WORKED_EXAMPLE)
    chain = ai.longest_chain(state.board, state.hand, RED, 3, state.colours)
    return value.features(state.board, state.hand, RED, (GREEN, BLUE, YELLOW), chain)


@pytest.mark.parametrize("picture", [WORKED_EXAMPLE, COUNTER_EXAMPLE])
def test_the_ais_count_of_open_squares_is_the_rules_list_of_them(picture):
    board = position(picture).board
    counts = open_squares(board, 4)
    for colour in range(4):
        assert [counts[colour][k] for k in (1, 2, 3)] == [
            len(placement_squares(board, colour, k, 4)) for k in (1, 2, 3)
        ]


def test_the_learned_value_reads_the_worked_example_from_reds_seat():
    """Red (a5) plays after yellow (f1); then green (a7) and blue (k7). Points: red 1,
    green a7 h5 j5 f8, blue h3 i6 k7 g9 (green's crescent: once), yellow f1 g4 e9."""
    numbers = dict(zip(value.FEATURES, _worked_example_as_red_sees_it(), strict=True))
    assert [numbers[f"points_{seat}"] for seat in value.SEATS] == [1, 4, 4, 3]
    assert numbers["lead_best"] == -3 and numbers["lead_mean"] == pytest.approx(1 - 11 / 3)
    assert [numbers[f"hand_{seat}"] for seat in value.SEATS] == [17, 14, 14, 15]
    assert numbers["chain"] == 3 and numbers["chain_of_three"] == 1  # the text's three placements
    assert numbers["taken_share"] == pytest.approx(12 / value.PLAYABLE_SQUARES)


def test_the_learned_value_rises_with_the_lead():
    numbers = _worked_example_as_red_sees_it()
    at = value.FEATURES.index

    def shifted(by: int) -> float:
        changed = list(numbers)
        for name in ("lead_best", "lead_mean", "points_mine"):
            changed[at(name)] += by
        return value.chance_of_winning(changed)

    assert 0 < shifted(-3) < value.chance_of_winning(numbers) < shifted(3) < 1


@pytest.mark.parametrize(("players", "looks_ahead"), [(4, True), (2, False)])
def test_the_strong_ai_looks_a_round_ahead_only_with_four_players(players, looks_ahead, monkeypatch):
    """The learned value was fitted to four-player games only."""
    asked = []

    def looked_ahead(planner, candidates):
        asked.append(len(candidates))
        return candidates[0].move

    monkeypatch.setattr(ai.Planner, "looked_ahead", looked_ahead)
    GAME.ai_move(position(WORKED_EXAMPLE, players=players), RED % players, 2, seed=1)
    assert bool(asked) == looks_ahead
    assert all(1 < n <= ai.PLANS_LOOKED_AHEAD for n in asked)
