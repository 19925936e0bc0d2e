"""Rebuilding positions from the seed and the move records (the replay and its check)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from games.boards import LastMove
from games.models import Match, MoveRecord

# The replay page rebuilds a position per request. From the start, a step near the end of a long match
# applied every move again (650 for an 8-player Jeexa: over 100 ms a step). Each process keeps the
# positions it passes every CHECKPOINT_EVERY plies, so a step applies at most that many moves. States
# are immutable and a match's seed and first moves never change, so a kept position never goes stale.
CHECKPOINT_EVERY = 20
CHECKPOINTS_KEPT = 1000  # per process, the least recently used dropped first: about 10 KB each
_checkpoints: OrderedDict[tuple[int, int, int], object] = OrderedDict()
_checkpoints_lock = threading.Lock()


def initial_state(match: Match):
    game = match.game_obj
    return game.initial_state_as_stored(match.state, len(match.seats.all()), match.options, match.seed)


def replay_state(match: Match, moves: list[MoveRecord]):
    """The position after ``moves`` (the match's first moves, in order), rebuilt from the seed."""
    game = match.game_obj
    state = initial_state(match)
    for record in moves:
        state = game.apply(state, record.seat, record.notation)
    return state


def position_at(match: Match, moves: list[MoveRecord], ply: int):
    """The position after the first ``ply`` of ``moves`` (all the match's moves, in order), as the replay
    shows it: the stored state at the match's version, otherwise rebuilt from the nearest kept position."""
    game = match.game_obj
    if ply == match.version:
        return game.load(match.state)
    start, state = _nearest_checkpoint(match, ply)
    if state is None:
        start, state = 0, initial_state(match)
    for done, record in enumerate(moves[start:ply], start + 1):
        state = game.apply(state, record.seat, record.notation)
        if done % CHECKPOINT_EVERY == 0:
            _keep(match, done, state)
    return state


def _nearest_checkpoint(match: Match, ply: int) -> tuple[int, object | None]:
    with _checkpoints_lock:
        for kept in range(ply - ply % CHECKPOINT_EVERY, 0, -CHECKPOINT_EVERY):
            key = (match.pk, match.seed, kept)
            if key in _checkpoints:
                _checkpoints.move_to_end(key)
                return kept, _checkpoints[key]
    return 0, None


def _keep(match: Match, ply: int, state) -> None:
    with _checkpoints_lock:
        _checkpoints[(match.pk, match.seed, ply)] = state
        _checkpoints.move_to_end((match.pk, match.seed, ply))
        while len(_checkpoints) > CHECKPOINTS_KEPT:
            _checkpoints.popitem(last=False)


def positions_count(moves: list[MoveRecord]) -> int:
    return len(moves) + 1


def marks_from(moves: list[MoveRecord], seat: int | None) -> int:
    """The ply a board's last-move marks count from: for a player the others moved after, right
    after their own last move (back after two days, they see everything the others did);
    otherwise the start of the latest turn (a run of moves by one seat: Mecca's placements,
    Mesopotamia's steps)."""
    mine = next((index for index in range(len(moves) - 1, -1, -1) if moves[index].seat == seat), None)
    if mine is not None and mine < len(moves) - 1:
        return mine + 1
    start = len(moves) - 1
    while start > 0 and moves[start - 1].seat == moves[-1].seat:
        start -= 1
    return start


def last_move(match: Match, moves: list[MoveRecord], seat: int | None, held: list[str] = ()) -> LastMove | None:
    """What the match page's board marks as changed (from ``marks_from``), in the viewer's view,
    with the steps the viewer holds this turn after the moves played. Built from the move
    records already read: no query."""
    start = marks_from(moves, seat)
    if start < 0:
        if not held:
            return None
        start = 0
    before = match.game_obj.view(position_at(match, moves, start), seat)
    played = [(record.seat, record.notation) for record in moves[start:]]
    return LastMove(before, (*played, *((seat, step) for step in held)))
