"""Legal moves, as plain functions of the immutable ``State``: ``legal(state)`` lists the acting
seat's moves in notation; ``effects.play`` applies one of them.
"""

from __future__ import annotations

from games.engine.words import Who
from games.rules.mesopotamia.hexes import DIRECTIONS, rim, step
from games.rules.mesopotamia.state import (
    ACTION,
    CARDS,
    COLOURS,
    FOREST,
    FREE_STEPS_PER_TURN,
    HOLY_PER_SEAT,
    HUTS_PER_SEAT,
    LAND_PEEK,
    LETTERS,
    MANA_CAP,
    MAX_DISCOVERIES,
    MOVE,
    PLACE_CHOICE,
    PLAINS,
    QUARRY,
    TEMPLE,
    TRIBES_PER_SEAT,
    VOLCANO,
    VOLCANO_CHOICE,
    Hex,
    State,
    Tile,
    Tribe,
    format_hex,
    seat_tribes,
    tribe_name,
    tribe_owner,
)

RESOURCES = ("wood", "stone")


def named(seat: int, *, possessive: bool = False) -> Who:
    """A seat in the log's words: by its colour ("Blue", "Blue's")."""
    return Who(seat, COLOURS[seat], possessive)


def parse_hex(text: str) -> Hex:
    q, r = text.split(",")
    return (int(q), int(r))


def parse_tribe(text: str) -> int:
    seat = LETTERS.index(text[0])
    number = int(text[1:])
    if not 1 <= number <= TRIBES_PER_SEAT:
        raise ValueError(text)
    return seat * TRIBES_PER_SEAT + number - 1


# --- counting ---------------------------------------------------------------------------


def tribes_at(state: State) -> dict[Hex, list[int]]:
    """For every occupied hex, how many tribes each seat has there (a list by seat)."""
    found: dict[Hex, list[int]] = {}
    players = state.num_players
    for index, tribe in enumerate(state.tribes):
        if tribe.pos is not None:
            if tribe.pos not in found:
                found[tribe.pos] = [0] * players
            found[tribe.pos][index // TRIBES_PER_SEAT] += 1
    return found


def own_tribes_at(state: State, seat: int, pos: Hex) -> list[int]:
    return [i for i in seat_tribes(seat) if state.tribes[i].pos == pos]


def huts_left(state: State, seat: int) -> int:
    return HUTS_PER_SEAT - sum(h.owner == seat for t in state.tiles for h in t.huts)


def holy_left(state: State, seat: int) -> int:
    return HOLY_PER_SEAT - sum(t.holy == seat for t in state.tiles)


def supply_tribes(state: State, seat: int) -> list[int]:
    return [i for i in seat_tribes(seat) if state.tribes[i].pos is None]


def playable_cards(state: State, seat: int) -> dict[str, int]:
    """Card name -> the id to play: cards held since before this turn (lowest id first)."""
    found: dict[str, int] = {}
    fresh = state.turn.fresh if state.turn.seat == seat else ()
    for card in sorted(state.players[seat].cards):
        if card not in fresh:
            found.setdefault(CARDS[card], card)
    return found


def mana_gain(state: State, seat: int) -> int:
    """Phase 3: one mana per holy place held (own: one tribe, other's: two), Priests added."""
    counts = tribes_at(state)
    sources = 0
    for tile in state.tiles:
        if tile.holy is None or tile.pos not in counts:
            continue
        mine = counts[tile.pos][seat]
        sources += mine >= (1 if tile.holy == seat else 2)
    priests = state.turn.priests if state.turn.seat == seat else 0
    return sources + min(priests, sources)


# --- legal moves ------------------------------------------------------------------------


def legal(state: State) -> list[str]:
    if state.over:
        return []
    phase = state.turn.phase
    if phase == MOVE:
        return _movement_moves(state) + _card_moves(state)
    if phase == ACTION:
        return _action_moves(state) + _card_moves(state)
    if phase == VOLCANO_CHOICE:
        return [f"volcano {format_hex(pos)}" for pos in volcano_sites(state)]
    if phase == PLACE_CHOICE:
        pending = state.turn.pending
        assert pending is not None  # a choice phase always waits on a pending choice
        return [f"{pending.resource} {format_hex(pos)}" for pos in place_sites(state)]
    return [f"to {format_hex(pos)}" for pos in target_sites(state)]


def can_enter(state: State, tribe: Tribe, tile: Tile) -> bool:
    if tile.kind == VOLCANO:
        return False
    return tile.kind != TEMPLE or temple_takes(tribe, state.players[state.turn.seat].mana)


def temple_takes(tribe: Tribe, mana: int) -> bool:
    """Wood never enters the temple; stone is delivered there; an offering only if its
    owner, with ``mana``, can pay for it."""
    return tribe.load in ("", "stone") or (tribe.load == "offering" and mana >= tribe.offering)


def can_discover(state: State) -> bool:
    return bool(state.stack) and state.turn.discoveries < MAX_DISCOVERIES


def _movement_moves(state: State) -> list[str]:
    turn = state.turn
    seat = turn.seat
    tiles = state.tile_map()
    counts = tribes_at(state) if turn.free_steps < FREE_STEPS_PER_TURN else {}
    discover = can_discover(state)
    moves = ["end"]
    for index in seat_tribes(seat):
        tribe = state.tribes[index]
        if tribe.pos is None:
            continue
        name = tribe_name(index)
        if turn.mp > 0:
            for direction in DIRECTIONS:
                tile = tiles.get(step(tribe.pos, direction))
                if tile is None:
                    if discover:
                        moves.append(f"discover {name} {direction}")
                elif can_enter(state, tribe, tile):
                    moves.append(f"move {name} {direction}")
        if turn.free_steps < FREE_STEPS_PER_TURN:
            moves += _free_moves(state, index, tiles[tribe.pos], counts)
    return moves


def _free_moves(state: State, index: int, tile: Tile, counts: dict[Hex, list[int]]) -> list[str]:
    """Carry, swap, drop and steal: steps that cost no movement points."""
    tribe = state.tribes[index]
    seat = tribe_owner(index)
    name = tribe_name(index)
    if tribe.load == "offering":
        return []  # a carried offering is only ever put down in the temple
    moves = []
    for resource in RESOURCES:
        if getattr(tile, resource) and tribe.load != resource:
            moves.append(f"carry {name} {resource}")
    for hut in tile.huts:
        if hut.owner == seat and hut.offering:
            moves.append(f"carry {name} offering {hut.offering}")
    if tribe.load:
        moves.append(f"drop {name}")
    elif index not in state.turn.stolen:
        assert tribe.pos is not None  # the caller passes only tribes on the board
        here = counts[tribe.pos]
        for other, victim in enumerate(state.tribes):
            owner = tribe_owner(other)
            if owner != seat and victim.pos == tribe.pos and victim.load in RESOURCES and here[seat] > here[owner]:
                moves.append(f"steal {name} {tribe_name(other)}")
    return moves


def _action_moves(state: State) -> list[str]:
    turn = state.turn
    seat = turn.seat
    moves = ["end"]
    if turn.action == "draw":
        return moves
    counts = tribes_at(state)
    player = state.players[seat]
    for tile in state.tiles:
        here = counts.get(tile.pos)
        if here is None or here[seat] < 2:
            continue
        where = format_hex(tile.pos)
        if turn.action in ("", "hut") and _can_build_hut(state, seat, tile):
            moves += [f"hut {where} {value}" for value in player.hand]
        if turn.action in ("", "holy") and _can_build_holy(state, seat, tile, here):
            moves.append(f"holy {where}")
        if turn.action in ("", "grow") and can_grow(state, seat, tile):
            moves.append(f"grow {where}")
    if not turn.action and (state.deck or (state.reshuffle and state.discard)):
        moves.append("draw")
    return moves


def carrier_of(state: State, seat: int, pos: Hex, load: str) -> int | None:
    return next((i for i in own_tribes_at(state, seat, pos) if state.tribes[i].load == load), None)


def _has_resource(state: State, seat: int, tile: Tile, resource: str) -> bool:
    """The stone a holy place needs "there": carried by one of the seat's tribes on the
    tile, or lying on it."""
    return getattr(tile, resource) > 0 or carrier_of(state, seat, tile.pos, resource) is not None


def _can_build_hut(state: State, seat: int, tile: Tile) -> bool:
    return (
        tile.kind == PLAINS
        and len(tile.huts) < 2
        and tile.holy is None
        and huts_left(state, seat) > 0
        and bool(state.players[seat].hand)
        and carrier_of(state, seat, tile.pos, "wood") is not None  # [spec] carried by one of them
    )


def _can_build_holy(state: State, seat: int, tile: Tile, here: list[int]) -> bool:
    return (
        tile.kind == PLAINS
        and not tile.huts
        and tile.holy is None
        and sum(here) == here[seat]
        and holy_left(state, seat) > 0
        and _has_resource(state, seat, tile, "stone")
    )


def can_grow(state: State, seat: int, tile: Tile) -> bool:
    """Growth is allowed on ``tile`` (the two tribes are checked by the caller): a hut of
    the seat's own not yet used for growth this turn, no marker lying there, a tribe in supply.

    ``turn.grown`` holds a tile once per growth there; a seat's huts on a tile grow in their
    order there, so the first ``grown.count(pos)`` of them are the used ones (see ``_expel``)."""
    return (
        sum(hut.owner == seat for hut in tile.huts) > state.turn.grown.count(tile.pos)
        and not any(h.offering for h in tile.huts)
        and bool(supply_tribes(state, seat))
    )


def _card_moves(state: State) -> list[str]:
    turn = state.turn
    seat = turn.seat
    player = state.players[seat]
    moves = []
    for name in playable_cards(state, seat):
        if name == "endurance" and turn.phase == MOVE:
            moves.append("play endurance")
        elif name == "priest" and any(t.holy is not None for t in state.tiles):
            moves.append("play priest")
        elif name == "fertility" and turn.action in ("", "grow"):
            moves.append("play fertility")
        elif name == "holy-stone" and (player.max_mana < MANA_CAP or player.mana < player.max_mana):
            moves.append("play holy-stone")
        elif name == "land" and state.known_top[seat] < min(LAND_PEEK, len(state.stack)):
            moves.append("play land")
        elif name == "mana-theft" and player.mana < player.max_mana:
            moves += [
                f"play mana-theft {LETTERS[other]}"
                for other, rival in enumerate(state.players)
                if other != seat and rival.mana > 0
            ]
        elif name == "teleport":
            moves += [f"play teleport {tribe_name(i)}" for i, t in enumerate(state.tribes) if t.pos is not None]
        elif name == "expulsion":
            moves += _expulsion_moves(state)
    return moves


def _expulsion_moves(state: State) -> list[str]:
    moves = []
    for tile in state.tiles:
        if tile.huts and _hut_sites(state, tile.pos):
            moves += [f"play expulsion {format_hex(tile.pos)} {n}" for n in range(1, len(tile.huts) + 1)]
    return moves


def _hut_sites(state: State, source: Hex) -> list[Hex]:
    return [t.pos for t in state.tiles if t.kind == PLAINS and t.pos != source and len(t.huts) < 2 and t.holy is None]


def volcano_sites(state: State) -> list[Hex]:
    assert state.turn.pending is not None  # asked only while a volcano waits to be placed
    target = state.turn.pending.pos
    return sorted(rim(t.pos for t in state.tiles) - {target})


def place_sites(state: State) -> list[Hex]:
    pending = state.turn.pending
    assert pending is not None  # asked only while resources wait to be placed
    kind = FOREST if pending.resource == "wood" else QUARRY
    return [t.pos for t in state.tiles if t.kind == kind and (t.pos == pending.pos or t.pos not in pending.given)]


def target_sites(state: State) -> list[Hex]:
    pending = state.turn.pending
    assert pending is not None  # asked only while a card waits for its target
    if pending.kind == "expulsion":
        assert pending.pos is not None  # an expulsion always names the hut's tile
        return _hut_sites(state, pending.pos)
    tribe = state.tribes[pending.tribe]
    # Teleport moves the tribe with its load: into the temple as if it walked in (it delivers
    # there). A rival's offering never: whether its owner could pay depends on a hidden value.
    mine = tribe_owner(pending.tribe) == state.turn.seat
    temple_ok = temple_takes(tribe, state.players[state.turn.seat].mana) and (mine or tribe.load != "offering")
    return [t.pos for t in state.tiles if t.kind != VOLCANO and t.pos != tribe.pos and (t.kind != TEMPLE or temple_ok)]
