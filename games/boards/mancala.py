"""Mancala's board as its template draws it: the viewer's tiles along the bottom, numbered 1-6
from the left, and the other player's along the top, numbered from *his* left (6 to 1 on the
screen), as the move log counts them.

Only the player to move can sow, from his own row, the bottom one: the whole tile is the
button. In the Ethiopian game it opens a choice of two ways. There, sowing to the right
(``r``, counterclockwise) carries the coins rightwards towards his mancala and sowing to the
left (``l``, clockwise) leftwards, so an arrow pointing that way on the screen is right for
either seat.

The last move (``LastMove``) is marked on every tile and mancala it changed: where the sowing
started, each hole a coin was dropped in, in the order they were dropped, the tiles a capture
or a bank emptied and, at the end, the tiles swept into the mancalas. The path comes from the
engine's own sowing, run again on a ring that notes each hole it writes to."""

from __future__ import annotations

from typing import NamedTuple, SupportsIndex

from games.boards import LastMove, last_span_words
from games.engine import get_game
from games.engine.base import IllegalMove
from games.rules.mancala.notation import parse_move
from games.rules.mancala.rules import ETHIOPIAN, HOLES, NIGERIAN, STALL_LIMIT, STORE, State, hole, sow


class Direction(NamedTuple):
    arrow: str  # the way the first coins go along the bottom row, on the screen
    turn: str  # the spec's name for it
    side: str  # the mover's own word, which the move log uses ("to the left")


MANCALA = get_game("mancala")
STALL_WARNING = 20  # moves without a banked coin from which the board counts down to the stall rule
# Coins drawn in a tile and in a mancala: more would not fit a phone's tile tidily (the count says how many).
TILE_COINS_DRAWN = 12
STORE_COINS_DRAWN = 24

DIRECTIONS = {
    "l": Direction(arrow="◀", turn="clockwise", side="left"),
    "r": Direction(arrow="▶", turn="counterclockwise", side="right"),
}

# How the last move changed a tile, the strongest last: a tile sown from and then sown into
# again on a lap stays where the sowing started; one sown into and then captured is captured.
FROM, SOWN, SWEPT, TAKEN = "from", "sown", "swept", "taken"
STRENGTH = {SOWN: 0, FROM: 1, SWEPT: 2, TAKEN: 3}
GAINED = "gained"  # a mancala's one mark


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    me = seat if seat is not None else 0
    them = 1 - me
    moves_by_tile: dict[int, list[dict]] = {}
    for move in legal:
        number = int(move.rstrip("lr"))
        moves_by_tile.setdefault(number, []).append(_option(number, move, view["tiles"][me][number - 1]))
    changed, span = _changes(last)
    said = _Said(view, last.before if last else view, changed, span)
    bottom = [{**_tile(view, me, i, said), "moves": moves_by_tile.get(i + 1, [])} for i in range(6)]
    for tile in bottom:
        tile["pick"] = len(tile["moves"]) > 1  # the whole tile opens its ways, each a button
        tile["pick_label"] = _pick_label(tile) if tile["pick"] else ""
    # Seen from across the table, the other player's tiles run right to left.
    top = [_tile(view, them, i, said) for i in reversed(range(6))]
    return {
        "me": me,
        "them": them,
        "top": top,
        "bottom": bottom,
        "my_store": view["mancalas"][me],
        "their_store": view["mancalas"][them],
        "my_store_drawn": min(view["mancalas"][me], STORE_COINS_DRAWN),
        "their_store_drawn": min(view["mancalas"][them], STORE_COINS_DRAWN),
        "my_store_last": said.store(me),
        "their_store_last": said.store(them),
        "last_span": last_span_words(span) if changed else "",
        "ethiopian": view["variant"] == ETHIOPIAN,
        "choosing_direction": any(option["direction"] for options in moves_by_tile.values() for option in options),
        "single_coin_note": _single_coin_note(bottom) if legal else "",
        "directions": DIRECTIONS,
        "uncounted": _uncounted(view),
        "stall": _stall(view),
        "picture_label": _picture_label(view),
    }


def _tile(view: dict, owner: int, index: int, said: _Said) -> dict:
    coins = view["tiles"][owner][index]
    return {
        "number": index + 1,
        "coins": coins,
        "drawn": min(coins, TILE_COINS_DRAWN),
        "last": said.tile(owner, index),
    }


def _pick_label(tile: dict) -> str:
    coins = tile["coins"]
    return f"Sow tile {tile['number']} ({coins} coin{'s' if coins != 1 else ''}): choose the way"


class _Ring(list[int]):
    """The board's 14 holes, noting each write the engine's sowing makes, in order: the tile
    picked up, each coin dropped, then a capture's or a bank's."""

    def __init__(self, holes: tuple[int, ...]):
        super().__init__(holes)
        self.writes: list[tuple[int, int, int]] = []  # (hole, coins before, coins after)

    def __setitem__(self, index: SupportsIndex, value: int) -> None:  # type: ignore[override]
        self.writes.append((int(index), self[index], value))
        super().__setitem__(index, value)


def _changes(last: LastMove | None) -> tuple[dict[int, dict], int]:
    """Each hole the moves of ``last`` changed: how (the strongest change) and when it was first
    reached, counted across the moves; and how many moves that is."""
    marks: dict[int, dict] = {}
    if not last:
        return marks, 0
    state, span = _state(last.before), 0
    for seat, move in last.played:
        try:
            after = MANCALA.apply(state, seat, move)
        except IllegalMove:
            break  # moves that do not follow from ``before`` (a bug elsewhere) mark what they can, not break the page
        tile, step = parse_move(MANCALA.normalize(move), state.variant)
        ring = _Ring(state.board)
        sow(ring, seat, tile, step, state.variant)
        # The end of the game (or the Ethiopian stall rule) sweeps what the sowing left on the tiles.
        swept = [(h, SWEPT) for h in range(HOLES) if ring[h] != after.board[h]]
        for h, kind in [*_kinds(ring.writes), *swept]:
            mark = marks.setdefault(h, {"kind": kind, "order": len(marks)})
            if STRENGTH[kind] > STRENGTH[mark["kind"]]:
                mark["kind"] = kind
        state, span = after, span + 1
    return marks, span


def _kinds(writes: list[tuple[int, int, int]]) -> list[tuple[int, str]]:
    """What each write of one sowing did: the first picks the tile up, as does a Nigerian relay
    (the last coin dropped, then picked up again); a coin dropped is one more; any other emptying
    follows a mancala's gain (a capture, or the Nigerian 4-coin bank)."""
    kinds = []
    for i, (h, before, after) in enumerate(writes):
        relay = after == 0 and i > 0 and writes[i - 1][0] == h and writes[i - 1][2] == writes[i - 1][1] + 1
        if i == 0 or relay:
            kinds.append((h, FROM))
        elif after == before + 1 or h in STORE:
            kinds.append((h, SOWN))
        else:
            kinds.append((h, TAKEN))
    return kinds


def _state(view: dict) -> State:
    """The position a view shows: a Mancala view hides nothing (the seed only serves the AI)."""
    return MANCALA.load(
        {
            "variant": view["variant"],
            "tiles": view["tiles"],
            "mancalas": view["mancalas"],
            "to_move": view["to_act"][0] if view["to_act"] else 0,
            "over": view["over"],
            "seed": 0,
            "moves_played": view["moves_played"],
            "quiet_moves": view.get("quiet_moves", 0),
        }
    )


class _Said:
    """A changed tile's or mancala's mark: its kind, its place in the order and its words."""

    def __init__(self, view: dict, before: dict, changed: dict[int, dict], span: int):
        self.view, self.before, self.changed, self.when = view, before, changed, last_span_words(span)

    def tile(self, owner: int, index: int) -> dict | None:
        mark = self.changed.get(hole(owner, index))
        if mark is None:
            return None
        delta = self.view["tiles"][owner][index] - self.before["tiles"][owner][index]
        taken = "captured" if self.view["variant"] != NIGERIAN else "banked by the 4-coin rule"
        words = {
            FROM: f"picked up and sown {self.when}",
            SOWN: f"{_coins(delta)} more {self.when}" if delta > 0 else f"sown into {self.when}",
            TAKEN: f"{taken} {self.when}",
            SWEPT: "banked by its owner as the game ended",
        }
        return {**mark, "delta": _signed(delta), "said": words[mark["kind"]].capitalize() + "."}

    def store(self, owner: int) -> dict | None:
        mark = self.changed.get(STORE[owner])
        if mark is None:
            return None
        delta = self.view["mancalas"][owner] - self.before["mancalas"][owner]
        return {**mark, "kind": GAINED, "delta": _signed(delta), "said": f"{_coins(delta)} more {self.when}."}


def _coins(n: int) -> str:
    return f"{n} coin{'s' if n != 1 else ''}"


def _signed(delta: int) -> str:
    """A change as the board writes it: "+2", "−4" (a minus sign, not a hyphen), none for 0."""
    return f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else ""


def _picture_label(view: dict) -> str:
    """The board as a picture says (the home page): a short line, not every tile."""
    on_tiles = sum(view["tiles"][0]) + sum(view["tiles"][1])
    return f"A Mancala board: two rows of six tiles holding {on_tiles} coins, and a mancala at each end"


def _single_coin_note(bottom: list[dict]) -> str:
    """Ethiopian: a tile of the mover's with one coin is no button; the key says why."""
    numbers = [str(tile["number"]) for tile in bottom if tile["coins"] == 1]
    if not numbers:
        return ""
    if len(numbers) == 1:
        return f"Tile {numbers[0]} holds a single coin, which may never start a sowing."
    return f"Tiles {', '.join(numbers[:-1])} and {numbers[-1]} hold a single coin, which may never start a sowing."


def _stall(view: dict) -> dict | None:
    """Ethiopian: how long no coin was banked, once it gets long (no random game went past 16),
    and whether that ended the game."""
    quiet = view.get("quiet_moves", 0)
    if view["variant"] != ETHIOPIAN or quiet < STALL_WARNING or (view["over"] and quiet < STALL_LIMIT):
        return None
    return {"moves": quiet, "left": STALL_LIMIT - quiet, "ended": quiet >= STALL_LIMIT}


def _option(number: int, move: str, coins: int) -> dict:
    """One move: a plain sowing, or an Ethiopian direction as an arrow with words for its
    label; the label a screen reader reads says how many coins go."""
    what = f"Sow tile {number} ({_coins(coins)})"
    direction = DIRECTIONS.get(move[-1])
    if direction is None:
        return {"move": move, "label": "Sow", "direction": "", "aria_label": what}
    return {
        "move": move,
        "label": direction.arrow,
        "direction": move[-1],
        "aria_label": f"{what} {direction.turn} (to your {direction.side})",
    }


def _uncounted(view: dict) -> dict | None:
    """At the end of a Nigerian game, the coins left on the tiles, which score nothing."""
    if view["variant"] != NIGERIAN or not view.get("over"):
        return None
    left = sum(view["tiles"][0]) + sum(view["tiles"][1])
    return {"coins": left, "scored": sum(view["mancalas"]), "total": left + sum(view["mancalas"])}
