"""Where the strong Mecca AI loses to random players.

    python bench/mecca_losses.py [games] [--start N] [--parallel]

Plays the games of ``bench/mecca_ai.py strong-random`` (game ``n``: seed ``n``, the strong
AI in seat ``n % 4``), from seed ``--start`` on, and prints what tells its wins from its
losses: its win rate by its place in the playing order, and, for won and lost games apart,
the pilgrims it lost to other players' removals, its turns of three pilgrims against those
of the best other player, and its margin over the best other at the end of each round; and
its win rate in the games that ended on its own turn and on another colour's turn.
Prints numbers only; nothing asserts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Table, choose_move, wilson
from games.rules.mecca.rules import PLACE, max_per_turn, owner, scores, turn_order

SEATS = 4
ROUNDS_SHOWN = 5


@dataclass
class Game:
    seat: int  # the AI's
    won: bool
    place: int  # the AI's place in the playing order, 1 = first
    lost_to_removals: int = 0  # its pilgrims sent back by the others' removals (isolated ones too)
    full_turns: dict[int, int] = field(default_factory=lambda: defaultdict(int))  # seat -> turns of 3 pilgrims
    margins: list[int] = field(default_factory=list)  # its margin over the best other after each round
    best_other: int = 0
    ended_by_self: bool = False  # the game ended at the end of the AI's own turn


def margin(board: tuple[int, ...], seat: int) -> int:
    totals = [score.total for score in scores(board, SEATS)]
    return totals[seat] - max(total for other, total in enumerate(totals) if other != seat)


def play(n: int) -> Game:
    table = Table("mecca", SEATS)
    game = table.game
    seat = n % SEATS
    names = ["random"] * SEATS
    names[seat] = "strong"
    state = game.initial_state(SEATS, {}, n)
    margins: list[int] = []
    lost = 0
    placed: dict[tuple[int, int], int] = defaultdict(int)  # (round, colour) -> pilgrims placed
    before = state
    while not game.is_over(state):
        mover = game.to_act(state)[0]
        before = state
        state = game.apply(state, mover, choose_move(table, names[mover], state, mover, n))
        if before.step == PLACE:
            placed[before.round, before.colour] += 1
        removal = state.last_removal
        if removal is not None and removal is not before.last_removal and owner(removal.by, SEATS) != seat:
            sent_back = [removal.colour, *(colour for _square, colour in removal.returned)]
            lost += sum(1 for colour in sent_back if owner(colour, SEATS) == seat)
        if state.round > before.round > 0:
            margins.append(margin(state.board, seat))
    outcome = game.outcome(state)
    totals = list(outcome.scores)
    best_other = max((other for other in range(SEATS) if other != seat), key=lambda other: totals[other])
    place = turn_order(state.entrances).index(seat) + 1  # with four players, seat s plays colour s
    record = Game(
        seat,
        seat in outcome.winners,
        place,
        lost,
        margins=margins,
        best_other=best_other,
        ended_by_self=before.colour == seat,
    )
    for (_round, colour), count in placed.items():
        if count == max_per_turn(SEATS):
            record.full_turns[owner(colour, SEATS)] += 1
    return record


def won_line(label: str, games: list[Game]) -> str:
    if not games:
        return f"  {label}: no games"
    wins = sum(game.won for game in games)
    low, high = wilson(wins, len(games))
    return f"  {label}: {wins / len(games):6.1%} of {len(games):4d} games (95% {low:.1%}–{high:.1%})"


def report(games: list[Game]) -> list[str]:
    lines = ["Won by place in the playing order:"]
    lines += [won_line(str(place), [game for game in games if game.place == place]) for place in range(1, SEATS + 1)]
    lines.append("Won by whose turn ended the game:")
    lines += [
        won_line(label, [game for game in games if game.ended_by_self == mine])
        for label, mine in (("its own", True), ("another colour's", False))
    ]
    for label, part in (("won", [g for g in games if g.won]), ("lost", [g for g in games if not g.won])):
        if not part:
            continue
        lines.append(f"Games {label} ({len(part)}):")
        lines.append(f"  pilgrims lost to the others' removals: {mean(g.lost_to_removals for g in part):.2f}")
        lines.append(
            f"  turns of three pilgrims: AI {mean(g.full_turns[g.seat] for g in part):.2f}, "
            f"best other {mean(g.full_turns[g.best_other] for g in part):.2f}"
        )
        after = []
        for round_number in range(1, ROUNDS_SHOWN + 1):
            reached = [g.margins[round_number - 1] for g in part if len(g.margins) >= round_number]
            if reached:
                after.append(f"{round_number}: {mean(reached):+.2f}")
        lines.append(f"  margin after round {', '.join(after)}")
    return lines


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="?", type=int, default=400)
    parser.add_argument("--start", type=int, default=0, help="the first seed (0)")
    parser.add_argument("--parallel", action="store_true", help="one process per core")
    args = parser.parse_args(argv)
    seeds = range(args.start, args.start + args.games)
    if args.parallel:
        with ProcessPoolExecutor(os.cpu_count()) as pool:
            games = list(pool.map(play, seeds))
    else:
        games = [play(n) for n in seeds]
    wins = sum(game.won for game in games)
    print(
        f"Mecca, strong vs 3 random, seeds {args.start}–{args.start + args.games - 1}: "
        f"won {wins / len(games):.1%} of {len(games)}"
    )
    print("\n".join(report(games)))


if __name__ == "__main__":
    main(sys.argv[1:])
