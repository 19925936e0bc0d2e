"""Mesopotamia positions for the rule tests: a game started with a seed, its tribes, tiles,
turn, players and cards arranged by hand, and moves played as the seat to act. ``A`` and ``B``
are the starting camps (plains), ``TEMPLE``, ``FOREST`` and ``QUARRY`` the other starting tiles,
``SITE`` a plains to build on."""

from __future__ import annotations

from dataclasses import replace

from games.rules.mesopotamia import GAME, rules
from games.rules.mesopotamia.state import CARDS, State, Tile, Tribe, Turn

A, B = (-1, 0), (-1, 1)
TEMPLE, FOREST, QUARRY = (0, 0), (1, -1), (1, 0)


# --- building positions -------------------------------------------------------------------


def start(players: int = 3, seed: int = 7, **options: str) -> State:
    return GAME.initial_state(players, options, seed)


def tribe_index(name: str) -> int:
    return rules.parse_tribe(name)


def arrange(
    state: State,
    tribes: dict[str, tuple] | None = None,
    tiles: tuple[Tile, ...] = (),
    clear: bool = False,
    **fields,
) -> State:
    """``state`` with tribes placed (``{"b1": ((q, r), load, offering)}``), tiles put on the
    map (replacing one on the same hex), and other fields replaced."""
    all_tribes = [Tribe(None) for _ in state.tribes] if clear else list(state.tribes)
    for name, spec in (tribes or {}).items():
        all_tribes[tribe_index(name)] = Tribe(*spec)
    by_pos = {t.pos: t for t in state.tiles}
    for tile in tiles:
        by_pos[tile.pos] = tile
    return replace(state, tribes=tuple(all_tribes), tiles=tuple(by_pos.values()), **fields)


def turn(state: State, seat: int = 0, phase: str = "move", mp: int = 5, **fields) -> State:
    return replace(state, turn=Turn(seat=seat, phase=phase, mp=mp, **fields))


def player(state: State, seat: int, **fields) -> State:
    players = list(state.players)
    players[seat] = players[seat]._replace(**fields)
    return replace(state, players=tuple(players))


def play(state: State, *moves: str) -> State:
    for move in moves:
        state = GAME.apply(state, state.turn.seat, move)
    return state


def legal(state: State) -> list[str]:
    return GAME.legal_moves(state, state.turn.seat)


def tile_at(state: State, pos) -> Tile:
    return state.tile_map()[pos]


def tribe(state: State, name: str) -> Tribe:
    return state.tribes[tribe_index(name)]


def plains(q: int, r: int, **fields) -> Tile:
    return Tile(q, r, "plains", **fields)


SITE = (-2, 0)


def site_state(*loads: str, seat: int = 0, **tile_fields) -> State:
    """Seat ``seat`` in its action phase with tribes carrying ``loads`` on plains -2,0."""
    letter = "byg"[seat]
    tribes = {f"{letter}{i + 4}": (SITE, load) for i, load in enumerate(loads)}
    return turn(arrange(start(), tribes, tiles=(plains(*SITE, **tile_fields),)), seat, phase="action")


def with_card(name: str, state: State | None = None, seat: int = 0, phase: str = "move") -> State:
    state = state or start()
    card = CARDS.index(name)
    deck = tuple(c for c in state.deck if c != card)
    return turn(player(replace(state, deck=deck), seat, cards=(card,)), seat, phase=phase)
