"""The Jeexa game object: the engine verbs on top of ``rules``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from games.engine import words
from games.engine.base import Game, IllegalMove, Outcome
from games.engine.words import Parts, Who, sentence
from games.rules.jeexa import ai
from games.rules.jeexa.goals import GOAL_NAMES, GOAL_TEXT, HANDS, Goal
from games.rules.jeexa.grid import assess, grid_of, placements
from games.rules.jeexa.notation import Place, Steal, format_place, format_steal, parse_move
from games.rules.jeexa.pieces import COLOURS, MAX_SETS, PIECES_PER_VALUE, SHAPES, VALUES, a_label, label
from games.rules.jeexa.refusals import NO_JOKER, USE_JOKER_FIRST, why_not_place, why_not_steal
from games.rules.jeexa.rules import (
    JOINED_PIECES,
    HandResult,
    State,
    full_count,
    new_game,
    place,
    rolled,
    sets_for,
    standing,
    steal,
    targets,
    totals,
)

STATE_KEYS = (
    "players",
    "seed",
    "moves_played",
    "hand",
    "starter",
    "to_move",
    "die",
    "piece",
    "stolen_from",
    "jokers",
    "pile",
    "grids",
    "scores",
    "last_hand",
    "events",
    "scoring",
)
HAND_KEYS = ("hand", "winner", "scores", "puzzles", "scored")
LEGACY_HAND_KEYS = ("hand", "winner", "scores", "pieces", "goal")
MOST_PIECES = PIECES_PER_VALUE * len(VALUES) * MAX_SETS  # two sets: 120


class Jeexa(Game):
    slug = "jeexa"
    name = "Jeexa"
    min_players = 2
    max_players = 8
    ai_levels: ClassVar[dict[int, str]] = {1: "Easy", 2: "Strong"}
    # A true bound: a hand has at most 120 turns that are played (one per piece drawn); a turn
    # is one placement plus, per joker, a steal and a placement, and it can steal at most the
    # 119 pieces the others hold. Random games are far shorter (see the module docstring).
    playout_limit: ClassVar[int] = HANDS * MOST_PIECES * (1 + 2 * (MOST_PIECES - 1))

    # --- creating -----------------------------------------------------------------

    def _initial_state(self, num_players: int, options: dict[str, str], seed: int) -> State:
        return new_game(num_players, seed)

    def num_players(self, state: State) -> int:
        return state.players

    # --- playing ------------------------------------------------------------------

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.to_move,)

    def _legal_moves(self, state: State, seat: int) -> list[str]:
        if state.over or seat != state.to_move:
            return []
        if state.stealing:
            return [format_steal(victim, cell) for victim, cell in targets(state, seat)]
        found, _rule = placements(grid_of(state.grids[seat]), state.piece)
        return [format_place(x, y, rotation) for x, y, rotation in found]

    def _apply(self, state: State, seat: int, move: str) -> State:
        parsed = parse_move(move)
        if isinstance(parsed, Steal):
            return steal(state, seat, parsed.victim, parsed.cell)
        return place(state, seat, parsed.cell, parsed.rotation)

    def explain_illegal(self, state: State, seat: int, move: str) -> str:
        try:
            parsed = parse_move(move)
        except ValueError as error:
            return str(error)
        if isinstance(parsed, Steal):
            reason = NO_JOKER if not state.stealing else why_not_steal(state, seat, parsed)
        else:
            reason = USE_JOKER_FIRST if state.stealing else why_not_place(state, seat, parsed)
        return reason or super().explain_illegal(state, seat, move)

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        scores = totals(state)
        best = max(scores)
        return Outcome(scores=scores, winners=tuple(seat for seat, score in enumerate(scores) if score == best))

    def conserved(self, state: State) -> dict[str, int]:
        on_table = sum(state.pile) + sum(len(grid) for grid in state.grids) + (1 if state.piece else 0)
        return {"pieces": on_table}

    def secrets(self, state: State, seat: int) -> list[str]:
        # Nothing is hidden from anyone but the seed (checked by the suite) and future
        # rolls, which are not even computed until the move before them is applied.
        return []

    # --- showing ------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        outcome = self.outcome(state)
        hand = min(state.hand, HANDS)
        legal = self.legal_moves(state, seat) if seat is not None else []
        rule = "" if state.over or state.stealing else placements(grid_of(state.grids[state.to_move]), state.piece)[1]
        return {
            "players": state.players,
            "sets": sets_for(state.players),
            "pieces_in_game": full_count(state.players),
            "hand_number": hand,
            "hands": HANDS,
            "goal": GOAL_TEXT[hand],
            "goal_name": GOAL_NAMES[hand],
            "starter": state.starter,
            "die": state.die or None,
            "piece": state.piece or None,
            "stolen_from": state.stolen_from,
            "placement_rule": rule,
            "pile": list(state.pile),
            "grids": [[_piece_view(p) for p in grid] for grid in state.grids],
            # What each would score if the hand ended now without their winning it, and with which pieces.
            "standing": [_goal_view(standing(state, seat)) for seat in range(state.players)] if not state.over else [],
            "jokers": state.jokers,
            "steal_targets": [[victim, x, y] for victim, (x, y) in targets(state, state.to_move)]
            if state.stealing
            else [],
            "scores": [list(row) for row in state.scores],
            "totals": list(totals(state)),
            "last_hand": _hand_view(state.last_hand),
            "events": [words.dump(event) for event in state.events],
            "to_act": list(self.to_act(state)),
            "to_move": None if state.over else state.to_move,
            "over": state.over,
            "winners": list(outcome.winners) if outcome else [],
            "moves_played": state.moves_played,
            "kinds": [{"value": v, "colour": COLOURS[v], "sides": list(SHAPES[v])} for v in VALUES],
            "legal_moves": legal,
        }

    def describe_parts(self, state: State, seat: int, move: str) -> Parts:
        move = self.normalize(move)
        if move not in self.legal_moves(state, seat):
            raise IllegalMove(self.explain_illegal(state, seat, move))
        parsed = parse_move(move)
        after = self._apply(state, seat, move)
        if isinstance(parsed, Steal):
            x, y = parsed.cell
            value = grid_of(state.grids[parsed.victim])[parsed.cell][0]
            what = f"the {label(value)} at {x},{y}"
            line = sentence("{} uses a joker: steals {} from {}", Who(seat), what, Who(parsed.victim))
        else:
            line = _describe_place(state, seat, parsed)
        # Events are sentences ("The game is over"). The roll that begins the next turn is that turn's:
        # its placement's line says it ("Bob rolled 5 and places..."), so the log has one line per move.
        events = after.events
        if not after.over and events and events[-1] == rolled(after.to_move, after.die):
            events = events[:-1]
        return words.merged([*words.join([line, *events], ". "), "."])

    # --- storing ------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        return {
            "players": state.players,
            "seed": state.seed,
            "moves_played": state.moves_played,
            "hand": state.hand,
            "starter": state.starter,
            "to_move": state.to_move,
            "die": state.die,
            "piece": state.piece,
            "stolen_from": state.stolen_from,
            "jokers": state.jokers,
            "pile": list(state.pile),
            "grids": [[list(p) for p in grid] for grid in state.grids],
            "scores": [list(row) for row in state.scores],
            "last_hand": _dump_hand(state.last_hand),
            "events": [words.dump(event) for event in state.events],
            "scoring": state.scoring,
        }

    def load(self, data: dict[str, Any]) -> State:
        # A position stored before the scoring by partial goals holds no "scoring": its match keeps the first.
        if set(data) | {"scoring"} != set(STATE_KEYS):
            raise ValueError("This is not a stored Jeexa position.")
        return State(
            players=data["players"],
            seed=data["seed"],
            moves_played=data["moves_played"],
            hand=data["hand"],
            starter=data["starter"],
            to_move=data["to_move"],
            die=data["die"],
            piece=data["piece"],
            stolen_from=data["stolen_from"],
            jokers=data["jokers"],
            pile=tuple(data["pile"]),
            grids=tuple(tuple(tuple(p) for p in grid) for grid in data["grids"]),
            scores=tuple(tuple(row) for row in data["scores"]),
            last_hand=_load_hand(data["last_hand"]),
            events=tuple(_load_event(event) for event in data["events"]),
            scoring=data.get("scoring", JOINED_PIECES),
        )

    def initial_state_as_stored(
        self, stored: dict[str, Any], num_players: int, options: dict[str, str], seed: int
    ) -> State:
        # A match begun before the scoring by partial goals replays by the rules it was played by.
        first: State = self.initial_state(num_players, options, seed)
        return replace(first, scoring=stored.get("scoring", JOINED_PIECES))

    # --- AI -----------------------------------------------------------------------

    def _ai_move(self, state: State, seat: int, level: int, seed: int) -> str:
        return ai.choose(state, seat, level, seed)


# --- showing helpers ------------------------------------------------------------------


def _load_event(data: str | list[Any]) -> Parts:
    # Positions stored before events named seats as parts hold their plain words.
    return (data,) if isinstance(data, str) else words.load(data)


def _describe_place(state: State, seat: int, move: Place) -> Parts:
    grid = grid_of(state.grids[seat])
    value = state.piece
    joins, gaps = assess(grid, move.cell, value, move.rotation) or (0, 0)
    x, y = move.cell
    if state.stolen_from is None:
        what = sentence("{} rolled {} and places {}", Who(seat), state.die, a_label(value))
    else:
        what = sentence("{} places the stolen {}", Who(seat), label(value))
    line = words.merged([*what, f" at {x},{y} turned {move.rotation}°"])
    if not grid:
        clauses = ["first piece of the hand"]
    elif joins:
        clauses = ["1 join" if joins == 1 else f"{joins} joins"]
    else:
        clauses = ["nothing fits, placed freely"]
    if gaps:
        clauses.append("1 joker" if gaps == 1 else f"{gaps} jokers")
    return words.merged([*line, f": {', '.join(clauses)}"])


def _piece_view(piece: tuple[int, int, int, int]) -> dict[str, Any]:
    x, y, value, rotation = piece
    return {"x": x, "y": y, "value": value, "rotation": rotation}


def _goal_view(goal: Goal) -> dict[str, Any]:
    return {"points": goal.points, "cells": [list(cell) for cell in sorted(goal.cells)]}


def _hand_view(result: HandResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "hand": result.hand,
        "goal": GOAL_TEXT[result.hand],
        "goal_name": GOAL_NAMES[result.hand],
        "winner": result.winner,
        "scores": list(result.scores),
        "puzzles": [[_piece_view(p) for p in puzzle] for puzzle in result.puzzles],
        "scored": [[list(cell) for cell in cells] for cells in result.scored],
    }


def _dump_hand(result: HandResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "hand": result.hand,
        "winner": result.winner,
        "scores": list(result.scores),
        "puzzles": [[list(p) for p in puzzle] for puzzle in result.puzzles],
        "scored": [[list(cell) for cell in cells] for cells in result.scored],
    }


def _load_hand(data: dict[str, Any] | None) -> HandResult | None:
    if data is None:
        return None
    if set(data) == set(LEGACY_HAND_KEYS):  # stored before every puzzle was kept: the winner's alone
        seats = range(len(data["scores"]))
        data = {
            **data,
            "puzzles": [data["pieces"] if seat == data["winner"] else [] for seat in seats],
            "scored": [data["goal"] if seat == data["winner"] else [] for seat in seats],
        }
    elif set(data) != set(HAND_KEYS):
        raise ValueError("This is not a stored Jeexa position.")
    return HandResult(
        hand=data["hand"],
        winner=data["winner"],
        scores=tuple(data["scores"]),
        puzzles=tuple(tuple(tuple(p) for p in puzzle) for puzzle in data["puzzles"]),
        scored=tuple(tuple(tuple(cell) for cell in cells) for cells in data["scored"]),
    )
