"""What the AI benchmarks (bench/*_ai.py) share: seeded games, matchups, their printed lines.

A matchup puts one *measured* player (strong, easy or random) against copies of another:
game ``n`` has seed ``n`` and the measured player in seat ``n % seats``, so every result
depends only on the seeds. Each matchup prints the win rate with its 95% Wilson interval,
how often the measured player won alone, shared first place or lost, its mean score margin
over the best other seat, and the mean and largest time per move of each player.

With ``--parallel`` a matchup's games run in a ProcessPoolExecutor, one process per core
(os.cpu_count()): the win counts are those of a serial run, but the times per move are then
those of a busy machine. Not run directly; prints numbers only, nothing asserts on time.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from games.engine import get_game

LEVELS = {"strong": 2, "easy": 1}  # player name -> AI level; the player "random" picks any legal move


@dataclass(frozen=True)
class Table:
    """What every game of a benchmark shares. Sent to worker processes, so it must pickle:
    ``summarize`` has to be a module-level function, not a lambda."""

    slug: str  # the game, as the registry names it
    seats: int
    options: dict[str, str] = field(default_factory=dict)
    ply_attribute: str = "moves_played"  # the state's move counter, which seeds the random player
    summarize: Callable[[Any], Any] | None = None  # final state -> what to keep of it (picklable)

    @property
    def game(self) -> Any:
        return get_game(self.slug)


@dataclass
class GameRecord:
    """One game, seen from the measured seat."""

    seed: int
    seat: int  # the measured player's seat
    winners: tuple[int, ...]  # empty when the game was cut off at the playout limit
    scores: tuple[int, ...]  # empty when cut off
    times: dict[str, list[float]]  # player name -> seconds taken by each of its moves
    summary: Any = None  # Table.summarize of the final state

    @property
    def capped(self) -> bool:
        return not self.winners

    @property
    def alone(self) -> bool:
        return self.winners == (self.seat,)

    @property
    def shared(self) -> bool:
        return self.seat in self.winners and len(self.winners) > 1

    @property
    def margin(self) -> int:
        """The measured seat's score minus the best score of any other seat."""
        return self.scores[self.seat] - max(score for seat, score in enumerate(self.scores) if seat != self.seat)


@dataclass(frozen=True)
class Beats:
    """When the measured player counts as beating the others."""

    meaning: str
    test: Callable[[GameRecord], bool]


SOLE_WINNER = Beats("the measured seat is the only winner", lambda record: record.alone)
AMONG_WINNERS = Beats(
    "the measured seat is among the winners (a shared first place counts)",
    lambda record: record.alone or record.shared,
)


def choose_move(table: Table, name: str, state: Any, seat: int, seed: int) -> str:
    """The move player ``name`` makes; ``seed`` is the game's, so a game replays exactly."""
    game = table.game
    if name == "random":
        ply = getattr(state, table.ply_attribute)
        return random.Random(f"{seed}:{ply}").choice(game.legal_moves(state, seat))
    return game.ai_move(state, seat, LEVELS[name], seed)


def play_game(table: Table, names: Sequence[str], seed: int, measured_seat: int = 0) -> GameRecord:
    """One game with ``names[seat]`` playing each seat, cut off at the game's playout limit."""
    game = table.game
    state = game.initial_state(len(names), table.options, seed)
    times: dict[str, list[float]] = {}
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    for _ in range(game.playout_limit):
        if game.is_over(state):
            outcome = game.outcome(state)
            winners, scores = tuple(outcome.winners), tuple(outcome.scores)
            break
        seat = game.to_act(state)[0]
        name = names[seat]
        started = time.perf_counter()
        move = choose_move(table, name, state, seat, seed)
        times.setdefault(name, []).append(time.perf_counter() - started)
        state = game.apply(state, seat, move)
    summary = table.summarize(state) if table.summarize else None
    return GameRecord(seed, measured_seat, winners, scores, times, summary)


def play_matchup_game(table: Table, measured: str, others: str, n: int) -> GameRecord:
    """Game ``n`` of a matchup: seed ``n``, the measured player in seat ``n % seats``."""
    seat = n % table.seats
    names = [others] * table.seats
    names[seat] = measured
    return play_game(table, names, seed=n, measured_seat=seat)


@dataclass
class Matchup:
    """The games of ``measured`` against ``seats - 1`` copies of ``others``."""

    measured: str
    others: str
    seats: int
    records: list[GameRecord]
    seconds: float  # wall clock for all its games

    def count(self, test: Callable[[GameRecord], bool]) -> int:
        return sum(1 for record in self.records if test(record))

    def times(self) -> dict[str, list[float]]:
        return merge_times(record.times for record in self.records)

    def lines(self, beats: Beats) -> list[str]:
        """The result line, then one line of time per move for each player."""
        games = len(self.records)
        wins = self.count(beats.test)
        low, high = wilson(wins, games)
        alone = self.count(lambda record: record.alone)
        shared = self.count(lambda record: record.shared)
        capped = self.count(lambda record: record.capped)
        versus = self.others if self.seats == 2 else f"{self.seats - 1} {self.others}"
        finished = [record.margin for record in self.records if not record.capped]
        margin = f"; mean margin {sum(finished) / len(finished):+.1f}" if finished else ""
        cut_off = f", {capped} cut off" if capped else ""
        result = (
            f"  {self.measured:>6} vs {versus:<8} {games:4d} games: beats {wins / max(games, 1):6.1%} "
            f"(95% {low:.1%}–{high:.1%}); alone {alone}, shared {shared}, "
            f"lost {games - alone - shared - capped}{cut_off}{margin} [{self.seconds:.0f} s]"
        )
        times = self.times()
        return [result, *time_lines(times, [name for name in (self.measured, self.others) if name in times])]


def play_matchup(table: Table, measured: str, others: str, games: int, parallel: bool = False) -> Matchup:
    """Games ``0 .. games - 1`` of ``measured`` against ``table.seats - 1`` copies of ``others``;
    in parallel, one process per core, with the same records as a serial run."""
    started = time.perf_counter()
    arguments = (repeat(table), repeat(measured), repeat(others), range(games))
    if parallel:
        with ProcessPoolExecutor(os.cpu_count()) as pool:
            records = list(pool.map(play_matchup_game, *arguments))
    else:
        records = list(map(play_matchup_game, *arguments))
    return Matchup(measured, others, table.seats, records, time.perf_counter() - started)


def merge_times(parts: Iterable[dict[str, list[float]]]) -> dict[str, list[float]]:
    merged: dict[str, list[float]] = {}
    for times in parts:
        for name, seconds in times.items():
            merged.setdefault(name, []).extend(seconds)
    return merged


def time_lines(times: dict[str, list[float]], names: Sequence[str]) -> list[str]:
    return [
        f"    {name:>6}: {len(times[name])} moves, mean {1000 * sum(times[name]) / len(times[name]):.1f} ms, "
        f"max {1000 * max(times[name]):.1f} ms per move"
        for name in names
    ]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for the default ``z``)."""
    if not games:
        return 0.0, 0.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def parse_args(
    argv: Sequence[str],
    doc: str,
    default_games: int,
    choices: Sequence[str],
    choice_name: str = "matchup",
    default_choices: Sequence[str] | None = None,
) -> argparse.Namespace:
    """``[games] [choice ...] [--parallel]``; ``args.chosen`` is ``default_choices`` (or every choice)
    when none is named."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="?", type=int, default=default_games, help=f"per matchup ({default_games})")
    parser.add_argument("chosen", nargs="*", metavar=choice_name, help=f"any of {', '.join(choices)}")
    parser.add_argument("--parallel", action="store_true", help="one process per core; times are of a busy machine")
    args = parser.parse_intermixed_args(argv)
    args.chosen = args.chosen or list(default_choices or choices)
    unknown = [word for word in args.chosen if word not in choices]
    if unknown:
        parser.error(f"unknown {choice_name} {', '.join(unknown)}; choose from {', '.join(choices)}")
    return args


def heading(title: str, games: int, beats: Beats, parallel: bool) -> str:
    how = f"in parallel on {os.cpu_count()} processes (times of a busy machine)" if parallel else "one at a time"
    return f"{title}, {games} games per matchup, {how}; 'beats' = {beats.meaning}."
