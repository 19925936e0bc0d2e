"""Components, the immutable state, the starting layout and the JSON round trip.

Everything a move can change lives in ``State``, a frozen dataclass of tuples and small
named tuples, so two states compare with ``==`` and nothing is shared between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from games.engine.rng import rng_for

Hex = tuple[int, int]

COLOURS = ("blue", "yellow", "green", "red")
LETTERS = ("b", "y", "g", "r")
NEUTRAL = -1  # owner of the neutral starting huts of 2- and 3-player games

TRIBES_PER_SEAT = 8
HUTS_PER_SEAT = 5
HOLY_PER_SEAT = 3
OFFERINGS = (2, 4, 6, 7)
WOOD_TOTAL = 20
STONE_TOTAL = 20
MANA_CAP = 8
START_MAX_MANA = 3
MP_PER_TURN = 5
FIRST_TURN_MP = {2: (2, 5), 3: (2, 3, 4), 4: (2, 3, 4, 5)}
ENDURANCE_MP = 3
MAX_DISCOVERIES = 3
LAND_PEEK = 3

# A turn may hold at most this many carry / drop / steal steps: far more than any sensible
# turn uses, and it keeps every turn (so every game) finite.
FREE_STEPS_PER_TURN = 30
# The rules end a game only on a fourth offering; these two bounds end it otherwise.
MAX_ROUNDS = 60
STALL_ROUNDS = 15

TEMPLE, VOLCANO, FOREST, QUARRY, PLAINS = "temple", "volcano", "forest", "quarry", "plains"
STACK_KINDS = ((PLAINS, 20), (QUARRY, 6), (FOREST, 5), (VOLCANO, 3))
REMOVED_PLAINS = {2: 6, 3: 4, 4: 0}
RESOURCE_OF = {FOREST: "wood", QUARRY: "stone"}

CARD_NAMES = ("endurance", "priest", "fertility", "holy-stone", "land", "mana-theft", "teleport", "expulsion")
CARD_COPIES = (3, 3, 2, 2, 2, 2, 2, 2)
CARDS: tuple[str, ...] = tuple(name for name, n in zip(CARD_NAMES, CARD_COPIES, strict=True) for _ in range(n))

# Phases of a turn; the last three wait for one choice inside another phase.
MOVE, ACTION, VOLCANO_CHOICE, PLACE_CHOICE, TARGET_CHOICE = "move", "action", "volcano", "place", "target"

START_TILES = (
    ((0, 0), TEMPLE),
    ((0, -1), VOLCANO),
    ((0, 1), VOLCANO),
    ((-1, 0), PLAINS),
    ((-1, 1), PLAINS),
    ((1, -1), FOREST),
    ((1, 0), QUARRY),
)
PLAINS_A, PLAINS_B = (-1, 0), (-1, 1)
# Who starts where (seats; NEUTRAL is a neutral hut without tribes).
START_CAMPS = {
    2: {PLAINS_A: (0, NEUTRAL), PLAINS_B: (1, NEUTRAL)},
    3: {PLAINS_A: (0, 2), PLAINS_B: (1, NEUTRAL)},
    4: {PLAINS_A: (0, 3), PLAINS_B: (1, 2)},
}
START_TRIBES = 3


class Hut(NamedTuple):
    owner: int  # a seat, or NEUTRAL
    offering: int = 0  # value of the face-down marker underneath; 0 for none


class Tile(NamedTuple):
    q: int
    r: int
    kind: str
    wood: int = 0
    stone: int = 0
    huts: tuple[Hut, ...] = ()
    holy: int | None = None  # seat owning the holy place here

    @property
    def pos(self) -> Hex:
        return (self.q, self.r)


class Tribe(NamedTuple):
    pos: Hex | None  # None: in its owner's supply
    load: str = ""  # "", "wood", "stone" or "offering"
    offering: int = 0  # value of a carried offering marker


class Player(NamedTuple):
    mana: int
    max_mana: int
    hand: tuple[int, ...]  # offering markers not yet put under a hut
    delivered: tuple[int, ...]  # offering markers face up on the temple, in order
    cards: tuple[int, ...]  # card ids (indexes into CARDS)


class Pending(NamedTuple):
    """A choice the acting player owes inside a phase."""

    kind: str  # "volcano", "place", "teleport" or "expulsion"
    tribe: int = -1  # the discovering or teleported tribe
    pos: Hex | None = None  # hex being discovered / new resource tile / hut's tile
    resource: str = ""  # "wood" or "stone" while placing
    left: int = 0  # resources still to place
    given: tuple[Hex, ...] = ()  # existing tiles that already got one
    hut: int = 0  # index of the expelled hut on its tile
    back: str = ""  # phase to return to after a card's target


class Turn(NamedTuple):
    seat: int
    phase: str
    mp: int
    discoveries: int = 0
    free_steps: int = 0
    action: str = ""  # the action chosen this turn ("hut", "holy", "grow", "draw")
    stolen: tuple[int, ...] = ()  # tribes that stole this turn
    grown: tuple[Hex, ...] = ()  # one entry per population growth this turn
    fertility: int = 0  # growths still doubled by Fertility
    priests: int = 0  # Priest cards played this turn
    fresh: tuple[int, ...] = ()  # cards drawn this turn: not playable before the next
    pending: Pending | None = None


@dataclass(frozen=True)
class State:
    num_players: int
    start_card: bool
    reshuffle: bool
    seed: int
    ply: int
    tiles: tuple[Tile, ...]
    stack: tuple[str, ...]
    removed_tiles: int
    tribes: tuple[Tribe, ...]
    players: tuple[Player, ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    gone: tuple[int, ...]  # cards out of the game (the "remove" variant)
    wood_supply: int
    stone_supply: int
    stones_used: int  # stones delivered to the temple, out of the game
    turn_number: int  # turns begun so far minus one: the current turn's index
    last_offering_turn: int
    turn: Turn
    known_top: tuple[int, ...]  # per seat: how many top tiles of the stack it has seen (Land)
    end_reason: str = ""  # "" while running; "offerings", "rounds" or "stalled"

    @property
    def over(self) -> bool:
        return bool(self.end_reason)

    def tile_map(self) -> dict[Hex, Tile]:
        return {(t.q, t.r): t for t in self.tiles}


# --- names -----------------------------------------------------------------------------


def tribe_name(index: int) -> str:
    return f"{LETTERS[index // TRIBES_PER_SEAT]}{index % TRIBES_PER_SEAT + 1}"


def tribe_owner(index: int) -> int:
    return index // TRIBES_PER_SEAT


def seat_tribes(seat: int) -> range:
    return range(seat * TRIBES_PER_SEAT, (seat + 1) * TRIBES_PER_SEAT)


def offering_id(seat: int, value: int) -> str:
    return f"o-{COLOURS[seat]}-{value}"


def card_id(card: int) -> str:
    # Two digits, so that no id is the beginning of another ("card-01" / "card-12").
    return f"card-{card + 1:02d}"


def format_hex(pos: Hex) -> str:
    return f"{pos[0]},{pos[1]}"


# --- setup -----------------------------------------------------------------------------


def initial(num_players: int, start_card: bool, reshuffle: bool, seed: int) -> State:
    stack = [kind for kind, n in STACK_KINDS for _ in range(n)]
    removed = REMOVED_PLAINS[num_players]
    for _ in range(removed):
        stack.remove(PLAINS)
    rng_for(seed, 0, "tiles").shuffle(stack)
    deck = list(range(len(CARDS)))
    rng_for(seed, 0, "cards").shuffle(deck)
    hands: list[tuple[int, ...]] = [() for _ in range(num_players)]
    if start_card:
        for seat in range(num_players):
            hands[seat] = (deck.pop(0),)
    tiles, tribes = _start_layout(num_players)
    return State(
        num_players=num_players,
        start_card=start_card,
        reshuffle=reshuffle,
        seed=seed,
        ply=0,
        tiles=tiles,
        stack=tuple(stack),
        removed_tiles=removed,
        tribes=tribes,
        players=tuple(Player(0, START_MAX_MANA, OFFERINGS, (), hands[s]) for s in range(num_players)),
        deck=tuple(deck),
        discard=(),
        gone=(),
        wood_supply=WOOD_TOTAL - num_players,
        stone_supply=STONE_TOTAL - num_players,
        stones_used=0,
        turn_number=0,
        last_offering_turn=0,
        turn=Turn(seat=0, phase=MOVE, mp=FIRST_TURN_MP[num_players][0]),
        known_top=(0,) * num_players,
    )


def _start_layout(num_players: int) -> tuple[tuple[Tile, ...], tuple[Tribe, ...]]:
    camps = START_CAMPS[num_players]
    tiles = []
    for (q, r), kind in START_TILES:
        owners = camps.get((q, r), ())
        wood = num_players if kind == FOREST else 0
        stone = num_players if kind == QUARRY else 0
        tiles.append(Tile(q, r, kind, wood, stone, tuple(Hut(owner) for owner in owners)))
    tribes = [Tribe(None)] * (TRIBES_PER_SEAT * num_players)
    for pos, owners in camps.items():
        for seat in owners:
            if seat != NEUTRAL:
                for index in seat_tribes(seat)[:START_TRIBES]:
                    tribes[index] = Tribe(pos)
    return tuple(tiles), tuple(tribes)


# --- JSON ------------------------------------------------------------------------------

STATE_KEYS = frozenset(
    {
        "num_players", "start_card", "reshuffle", "seed", "ply", "tiles", "stack", "removed_tiles", "tribes",
        "players", "deck", "discard", "gone", "wood_supply", "stone_supply", "stones_used", "turn_number",
        "last_offering_turn", "turn", "known_top", "end_reason",
    }
)  # fmt: skip


def dump(state: State) -> dict[str, Any]:
    return {
        "num_players": state.num_players,
        "start_card": state.start_card,
        "reshuffle": state.reshuffle,
        "seed": state.seed,
        "ply": state.ply,
        "tiles": [
            [t.q, t.r, t.kind, t.wood, t.stone, [[h.owner, h.offering] for h in t.huts], t.holy] for t in state.tiles
        ],
        "stack": list(state.stack),
        "removed_tiles": state.removed_tiles,
        "tribes": [[list(t.pos) if t.pos else None, t.load, t.offering] for t in state.tribes],
        "players": [[p.mana, p.max_mana, list(p.hand), list(p.delivered), list(p.cards)] for p in state.players],
        "deck": list(state.deck),
        "discard": list(state.discard),
        "gone": list(state.gone),
        "wood_supply": state.wood_supply,
        "stone_supply": state.stone_supply,
        "stones_used": state.stones_used,
        "turn_number": state.turn_number,
        "last_offering_turn": state.last_offering_turn,
        "turn": _dump_turn(state.turn),
        "known_top": list(state.known_top),
        "end_reason": state.end_reason,
    }


def _dump_turn(turn: Turn) -> dict[str, Any]:
    data = turn._asdict()
    data["stolen"] = list(turn.stolen)
    data["grown"] = [list(pos) for pos in turn.grown]
    data["fresh"] = list(turn.fresh)
    pending = turn.pending
    if pending is not None:
        pending_data = pending._asdict()
        pending_data["pos"] = list(pending.pos) if pending.pos else None
        pending_data["given"] = [list(pos) for pos in pending.given]
        data["pending"] = pending_data
    return data


def load(data: dict[str, Any]) -> State:
    if set(data) != STATE_KEYS:
        raise ValueError("This is not a stored Mesopotamia position.")
    return State(
        num_players=data["num_players"],
        start_card=data["start_card"],
        reshuffle=data["reshuffle"],
        seed=data["seed"],
        ply=data["ply"],
        tiles=tuple(
            Tile(q, r, kind, wood, stone, tuple(Hut(o, v) for o, v in huts), holy)
            for q, r, kind, wood, stone, huts, holy in data["tiles"]
        ),
        stack=tuple(data["stack"]),
        removed_tiles=data["removed_tiles"],
        tribes=tuple(Tribe(_hex(pos), load, value) for pos, load, value in data["tribes"]),
        players=tuple(
            Player(mana, top, tuple(hand), tuple(delivered), tuple(cards))
            for mana, top, hand, delivered, cards in data["players"]
        ),
        deck=tuple(data["deck"]),
        discard=tuple(data["discard"]),
        gone=tuple(data["gone"]),
        wood_supply=data["wood_supply"],
        stone_supply=data["stone_supply"],
        stones_used=data["stones_used"],
        turn_number=data["turn_number"],
        last_offering_turn=data["last_offering_turn"],
        turn=_load_turn(data["turn"]),
        known_top=tuple(data["known_top"]),
        end_reason=data["end_reason"],
    )


def _load_turn(data: dict[str, Any]) -> Turn:
    pending = data["pending"]
    if pending is not None:
        pending = Pending(**{**pending, "pos": _hex(pending["pos"]), "given": tuple(_hex(p) for p in pending["given"])})
    return Turn(
        **{
            **data,
            "stolen": tuple(data["stolen"]),
            "grown": tuple(_hex(p) for p in data["grown"]),
            "fresh": tuple(data["fresh"]),
            "pending": pending,
        }
    )


def _hex(pos: list[int] | None) -> Hex | None:
    return (pos[0], pos[1]) if pos is not None else None
