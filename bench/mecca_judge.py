"""The Mecca strong AI's judge alone: fast enough to measure a change to it on thousands of games.

    python bench/mecca_judge.py [games] [field=value ...] [--beam N] [--start N]

Plays the ``strong-random`` games of ``bench/mecca_ai.py`` (game ``n``: seed ``n``, the AI
in seat ``n % 4``) with the strong level's playouts and look ahead switched off, so every move is the
beam search judged by ``ai.Weights`` alone; ``field=value`` overrides a weight (for
example ``next_chain=0``), ``--beam`` the beam width. With ``--beam 3 next_chain=0`` it
plays 4,000 games in about 80 seconds on two cores, where a win rate is known to about
half a point and a mean margin to 0.03 pilgrims: differences that 400 games of the full
AI (1.3 points) cannot show. What holds here need not hold with the playouts on; check a
change that helps with ``bench/mecca_ai.py`` too. Prints numbers only; nothing asserts.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from statistics import mean, stdev

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import AMONG_WINNERS, Table, play_matchup_game, wilson
from games.rules.mecca import ai


def configure(beam: int, weights: dict[str, float]) -> None:
    """Runs in every worker process: playouts and look ahead off, the beam and the weights asked for."""
    ai.LATE = math.inf
    ai.PLANS_LOOKED_AHEAD = 0
    ai.BEAM = beam
    ai.STRONG = dataclasses.replace(ai.STRONG, **weights)


def play(n: int):
    return play_matchup_game(Table("mecca", 4), "strong", "random", n)


def parse_weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    if name not in {field.name for field in dataclasses.fields(ai.Weights)} or not value:
        raise argparse.ArgumentTypeError(f"not a weight=value of ai.Weights: {text}")
    return name, float(value)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="?", type=int, default=4000)
    parser.add_argument("weights", nargs="*", type=parse_weight, help="weight=value overrides")
    parser.add_argument("--beam", type=int, default=ai.BEAM, help=f"beam width ({ai.BEAM})")
    parser.add_argument("--start", type=int, default=0, help="the first seed (0)")
    args = parser.parse_intermixed_args(argv)
    weights = dict(args.weights)
    started = time.perf_counter()
    with ProcessPoolExecutor(os.cpu_count(), initializer=configure, initargs=(args.beam, weights)) as pool:
        records = list(pool.map(play, range(args.start, args.start + args.games), chunksize=20))
    wins = sum(AMONG_WINNERS.test(record) for record in records)
    low, high = wilson(wins, len(records))
    margins = [record.margin for record in records]
    changed = " ".join(f"{name}={value:g}" for name, value in weights.items()) or "none"
    print(f"Mecca judge alone (no playouts), beam {args.beam}, weights changed: {changed}")
    print(
        f"  strong vs 3 random, seeds {args.start}–{args.start + args.games - 1}: won {wins / len(records):.1%} "
        f"(95% {low:.1%}–{high:.1%}); mean margin {mean(margins):+.2f} ± {stdev(margins) / len(margins) ** 0.5:.2f} "
        f"[{time.perf_counter() - started:.0f} s]"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
