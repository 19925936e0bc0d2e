"""The Mancala game object: the engine verbs on top of ``rules``."""

from __future__ import annotations

from typing import Any, ClassVar

from games.engine.base import Game, IllegalMove, Outcome
from games.engine.words import Parts, Who, join, merged, sentence
from games.rules.mancala import ai
from games.rules.mancala.notation import format_move, named_tile, parse_move
from games.rules.mancala.rules import (
    ETHIOPIAN,
    LEFT,
    NIGERIAN,
    RIGHT,
    STALL_LIMIT,
    START_COINS,
    TILES,
    VARIANTS,
    Sowing,
    State,
    Turn,
    hole,
    movable,
    play,
    side,
    state_from_board,
)

EMPTY_TILE = "That tile is empty."
SINGLE_COIN = "In the Ethiopian game you may never start from a tile holding a single coin."
DIRECTION_WORDS = {RIGHT: "to the right", LEFT: "to the left"}
STATE_KEYS = ("variant", "tiles", "mancalas", "to_move", "over", "seed", "moves_played", "quiet_moves")


class Mancala(Game):
    slug = "mancala"
    name = "Mancala"
    min_players = 2
    max_players = 2
    options: ClassVar[dict[str, tuple[str, ...]]] = {"variant": VARIANTS}
    ai_levels: ClassVar[dict[int, str]] = {1: "Easy", 2: "Strong"}
    # Measured over 2,000 random games per variant: the longest took 117 moves (Ethiopian; mean
    # 60), Kalah 77, Egyptian 72, Nigerian 60; 1,000 leaves a wide margin.
    playout_limit: ClassVar[int] = 1_000

    # --- creating -----------------------------------------------------------------

    def _initial_state(self, num_players: int, options: dict[str, str], seed: int) -> State:
        row = (START_COINS,) * TILES
        return State(options["variant"], (row, row), (0, 0), 0, False, seed, 0)

    def num_players(self, state: State) -> int:
        return 2

    # --- playing ------------------------------------------------------------------

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.to_move,)

    def _legal_moves(self, state: State, seat: int) -> list[str]:
        if state.over or seat != state.to_move:
            return []
        steps = (RIGHT, LEFT) if state.variant == ETHIOPIAN else (RIGHT,)
        return [
            format_move(tile, step, state.variant)
            for tile in movable(state.board, seat, state.variant)
            for step in steps
        ]

    def _apply(self, state: State, seat: int, move: str) -> State:
        turn = self._play(state, seat, move)
        return state_from_board(state, turn.board, turn.to_move, turn.over, turn.stalled)

    def _play(self, state: State, seat: int, move: str) -> Turn:
        tile, step = parse_move(move, state.variant)
        return play(state.board, seat, tile, step, state.variant, state.quiet_moves)

    def explain_illegal(self, state: State, seat: int, move: str) -> str:
        tile = named_tile(move)  # the tile first: "1r" on an empty tile is refused for the tile, not the "r"
        if tile is not None:
            coins = state.board[hole(seat, tile)]
            if coins == 0:
                return EMPTY_TILE
            if state.variant == ETHIOPIAN and coins == 1:
                return SINGLE_COIN
        try:
            parse_move(move, state.variant)
        except ValueError as error:
            return str(error)
        return super().explain_illegal(state, seat, move)

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        best = max(state.mancalas)
        winners = tuple(seat for seat in (0, 1) if state.mancalas[seat] == best)
        return Outcome(scores=state.mancalas, winners=winners)

    def conserved(self, state: State) -> dict[str, int]:
        return {"coins": sum(state.board)}

    # --- showing ------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        outcome = self.outcome(state)
        return {
            "variant": state.variant,
            "tiles": [list(state.tiles[0]), list(state.tiles[1])],
            "mancalas": list(state.mancalas),
            "to_act": list(self.to_act(state)),
            "over": state.over,
            "winners": list(outcome.winners) if outcome else [],
            "moves_played": state.moves_played,
            "quiet_moves": state.quiet_moves,  # Ethiopian: the game ends at STALL_LIMIT
            "choose_direction": state.variant == ETHIOPIAN,
            "legal_moves": self.legal_moves(state, seat) if seat is not None else [],
        }

    def describe_parts(self, state: State, seat: int, move: str) -> Parts:
        move = self.normalize(move)
        if move not in self.legal_moves(state, seat):
            raise IllegalMove(self.explain_illegal(state, seat, move))
        tile, step = parse_move(move, state.variant)
        turn = self._play(state, seat, move)
        where = f"tile {tile + 1}"
        if state.variant == ETHIOPIAN:
            where += " " + DIRECTION_WORDS[step]
        clauses = [(coins(turn.sowing.coins),), *_events(seat, turn.sowing, turn)]
        line = sentence("{} sows {}: ", Who(seat), where) + _join(clauses)
        return merged([*join([line, *_consequences(seat, turn, state.variant)], "; "), "."])

    # --- storing ------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "variant": state.variant,
            "tiles": [list(state.tiles[0]), list(state.tiles[1])],
            "mancalas": list(state.mancalas),
            "to_move": state.to_move,
            "over": state.over,
            "seed": state.seed,
            "moves_played": state.moves_played,
            "quiet_moves": state.quiet_moves,
        }

    def load(self, data: dict[str, Any]) -> State:
        # Positions stored before the stall rule have no "quiet_moves": they count from 0.
        if set(data) | {"quiet_moves"} != set(STATE_KEYS) or data["variant"] not in VARIANTS:
            raise ValueError("This is not a stored Mancala position.")
        tiles = data["tiles"]
        return State(
            variant=data["variant"],
            tiles=(tuple(tiles[0]), tuple(tiles[1])),
            mancalas=(data["mancalas"][0], data["mancalas"][1]),
            to_move=data["to_move"],
            over=data["over"],
            seed=data["seed"],
            moves_played=data["moves_played"],
            quiet_moves=data.get("quiet_moves", 0),
        )

    # --- AI -----------------------------------------------------------------------

    def _ai_move(self, state: State, seat: int, level: int, seed: int) -> str:
        tile, step = ai.choose(state, seat, level, seed)
        return format_move(tile, step, state.variant)


def _events(seat: int, sowing: Sowing, turn: Turn) -> list[Parts]:
    """What the sowing did, in the order it happens."""
    events: list[Parts] = []
    if sowing.relays:
        events.append(("relays once" if sowing.relays == 1 else f"relays {sowing.relays} times",))
    for owner in (seat, 1 - seat):
        if sowing.banked[owner]:
            who = ("banks",) if owner == seat else sentence("{} banks", Who(owner))
            events.append(merged([*who, f" {sowing.banked[owner]} by the 4-coin rule"]))
    if sowing.repeated:
        events.append(("stops because the relay repeats itself",))
    if sowing.captured:
        events.append((f"captures {sowing.captured}",))
    if sowing.extra_turn:
        moves_again = not turn.over and turn.passed != seat
        events.append(("moves again" if moves_again else "ends in the mancala",))
    return events


def _consequences(seat: int, turn: Turn, variant: str) -> list[Parts]:
    """What the move did to the game: a forced pass, the end, and where the coins left on
    the tiles went (banked by their owners, or, Nigerian, left out of the count)."""
    if turn.stalled:
        return [(f"{STALL_LIMIT} moves in a row banked no coin, so the game ends",), *_swept(turn.swept)]
    if turn.over and variant == NIGERIAN:
        left = side(turn.board, seat)
        verb = "stays" if left == 1 else "stay"
        stays = sentence(" ({} on {} tiles {} out of the count)", coins(left), Who(seat, possessive=True), verb)
        ends = sentence("{} has no coin left on their tiles, so the game ends", Who(1 - seat))
        return [merged(ends + stays) if left else ends]
    if turn.over:
        why = "neither player can move, so the game ends" if turn.passed is not None else "the game ends"
        return [(why,), *_swept(turn.swept)]
    if turn.passed is not None:
        return [sentence("{} has no move and passes", Who(turn.passed))]
    return []


def _swept(swept: tuple[int, int]) -> list[Parts]:
    """The end's sweep: each player banks the coins left on their own tiles."""
    owners = [owner for owner in (0, 1) if swept[owner]]
    if not owners:
        return []
    first = owners[0]
    banked = sentence("{} banks {} left on their tiles", Who(first), _the(swept[first]))
    if len(owners) == 2:
        banked += sentence(" and {} {} left on theirs", Who(1), "the one" if swept[1] == 1 else f"the {swept[1]}")
    return [merged(banked)]


def _the(count: int) -> str:
    return "the coin" if count == 1 else f"the {count} coins"


def coins(count: int) -> str:
    return "1 coin" if count == 1 else f"{count} coins"


def _join(clauses: list[Parts]) -> Parts:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(clauses) == 1:
        return clauses[0]
    return join([join(clauses[:-1], ", "), clauses[-1]], " and ")
