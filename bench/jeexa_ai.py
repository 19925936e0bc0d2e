"""Jeexa AI strength and speed in 4-player games.

    python bench/jeexa_ai.py [games] [matchup ...] [--parallel]

Matchups (default: all three): ``strong-random`` (strong against three random players),
``strong-easy``, ``easy-random``. Game ``n`` has seed ``n`` and gives the measured player
seat ``n % 4``, so it starts every hand in turn. It beats the table when it is among the
winners (a shared first place counts). Prints win rates and times per move per matchup
(see bench/common.py), then the time per move of each AI level over all matchups.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import AMONG_WINNERS, LEVELS, Table, heading, merge_times, parse_args, play_matchup, time_lines

TABLE = Table("jeexa", seats=4)
DEFAULT_GAMES = 100
MATCHUPS = ("strong-random", "strong-easy", "easy-random")


def main(argv: list[str]) -> None:
    args = parse_args(argv, __doc__, DEFAULT_GAMES, MATCHUPS)
    print(heading("Jeexa, 4 players", args.games, AMONG_WINNERS, args.parallel), flush=True)
    started = time.perf_counter()
    matchups = []
    for key in args.chosen:
        measured, others = key.split("-")
        matchups.append(play_matchup(TABLE, measured, others, args.games, args.parallel))
        print("\n".join(matchups[-1].lines(AMONG_WINNERS)), flush=True)
    times = merge_times(matchup.times() for matchup in matchups)
    print("All matchups:")
    print("\n".join(time_lines(times, [name for name in LEVELS if name in times])))
    print(f"  ({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main(sys.argv[1:])
