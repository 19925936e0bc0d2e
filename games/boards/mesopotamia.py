"""Mesopotamia's board as its template draws it: the map as SVG hexes, the players' mana
scales and offering stacks beside it, the viewer's own offerings and cards, what the last
moves changed, and the legal moves as the map's own controls (a tribe, then a hex it may go
to), a bar of actions and cards above it, and the whole list behind a disclosure.

Only the view reaches here (never the state), so nothing hidden can be drawn: the last moves
are read from the viewer's own views before and after them, and from their notations only
where they step, never a value a notation names."""

from __future__ import annotations

import math

from games.boards import LastMove
from games.rules.mesopotamia.hexes import step

HEX_RADIUS = 48
# A turn is several steps, which its player may take back (games.services.holding).
TAKE_BACK = True
SQRT3 = math.sqrt(3)
MARGIN = 8
TEMPLE = (0, 0)
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
TRIBE_VERBS = ("move", "discover", "carry", "drop", "steal")
STEP_VERBS = ("move", "discover")
# What the bar above the map asks for while no tribe is chosen, by phase.
PROMPTS = {
    "move": "Choose one of your ringed tribes on the map, then a highlighted hex to go to.",
    "action": "Choose an action, or end your turn.",
    "volcano": "Choose a dashed hex on the map for the volcano.",
    "place": "Choose a dashed tile on the map for the resource.",
    "target": "Choose a dashed tile on the map.",
}


def present(view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    tribes_by_id = {t["id"]: t for t in view["tribes"]}
    marks = _marks(view, last)
    by_tribe = _tribe_moves(view, legal, tribes_by_id)
    return {
        "map": _map(view, legal, marks, by_tribe),
        "players": [_player(p, view, seat, marks) for p in view["players"]],
        "winners": [seat + 1 for seat in view["winners"]],  # counted from 1, as the template's names filters count
        "my_cards": _my_cards(view["players"][seat]) if seat is not None else [],
        "turn": _turn(view),
        "prompt": PROMPTS[view["turn"]["phase"]] if legal else "",
        "picks": [_pick(tribes_by_id[tribe], moves, view) for tribe, moves in by_tribe.items()],
        "actions": _actions(view, legal, tribes_by_id),
        "groups": _groups(view, legal, tribes_by_id),
        "end_label": "End the movement" if view["turn"]["phase"] == "move" else "End the turn",
        "can_end": "end" in legal,
        "two_players": len(view["players"]) == 2,
        "peek": [KIND_LABELS[k] for k in view.get("peek", [])],
        "stack_order": [KIND_LABELS[k] for k in view.get("stack_order", [])],
        "deck_order": [_title(name) for name in view.get("deck_order", [])],
        "out_of_game": [_title(name) for name in view["out_of_game"]],
        "marked": marks["count"] > 0,
    }


def step_reveals(before: dict, after: dict) -> bool:
    """A step showed its mover something new: a tile drawn (a discovery, a volcano's
    replacement), a card drawn (or the discard shuffled into a new deck), tiles seen with
    Land, or every secret at the end of the game. Moving, carrying, building and putting an
    offering of one's choice under a hut reveal nothing."""
    mover = before["turn"]["seat"]
    return (
        after["stack"] != before["stack"]
        or after["deck"] != before["deck"]
        or after["players"][mover]["cards"] > before["players"][mover]["cards"]
        or len(after.get("peek", [])) > len(before.get("peek", []))
        or (after["over"] and not before["over"])
    )


def seat_colours(view: dict) -> dict[int, str]:
    return {player["seat"]: player["colour"].title() for player in view["players"]}


# --- the last moves ----------------------------------------------------------------------------


def _marks(view: dict, last: LastMove | None) -> dict:
    """What the moves since ``last.before`` changed, each with its place in their order (0, 1,
    ...): the tribes' steps (from the notations, which name no secret where they step), and
    every tile, resource, hut, holy place, tribe and player whose view differs."""
    marks: dict = {key: {} for key in ("tiles", "wood", "stone", "huts", "holy", "tribes", "mana", "cards")}
    marks.update(steps=[], delivered={}, count=0, done=0)
    if last is None:
        return marks
    placed, moved, done = _walk(last, {(t["q"], t["r"]) for t in view["tiles"]}, marks["steps"])
    before_tiles = {(t["q"], t["r"]): t for t in last.before["tiles"]}
    for tile in view["tiles"]:
        where = (tile["q"], tile["r"])
        was = before_tiles.get(where)
        at = placed.get(where, done)
        if was is None:
            marks["tiles"][where] = at
        for resource in ("wood", "stone"):
            if tile[resource] and (was is None or tile[resource] != was[resource]):
                marks[resource][where] = placed.get((where, resource), at)
        if huts := _new_huts(tile["huts"], was["huts"] if was else []):
            marks["huts"][where] = dict.fromkeys(huts, at)
        if tile["holy"] is not None and (was is None or was["holy"] != tile["holy"]):
            marks["holy"][where] = at
    before_tribes = {t["id"]: t for t in last.before["tribes"]}
    for tribe in view["tribes"]:
        was = before_tribes.get(tribe["id"])
        if was is None:  # grown
            marks["tribes"][tribe["id"]] = moved.get(tribe["id"], placed.get((tribe["q"], tribe["r"]), done))
        elif (was["q"], was["r"], was["load"]) != (tribe["q"], tribe["r"], tribe["load"]):
            marks["tribes"][tribe["id"]] = moved.get(tribe["id"], done)
    for player, was in zip(view["players"], last.before["players"], strict=True):
        seat = player["seat"]
        if (player["mana"], player["max_mana"]) != (was["mana"], was["max_mana"]):
            marks["mana"][seat] = done
        if len(player["delivered"]) > len(was["delivered"]):
            marks["delivered"][seat] = len(player["delivered"]) - len(was["delivered"])
        if player["cards"] != was["cards"]:
            marks["cards"][seat] = done
    marks["done"] = done
    marks["count"] = len(marks["steps"]) + sum(
        len(marks[key]) for key in ("tiles", "wood", "stone", "huts", "holy", "tribes", "mana", "cards", "delivered")
    )
    return marks


def _walk(last: LastMove, tiles_now: set[tuple[int, int]], steps: list[dict]) -> tuple[dict, dict, int]:
    """Follows the tribes through the notations played, from their places in ``last.before``,
    adding each step to ``steps``. Returns the order in which each hex (and each ``(hex,
    resource)``) got something and each tribe last moved or changed its load, and the order
    that follows the last one."""
    where = {t["id"]: (t["q"], t["r"]) for t in last.before["tribes"]}
    loads = {t["id"]: t["load"] for t in last.before["tribes"]}
    letters = [p["letter"].lower() for p in last.before["players"]]
    grown: dict[str, tuple[int, int]] = {}  # a seat's letter -> where it last grew a tribe
    placed: dict = {}
    moved: dict[str, int] = {}
    # A card that waits for its "to": ("teleport", its tribe) or ("expulsion", "").
    pending = last.before["turn"]["pending"] or {}
    waiting = (pending.get("kind", ""), pending.get("tribe", ""))
    order = 0
    for seat, notation in last.played:
        words = notation.split()
        verb = words[0]
        if verb in STEP_VERBS or (verb == "to" and waiting[0] == "teleport"):
            tribe = words[1] if verb in STEP_VERBS else waiting[1]
            start = where.get(tribe) or grown.get(tribe[0])
            to = _hex(words[1]) if verb == "to" else step(start, words[2]) if start else None
            if start is None or to not in tiles_now:
                continue  # a discovery whose tribe stayed: a volcano waits for its place, or the stack ran out
            kind = "teleport" if verb == "to" else verb
            steps.append({"tribe": tribe, "from": start, "to": to, "order": order, "kind": kind})
            if verb == "discover":
                placed.setdefault(to, order)
            where[tribe], moved[tribe] = to, order
            if to == TEMPLE:  # what it carried is delivered; with an offering, the tribe goes back to the supply
                if loads.get(tribe) == "offering":
                    where.pop(tribe)
                loads[tribe] = ""
        elif verb in ("volcano", "hut", "holy", "grow") or verb == "to":  # "to": an expelled hut's new tile
            placed[_hex(words[1])] = order
            if verb == "grow":
                grown[letters[seat]] = _hex(words[1])
        elif verb in ("wood", "stone"):
            placed.setdefault((_hex(words[1]), verb), order)
        elif verb in ("carry", "drop"):
            resource = words[2] if verb == "carry" else loads.get(words[1], "")
            if resource in ("wood", "stone") and words[1] in where:  # one fewer, or one more, on its tile
                placed[(where[words[1]], resource)] = order
            loads[words[1]], moved[words[1]] = (words[2] if verb == "carry" else ""), order
        elif verb == "steal":
            loads[words[1]], loads[words[2]] = loads.get(words[2], ""), ""
            moved[words[1]] = moved[words[2]] = order
        else:
            waiting = (words[1], words[2]) if verb == "play" and words[1] in ("teleport", "expulsion") else ("", "")
            continue
        waiting = ("", "")
        order += 1
    return placed, moved, order


def _new_huts(now: list[dict], before: list[dict]) -> list[int]:
    """The huts of a tile that were not there before, as they read to the viewer (a hut whose
    offering was taken up reads as another hut): their indexes."""
    left = [_hut_key(hut) for hut in before]
    found = []
    for index, hut in enumerate(now):
        if _hut_key(hut) in left:
            left.remove(_hut_key(hut))
        else:
            found.append(index)
    return found


def _hut_key(hut: dict) -> tuple:
    return (hut["owner"], hut["offering"], hut.get("value"))


def _mark(found: dict, key) -> dict:
    """The template's fields for one element the last moves may have changed."""
    if key in found:
        return {"last": True, "order": found[key]}
    return {"last": False}


# --- the map ----------------------------------------------------------------------------


def _centre(q: int, r: int) -> tuple[float, float]:
    return HEX_RADIUS * 1.5 * q, HEX_RADIUS * SQRT3 * (r + q / 2)


def _corners(radius: float) -> str:
    return " ".join(
        f"{radius * math.cos(math.radians(60 * i)):.1f},{radius * math.sin(math.radians(60 * i)):.1f}" for i in range(6)
    )


def _map(view: dict, legal: list[str], marks: dict, by_tribe: dict[str, list[str]]) -> dict:
    colours = [p["colour"] for p in view["players"]]
    targets = _target_hexes(view, legal)
    camps = _camps(view, by_tribe)
    tribes_at: dict[tuple[int, int], list[dict]] = {}
    for tribe in view["tribes"]:
        tribes_at.setdefault((tribe["q"], tribe["r"]), []).append(tribe)
    picked = set(by_tribe)
    hexes = [
        _tile(tile, tribes_at.get((tile["q"], tile["r"]), []), colours, targets, camps, marks, picked)
        for tile in view["tiles"]
    ]
    known = {(t["q"], t["r"]) for t in view["tiles"]}
    ghosts = [
        {"x": x, "y": y, "label": f"{q},{r}", "choice": True, **_click((q, r), targets[q, r])}
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
        "width": f"{width:.0f}",  # the map's own size: a desktop draws it no smaller (its labels stay 11 px)
        "height": f"{height:.0f}",
        # Larger than any screen: the fitted room shrinks it to the column and the height allowed, in its shape.
        "room_width": f"{10 * width:.0f}",
        "room_height": f"{10 * height:.0f}",
        "hexes": hexes,
        "ghosts": ghosts,
        "trail": _trail(marks, view),
        "dests": [_dests(tribe, moves, view) for tribe, moves in by_tribe.items() if _steps(moves)],
        "outline": _corners(HEX_RADIUS - 1),
        "inner": _corners(HEX_RADIUS - 5),
        "ring": _corners(HEX_RADIUS - 7),
    }


def _target_hexes(view: dict, legal: list[str]) -> dict[tuple[int, int], list[dict]]:
    """Hexes a choice or a discovery can go to, to be outlined on the map, each with its
    moves: the move, what it does in words, and the tribe that makes it (of alike tribes,
    which no player tells apart, the first alone)."""
    found: dict[tuple[int, int], list[dict]] = {}
    by_id = {t["id"]: t for t in view["tribes"]}
    seen: set[tuple] = set()
    for move in legal:
        words = move.split()
        if words[0] in CHOICE_WORDS:
            found.setdefault(_hex(words[1]), []).append({"move": move, "said": f"{CHOICE_WORDS[words[0]]} {words[1]}"})
        elif words[0] == "discover":
            tribe = by_id[words[1]]
            where = step((tribe["q"], tribe["r"]), words[2])
            if (_alike(tribe), where) in seen:
                continue
            seen.add((_alike(tribe), where))
            said = f"{words[1]}: Discover {ARROWS[words[2]]} {words[2].upper()} at {where[0]},{where[1]}"
            found.setdefault(where, []).append({"move": move, "said": said, "label": _tribe_words(tribe)})
    return found


def _click(where: tuple[int, int], moves: list[dict]) -> dict:
    """A target hex with one move makes that move when clicked; with several (two tribes
    that differ could discover it) it opens a chooser of them."""
    if len(moves) == 1:
        return {"move": moves[0]["move"], "move_title": f"Click: {moves[0]['said']}", "move_said": moves[0]["said"]}
    label = f"{where[0]},{where[1]}"
    return {
        "move": "",
        "move_title": "Several tribes could discover it: click to choose one",
        "move_said": f"Discover {label}: choose which tribe",
        "ask": f"meso-ask-{_slug(label)}",
        "ask_title": f"Which tribe discovers {label}?",
        "options": moves,
    }


def _camps(view: dict, by_tribe: dict[str, list[str]]) -> dict[tuple[int, int], dict]:
    """The tiles where the player may choose a tribe of theirs: a click there chooses it, or,
    with tribes there that differ (one carries a wood), asks which."""
    found: dict[tuple[int, int], dict] = {}
    for tribe in view["tribes"]:
        if tribe["id"] not in by_tribe:
            continue
        where = (tribe["q"], tribe["r"])
        camp = found.setdefault(where, {"kinds": {}, "ids": []})
        camp["ids"].append(tribe["id"])
        camp["kinds"].setdefault(_alike(tribe), tribe)
    for where, camp in found.items():
        label = f"{where[0]},{where[1]}"
        kinds = list(camp.pop("kinds").values())
        if len(kinds) == 1:
            camp.update(pick=kinds[0]["id"], said=f"Choose {_tribe_words(kinds[0])} on {label}: where it may go")
        else:
            camp.update(
                said=f"Choose one of your tribes on {label}",
                ask=f"meso-camp-{_slug(label)}",
                ask_title=f"Which tribe on {label}?",
                options=[{"tribe": t["id"], "label": _tribe_words(t)} for t in kinds],
            )
    return found


def _alike(tribe: dict) -> tuple:
    """Tribes no player tells apart: one seat's, on one tile, carrying the same."""
    return (tribe["seat"], tribe["q"], tribe["r"], tribe["load"], tribe.get("value"))


def _load_words(tribe: dict) -> str:
    if tribe["load"] == "offering":
        return f"offering {tribe['value']}" if "value" in tribe else "an offering"
    return tribe["load"]


def _tribe_words(tribe: dict) -> str:
    load = _load_words(tribe)
    return f"{tribe['id']}, carrying {load}" if load else tribe["id"]


def _slug(label: str) -> str:
    return label.replace(",", "_").replace("-", "m")


def _hex(text: str) -> tuple[int, int]:
    q, r = text.split(",")
    return int(q), int(r)


def _tile(
    tile: dict,
    tribes: list[dict],
    colours: list[str],
    targets: dict,
    camps: dict,
    marks: dict,
    picked: set[str],
) -> dict:
    where = (tile["q"], tile["r"])
    x, y = _centre(*where)
    here = targets.get(where)
    new_huts = marks["huts"].get(where, {})
    huts = [
        {
            "x": -30 + 16 * i,
            "colour": hut["colour"],
            "letter": "N" if hut["owner"] < 0 else hut["colour"][0].upper(),
            "marker": hut["offering"],
            "value": hut.get("value"),
            **_mark(new_huts, i),
        }
        for i, hut in enumerate(tile["huts"])
    ]
    holy = None
    if tile["holy"] is not None:
        holy = {
            "colour": colours[tile["holy"]],
            "letter": colours[tile["holy"]][0].upper(),
            **_mark(marks["holy"], where),
        }
    return {
        "x": x,
        "y": y,
        "kind": tile["kind"],
        "label": KIND_LABELS[tile["kind"]],
        "coords": f"{tile['q']},{tile['r']}",
        "wood": tile["wood"],
        "stone": tile["stone"],
        "wood_mark": _mark(marks["wood"], where),
        "stone_mark": _mark(marks["stone"], where),
        "huts": huts,
        "holy": holy,
        "tribes": [_token(t, i, len(tribes), colours, marks, picked) for i, t in enumerate(tribes)],
        "choice": bool(here),
        "title": _tile_title(tile, tribes),
        "camp": camps.get(where),
        **_mark(marks["tiles"], where),
        **(_click(where, here) if here else {}),
    }


def _token(tribe: dict, i: int, count: int, colours: list[str], marks: dict, picked: set[str]) -> dict:
    _most, per_row, spacing, scale, top = next(crowd for crowd in CROWDS if count <= crowd[0])
    row, column = divmod(i, per_row)
    load = tribe["load"]
    walked = any(s["tribe"] == tribe["id"] for s in marks["steps"])
    return {
        "id": tribe["id"],
        "x": spacing * (column - (per_row - 1) / 2),
        "y": top + spacing * row,
        "scale": scale,
        "colour": colours[tribe["seat"]],
        "load": load,
        "load_letter": str(tribe["value"]) if "value" in tribe else LOAD_LETTERS.get(load, ""),
        "pick": tribe["id"] in picked,
        "walked": walked and tribe["id"] in marks["tribes"],
        **_mark(marks["tribes"], tribe["id"]),
    }


def _tile_title(tile: dict, tribes: list[dict]) -> str:
    parts = [f"{KIND_LABELS[tile['kind']]} {tile['q']},{tile['r']}"]
    if tile["wood"] or tile["stone"]:
        parts.append(f"{tile['wood']} wood, {tile['stone']} stone")
    if tile["huts"]:
        parts.append(f"{len(tile['huts'])} hut(s), {sum(h['offering'] for h in tile['huts'])} with an offering")
    if tribes:
        parts.append("tribes " + " ".join(t["id"] for t in tribes))
    return "; ".join(parts)


def _trail(marks: dict, view: dict) -> list[dict]:
    """Each step of the last moves, drawn at the hex it reached: a line from the hex it left
    (``dx``, ``dy``, relative), a chevron halfway that points the way, and the tribe itself
    for the arrival's animation to walk along."""
    colours = {p["letter"].lower(): p["colour"] for p in view["players"]}
    steps = []
    for one in marks["steps"]:
        fx, fy = _centre(*one["from"])
        tx, ty = _centre(*one["to"])
        dx, dy = fx - tx, fy - ty
        steps.append(
            {
                "x": f"{tx:.1f}",
                "y": f"{ty:.1f}",
                "dx": f"{dx:.1f}",
                "dy": f"{dy:.1f}",
                "mx": f"{dx / 2:.1f}",
                "my": f"{dy / 2:.1f}",
                "angle": f"{math.degrees(math.atan2(-dy, -dx)):.0f}",
                "tribe": one["tribe"],
                "colour": colours[one["tribe"][0]],
                "order": one["order"],
                "teleport": one["kind"] == "teleport",
            }
        )
    return steps


# --- the map's controls -----------------------------------------------------------------------


def _tribe_moves(view: dict, legal: list[str], tribes: dict[str, dict]) -> dict[str, list[str]]:
    """The moves of each tribe the player may choose on the map, in the map's order of tribes."""
    found: dict[str, list[str]] = {}
    for move in legal:
        words = move.split()
        if words[0] in TRIBE_VERBS:
            found.setdefault(words[1], []).append(move)
    return {t["id"]: found[t["id"]] for t in view["tribes"] if t["id"] in found}


def _steps(moves: list[str]) -> list[str]:
    return [m for m in moves if m.split()[0] in STEP_VERBS]


def _dests(tribe: str, moves: list[str], view: dict) -> dict:
    """The hexes a chosen tribe may go to, each a control that makes that step."""
    me = next(t for t in view["tribes"] if t["id"] == tribe)
    tiles = {(t["q"], t["r"]): t for t in view["tiles"]}
    targets = []
    for move in _steps(moves):
        words = move.split()
        where = step((me["q"], me["r"]), words[2])
        x, y = _centre(*where)
        label = _tribe_move_label(words, me, tiles)
        targets.append(
            {
                "x": x,
                "y": y,
                "move": move,
                "said": f"Move {tribe} {label}" if words[0] == "move" else f"{tribe}: {label}",
                "unknown": words[0] == "discover",
                "arrow": ARROWS[words[2]],
            }
        )
    return {"tribe": tribe, "targets": targets}


def _pick(tribe: dict, moves: list[str], view: dict) -> dict:
    """What the bar says and offers while a tribe is chosen: where it is, what it carries,
    and its steps that cost nothing (pick up, put down, steal)."""
    tiles = {(t["q"], t["r"]): t for t in view["tiles"]}
    by_id = {t["id"]: t for t in view["tribes"]}
    free = []
    for move in moves:
        words = move.split()
        if words[0] in STEP_VERBS:
            continue
        label = _tribe_move_label(words, tribe, tiles)
        if words[0] == "steal":
            label = f"Steal {words[2]}'s {by_id[words[2]]['load']}"
        free.append({"move": move, "label": label, "said": f"{tribe['id']}: {label}"})
    steps = len(_steps(moves))
    kind = KIND_LABELS[tiles[tribe["q"], tribe["r"]]["kind"]]
    load = _load_words(tribe)
    where = f"{tribe['id']} on {tribe['q']},{tribe['r']} ({kind})" + (f", carrying {load}" if load else "")
    goes = f"it may go to the {steps} highlighted hex{'es' if steps > 1 else ''}" if steps else "it cannot move now"
    return {"id": tribe["id"], "title": f"{where}: {goes}.", "free": free}


def _actions(view: dict, legal: list[str], tribes: dict[str, dict]) -> list[dict]:
    """The bar's buttons beside the map: each action and card once, a short chooser where it
    has several targets (which offering under the hut, which tribe to teleport)."""
    tiles = {(t["q"], t["r"]): t for t in view["tiles"]}
    colours = {p["letter"].lower(): p["colour"] for p in view["players"]}
    items: dict[str, dict] = {}
    for move in legal:
        words = move.split()
        verb = words[0]
        if verb == "hut":
            key, label, option = f"hut {words[1]}", f"Build a hut on {words[1]}", f"Offering {words[2]}"
            said = f"Build a hut on {words[1]} with offering {words[2]} under it"
            question = f"Build a hut on {words[1]}: which offering goes under it, face down?"
        elif verb in ("holy", "grow", "draw"):
            key = label = option = said = f"{ACTION_WORDS[verb]} on {words[1]}" if verb != "draw" else "Draw a card"
            question = ""
        elif verb == "play":
            name = _title(words[1])
            key, label, option = f"play {words[1]}", f"Play {name}", _card_option(words, tiles, tribes, colours)
            said = f"Play {name}: {option}" if option else f"Play {name} ({CARD_HELP[words[1]]})"
            question = f"Play {name} ({CARD_HELP[words[1]]}): which?"
        else:
            continue
        item = items.setdefault(key, {"label": label, "title": question, "options": []})
        item["options"].append({"move": move, "label": option, "said": said})
    found = []
    for key, item in items.items():
        if len(item["options"]) == 1:
            only = item["options"][0]
            found.append({"move": only["move"], "label": only["said"], "said": only["said"]})
        else:
            found.append({**item, "move": "", "ask": f"meso-do-{_slug(key).replace(' ', '-')}", "said": item["label"]})
    return found


def _card_option(words: list[str], tiles: dict, tribes: dict[str, dict], colours: dict[str, str]) -> str:
    """A card's target in words ("" for a card without one)."""
    rest = words[2:]
    if not rest:
        return ""
    if words[1] == "mana-theft":
        return f"take 1 mana from {colours[rest[0]].title()}"
    if words[1] == "teleport":
        tribe = tribes[rest[0]]
        return f"{_tribe_words(tribe)} on {tribe['q']},{tribe['r']}"
    return _card_label(words, tiles)


# --- players --------------------------------------------------------------------------------


def _player(player: dict, view: dict, seat: int | None, marks: dict) -> dict:
    scale = []
    for point in range(9):
        if point <= player["mana"] and point:
            state = "full"
        elif point <= player["max_mana"]:
            state = "open"
        else:
            state = "closed"
        scale.append({"point": point, "state": state, "beam": point == player["max_mana"]})
    new = marks["delivered"].get(player["seat"], 0)
    count = len(player["delivered"])
    return {
        **player,
        "number": player["seat"] + 1,
        "scale": scale,
        "is_me": player["seat"] == seat,
        "to_act": player["seat"] in view["to_act"],
        "winner": player["seat"] in view["winners"],
        "face_down": player["offerings_left"],
        "card_names": [_title(card["name"]) for card in player.get("hand", [])],
        "offered": [
            {"value": v, "last": i >= count - new, "order": marks["done"]} for i, v in enumerate(player["delivered"])
        ],
        "mana_mark": _mark(marks["mana"], player["seat"]),
        "cards_mark": _mark(marks["cards"], player["seat"]),
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
        if verb in TRIBE_VERBS:
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
    load = _load_words(tribe)
    return f"{tribe['id']} on {tribe['q']},{tribe['r']}" + (f", carrying {load}" if load else "")


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
