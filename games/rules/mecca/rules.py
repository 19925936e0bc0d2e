"""The state and the rules of Mecca as plain functions over a tuple board.

``board[square]`` is the colour index (0 yellow … 5 white) of the pilgrim standing
there, or ``EMPTY``. Colours are handed out in ``COLOURS`` order, so the colours in play
are always ``0 .. colours - 1`` and colour ``c`` belongs to seat ``c % players``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from games.rules.mecca.board import (
    CLOSE_TO_KAABA,
    CRESCENT_COLOUR,
    ENTRANCES,
    NEIGHBOURS,
    SQUARES,
    playable_squares,
)

EMPTY = -1
NO_SQUARE = -1
NO_COLOUR = -1
PILGRIMS = 18  # per colour

ENTRANCE, PLACE, REMOVE, OVER = "entrance", "place", "remove", "over"
STEPS = (ENTRANCE, PLACE, REMOVE, OVER)
BLOCKED, EMPTIED = "blocked", "emptied"  # why a game ended
REASONS = ("", BLOCKED, EMPTIED)

# Colours in play per player count: 2 and 3 players play two colours each.
COLOURS_IN_PLAY = {2: 4, 3: 6, 4: 4, 5: 5, 6: 6}


class Removal(NamedTuple):
    """One removal: who removed which pilgrim, and the isolated pilgrims that went back."""

    by: int
    square: int
    colour: int
    returned: tuple[tuple[int, int], ...]  # (square, colour) of every isolated pilgrim


@dataclass(frozen=True)
class State:
    players: int
    seed: int
    board: tuple[int, ...]
    hand: tuple[int, ...]  # pilgrims still in hand, per colour in play
    entrances: tuple[int, ...]  # entrance square of each colour, NO_SQUARE until chosen
    step: str
    colour: int  # the colour to act, NO_COLOUR once the game is over
    placed: int  # pilgrims the colour to act has placed this turn
    round: int  # 0 during set-up, then 1, 2, …
    final_round: bool  # a player emptied his hand: this round is the last
    last_removal: Removal | None  # the removal of the last turn a player played
    passed: tuple[int, ...]  # colours that passed by themselves right after the last move
    reason: str  # BLOCKED or EMPTIED once over, else ""
    moves_played: int
    # Every removal since each colour's own last turn, oldest first: what a player coming
    # back to the board has not seen yet (``last_removal`` is only the latest turn's).
    recent_removals: tuple[Removal, ...] = ()

    @property
    def colours(self) -> int:
        return len(self.hand)


# --- the numbers of a game ----------------------------------------------------------


def max_per_turn(colours: int) -> int:
    """M: the number of colours in play minus one (3, 4 or 5)."""
    return colours - 1


def removal_threshold(colours: int) -> int:
    """T: pilgrims to place in a turn to earn a removal (3 with 4 colours, else 4)."""
    return 3 if colours == 4 else 4


def owner(colour: int, players: int) -> int:
    return colour % players


def colours_of(seat: int, players: int) -> tuple[int, ...]:
    return tuple(range(seat, COLOURS_IN_PLAY[players], players))


@cache
def playable(colours: int) -> tuple[int, ...]:
    return playable_squares(colours)


def turn_order(entrances: tuple[int, ...]) -> tuple[int, ...]:
    """Colours in playing order: yellow (seat 0's first colour) first, then each colour
    whose entrance follows counter-clockwise."""
    by_door = sorted(range(len(entrances)), key=lambda colour: ENTRANCES.index(entrances[colour]))
    start = by_door.index(0)
    return tuple(by_door[start:] + by_door[:start])


# --- the placement test -------------------------------------------------------------


def fits(board: tuple[int, ...] | list[int], square: int, colour: int, k: int) -> bool:
    """The k-th pilgrim's test: exactly k neighbours, of k colours, none of them ``colour``."""
    seen = 0
    count = 0
    for neighbour in NEIGHBOURS[square]:
        other = board[neighbour]
        if other == EMPTY:
            continue
        bit = 1 << other
        if other == colour or seen & bit:
            return False
        seen |= bit
        count += 1
    return count == k


def placement_squares(board: tuple[int, ...] | list[int], colour: int, k: int, colours: int) -> list[int]:
    """Every empty square in play where ``colour`` may put its k-th pilgrim of the turn."""
    return [square for square in playable(colours) if board[square] == EMPTY and fits(board, square, colour, k)]


def open_squares(board: tuple[int, ...] | list[int], colours: int) -> list[list[int]]:
    """``[colour][k]``: how many empty squares in play would take a k-th pilgrim of that
    colour (next to exactly k pilgrims, of k colours, none its own). For the strong AI,
    which reads every colour's prospects at once; ``fits`` is the rule, square by square."""
    counts = [[0] * (colours + 1) for _ in range(colours)]
    for square in playable(colours):
        if board[square] != EMPTY:
            continue
        seen = count = 0
        for neighbour in NEIGHBOURS[square]:
            other = board[neighbour]
            if other != EMPTY:
                if seen & (1 << other):
                    count = 0
                    break
                seen |= 1 << other
                count += 1
        if count:
            for colour in range(colours):
                if not seen & (1 << colour):
                    counts[colour][count] += 1
    return counts


def can_place(board: tuple[int, ...], hand: tuple[int, ...], colour: int) -> bool:
    """Whether ``colour`` could start a turn: a pilgrim in hand and a square for the 1st."""
    if not hand[colour]:
        return False
    return any(board[square] == EMPTY and fits(board, square, colour, 1) for square in playable(len(hand)))


# --- removal ------------------------------------------------------------------------


def is_removable(board: tuple[int, ...], square: int) -> bool:
    """A pilgrim next to two or more pilgrims of one colour, and not on an entrance."""
    if board[square] == EMPTY or square in ENTRANCES:
        return False
    seen = 0
    for neighbour in NEIGHBOURS[square]:
        other = board[neighbour]
        if other == EMPTY:
            continue
        if seen & (1 << other):
            return True
        seen |= 1 << other
    return False


def removable_squares(board: tuple[int, ...]) -> list[int]:
    return [square for square in range(SQUARES) if is_removable(board, square)]


def isolated_squares(board: tuple[int, ...] | list[int]) -> list[int]:
    """Pilgrims with no neighbour at all, entrance pilgrims excepted (they never go back)."""
    return [
        square
        for square in range(SQUARES)
        if board[square] != EMPTY
        and square not in ENTRANCES
        and all(board[neighbour] == EMPTY for neighbour in NEIGHBOURS[square])
    ]


def take_away(
    board: tuple[int, ...], hand: tuple[int, ...], square: int, by: int
) -> tuple[tuple[int, ...], tuple[int, ...], Removal]:
    """Remove the pilgrim on ``square``, then every pilgrim it left isolated; all go back
    to their owners. Returns ``(board, hand, Removal)``."""
    cells, counts = list(board), list(hand)
    colour = cells[square]
    cells[square] = EMPTY
    counts[colour] += 1
    returned = []
    for lonely in isolated_squares(cells):
        returned.append((lonely, cells[lonely]))
        counts[cells[lonely]] += 1
        cells[lonely] = EMPTY
    return tuple(cells), tuple(counts), Removal(by, square, colour, tuple(returned))


# --- creating and moving ------------------------------------------------------------


def initial_state(players: int, seed: int) -> State:
    colours = COLOURS_IN_PLAY[players]
    return State(
        players=players,
        seed=seed,
        board=(EMPTY,) * SQUARES,
        hand=(PILGRIMS,) * colours,
        entrances=(NO_SQUARE,) * colours,
        step=ENTRANCE,
        colour=0,
        placed=0,
        round=0,
        final_round=False,
        last_removal=None,
        passed=(),
        reason="",
        moves_played=0,
    )


def free_entrances(state: State) -> list[int]:
    return [square for square in ENTRANCES if square not in state.entrances]


def choose_entrance(state: State, square: int) -> State:
    """Set-up: the colour to act puts a pilgrim on a free entrance. Colours choose in
    colour order, which is seat order (alternating seats in two-colour games)."""
    board = _put(state.board, square, state.colour)
    hand = _add(state.hand, state.colour, -1)
    entrances = tuple(square if c == state.colour else e for c, e in enumerate(state.entrances))
    nxt = state.colour + 1
    if nxt < state.colours:
        return _moved(state, board=board, hand=hand, entrances=entrances, colour=nxt, passed=())
    # Set-up done: round 1 starts with the first colour of the order.
    started = _moved(state, board=board, hand=hand, entrances=entrances, round=1)
    return _next_turn(started, position=-1, removal=None)


def place(state: State, square: int) -> State:
    """The colour to act places its next pilgrim; the turn goes on while it can."""
    colour, k = state.colour, state.placed + 1
    board = _put(state.board, square, colour)
    hand = _add(state.hand, colour, -1)
    after = _moved(state, board=board, hand=hand, placed=k, passed=())
    limit = 1 if state.round == 1 else max_per_turn(state.colours)  # one pilgrim in the first round
    if k < limit and hand[colour] and placement_squares(board, colour, k + 1, state.colours):
        return after
    if k >= removal_threshold(state.colours) and removable_squares(board):
        return _replace(after, step=REMOVE)
    return _end_turn(after, removal=None)


def remove(state: State, square: int | None) -> State:
    """The removal step: ``square`` is the pilgrim taken away, None declines."""
    if square is None:
        return _end_turn(_moved(state, passed=()), removal=None)
    board, hand, removal = take_away(state.board, state.hand, square, state.colour)
    return _end_turn(_moved(state, board=board, hand=hand, passed=()), removal=removal)


def seat_hand(hand: tuple[int, ...], seat: int, players: int) -> int:
    return sum(hand[colour] for colour in colours_of(seat, players))


def _end_turn(state: State, removal: Removal | None) -> State:
    emptied = any(seat_hand(state.hand, seat, state.players) == 0 for seat in range(state.players))
    state = _replace(state, final_round=state.final_round or emptied)
    position = turn_order(state.entrances).index(state.colour)
    return _next_turn(state, position, removal)


def _next_turn(state: State, position: int, removal: Removal | None) -> State:
    """Hand the turn on from the colour at ``position`` of the order. Colours that cannot
    place pass by themselves; the game ends when nobody can place, or when the round of
    a player who emptied his hand is complete."""
    recent = (*state.recent_removals, removal) if removal else state.recent_removals
    base = _replace(state, placed=0, last_removal=removal, recent_removals=recent)
    order = turn_order(state.entrances)
    if not any(can_place(state.board, state.hand, colour) for colour in order):
        return _replace(base, step=OVER, colour=NO_COLOUR, reason=BLOCKED, passed=())
    passed: list[int] = []
    rnd = state.round
    while True:
        position += 1
        if position == len(order):
            position, rnd = 0, rnd + 1
            if state.final_round:
                return _replace(base, step=OVER, colour=NO_COLOUR, reason=EMPTIED, passed=tuple(passed))
        colour = order[position]
        if can_place(state.board, state.hand, colour):
            # A round on, the removals of the colours that now act or pass are a round old.
            done = {colour, *passed}
            return _replace(
                base,
                step=PLACE,
                colour=colour,
                round=rnd,
                passed=tuple(passed),
                recent_removals=tuple(r for r in recent if r.by not in done),
            )
        passed.append(colour)


def _moved(state: State, **changes: Any) -> State:
    return _replace(state, moves_played=state.moves_played + 1, **changes)


def _replace(state: State, **changes: Any) -> State:
    fields = {name: getattr(state, name) for name in State.__dataclass_fields__}
    fields.update(changes)
    return State(**fields)


def _put(board: tuple[int, ...], square: int, colour: int) -> tuple[int, ...]:
    return (*board[:square], colour, *board[square + 1 :])


def _add(hand: tuple[int, ...], colour: int, amount: int) -> tuple[int, ...]:
    return tuple(count + amount if c == colour else count for c, count in enumerate(hand))


# --- scoring ------------------------------------------------------------------------


class Score(NamedTuple):
    pilgrims: int  # pilgrims of the seat's colours on the board, entrances included
    crescents: int  # of those, pilgrims on a crescent of their own colour (they count twice)
    kaaba: int  # of those, pilgrims on the squares close to the Kaaba (the tie-break)

    @property
    def total(self) -> int:
        return self.pilgrims + self.crescents


def scores(board: tuple[int, ...], players: int) -> list[Score]:
    pilgrims = [0] * players
    crescents = [0] * players
    kaaba = [0] * players
    for square in range(SQUARES):
        colour = board[square]
        if colour == EMPTY:
            continue
        seat = owner(colour, players)
        pilgrims[seat] += 1
        crescents[seat] += CRESCENT_COLOUR.get(square) == colour
        kaaba[seat] += square in CLOSE_TO_KAABA
    return [Score(*numbers) for numbers in zip(pilgrims, crescents, kaaba, strict=True)]


def totals(board: tuple[int, ...] | list[int], players: int) -> list[int]:
    """Each seat's ``Score.total`` alone, for the AI, which needs it many times a move."""
    points = [0] * players
    for square, colour in enumerate(board):
        if colour != EMPTY:
            points[colour % players] += 2 if CRESCENT_COLOUR.get(square) == colour else 1
    return points


def emptied_seats(hand: tuple[int, ...], players: int) -> list[int]:
    """Seats with no pilgrim left in hand: they have placed all their pilgrims."""
    return [seat for seat in range(players) if seat_hand(hand, seat, players) == 0]


def winners(state: State) -> tuple[int, ...]:
    return winners_of(state.board, state.hand, state.players)


def winners_of(board: tuple[int, ...], hand: tuple[int, ...], players: int) -> tuple[int, ...]:
    """The only player who placed all his pilgrims; else the best total, then the most
    pilgrims close to the Kaaba; players still tied all win."""
    emptied = emptied_seats(hand, players)
    if len(emptied) == 1:
        return (emptied[0],)
    table = scores(board, players)
    best = max(score.total for score in table)
    tied = [seat for seat, score in enumerate(table) if score.total == best]
    closest = max(table[seat].kaaba for seat in tied)
    return tuple(seat for seat in tied if table[seat].kaaba == closest)
