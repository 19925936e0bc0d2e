"""Fits the Mecca strong AI's learned value (games/rules/mecca/value.json) again.

    python bench/mecca_value.py [games] [--start N] [--write]

Plays ``games`` four-player games (default 40,000; seed ``n`` puts the AI in seat ``n % 4``)
of the strong AI's judge alone (``bench/mecca_judge.py``'s settings: beam 3, no playouts, no
look ahead) against three random players, keeps the position at the start of each of the
AI colour's turns from round 2 on, described by ``value.features`` and labelled with whether
the AI won, and fits a network of one hidden layer of 32 tanh units to them (Adam, 25
passes, a tenth of the games held back to pick the best pass). Prints the log loss on the
held-back games next to that of the base rate; ``--write`` replaces value.json.

Needs numpy, which the site does not: run it with a Python that has numpy and Django on
its path, e.g. ``.venv/bin/pip install numpy`` first. The shipped value.json came from
seeds 200000-239999 (167,218 positions, held-back log loss 0.270 against 0.333) with two
constant inputs more; a new fit is as good, not the same numbers. About 10 minutes on two
cores for the games, seconds for the fit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Table, choose_move
from bench.mecca_judge import configure as judge_alone
from games.engine import get_game
from games.rules.mecca import ai, value
from games.rules.mecca.rules import PLACE, max_per_turn, winners

HIDDEN = 32
PASSES = 25
BATCH = 512
LEARNING_RATE = 1e-3
L2 = 1e-4
SEATS = 4


def positions(n: int) -> list[tuple[list[float], bool, int]]:
    """Game ``n``: the features at the start of each of the AI colour's turns from round 2."""
    game, table, seat = get_game("mecca"), Table("mecca", SEATS), n % SEATS
    names = ["random"] * SEATS
    names[seat] = "strong"
    state = game.initial_state(SEATS, {}, n)
    rows = []
    while not game.is_over(state):
        if state.colour == seat and state.step == PLACE and state.placed == 0 and state.round >= 2:
            judge = ai.Judge(state, ai.STRONG)
            others = tuple(colour for colour in judge.later if colour != seat)
            chain = ai.longest_chain(state.board, state.hand, seat, max_per_turn(state.colours), state.colours)
            rows.append(value.features(state.board, state.hand, seat, others, chain))
        mover = game.to_act(state)[0]
        state = game.apply(state, mover, choose_move(table, names[mover], state, mover, n))
    won = seat in winners(state)
    return [(row, won, n) for row in rows]


def fit(rows: list[tuple[list[float], bool, int]]) -> dict:
    import numpy as np

    x = np.array([row for row, _, _ in rows], dtype=float)
    y = np.array([won for _, won, _ in rows], dtype=float)
    games = np.array([n for _, _, n in rows])
    rng = np.random.default_rng(0)
    seeds = np.unique(games)
    rng.shuffle(seeds)
    held = np.isin(games, seeds[: len(seeds) // 10])
    mean, scale = x[~held].mean(0), x[~held].std(0) + 1e-6
    z = (x - mean) / scale
    params = [
        rng.normal(0, x.shape[1] ** -0.5, (x.shape[1], HIDDEN)),
        np.zeros(HIDDEN),
        rng.normal(0, HIDDEN**-0.5, HIDDEN),
        np.zeros(1),
    ]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]

    def forward(rows_):
        hidden = np.tanh(z[rows_] @ params[0] + params[1])
        return hidden, 1 / (1 + np.exp(-(hidden @ params[2] + params[3][0])))

    def log_loss(rows_):
        _, p = forward(rows_)
        return float(-np.mean(y[rows_] * np.log(p + 1e-9) + (1 - y[rows_]) * np.log(1 - p + 1e-9)))

    train, test = np.where(~held)[0], np.where(held)[0]
    base = y[train].mean()
    print(
        f"{len(train)} positions to fit, {len(test)} held back; base rate {base:.3f}, "
        f"log loss {-(base * math.log(base) + (1 - base) * math.log(1 - base)):.3f}"
    )
    best, step = (math.inf, None), 0
    for passes in range(PASSES):
        rng.shuffle(train)
        for start in range(0, len(train), BATCH):
            batch = train[start : start + BATCH]
            hidden, p = forward(batch)
            error = (p - y[batch]) / len(batch)
            back = np.outer(error, params[2]) * (1 - hidden**2)
            grads = [
                z[batch].T @ back + L2 * params[0],
                back.sum(0),
                hidden.T @ error + L2 * params[2],
                np.array([error.sum()]),
            ]
            step += 1
            for param, grad, moment in zip(params, grads, moments, strict=True):
                moment[0] = 0.9 * moment[0] + 0.1 * grad
                moment[1] = 0.999 * moment[1] + 0.001 * grad * grad
                param -= LEARNING_RATE * (moment[0] / (1 - 0.9**step)) / (np.sqrt(moment[1] / (1 - 0.999**step)) + 1e-8)
        loss = log_loss(test)
        print(f"pass {passes + 1}: held-back log loss {loss:.4f}")
        if loss < best[0]:
            best = (loss, [p.copy() for p in params])
    hidden_weights, hidden_bias, output, output_bias = best[1]
    return {
        "features": list(value.FEATURES),
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "hidden": hidden_weights.T.tolist(),
        "hidden_bias": hidden_bias.tolist(),
        "output": output.tolist(),
        "output_bias": float(output_bias[0]),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="?", type=int, default=40_000)
    parser.add_argument("--start", type=int, default=200_000, help="the first seed (200000)")
    parser.add_argument("--write", action="store_true", help="replace games/rules/mecca/value.json")
    args = parser.parse_args(argv)
    # The judge alone, as bench/mecca_judge.py --beam 3 next_chain=0 plays it.
    with ProcessPoolExecutor(os.cpu_count(), initializer=judge_alone, initargs=(3, {"next_chain": 0})) as pool:
        games = pool.map(positions, range(args.start, args.start + args.games), chunksize=16)
        rows = [row for game in games for row in game]
    network = fit(rows)
    if args.write:
        path = Path(value.__file__).with_name("value.json")
        path.write_text(json.dumps(network))
        print(f"wrote {path.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
