"""What one seat may know: the only way a position leaves the rules.

A seat sees the whole board, every mana scale, every delivered offering, how many
cards and hidden offerings each player holds, and its own secrets: the values (and ids)
of its own offering markers in hand, under its huts and carried by its tribes, its cards,
and the tiles Land showed it. Another seat's markers show only as "offering": true, its
cards only as a count, and the stack and the deck only as counts. After the game everything
shows, the order of the stack and of the deck too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.rules.mesopotamia.rules import holy_left, huts_left, legal, named
from games.rules.mesopotamia.state import (
    CARDS,
    COLOURS,
    LETTERS,
    MAX_ROUNDS,
    NEUTRAL,
    OFFERINGS,
    STALL_ROUNDS,
    TRIBES_PER_SEAT,
    Pending,
    State,
    Tile,
    card_id,
    format_hex,
    offering_id,
    seat_tribes,
    tribe_name,
    tribe_owner,
)


def scores(state: State) -> tuple[int, ...]:
    """The value of the offerings each seat delivered (19 for all four)."""
    return tuple(sum(p.delivered) for p in state.players)


def winners(state: State) -> tuple[int, ...]:
    best = max(scores(state))
    return tuple(s for s, score in enumerate(scores(state)) if score == best)


def build(state: State, seat: int | None) -> dict[str, Any]:
    reveal = state.over

    def sees(owner: int) -> bool:
        return reveal or owner == seat

    acting = state.turn.seat
    view: dict[str, Any] = {
        "players": [_player(state, s, sees(s)) for s in range(state.num_players)],
        "tiles": [_tile(tile, sees) for tile in state.tiles],
        "tribes": [_tribe(state, i, sees) for i, tribe in enumerate(state.tribes) if tribe.pos is not None],
        "stack": len(state.stack),
        "removed_tiles": state.removed_tiles,
        "deck": len(state.deck),
        "discard": [CARDS[c] for c in state.discard],
        "out_of_game": [CARDS[c] for c in state.gone],
        "supply": {"wood": state.wood_supply, "stone": state.stone_supply},
        "stones_in_temple": state.stones_used,
        "turn": {
            "seat": acting,
            "colour": COLOURS[acting],
            "phase": state.turn.phase,
            "mp": state.turn.mp,
            "discoveries": state.turn.discoveries,
            "action": state.turn.action,
            "extra_mana": state.turn.priests,  # Priests played this turn
            "double_growths": state.turn.fertility,  # Fertility cards still to use
            "round": state.turn_number // state.num_players + 1,
            "pending": _pending(state.turn.pending, state),
        },
        "max_rounds": MAX_ROUNDS,
        "stall_rounds": STALL_ROUNDS,
        "rounds_since_offering": (state.turn_number - state.last_offering_turn) // state.num_players,
        "to_act": [] if state.over else [acting],
        "over": state.over,
        "end_reason": state.end_reason,
        "scores": list(scores(state)) if state.over else [],
        "winners": list(winners(state)) if state.over else [],
        "legal_moves": sorted(legal(state)) if seat == acting and not state.over else [],
    }
    if seat is not None and state.known_top[seat] and not reveal:
        view["peek"] = list(state.stack[: state.known_top[seat]])
    if reveal:
        view["stack_order"] = list(state.stack)
        view["deck_order"] = [CARDS[c] for c in state.deck]
    return view


def _player(state: State, seat: int, sees: bool) -> dict[str, Any]:
    player = state.players[seat]
    on_board = [i for i in seat_tribes(seat) if state.tribes[i].pos is not None]
    data: dict[str, Any] = {
        "seat": seat,
        "name": named(seat).plain(),
        "colour": COLOURS[seat],
        "letter": LETTERS[seat].upper(),
        "mana": player.mana,
        "max_mana": player.max_mana,
        "delivered": list(player.delivered),
        "offerings_in_hand": len(player.hand),
        "offerings_left": len(OFFERINGS) - len(player.delivered),
        "cards": len(player.cards),
        "tribes_on_board": len(on_board),
        "tribes_in_supply": TRIBES_PER_SEAT - len(on_board),
        "huts_left": huts_left(state, seat),
        "holy_left": holy_left(state, seat),
    }
    if sees:
        data["offerings"] = _own_offerings(state, seat)
        fresh = state.turn.fresh if state.turn.seat == seat else ()
        data["hand"] = [{"id": card_id(c), "name": CARDS[c], "new": c in fresh} for c in sorted(player.cards)]
    return data


def _own_offerings(state: State, seat: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [
        {"value": v, "id": offering_id(seat, v), "where": "in hand"} for v in state.players[seat].hand
    ]
    for tile in state.tiles:
        for hut in tile.huts:
            if hut.owner == seat and hut.offering:
                where = f"under a hut on {format_hex(tile.pos)}"
                found.append({"value": hut.offering, "id": offering_id(seat, hut.offering), "where": where})
    for index in seat_tribes(seat):
        tribe = state.tribes[index]
        if tribe.load == "offering":
            where = f"carried by {tribe_name(index)}"
            found.append({"value": tribe.offering, "id": offering_id(seat, tribe.offering), "where": where})
    return sorted(found, key=lambda item: item["value"])


def _tile(tile: Tile, sees: Callable[[int], bool]) -> dict[str, Any]:
    huts = []
    for hut in tile.huts:
        entry: dict[str, Any] = {
            "owner": hut.owner,
            "colour": "neutral" if hut.owner == NEUTRAL else COLOURS[hut.owner],
            "offering": bool(hut.offering),
        }
        if hut.offering and sees(hut.owner):
            entry["value"] = hut.offering
            entry["id"] = offering_id(hut.owner, hut.offering)
        huts.append(entry)
    return {
        "q": tile.q,
        "r": tile.r,
        "kind": tile.kind,
        "wood": tile.wood,
        "stone": tile.stone,
        "huts": huts,
        "holy": tile.holy,
    }


def _tribe(state: State, index: int, sees: Callable[[int], bool]) -> dict[str, Any]:
    tribe = state.tribes[index]
    assert tribe.pos is not None  # build lists only the tribes on the board
    owner = tribe_owner(index)
    data: dict[str, Any] = {
        "id": tribe_name(index),
        "seat": owner,
        "q": tribe.pos[0],
        "r": tribe.pos[1],
        "load": tribe.load,
    }
    if tribe.load == "offering" and sees(owner):
        data["value"] = tribe.offering
        data["offering_id"] = offering_id(owner, tribe.offering)
    return data


def _pending(pending: Pending | None, state: State) -> dict[str, Any] | None:
    if pending is None:
        return None
    data: dict[str, Any] = {"kind": pending.kind}
    if pending.kind in ("volcano", "teleport"):
        data["tribe"] = tribe_name(pending.tribe)
    if pending.pos is not None:
        data["hex"] = format_hex(pending.pos)
    if pending.kind == "place":
        data.update(resource=pending.resource, left=pending.left)
    if pending.kind == "expulsion":
        data["hut"] = pending.hut + 1
    return data
