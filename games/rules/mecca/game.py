"""The Mecca game object: the engine verbs on top of ``rules``."""

from __future__ import annotations

from typing import Any, ClassVar

from games.engine.base import Game, IllegalMove, Outcome
from games.engine.words import Parts, Who, join, merged, sentence
from games.rules.mecca import ai, explain
from games.rules.mecca.board import (
    CLOSE_TO_KAABA,
    COLOURS,
    CRESCENT_COLOUR,
    CRESCENTS,
    ENTRANCES,
    SQUARES,
    square_index,
    square_name,
)
from games.rules.mecca.notation import PASS, parse_move, place_move, remove_move
from games.rules.mecca.rules import (
    BLOCKED,
    EMPTIED,
    EMPTY,
    ENTRANCE,
    NO_COLOUR,
    NO_SQUARE,
    OVER,
    PLACE,
    REASONS,
    REMOVE,
    STEPS,
    Removal,
    State,
    choose_entrance,
    colours_of,
    emptied_seats,
    free_entrances,
    initial_state,
    max_per_turn,
    owner,
    place,
    placement_squares,
    removable_squares,
    removal_threshold,
    remove,
    scores,
    turn_order,
    winners,
)

NOT_STORED = "This is not a stored Mecca position."
STATE_KEYS = (
    "players",
    "seed",
    "board",
    "hand",
    "entrances",
    "step",
    "colour",
    "placed",
    "round",
    "final_round",
    "last_removal",
    "passed",
    "reason",
    "moves_played",
    "recent_removals",
)
END_WORDS = {
    BLOCKED: "no colour can place a pilgrim, so the game ends",
    EMPTIED: "the round is complete, so the game ends",
}


def _who(state: State, colour: int) -> Who:
    """The seat that plays ``colour``, named by it ("Green")."""
    return Who(owner(colour, state.players), COLOURS[colour])


def ordinal(k: int) -> str:
    return f"{k}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(k, 'th') }"


class Mecca(Game):
    slug = "mecca"
    name = "Mecca"
    min_players = 2
    max_players = 6
    ai_levels: ClassVar[dict[int, str]] = ai.LEVELS
    # Random games measured at most ~200 moves (6 colours); the cap leaves wide room.
    playout_limit: ClassVar[int] = 1_500

    # --- creating -----------------------------------------------------------------

    def _initial_state(self, num_players: int, options: dict[str, str], seed: int) -> State:
        return initial_state(num_players, seed)

    def num_players(self, state: State) -> int:
        return state.players

    # --- playing ------------------------------------------------------------------

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.step == OVER else (owner(state.colour, state.players),)

    def _legal_moves(self, state: State, seat: int) -> list[str]:
        if state.step == OVER or seat != owner(state.colour, state.players):
            return []
        return legal_moves(state)

    def _apply(self, state: State, seat: int, move: str) -> State:
        parsed = parse_move(move)
        if state.step == ENTRANCE:
            assert parsed.square is not None  # a legal set-up move names an entrance
            return choose_entrance(state, parsed.square)
        if state.step == PLACE:
            assert parsed.square is not None  # a legal placement names a square
            return place(state, parsed.square)
        return remove(state, parsed.square)

    def explain_illegal(self, state: State, seat: int, move: str) -> str:
        return explain.why_not(state, move) or super().explain_illegal(state, seat, move)

    def outcome(self, state: State) -> Outcome | None:
        if state.step != OVER:
            return None
        totals = tuple(score.total for score in scores(state.board, state.players))
        return Outcome(scores=totals, winners=winners(state))

    def conserved(self, state: State) -> dict[str, int]:
        """Every colour's pilgrims on the board plus those in hand: always 18."""
        on_board = [0] * state.colours
        for colour in state.board:
            if colour != EMPTY:
                on_board[colour] += 1
        return {COLOURS[c]: on_board[c] + state.hand[c] for c in range(state.colours)}

    # --- showing ------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        acting = state.step != OVER
        return {
            "board": {square_name(sq): COLOURS[c] for sq, c in enumerate(state.board) if c != EMPTY},
            "in_hand": {COLOURS[c]: count for c, count in enumerate(state.hand)},
            "colours": [[COLOURS[c] for c in colours_of(s, state.players)] for s in range(state.players)],
            "to_act": list(self.to_act(state)),
            "colour_to_act": COLOURS[state.colour] if acting else None,
            "step": state.step,
            "placement": state.placed + 1 if state.step == PLACE else None,
            "placed_this_turn": state.placed,
            "max_per_turn": 1 if state.round == 1 else max_per_turn(state.colours),
            "removal_threshold": removal_threshold(state.colours),
            "round": state.round,
            "first_round": state.round == 1,
            "final_round": state.final_round,
            "order": [COLOURS[c] for c in _order_or_setup(state)],
            "entrances": {COLOURS[c]: square_name(sq) for c, sq in enumerate(state.entrances) if sq != NO_SQUARE},
            "unused_entrances": [] if state.step == ENTRANCE else [square_name(sq) for sq in free_entrances(state)],
            "purple_in_play": state.colours > 4,
            "crescents": {COLOURS[c]: sorted(square_name(sq) for sq in CRESCENTS[c]) for c in range(len(COLOURS))},
            "close_to_kaaba": sorted(square_name(sq) for sq in CLOSE_TO_KAABA),
            "targets": sorted(_targets(state)) if acting else [],
            "legal_moves": self.legal_moves(state, seat) if seat is not None else [],
            "last_removal": _removal_view(state.last_removal),
            "recent_removals": [_removal_view(removal) for removal in state.recent_removals],
            "passed": [COLOURS[c] for c in state.passed],
            "over": not acting,
            "reason": state.reason,
            "scores": _scores_view(state) if not acting else [],
            "winners": list(winners(state)) if not acting else [],
            "moves_played": state.moves_played,
        }

    def describe_parts(self, state: State, seat: int, move: str) -> Parts:
        move = self.normalize(move)
        if move not in self.legal_moves(state, seat):
            raise IllegalMove(self.explain_illegal(state, seat, move))
        after = self._apply(state, seat, move)
        parsed = parse_move(move)
        who = _who(state, state.colour)
        if state.step == ENTRANCE:
            door = ENTRANCES.index(parsed.square) + 1
            clauses = [sentence("{} enters at {} (entrance {})", who, move, door)]
        elif state.step == PLACE:
            assert parsed.square is not None  # a legal placement names a square
            clauses = _placement_clauses(state, after, parsed.square)
        elif parsed.kind == "pass":
            clauses = [sentence("{} removes no pilgrim", who)]
        else:
            assert after.last_removal is not None  # a legal removal other than a pass is recorded
            clauses = _removal_clauses(state, after.last_removal)
        clauses += _consequences(state, after)
        return merged([*join(clauses, "; "), "."])

    def win_reason_parts(self, state: State) -> Parts:
        emptied = emptied_seats(state.hand, state.players)
        if state.step != OVER or len(emptied) != 1:
            return ()
        return sentence("{} placed all their pilgrims", Who(emptied[0]))

    # --- storing ------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "players": state.players,
            "seed": state.seed,
            "board": {square_name(sq): COLOURS[c] for sq, c in enumerate(state.board) if c != EMPTY},
            "hand": {COLOURS[c]: count for c, count in enumerate(state.hand)},
            "entrances": {COLOURS[c]: square_name(sq) for c, sq in enumerate(state.entrances) if sq != NO_SQUARE},
            "step": state.step,
            "colour": COLOURS[state.colour] if state.colour != NO_COLOUR else None,
            "placed": state.placed,
            "round": state.round,
            "final_round": state.final_round,
            "last_removal": _removal_view(state.last_removal),
            "passed": [COLOURS[c] for c in state.passed],
            "reason": state.reason,
            "moves_played": state.moves_played,
            "recent_removals": [_removal_view(removal) for removal in state.recent_removals],
        }

    def load(self, data: dict[str, Any]) -> State:
        known = set(data) | {"recent_removals"}  # positions stored before "recent_removals" load too
        if known != set(STATE_KEYS) or data["step"] not in STEPS or data["reason"] not in REASONS:
            raise ValueError(NOT_STORED)
        try:
            return _load(data)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(NOT_STORED) from error

    # --- AI -----------------------------------------------------------------------

    def _ai_move(self, state: State, seat: int, level: int, seed: int) -> str:
        return ai.choose(state, level, seed)


def legal_moves(state: State) -> list[str]:
    """The acting colour's moves, in notation (unsorted)."""
    if state.step == ENTRANCE:
        return [place_move(square) for square in free_entrances(state)]
    if state.step == PLACE:
        return [
            place_move(square)
            for square in placement_squares(state.board, state.colour, state.placed + 1, state.colours)
        ]
    return [PASS, *(remove_move(square) for square in removable_squares(state.board))]


def _targets(state: State) -> list[str]:
    """Squares the acting colour may play now (the page marks them for everyone)."""
    return [move.removeprefix("x") for move in legal_moves(state) if move != PASS]


def _order_or_setup(state: State) -> tuple[int, ...]:
    """The playing order once every colour has an entrance; colour order during set-up."""
    return tuple(range(state.colours)) if state.step == ENTRANCE else turn_order(state.entrances)


def _removal_view(removal: Removal | None) -> dict[str, Any] | None:
    if removal is None:
        return None
    return {
        "by": COLOURS[removal.by],
        "square": square_name(removal.square),
        "colour": COLOURS[removal.colour],
        "returned": [[square_name(sq), COLOURS[c]] for sq, c in removal.returned],
    }


def _scores_view(state: State) -> list[dict[str, Any]]:
    emptied = emptied_seats(state.hand, state.players)
    return [
        {
            "seat": seat,
            "colours": [COLOURS[c] for c in colours_of(seat, state.players)],
            "pilgrims": score.pilgrims,
            "crescents": score.crescents,
            "total": score.total,
            "kaaba": score.kaaba,
            "placed_all": seat in emptied,
        }
        for seat, score in enumerate(scores(state.board, state.players))
    ]


def _placement_clauses(state: State, after: State, square: int) -> list[Parts]:
    who, k = _who(state, state.colour), state.placed + 1
    which = "its one of the first round" if state.round == 1 else f"{ordinal(k)} of the turn"
    line = sentence("{} places a pilgrim on {} ({})", who, square_name(square), which)
    if CRESCENT_COLOUR.get(square) == state.colour:
        line = merged([*line, ", on its own crescent"])
    clauses = [line]
    if after.step == REMOVE:
        clauses.append(sentence("{} may remove a pilgrim", who))
    elif state.round != 1 and not _turn_goes_on(state, after):
        if k < max_per_turn(state.colours):
            if after.hand[state.colour] == 0:
                clauses.append(sentence("{} has no pilgrim left to place", who))
            else:
                clauses.append((f"no square takes a {ordinal(k + 1)} pilgrim, so the turn ends",))
        if k >= removal_threshold(state.colours):  # the removal was earned, but the step was skipped
            clauses.append(("no pilgrim can be removed",))
    return clauses


def _turn_goes_on(state: State, after: State) -> bool:
    return after.step == PLACE and after.colour == state.colour and after.placed == state.placed + 1


def _removal_clauses(state: State, removal: Removal) -> list[Parts]:
    who = _who(state, state.colour)
    clauses = [sentence("{} removes the {} pilgrim on {}", who, COLOURS[removal.colour], square_name(removal.square))]
    if removal.returned:
        lonely = [f"the {COLOURS[c]} pilgrim on {square_name(sq)}" for sq, c in removal.returned]
        verb = "goes" if len(lonely) == 1 else "go"
        clauses.append((f"{_join(lonely)}, left with no neighbour, {verb} back",))
    return clauses


def _consequences(state: State, after: State) -> list[Parts]:
    clauses: list[Parts] = []
    if after.final_round and not state.final_round:
        # Said also when the game ends at once: it is why the round was the last, and may decide the winner.
        last = ", so this round is the last" if after.step != OVER else ""
        clauses.append((f"a player has placed all his pilgrims{last}",))
    clauses += [sentence("{} cannot place and passes", _who(state, c)) for c in after.passed]
    if after.step == OVER:
        clauses.append((END_WORDS[after.reason],))
    return clauses


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _load(data: dict[str, Any]) -> State:
    colour_index = {name: c for c, name in enumerate(COLOURS)}
    players = data["players"]
    if not 2 <= players <= 6:
        raise ValueError(NOT_STORED)
    colours = len(data["hand"])
    board = [EMPTY] * SQUARES
    for name, colour in data["board"].items():
        board[_square(name)] = colour_index[colour]
    entrances = [NO_SQUARE] * colours
    for colour, name in data["entrances"].items():
        entrances[colour_index[colour]] = _square(name)

    def removal(stored: dict[str, Any]) -> Removal:
        return Removal(
            by=colour_index[stored["by"]],
            square=_square(stored["square"]),
            colour=colour_index[stored["colour"]],
            returned=tuple((_square(sq), colour_index[c]) for sq, c in stored["returned"]),
        )

    def removal_of(stored: dict[str, Any] | None) -> Removal | None:
        if stored is None:
            return None
        return removal(stored)

    return State(
        players=players,
        seed=data["seed"],
        board=tuple(board),
        hand=tuple(data["hand"][COLOURS[c]] for c in range(colours)),
        entrances=tuple(entrances),
        step=data["step"],
        colour=colour_index[data["colour"]] if data["colour"] is not None else NO_COLOUR,
        placed=data["placed"],
        round=data["round"],
        final_round=data["final_round"],
        last_removal=removal_of(data["last_removal"]),
        passed=tuple(colour_index[c] for c in data["passed"]),
        reason=data["reason"],
        moves_played=data["moves_played"],
        # Positions stored before this field have none: their last removal stands for them.
        recent_removals=tuple(removal(r) for r in data.get("recent_removals", [data["last_removal"]]) if r),
    )


def _square(name: str) -> int:
    square = square_index(name)
    if square is None:
        raise ValueError(NOT_STORED)
    return square
