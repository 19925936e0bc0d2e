"""Mesopotamia's board as its template draws it: the map as SVG hexes, the players' mana
scales and offering stacks beside it, the viewer's own markers and cards, and the legal
moves as grouped submit buttons that guide the turn phase by phase.

Only the view reaches here (never the state), so nothing hidden can be drawn."""

from __future__ import annotations

import math

from games.boards import LastMove
from games.rules.mesopotamia.hexes import step

HEX_RADIUS = 48
SQRT3 = math.sqrt(3)
MARGIN = 8
# How tribes sharing a tile are laid out, the first that holds them all: (at most this many,
# in rows of, that far apart, drawn at this scale, the first row's height). Any number may
# share a tile (ten on a starting plains early in a 4-player game); a row below the hex's
# middle band would run over its coordinates and under the next hex.
CROWDS = ((8, 4, 18, 1.0, 4), (18, 6, 11, 0.65, 0), (32, 8, 8.5, 0.5, -2))
ARROWS = {"n": "↑", "ne": "↗", "se": "↘", "s": "↓", "sw": "↙", "nw": "↖"}
KIND_LABELS = {"temple": "Temple", "volcano": "Volcano", "forest": "Forest", "quarry": "Quarry", "plains": "Plains"}
LOAD_LETTERS = {"wood": "W", "stone": "S", "offering": "?"}
CARD_HELP = {
    "endurance": "+3 movement points",
    "priest": "+1 mana from a holy place this turn",
    "fertility": "next growth brings two tribes",
    "holy-stone": "counts as a stone for the temple",
    "land": "look at the top 3 tiles",
    "mana-theft": "take 1 mana from a player",
    "teleport": "move any tribe, with its load, to another tile (not a volcano)",
    "expulsion": "move a hut to other plains",
}
OPTION_WORDS = {
    "start_card": {"no": "no starting card", "yes": "a starting card each"},
    "discard": {"reshuffle": "played cards reshuffled", "remove": "played cards removed"},
}
PHASE_TITLES = {
    "move": "Movement",
    "action": "Action",
    "volcano": "Place the volcano",
    "place": "Place the resources",
    "target": "Choose the card's target",
}
CHOICE_WORDS = {
    "volcano": "the volcano goes to",
    "wood": "one wood goes to",
    "stone": "one stone goes to",
    "to": "send it to",
}
ACTION_WORDS = {"hut": "Build a hut", "holy": "Erect a holy place", "grow": "Grow the population"}


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    tribes_by_id = {t["id"]: t for t in view["tribes"]}
    return {
        "map": _map(view, legal),
        "players": [_player(p, view, seat) for p in view["players"]],
        "winners": [seat + 1 for seat in view["winners"]],  # counted from 1, as the template's names filters count
        "my_cards": _my_cards(view["players"][seat]) if seat is not None else [],
        "turn": _turn(view),
        "groups": _groups(view, legal, tribes_by_id),
        "end_label": "End the movement" if view["turn"]["phase"] == "move" else "End the turn",
        "can_end": "end" in legal,
        "two_players": len(view["players"]) == 2,
        "peek": [KIND_LABELS[k] for k in view.get("peek", [])],
        "stack_order": [KIND_LABELS[k] for k in view.get("stack_order", [])],
        "deck_order": [_title(name) for name in view.get("deck_order", [])],
        "out_of_game": [_title(name) for name in view["out_of_game"]],
    }


# --- the map ----------------------------------------------------------------------------


def seat_colours(view: dict) -> dict[int, str]:
    return {player["seat"]: player["colour"].title() for player in view["players"]}


def _centre(q: int, r: int) -> tuple[float, float]:
    return HEX_RADIUS * 1.5 * q, HEX_RADIUS * SQRT3 * (r + q / 2)


def _corners(radius: float) -> str:
    return " ".join(
        f"{radius * math.cos(math.radians(60 * i)):.1f},{radius * math.sin(math.radians(60 * i)):.1f}" for i in range(6)
    )


def _map(view: dict, legal: list[str]) -> dict:
    colours = [p["colour"] for p in view["players"]]
    targets = _target_hexes(view, legal)
    tribes_at: dict[tuple[int, int], list[dict]] = {}
    for tribe in view["tribes"]:
        tribes_at.setdefault((tribe["q"], tribe["r"]), []).append(tribe)
    hexes = [_tile(tile, tribes_at.get((tile["q"], tile["r"]), []), colours, targets) for tile in view["tiles"]]
    known = {(t["q"], t["r"]) for t in view["tiles"]}
    ghosts = [
        {"x": x, "y": y, "label": f"{q},{r}", "choice": True, **_click(targets[q, r])}
        for (q, r) in sorted(targets.keys() - known)
        for x, y in [_centre(q, r)]
    ]
    xs = [h["x"] for h in hexes + ghosts]
    ys = [h["y"] for h in hexes + ghosts]
    pad = HEX_RADIUS + MARGIN
    left, top = min(xs) - pad, min(ys) - pad
    width, height = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    return {
        "viewbox": f"{left:.0f} {top:.0f} {width:.0f} {height:.0f}",
        "left": f"{left:.0f}",  # where the sea drawn under the hexes starts
        "top": f"{top:.0f}",
        "width": f"{width:.0f}",  # a map larger than a phone's column is drawn at this size and scrolls (site.css)
        "height": f"{height:.0f}",
        "hexes": hexes,
        "ghosts": ghosts,
        "outline": _corners(HEX_RADIUS - 1),
        "inner": _corners(HEX_RADIUS - 5),
    }


def _target_hexes(view: dict, legal: list[str]) -> dict[tuple[int, int], list[tuple[str, str]]]:
    """Hexes a choice or a discovery can go to, to be outlined on the map, each with its
    moves (the move and what it does, in words)."""
    found: dict[tuple[int, int], list[tuple[str, str]]] = {}
    by_id = {t["id"]: t for t in view["tribes"]}
    steps = {"n": (0, -1), "ne": (1, -1), "se": (1, 0), "s": (0, 1), "sw": (-1, 1), "nw": (-1, 0)}
    for move in legal:
        words = move.split()
        if words[0] in CHOICE_WORDS:
            found.setdefault(_hex(words[1]), []).append((move, f"{CHOICE_WORDS[words[0]]} {words[1]}"))
        elif words[0] == "discover":
            tribe = by_id[words[1]]
            dq, dr = steps[words[2]]
            where = (tribe["q"] + dq, tribe["r"] + dr)
            found.setdefault(where, []).append((move, f"{words[1]} discovers {where[0]},{where[1]}"))
    return found


def _click(moves: list[tuple[str, str]]) -> dict:
    """A target hex with one move makes that move when clicked; with several (two tribes
    can discover the same hex) the buttons below the map tell them apart."""
    if len(moves) == 1:
        move, words = moves[0]
        return {"move": move, "move_title": f"Click: {words}", "move_said": words}
    return {"move": "", "move_title": "Several moves lead here: choose one below the map"}


def _hex(text: str) -> tuple[int, int]:
    q, r = text.split(",")
    return int(q), int(r)


def _tile(tile: dict, tribes: list[dict], colours: list[str], targets: dict) -> dict:
    x, y = _centre(tile["q"], tile["r"])
    here = targets.get((tile["q"], tile["r"]))
    huts = [
        {
            "x": -30 + 16 * i,
            "colour": hut["colour"],
            "letter": "N" if hut["owner"] < 0 else hut["colour"][0].upper(),
            "marker": hut["offering"],
            "value": hut.get("value"),
        }
        for i, hut in enumerate(tile["huts"])
    ]
    holy = None
    if tile["holy"] is not None:
        holy = {"colour": colours[tile["holy"]], "letter": colours[tile["holy"]][0].upper()}
    return {
        "x": x,
        "y": y,
        "kind": tile["kind"],
        "label": KIND_LABELS[tile["kind"]],
        "coords": f"{tile['q']},{tile['r']}",
        "wood": tile["wood"],
        "stone": tile["stone"],
        "huts": huts,
        "holy": holy,
        "tribes": [_token(t, i, len(tribes), colours) for i, t in enumerate(tribes)],
        "choice": bool(here),
        "title": _tile_title(tile, tribes),
        **(_click(here) if here else {}),
    }


def _token(tribe: dict, i: int, count: int, colours: list[str]) -> dict:
    _most, per_row, spacing, scale, top = next(crowd for crowd in CROWDS if count <= crowd[0])
    row, column = divmod(i, per_row)
    load = tribe["load"]
    return {
        "id": tribe["id"],
        "x": spacing * (column - (per_row - 1) / 2),
        "y": top + spacing * row,
        "scale": scale,
        "colour": colours[tribe["seat"]],
        "load": load,
        "load_letter": str(tribe["value"]) if "value" in tribe else LOAD_LETTERS.get(load, ""),
    }


def _tile_title(tile: dict, tribes: list[dict]) -> str:
    parts = [f"{KIND_LABELS[tile['kind']]} {tile['q']},{tile['r']}"]
    if tile["wood"] or tile["stone"]:
        parts.append(f"{tile['wood']} wood, {tile['stone']} stone")
    if tile["huts"]:
        parts.append(f"{len(tile['huts'])} hut(s), {sum(h['offering'] for h in tile['huts'])} with a marker")
    if tribes:
        parts.append("tribes " + " ".join(t["id"] for t in tribes))
    return "; ".join(parts)


# --- players --------------------------------------------------------------------------------


def _player(player: dict, view: dict, seat: int | None) -> dict:
    scale = []
    for point in range(9):
        if point <= player["mana"] and point:
            state = "full"
        elif point <= player["max_mana"]:
            state = "open"
        else:
            state = "closed"
        scale.append({"point": point, "state": state, "beam": point == player["max_mana"]})
    return {
        **player,
        "number": player["seat"] + 1,
        "scale": scale,
        "is_me": player["seat"] == seat,
        "to_act": player["seat"] in view["to_act"],
        "winner": player["seat"] in view["winners"],
        "hidden_markers": player["offerings_left"],
        "card_names": [_title(card["name"]) for card in player.get("hand", [])],
    }


def _my_cards(me: dict) -> list[dict]:
    return [
        {"name": _title(card["name"]), "help": CARD_HELP[card["name"]], "new": card["new"]}
        for card in me.get("hand", [])
    ]


def _title(name: str) -> str:
    return name.replace("-", " ").title()


# --- the turn and its moves -----------------------------------------------------------------


def _turn(view: dict) -> dict:
    turn = view["turn"]
    pending = turn["pending"]
    note = ""
    if pending and pending["kind"] == "volcano":
        note = f"{pending['tribe']} drew a volcano for {pending['hex']}: choose where the volcano goes."
    elif pending and pending["kind"] == "place":
        note = f"Not enough {pending['resource']} for every tile: place {pending['left']} more."
    elif pending and pending["kind"] == "teleport":
        note = f"Choose where {pending['tribe']} is teleported."
    elif pending and pending["kind"] == "expulsion":
        note = f"Choose where the hut from {pending['hex']} goes."
    return {
        **turn,
        "title": PHASE_TITLES[turn["phase"]],
        "note": note,
        "number": turn["seat"] + 1,
        "colour": view["players"][turn["seat"]]["colour"],
    }


def _groups(view: dict, legal: list[str], tribes: dict[str, dict]) -> list[dict]:
    """The legal moves as labelled button groups: one per tribe, then choices, actions, cards."""
    groups: dict[str, dict] = {}
    tiles = {(tile["q"], tile["r"]): tile for tile in view["tiles"]}

    def add(key: str, title: str, move: str, label: str, said: str = "") -> None:
        # What a screen reader says: the label with what it is for ("-3,2" alone was a bare
        # coordinate, and every tribe had the same "Discover ↑ N at -1,-1").
        groups.setdefault(key, {"title": title, "moves": []})["moves"].append(
            {"move": move, "label": label, "said": said or label}
        )

    for move in legal:
        words = move.split()
        verb = words[0]
        if verb in ("move", "discover", "carry", "drop", "steal"):
            tribe = tribes[words[1]]
            label = _tribe_move_label(words, tribe, tiles)
            said = f"Move {words[1]} {label}" if verb == "move" else f"{words[1]}: {label}"
            add(f"tribe-{words[1]}", _tribe_title(tribe), move, label, said)
        elif verb == "volcano":
            add("choice", "Volcano goes to", move, words[1], f"The volcano goes to {words[1]}")
        elif verb in ("wood", "stone"):
            add("choice", f"One {verb} goes to", move, words[1], f"One {verb} goes to {words[1]}")
        elif verb == "to":  # with the tile's kind: a Teleport into the Temple delivers the load
            q, r = (int(n) for n in words[1].split(","))
            label = f"{words[1]} ({KIND_LABELS[tiles[q, r]['kind']]})"
            add("choice", "Send it to", move, label, f"Send it to {label}")
        elif verb in ACTION_WORDS:
            label = _action_label(words)
            add(f"action-{verb}", ACTION_WORDS[verb], move, label, f"{ACTION_WORDS[verb]} o{label[1:]}")  # "On …"
        elif verb == "draw":
            add("action-draw", "Draw a card", move, "Draw a card (your whole action)")
        elif verb == "play":
            label = _card_label(words, tiles)
            add(
                f"card-{words[1]}",
                f"Play {_title(words[1])}: {CARD_HELP[words[1]]}",
                move,
                label,
                f"Play {_title(words[1])}" + ("" if label == "Play" else f": {label}"),
            )
    return list(groups.values())


def _tribe_title(tribe: dict) -> str:
    load = tribe["load"]
    if load == "offering":
        load = f"offering {tribe['value']}" if "value" in tribe else "an offering"
    carrying = f", carrying {load}" if load else ""
    return f"{tribe['id']} on {tribe['q']},{tribe['r']}{carrying}"


def _tribe_move_label(words: list[str], tribe: dict, tiles: dict) -> str:
    verb = words[0]
    if verb == "move":
        q, r = step((tribe["q"], tribe["r"]), words[2])
        # Where the step leads, so a move into the Temple (a delivery) is seen before it is made.
        return f"{ARROWS[words[2]]} {words[2].upper()} to {q},{r} ({KIND_LABELS[tiles[q, r]['kind']]})"
    if verb == "discover":
        q, r = step((tribe["q"], tribe["r"]), words[2])
        return f"Discover {ARROWS[words[2]]} {words[2].upper()} at {q},{r}"
    if verb == "carry":
        what = f"offering {words[3]}" if words[2] == "offering" else words[2]
        return f"Pick up {what}"
    if verb == "drop":
        return f"Put down {tribe['load']}"
    return f"Steal from {words[2]}"


def _action_label(words: list[str]) -> str:
    if words[0] == "hut":
        return f"On {words[1]}, offering {words[2]} under it"
    return f"On {words[1]}"


def _card_label(words: list[str], tiles: dict) -> str:
    rest = words[2:]
    if not rest:
        return "Play"
    if words[1] == "mana-theft":
        return f"From {rest[0].upper()}"
    if words[1] == "expulsion":
        hut = tiles[_hex(rest[0])]["huts"][int(rest[1]) - 1]  # two huts on a tile: whose is which
        return f"Hut {rest[1]} ({hut['colour']}) on {rest[0]}"
    return rest[0]
