"""Mesopotamia AI strength and speed in 3-player games.

    python bench/mesopotamia_ai.py [games] [matchup ...] [--parallel]

Matchups (default: all three): ``strong-random`` (strong against two random players),
``strong-easy``, ``easy-random``. Game ``n`` has seed ``n`` and gives the measured player
seat ``n % 3``; it beats the others when it is the only winner. Prints win rates and times
per move (see bench/common.py), and how long the games lasted and how they ended.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SOLE_WINNER, Table, heading, parse_args, play_matchup

SEATS = 3
DEFAULT_GAMES = 100
MATCHUPS = ("strong-random", "strong-easy", "easy-random")


def ending(state) -> tuple[str, int]:
    """How the game ended and in which round."""
    return state.end_reason or "cut off", state.turn_number // SEATS + 1


TABLE = Table("mesopotamia", seats=SEATS, ply_attribute="ply", summarize=ending)


def main(argv: list[str]) -> None:
    args = parse_args(argv, __doc__, DEFAULT_GAMES, MATCHUPS)
    print(heading(f"Mesopotamia, {SEATS} players", args.games, SOLE_WINNER, args.parallel), flush=True)
    for key in args.chosen:
        measured, others = key.split("-")
        matchup = play_matchup(TABLE, measured, others, args.games, args.parallel)
        rounds = sum(record.summary[1] for record in matchup.records) / len(matchup.records)
        endings = Counter(record.summary[0] for record in matchup.records)
        ended = ", ".join(f"{reason} {count}" for reason, count in sorted(endings.items()))
        print("\n".join(matchup.lines(SOLE_WINNER)), flush=True)
        print(f"    {rounds:.1f} rounds a game; ended by {ended}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
