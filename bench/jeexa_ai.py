"""Jeexa AI: how often it completes the hand's goal when it can, its win rates, its time per move.

    python bench/jeexa_ai.py [games] [matchup ...] [--players N] [--parallel]

Matchups (default: all three): ``strong-random`` (strong against random players in every other
seat), ``strong-easy``, ``easy-random``. ``--players N`` sets the table, 2 to 8 players; give it
more than once for several tables (default: 2 and 4). Game ``n`` has seed ``n`` and gives the
measured player seat ``n % players``, so it starts every hand in turn. It beats the table when it
is among the winners (a shared first place counts).

Prints, per table and matchup: the win rate with its 95% Wilson interval and the times per move
(see bench/common.py), then how many of the measured player's decisions offered a move that
completes the hand's goal (a placement after which ``goals.achieved`` holds) and how many of
those it took (the move ended the hand with its seat as the winner). Last, over everything: the
same count and the time per move of each AI level.

The figures of docs/benchmarks.md:

    python bench/jeexa_ai.py 200 --players 2
    python bench/jeexa_ai.py 100 --players 4
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    AMONG_WINNERS,
    LEVELS,
    GameRecord,
    Matchup,
    Table,
    choose_move,
    heading,
    merge_times,
    parse_args,
    time_lines,
    wilson,
)
from games.rules.jeexa.goals import achieved
from games.rules.jeexa.grid import grid_of, placed, placements

DEFAULT_GAMES = 100
DEFAULT_PLAYERS = (2, 4)
MATCHUPS = ("strong-random", "strong-easy", "easy-random")


def completing_offered(state, seat: int) -> bool:
    """Whether one of ``seat``'s legal moves completes the hand's goal (only a placement can)."""
    if state.stealing:
        return False
    grid = grid_of(state.grids[seat])
    options, _rule = placements(grid, state.piece)
    return any(achieved(state.hand, placed(grid, (x, y), state.piece, rotation)) for x, y, rotation in options)


def won_the_hand(before, after, seat: int) -> bool:
    """Whether the move from ``before`` to ``after`` ended the hand with ``seat`` as its winner."""
    return len(after.scores) > len(before.scores) and after.last_hand.winner == seat


def play(players: int, measured: str, others: str, n: int) -> GameRecord:
    """Game ``n``: seed ``n``, the measured player in seat ``n % players``. Its summary is
    ``(offered, taken)``: the measured player's decisions that offered a move completing the goal,
    and how many of them it took."""
    table = Table("jeexa", seats=players)
    game = table.game
    seat = n % players
    names = [others] * players
    names[seat] = measured
    state = game.initial_state(players, {}, n)
    times: dict[str, list[float]] = {}
    offered = taken = 0
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    for _ in range(game.playout_limit):
        if game.is_over(state):
            outcome = game.outcome(state)
            winners, scores = tuple(outcome.winners), tuple(outcome.scores)
            break
        mover = game.to_act(state)[0]
        started = time.perf_counter()
        move = choose_move(table, names[mover], state, mover, n)
        times.setdefault(names[mover], []).append(time.perf_counter() - started)
        after = game.apply(state, mover, move)
        if mover == seat and completing_offered(state, mover):
            offered += 1
            taken += won_the_hand(state, after, mover)
        state = after
    return GameRecord(n, seat, winners, scores, times, (offered, taken))


def play_matchup(players: int, measured: str, others: str, games: int, parallel: bool) -> Matchup:
    started = time.perf_counter()
    arguments = (repeat(players), repeat(measured), repeat(others), range(games))
    if parallel:
        with ProcessPoolExecutor(os.cpu_count()) as pool:
            records = list(pool.map(play, *arguments))
    else:
        records = list(map(play, *arguments))
    return Matchup(measured, others, players, records, time.perf_counter() - started)


def completion_line(name: str, records: Iterable[GameRecord]) -> str:
    offered = taken = 0
    for record in records:
        offered += record.summary[0]
        taken += record.summary[1]
    low, high = wilson(taken, offered)
    share = f"{taken / offered:.1%} (95% {low:.1%}–{high:.1%})" if offered else "none offered"
    return f"    {name:>6}: took {taken} of {offered} moves that complete the goal: {share}"


def main(argv: list[str]) -> None:
    tables = argparse.ArgumentParser(add_help=False)
    tables.add_argument("--players", type=int, action="append", choices=range(2, 9))
    chosen, rest = tables.parse_known_args(argv)
    args = parse_args(rest, __doc__, DEFAULT_GAMES, MATCHUPS)
    started = time.perf_counter()
    matchups: list[Matchup] = []
    for players in chosen.players or DEFAULT_PLAYERS:
        print(heading(f"Jeexa, {players} players", args.games, AMONG_WINNERS, args.parallel), flush=True)
        for key in args.chosen:
            measured, others = key.split("-")
            matchup = play_matchup(players, measured, others, args.games, args.parallel)
            matchups.append(matchup)
            lines = matchup.lines(AMONG_WINNERS)
            print("\n".join([*lines, completion_line(measured, matchup.records)]), flush=True)
    times = merge_times(matchup.times() for matchup in matchups)
    print("All games:")
    print("\n".join(time_lines(times, [name for name in LEVELS if name in times])))
    for name in LEVELS:
        measured_games = [record for matchup in matchups if matchup.measured == name for record in matchup.records]
        if measured_games:
            print(completion_line(name, measured_games))
    print(f"  ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main(sys.argv[1:])
