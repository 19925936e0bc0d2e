"""The Mesopotamia game object: the engine verbs on top of ``rules`` and ``view``."""

from __future__ import annotations

from typing import Any, ClassVar

from games.engine.base import Game, IllegalMove, Outcome
from games.engine.words import Parts, join, merged
from games.rules.mesopotamia import ai, effects, refusals, rules, view
from games.rules.mesopotamia import state as model
from games.rules.mesopotamia.state import (
    CARDS,
    MAX_ROUNDS,
    OFFERINGS,
    State,
    card_id,
    offering_id,
)

# The longest possible turn: 5 MP + 3 per Endurance card (9), a volcano choice for each
# of the 5 volcanoes, 3 discoveries with up to 3 resource choices each, every free step,
# all 18 cards (plus their targets), 2 ends and at most 8 + 4 + 3 repeated actions.
LONGEST_TURN = 14 + 5 + 9 + model.FREE_STEPS_PER_TURN + 2 * len(CARDS) + 2 + 15


class Mesopotamia(Game):
    slug = "mesopotamia"
    name = "Mesopotamia"
    min_players = 2
    max_players = 4
    options: ClassVar[dict[str, tuple[str, ...]]] = {"start_card": ("no", "yes"), "discard": ("reshuffle", "remove")}
    ai_levels: ClassVar[dict[int, str]] = {1: "Easy", 2: "Strong"}
    # A true bound: every game ends after MAX_ROUNDS rounds of at most LONGEST_TURN moves.
    playout_limit: ClassVar[int] = MAX_ROUNDS * 4 * LONGEST_TURN

    # --- creating -----------------------------------------------------------------

    def _initial_state(self, num_players: int, options: dict[str, str], seed: int) -> State:
        start = model.initial(num_players, options["start_card"] == "yes", options["discard"] == "reshuffle", seed)
        return effects.settle(start, [])[0]

    def num_players(self, state: State) -> int:
        return state.num_players

    # --- playing ------------------------------------------------------------------

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.turn.seat,)

    def _legal_moves(self, state: State, seat: int) -> list[str]:
        if state.over or seat != state.turn.seat:
            return []
        return rules.legal(state)

    def _apply(self, state: State, seat: int, move: str) -> State:
        return effects.play(state, move)[0]

    def explain_illegal(self, state: State, seat: int, move: str) -> str:
        return refusals.explain(state, move)

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(scores=view.scores(state), winners=view.winners(state))

    def conserved(self, state: State) -> dict[str, int]:
        carried = [t.load for t in state.tribes]
        huts = [h for t in state.tiles for h in t.huts]
        offerings = sum(len(p.hand) + len(p.delivered) for p in state.players)
        offerings += sum(h.offering > 0 for h in huts) + carried.count("offering")
        return {
            # A drawn volcano waiting for its place is in the mover's hand.
            "tiles": len(state.tiles) + len(state.stack) + state.removed_tiles
            + (state.turn.phase == model.VOLCANO_CHOICE),
            "wood": sum(t.wood for t in state.tiles) + carried.count("wood") + state.wood_supply,
            "stone": sum(t.stone for t in state.tiles) + carried.count("stone") + state.stone_supply
            + state.stones_used,
            "cards": len(state.deck) + len(state.discard) + len(state.gone) + sum(len(p.cards) for p in state.players),
            "offerings": offerings,
        }  # fmt: skip

    def secrets(self, state: State, seat: int) -> list[str]:
        """Ids of this seat's offering markers not yet face up, and of the cards in its hand."""
        if state.over:
            return []
        player = state.players[seat]
        hidden = [offering_id(seat, v) for v in OFFERINGS if v not in player.delivered]
        return hidden + [card_id(c) for c in player.cards]

    # --- showing ------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.build(state, seat)

    def describe_parts(self, state: State, seat: int, move: str) -> Parts:
        move = self.normalize(move)
        if move not in self.legal_moves(state, seat):
            raise IllegalMove(self.explain_illegal(state, seat, move))
        return merged([*join(effects.play(state, move)[1], "; "), "."])

    # --- storing ------------------------------------------------------------------

    def dump(self, state: State) -> dict[str, Any]:
        return model.dump(state)

    def load(self, data: dict[str, Any]) -> State:
        return model.load(data)

    # --- AI -----------------------------------------------------------------------

    def _ai_move(self, state: State, seat: int, level: int, seed: int) -> str:
        return ai.choose(state, seat, level, seed)
