"""Mancala AI strength and speed, per variant.

    python bench/mancala_ai.py [games] [variant ...] [--parallel]

For each variant (default: all), 2-player games of strong against easy, strong against
random and easy against random. Game ``n`` has seed ``n`` and gives the first-named player
seat ``n % 2``, so each side starts half the games; it beats the other by winning alone (a
shared first place is a draw). Games running into the playout limit are cut off and count
as no win. Prints win rates and times per move (see bench/common.py); nothing asserts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SOLE_WINNER, Table, heading, parse_args, play_matchup
from games.engine import get_game

DEFAULT_GAMES = 100
MATCHUPS = (("strong", "easy"), ("strong", "random"), ("easy", "random"))


def main(argv: list[str]) -> None:
    variants = list(get_game("mancala").options["variant"])
    args = parse_args(argv, __doc__, DEFAULT_GAMES, variants, choice_name="variant")
    print(heading("Mancala, 2 players", args.games, SOLE_WINNER, args.parallel), flush=True)
    for variant in args.chosen:
        print(f"{variant}:", flush=True)
        table = Table("mancala", seats=2, options={"variant": variant})
        for measured, others in MATCHUPS:
            matchup = play_matchup(table, measured, others, args.games, args.parallel)
            print("\n".join(matchup.lines(SOLE_WINNER)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
