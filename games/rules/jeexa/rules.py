"""The state and the flow of a turn: roll, place, earn jokers, steal, end the hand.

Every roll happens inside the move that starts the turn (or in ``new_game``), from
``rng_for(seed, moves played, hand, attempt)``: the roll of the turn under way is public,
the next one does not exist until the move before it is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from games.engine.rng import rng_for
from games.engine.words import Parts, Who, sentence
from games.rules.jeexa.goals import GOAL_NAMES, HANDS, Goal, achieved, partial
from games.rules.jeexa.grid import (
    Cell,
    Piece,
    assess,
    grid_of,
    linked_points,
    links,
    pieces_of,
    placed,
    removed,
    steal_targets,
)
from games.rules.jeexa.pieces import MAX_SETS, PIECES_PER_VALUE, VALUES, label

WIN_BONUS = 20
# How a player who does not win a hand scores: their best partial goal (``goals.partial``). Matches
# begun before this reading keep the first one, every piece with a join, to their end: their stored
# states have no ``scoring`` and load with it, and they replay as they were played.
PARTIAL_GOAL = "partial goal"
JOINED_PIECES = "joined pieces"
SINGLE_SET_PLAYERS = 4  # above this many players two sets are combined
DIE_SALT = "jeexa-die"


@dataclass(frozen=True)
class HandResult:
    """How a hand ended, kept until the next one ends so the board can show it."""

    hand: int
    winner: int | None  # None: the pile ran out
    scores: tuple[int, ...]
    puzzles: tuple[tuple[Piece, ...], ...]  # every puzzle as it was when the hand ended
    scored: tuple[tuple[Cell, ...], ...]  # per seat, the cells of the pieces it scored


@dataclass(frozen=True)
class State:
    players: int
    seed: int
    moves_played: int
    hand: int  # 1..6; HANDS + 1 once the game is over
    starter: int  # who started the hand under way
    to_move: int
    die: int  # the roll of the turn under way; 0 when the game is over
    piece: int  # value of the piece in hand to place; 0 while a joker is to be used
    stolen_from: int | None  # whose puzzle the piece in hand came from; None: the pile
    jokers: int  # jokers earned this turn and not used yet
    pile: tuple[int, ...]  # pieces left per value 1..6
    grids: tuple[tuple[Piece, ...], ...]
    scores: tuple[tuple[int, ...], ...]  # one row per finished hand, one score per seat
    last_hand: HandResult | None
    events: tuple[Parts, ...]  # what happened by itself after the last move (rolls, lost turns)
    scoring: str = PARTIAL_GOAL

    @property
    def over(self) -> bool:
        return self.hand > HANDS

    @property
    def stealing(self) -> bool:
        return not self.over and self.piece == 0 and self.jokers > 0


def player(seat: int) -> str:
    return f"Player {seat + 1}"


def sets_for(players: int) -> int:
    return MAX_SETS if players > SINGLE_SET_PLAYERS else 1


def full_pile(players: int) -> tuple[int, ...]:
    return (PIECES_PER_VALUE * sets_for(players),) * len(VALUES)


def full_count(players: int) -> int:
    return sum(full_pile(players))


def new_game(players: int, seed: int) -> State:
    state = State(
        players=players,
        seed=seed,
        moves_played=0,
        hand=1,
        starter=0,
        to_move=0,
        die=0,
        piece=0,
        stolen_from=None,
        jokers=0,
        pile=full_pile(players),
        grids=((),) * players,
        scores=(),
        last_hand=None,
        events=(),
    )
    return _start_turn(state, 0, [])


def totals(state: State) -> tuple[int, ...]:
    return tuple(sum(row[seat] for row in state.scores) for seat in range(state.players))


# --- moves ------------------------------------------------------------------------


def place(state: State, seat: int, cell: Cell, rotation: int) -> State:
    """Put the piece in hand on ``cell`` (already checked legal), then carry the turn on."""
    grid = grid_of(state.grids[seat])
    result = assess(grid, cell, state.piece, rotation)
    assert result is not None, "place() is only called with a legal placement"
    grid = placed(grid, cell, state.piece, rotation)
    state = replace(
        state,
        grids=_with(state.grids, seat, pieces_of(grid)),
        moves_played=state.moves_played + 1,
        piece=0,
        stolen_from=None,
        jokers=state.jokers + result[1],
    )
    events: list[Parts] = []
    goal = achieved(state.hand, grid)
    if goal:
        # The hand ends the moment the goal is met; jokers still pending are lost with it.
        return _end_hand(state, seat, goal, seat, events)
    return _use_jokers(state, seat, events)


def steal(state: State, seat: int, victim: int, cell: Cell) -> State:
    """Use one joker on ``victim``'s piece at ``cell`` (already checked legal)."""
    return _take(replace(state, moves_played=state.moves_played + 1), seat, victim, cell, [])


def targets(state: State, seat: int) -> list[tuple[int, Cell]]:
    """Every piece ``seat`` may steal: ``(victim, cell)`` over the other players' puzzles."""
    return [
        (victim, cell)
        for victim in range(state.players)
        if victim != seat
        for cell in steal_targets(grid_of(state.grids[victim]))
    ]


# --- what follows by itself -------------------------------------------------------


def _use_jokers(state: State, seat: int, events: list[Parts]) -> State:
    """Pending jokers: ask for a steal, take the only possible one, or lose them."""
    if state.jokers:
        possible = targets(state, seat)
        if len(possible) > 1:
            return replace(state, events=tuple(events))
        if len(possible) == 1:
            victim, cell = possible[0]
            return _take(state, seat, victim, cell, events, only=True)
        events.append((f"{_jokers(state.jokers)} lost: no piece can be stolen",))
        state = replace(state, jokers=0)
    return _start_turn(state, (seat + 1) % state.players, events)


def _take(state: State, seat: int, victim: int, cell: Cell, events: list[Parts], *, only: bool = False) -> State:
    """Move a piece from ``victim``'s puzzle into ``seat``'s hand, to be placed at once."""
    grid = grid_of(state.grids[victim])
    value = grid[cell][0]
    if only:  # a step with nothing to choose is taken by itself, and logged
        x, y = cell
        only_piece = "{} steals the {} at {},{} from {}, the only piece that can be taken"
        events.append(sentence(only_piece, Who(seat), label(value), x, y, Who(victim)))
    return replace(
        state,
        grids=_with(state.grids, victim, pieces_of(removed(grid, cell))),
        piece=value,
        stolen_from=victim,
        jokers=state.jokers - 1,
        events=tuple(events),
    )


def _start_turn(state: State, seat: int, events: list[Parts]) -> State:
    """Roll for ``seat``; a value no longer in the pile loses the turn, an empty pile ends the hand."""
    pile = list(state.pile)
    attempt = 0  # tells apart the rolls made inside one move (each lost turn rolls again)
    while True:
        if not any(pile):
            events.append((f"The pile is empty: hand {state.hand} ends without a winner",))
            return _end_hand(state, None, None, seat, events)
        die = rng_for(state.seed, state.moves_played, DIE_SALT, state.hand, attempt).randint(1, 6)
        if pile[die - 1]:
            pile[die - 1] -= 1
            events.append(rolled(seat, die))
            return replace(
                state,
                to_move=seat,
                die=die,
                piece=die,
                stolen_from=None,
                jokers=0,
                pile=tuple(pile),
                events=tuple(events),
            )
        events.append(sentence("{} rolled {}: none left, turn lost", Who(seat), die))
        seat = (seat + 1) % state.players
        attempt += 1


def rolled(seat: int, die: int) -> Parts:
    """The event a turn begins with (the move log leaves it to the line of that turn's placement)."""
    return sentence("{} rolled {}", Who(seat), die)


def hand_scores(state: State, winner: int | None, goal: Goal | None) -> list[Goal]:
    """What each seat scores for the hand under way, and with which pieces: the winner the goal
    (its highest set) and the bonus; everyone else, and everyone when the pile ran out, their best
    partial goal (in matches begun before that reading: every piece with a join)."""
    return [
        Goal(goal.points + WIN_BONUS, goal.cells) if seat == winner and goal is not None else standing(state, seat)
        for seat in range(state.players)
    ]


def standing(state: State, seat: int) -> Goal:
    """What ``seat`` would score if the hand under way ended now and they had not won it."""
    grid = grid_of(state.grids[seat])
    if state.scoring == JOINED_PIECES:
        return Goal(linked_points(grid), tuple(cell for cell, partners in links(grid).items() if partners))
    return partial(state.hand, grid)


def _end_hand(state: State, winner: int | None, goal: Goal | None, starter: int, events: list[Parts]) -> State:
    """Score the hand; start the next one with ``starter`` or end the game after the sixth."""
    scored = hand_scores(state, winner, goal)
    scores = tuple(part.points for part in scored)
    if winner is not None and goal is not None:
        name = GOAL_NAMES[state.hand]
        events.append(
            sentence("{} completes the {} and wins hand {}: {} points", Who(winner), name, state.hand, scores[winner])
        )
    result = HandResult(
        hand=state.hand,
        winner=winner,
        scores=scores,
        puzzles=state.grids,
        scored=tuple(part.cells for part in scored),
    )
    state = replace(state, scores=(*state.scores, scores), last_hand=result, jokers=0, piece=0, stolen_from=None)
    if state.hand == HANDS:
        events.append(("The game is over",))
        # The puzzles stay on the table at the end so the last position can be looked at.
        return replace(state, hand=HANDS + 1, die=0, events=tuple(events))
    fresh = replace(
        state,
        hand=state.hand + 1,
        starter=starter,
        pile=full_pile(state.players),
        grids=((),) * state.players,
    )
    return _start_turn(fresh, starter, events)


def _with(grids: tuple[tuple[Piece, ...], ...], seat: int, pieces: tuple[Piece, ...]) -> tuple[tuple[Piece, ...], ...]:
    return (*grids[:seat], pieces, *grids[seat + 1 :])


def _jokers(n: int) -> str:
    return "1 joker" if n == 1 else f"{n} jokers"
