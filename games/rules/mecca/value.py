"""A learned chance of winning, for the strong AI's look one round ahead in 4-player games.

The position is the one at the start of the AI colour's turn (after the three other
colours have played). It is described by the numbers in ``FEATURES``, seen from that
colour: "mine", then the three others in the order they play after it ("next", "second",
"third"). A small network (one hidden layer of tanh units, a logistic output) turns them
into the chance that the AI's seat ends among the winners.

The weights in ``value.json`` were fitted by ``bench/mecca_value.py`` (which needs numpy;
the site does not) to 167,218 such positions from 40,000 four-player games of the
strong AI's judge alone against three random players, seeds 200000-239999, labelled with
whether the AI won. On the games held back it predicts the result with a log loss of 0.270,
where the base rate alone gives 0.333. Two, three, five and six players have other
boards and turns; the network was fitted to four only, and the AI uses it only there.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from games.rules.mecca.board import CLOSE_TO_KAABA, CRESCENTS
from games.rules.mecca.rules import EMPTY, open_squares, removable_squares, totals

PLAYERS = 4  # the only player count the network was fitted to (one colour each)
PLAYABLE_SQUARES = 76  # squares in play with four colours: scales the share taken
SEATS = ("mine", "next", "second", "third")
FEATURES = (
    "lead_best",  # my points minus the best other's
    "lead_mean",  # my points minus the others' mean
    "kaaba_lead",  # my pilgrims close to the Kaaba minus the most of any other
    *(f"points_{seat}" for seat in SEATS),
    *(f"squares_{k}_{seat}" for seat in SEATS for k in (1, 2, 3)),  # empty squares for a k-th pilgrim
    *(f"chance_{k}_{seat}" for seat in SEATS for k in (2, 3)),  # 1 - 2^-n for those n squares
    *(f"removable_{seat}" for seat in SEATS),
    *(f"kaaba_{seat}" for seat in SEATS),
    *(f"hand_{seat}" for seat in SEATS),
    *(f"crescents_{seat}" for seat in SEATS),  # pilgrims on a crescent of their own colour
    *(f"can_start_{seat}" for seat in SEATS[1:]),  # a pilgrim in hand and a square for a 1st one
    "taken_share",  # squares taken, of those in play
    "chain",  # the longest chain my colour can place now
    "chain_of_three",  # 1 if that chain reaches the removal
)


def features(
    board: tuple[int, ...], hand: tuple[int, ...], colour: int, others: tuple[int, ...], chain: int
) -> list[float]:
    """``FEATURES`` of the position, for ``colour`` about to play; ``others`` are the other
    colours in the order they play after it; ``chain`` is its longest chain now."""
    seats = (colour, *others)
    fitting = open_squares(board, PLAYERS)
    removable = [0] * PLAYERS
    for square in removable_squares(board):
        removable[board[square]] += 1
    kaaba = [0] * PLAYERS
    taken = 0
    for square, c in enumerate(board):
        if c != EMPTY:
            taken += 1
            kaaba[c] += square in CLOSE_TO_KAABA
    points = totals(board, PLAYERS)
    mine, *theirs = (points[c] for c in seats)
    kaabas = [kaaba[c] for c in seats]
    return [
        mine - max(theirs),
        mine - sum(theirs) / len(theirs),
        kaabas[0] - max(kaabas[1:]),
        mine,
        *theirs,
        *(fitting[c][k] for c in seats for k in (1, 2, 3)),
        *(1 - 0.5 ** fitting[c][k] for c in seats for k in (2, 3)),
        *(removable[c] for c in seats),
        *kaabas,
        *(hand[c] for c in seats),
        *(sum(1 for square in CRESCENTS[c] if board[square] == c) for c in seats),
        *(1.0 if hand[c] and fitting[c][1] else 0.0 for c in others),
        taken / PLAYABLE_SQUARES,
        float(chain),
        float(chain >= 3),
    ]


@cache
def network() -> dict[str, Any]:
    with (Path(__file__).parent / "value.json").open() as file:
        weights: dict[str, Any] = json.load(file)
    assert tuple(weights["features"]) == FEATURES, "value.json was fitted to other features"
    return weights


def chance_of_winning(numbers: list[float]) -> float:
    """The network's chance that the position described by ``numbers`` (``features``) is won."""
    weights = network()
    z = [(x - mean) / scale for x, mean, scale in zip(numbers, weights["mean"], weights["scale"], strict=True)]
    logit = weights["output_bias"]
    for unit, bias, out in zip(weights["hidden"], weights["hidden_bias"], weights["output"], strict=True):
        logit += out * math.tanh(bias + sum(w * x for w, x in zip(unit, z, strict=True)))
    return 1 / (1 + math.exp(-logit))
