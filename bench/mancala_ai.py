"""Mancala AI strength and speed, per variant.

    python bench/mancala_ai.py [games] [variant ...]

Plays the strong level against the easy level, and each level against a uniformly random
player, alternating who starts, and prints win/draw/loss rates of the first-named player
and the mean time per AI move. Prints numbers only; nothing here asserts on time.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import get_game
from games.rules.mancala.rules import State

GAME = get_game("mancala")
DEFAULT_GAMES = 100
Player = Callable[[State, int, int], str]  # (state, seat, game seed) -> move


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    capped: int = 0  # games cut off at the playout limit (counted as draws)
    seconds: dict[str, float] = field(default_factory=dict)
    moves: dict[str, int] = field(default_factory=dict)

    def line(self, first: str, second: str) -> str:
        games = self.wins + self.draws + self.losses
        rates = " ".join(
            f"{label} {count / games:6.1%}"
            for label, count in (("win", self.wins), ("draw", self.draws), ("loss", self.losses))
        )
        speed = ", ".join(
            f"{name} {1000 * self.seconds[name] / self.moves[name]:.1f} ms/move"
            for name in (first, second)
            if self.moves.get(name)
        )
        capped = f", {self.capped} capped" if self.capped else ""
        return f"  {first:>6} vs {second:<6} {games:4d} games: {rates}  ({speed}{capped})"


def ai_player(level: int) -> Player:
    return lambda state, seat, seed: GAME.ai_move(state, seat, level, seed)


def random_player(state: State, seat: int, seed: int) -> str:
    moves = GAME.legal_moves(state, seat)
    return random.Random(f"{seed}:{state.moves_played}").choice(moves)


PLAYERS: dict[str, Player] = {"strong": ai_player(2), "easy": ai_player(1), "random": random_player}


def play_game(variant: str, names: tuple[str, str], seed: int, tally: Tally) -> int | None:
    """One game with ``names[seat]`` playing each seat; the winning seat, or None for a draw."""
    state = GAME.initial_state(2, {"variant": variant}, seed)
    for _ in range(GAME.playout_limit):
        if GAME.is_over(state):
            winners = GAME.outcome(state).winners
            return winners[0] if len(winners) == 1 else None
        seat = GAME.to_act(state)[0]
        name = names[seat]
        started = time.perf_counter()
        move = PLAYERS[name](state, seat, seed)
        tally.seconds[name] = tally.seconds.get(name, 0.0) + time.perf_counter() - started
        tally.moves[name] = tally.moves.get(name, 0) + 1
        state = GAME.apply(state, seat, move)
    tally.capped += 1
    return None


def match(variant: str, first: str, second: str, games: int) -> Tally:
    """``first`` against ``second``; game ``n`` gives ``first`` seat ``n % 2``."""
    tally = Tally()
    for n in range(games):
        seat = n % 2
        names = (first, second) if seat == 0 else (second, first)
        winner = play_game(variant, names, seed=n, tally=tally)
        if winner is None:
            tally.draws += 1
        elif winner == seat:
            tally.wins += 1
        else:
            tally.losses += 1
    return tally


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else DEFAULT_GAMES
    variants = argv[1:] or list(GAME.options["variant"])
    for variant in variants:
        print(f"{variant}:", flush=True)
        for first, second in (("strong", "easy"), ("strong", "random"), ("easy", "random")):
            print(match(variant, first, second, games).line(first, second), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
