"""Mecca AI strength and speed.

    python bench/mecca_ai.py [games] [matchup ...] [--parallel]    matchups: strong-random strong-easy easy-random

Strength, in 4-player games: for each matchup (default: strong-random, strong-easy) the
first-named player sits in one seat against three copies of the second; game ``n`` gives
the measured player seat ``n % 4`` and seed ``n``. The measured player *beats* its
opponents when its seat is among the winners (a shared win counts). A second line counts
the pairings of the measured player with each opponent on its own: how often it finished
ahead of that one player (more points, or as many and more pilgrims close to the Kaaba).

Speed, for 2 to 6 players: a few games of each AI level against random players, with the
mean and largest time per move of that level, always one game at a time.
Prints numbers only (see bench/common.py); nothing asserts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    AMONG_WINNERS,
    Matchup,
    Table,
    heading,
    merge_times,
    parse_args,
    play_game,
    play_matchup,
    time_lines,
    wilson,
)
from games.rules.mecca.rules import scores

DEFAULT_GAMES = 200
SPEED_GAMES = 4  # games per player count and level in the speed section
MATCHUPS = {"strong-random": ("strong", "random"), "strong-easy": ("strong", "easy"), "easy-random": ("easy", "random")}
DEFAULT_MATCHUPS = ("strong-random", "strong-easy")


def standing(state) -> tuple[tuple[int, int], ...]:
    """Each seat's rank key at the end: its points, then its pilgrims close to the Kaaba."""
    return tuple((score.total, score.kaaba) for score in scores(state.board, state.players))


def pairings_line(matchup: Matchup) -> str:
    """How often the measured player finished ahead of one given opponent, over every pairing."""
    ahead = level = pairs = 0
    for record in matchup.records:
        mine = record.summary[record.seat]
        for seat, theirs in enumerate(record.summary):
            if seat != record.seat:
                pairs += 1
                ahead += mine > theirs
                level += mine == theirs
    low, high = wilson(ahead, pairs)
    return (
        f"    {matchup.measured} against one given {matchup.others} player: ahead in {ahead / pairs:.1%} "
        f"(95% {low:.1%}–{high:.1%}) of {pairs} pairings, level in {level}"
    )


def speed(level: str) -> list[str]:
    """Mean and largest time per move of ``level`` against random players, 2 to 6 players."""
    lines = []
    for players in range(2, 7):
        table = Table("mecca", players)
        records = []
        for n in range(SPEED_GAMES):
            names = ["random"] * players
            names[n % players] = level
            records.append(play_game(table, names, seed=10_000 + n))
        [line] = time_lines(merge_times(record.times for record in records), [level])
        lines.append(f"{line} ({players} players)")
    return lines


def main(argv: list[str]) -> None:
    args = parse_args(argv, __doc__, DEFAULT_GAMES, list(MATCHUPS), default_choices=DEFAULT_MATCHUPS)
    print(heading("Mecca, 4 players", args.games, AMONG_WINNERS, args.parallel), flush=True)
    table = Table("mecca", 4, summarize=standing)
    for key in args.chosen:
        measured, others = MATCHUPS[key]
        matchup = play_matchup(table, measured, others, args.games, args.parallel)
        print("\n".join([*matchup.lines(AMONG_WINNERS), pairings_line(matchup)]), flush=True)
    print("Time per move against random players, 2 to 6 players, one game at a time:", flush=True)
    for level in ("easy", "strong"):
        print("\n".join(speed(level)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
