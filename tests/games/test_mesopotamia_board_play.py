"""Mesopotamia played on the map: every legal move is reached by clicks (a ringed tribe, then a
highlighted hex; a dashed hex; a button of the bar), a chooser opens only where one click could
mean tribes that differ, and the whole list stays behind a disclosure. And what the last moves
changed carries ``data-last-move``: the tribes moved with their paths, tiles discovered, huts
and holy places built, never a secret the viewer may not see."""

from __future__ import annotations

import re

from django.urls import reverse

from games import services
from games.boards import LastMove
from games.boards.mesopotamia import present
from games.models import Match
from games.rules.mesopotamia import GAME
from tests.games.conftest import start_timed_match
from tests.rules.mesopotamia_positions import (
    FOREST,
    A,
    arrange,
    legal,
    site_state,
    start,
    tribe,
    with_card,
)

# --- clicks -----------------------------------------------------------------------------------


def chosen_by(camp: dict, pointer: str) -> set[str]:
    """The tribes a click on a camp may choose: a mouse the one under it, a finger the first of
    each kind (alike tribes are one to a player), or the chooser's."""
    if pointer == "mouse":
        return set(camp["ids"])
    return {camp["pick"]} if camp.get("pick") else {option["tribe"] for option in camp["options"]}


def reached_by_clicks(board: dict, pointer: str = "mouse") -> set[str]:
    """The moves a player reaches on the board without opening the list, as mesopotamia.js
    and the template let them."""
    found = set()
    layer = board["map"]
    for target in layer["hexes"] + layer["ghosts"]:
        if target.get("move"):
            found.add(target["move"])
        elif target.get("ask"):
            found |= {option["move"] for option in target["options"]}
    panels = {pick["id"]: pick for pick in board["picks"]}
    dests = {d["tribe"]: d["targets"] for d in layer["dests"]}
    for tile in layer["hexes"]:
        for chosen in chosen_by(tile["camp"], pointer) if tile["camp"] else ():
            found |= {dest["move"] for dest in dests.get(chosen, [])}
            found |= {free["move"] for free in panels[chosen]["free"]}
    for action in board["actions"]:
        found |= {action["move"]} if action["move"] else {option["move"] for option in action["options"]}
    return found | ({"end"} if board["can_end"] else set())


def alike(move: str, view: dict) -> str:
    """A move with its tribe named by what tells it apart on the map (seat, tile, load)."""
    tribes = {t["id"]: t for t in view["tribes"]}
    words = move.split()
    if len(words) > 1 and words[1] in tribes:
        t = tribes[words[1]]
        words[1] = f"{t['seat']}@{t['q']},{t['r']}:{t['load']}{t.get('value', '')}"
    return " ".join(words)


def test_every_legal_move_is_reached_on_the_map_and_a_chooser_only_where_tribes_differ():
    state = start(4, seed=8, start_card="yes")
    seen = {"ask": 0, "camp ask": 0, "dest": 0, "free": 0}
    for _ in range(250):
        seat = state.turn.seat
        moves = legal(state)
        view = GAME.view(state, seat)
        board = present(view, seat, moves)
        assert reached_by_clicks(board, "mouse") == set(moves)
        by_finger = reached_by_clicks(board, "touch")
        assert by_finger <= set(moves)
        assert {alike(m, view) for m in by_finger} == {alike(m, view) for m in moves}
        layer = board["map"]
        for target in layer["hexes"] + layer["ghosts"]:
            if target.get("ask"):  # two moves there, and two that a player tells apart
                labels = [option["label"] for option in target["options"]]
                assert len(labels) >= 2 and len(set(labels)) == len(labels), labels
                seen["ask"] += 1
            if target.get("camp") and target["camp"].get("ask"):
                labels = [option["label"] for option in target["camp"]["options"]]
                assert len(labels) >= 2 and len(set(labels)) == len(labels), labels
                seen["camp ask"] += 1
        seen["dest"] += sum(len(d["targets"]) for d in layer["dests"])
        seen["free"] += sum(len(p["free"]) for p in board["picks"])
        state = GAME.apply(state, seat, GAME.ai_move(state, seat, 2, 3))
    assert all(seen.values()), seen


def test_alike_tribes_are_one_click_and_a_tribe_that_differs_asks_which():
    state = start(2, seed=7)  # b1, b2 and b3 on -1,0, none carrying
    board = present(GAME.view(state, 0), 0, legal(state))
    camp = next(h for h in board["map"]["hexes"] if h["coords"] == "-1,0")["camp"]
    assert camp["pick"] == "b1" and camp["ids"] == ["b1", "b2", "b3"]
    north = next(g for g in board["map"]["ghosts"] if g["label"] == "-1,-1")
    assert north["move"] == "discover b1 n", "one of three alike tribes: no chooser"

    state = arrange(state, {"b2": (A, "wood")})
    board = present(GAME.view(state, 0), 0, legal(state))
    camp = next(h for h in board["map"]["hexes"] if h["coords"] == "-1,0")["camp"]
    assert "pick" not in camp and [o["label"] for o in camp["options"]] == ["b1", "b2, carrying wood"]
    north = next(g for g in board["map"]["ghosts"] if g["label"] == "-1,-1")
    assert north["move"] == "" and [o["move"] for o in north["options"]] == ["discover b1 n", "discover b2 n"]


def test_a_chosen_tribe_shows_its_hexes_and_its_steps_that_cost_nothing():
    state = arrange(start(2, seed=7), {"b1": (FOREST,)})
    board = present(GAME.view(state, 0), 0, legal(state))
    dests = {d["tribe"]: d["targets"] for d in board["map"]["dests"]}
    assert {t["move"] for t in dests["b1"]} == {
        m for m in legal(state) if m.split()[:2] in (["move", "b1"], ["discover", "b1"])
    }
    assert any(t["said"] == "Move b1 ↙ SW to 0,0 (Temple)" for t in dests["b1"])
    panel = next(p for p in board["picks"] if p["id"] == "b1")
    assert [f["move"] for f in panel["free"]] == ["carry b1 wood"]
    assert panel["title"].startswith("b1 on 1,-1 (Forest): it may go to the ")


def test_an_action_with_several_offerings_asks_which_and_one_with_a_single_move_is_a_button():
    board = present(GAME.view(site_state("wood", "wood"), 0), 0, legal(site_state("wood", "wood")))
    actions = {a["label"]: a for a in board["actions"]}
    hut = actions["Build a hut on -2,0"]
    assert hut["move"] == "" and [o["move"] for o in hut["options"]] == [f"hut -2,0 {v}" for v in (2, 4, 6, 7)]
    assert actions["Draw a card"]["move"] == "draw"
    assert actions["Grow the population on -1,0"]["move"] == "grow -1,0"


# --- the last moves ---------------------------------------------------------------------------


def marks_after(state, moves: tuple[str, ...], viewer: int) -> tuple[dict, object]:
    """The board ``viewer`` sees after ``moves`` (each by the seat to act), marked from before them."""
    before = GAME.view(state, viewer)
    played = []
    for move in moves:
        played.append((state.turn.seat, move))
        state = GAME.apply(state, state.turn.seat, move)
    return present(GAME.view(state, viewer), viewer, [], LastMove(before, tuple(played))), state


def test_a_tribe_walked_is_marked_with_each_step_of_its_path_and_what_it_picked_up():
    board, _ = marks_after(start(2, seed=7), ("move b1 se", "move b1 ne", "carry b1 wood"), viewer=1)
    trail = board["map"]["trail"]
    assert [(s["tribe"], s["order"]) for s in trail] == [("b1", 0), ("b1", 1)]
    assert (trail[0]["dx"], trail[0]["dy"]) != ("0.0", "0.0"), "a line back to the hex it left"
    tokens = {t["id"]: t for h in board["map"]["hexes"] for t in h["tribes"]}
    assert tokens["b1"]["last"] and tokens["b1"]["order"] == 2 and tokens["b1"]["walked"]
    assert not tokens["b2"]["last"] and not tokens["y1"]["last"]
    forest = next(h for h in board["map"]["hexes"] if h["coords"] == "1,-1")
    assert forest["wood_mark"]["last"] and forest["wood_mark"]["order"] == 2, "one wood fewer there"
    assert board["marked"]


def test_a_discovered_tile_and_a_hut_built_are_marked_and_the_hut_keeps_its_secret():
    board, state = marks_after(start(2, seed=7), ("discover b1 n",), viewer=1)
    new_tile = next(h for h in board["map"]["hexes"] if h["coords"] == "-1,-1")
    assert new_tile["last"] and new_tile["order"] == 0
    assert [s["tribe"] for s in board["map"]["trail"]] == (["b1"] if tribe_at(state, "b1") == (-1, -1) else [])

    hut_site = site_state("wood", "")
    board, _ = marks_after(hut_site, ("hut -2,0 6",), viewer=1)
    site = next(h for h in board["map"]["hexes"] if h["coords"] == "-2,0")
    assert [hut["last"] for hut in site["huts"]] == [True]
    assert site["huts"][0]["value"] is None, "another player's offering stays face down"
    assert not site["last"], "the tile itself was there before"


def test_a_holy_place_erected_is_marked():
    board, _ = marks_after(site_state("stone", ""), ("holy -2,0",), viewer=2)
    site = next(h for h in board["map"]["hexes"] if h["coords"] == "-2,0")
    assert site["holy"]["last"] and site["holy"]["order"] == 0 and not site["huts"]


def test_nothing_is_marked_without_a_last_move_or_when_nothing_changed():
    state = start(2, seed=7)
    view = GAME.view(state, 0)
    for last in (None, LastMove(view, ())):
        board = present(view, 0, legal(state), last)
        assert not board["marked"] and not board["map"]["trail"]
        assert not any(h["last"] or any(t["last"] for t in h["tribes"]) for h in board["map"]["hexes"])


def test_a_teleport_is_a_path_of_its_own_from_the_hex_it_left():
    state = with_card("teleport", start(2, seed=7))
    board, _ = marks_after(state, ("play teleport b1", "to 1,-1"), viewer=1)
    trail = board["map"]["trail"]
    assert [(s["tribe"], s["teleport"], s["order"]) for s in trail] == [("b1", True, 0)]
    tokens = {t["id"]: t for h in board["map"]["hexes"] for t in h["tribes"]}
    assert tokens["b1"]["last"] and not tokens["b2"]["last"]
    assert board["players"][0]["cards_mark"]["last"], "the card played left its hand"


def tribe_at(state, name: str):
    return tribe(state, name).pos


# --- the page ---------------------------------------------------------------------------------


def test_the_match_page_plays_on_the_map_and_keeps_every_move_in_a_list(client, alice, bob):
    match = start_timed_match(alice, bob, game="mesopotamia")
    Match.objects.filter(pk=match.pk).update(state=GAME.dump(arrange(GAME.load(match.state), {"b2": (A, "wood")})))
    match.refresh_from_db()
    state = GAME.load(match.state)
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    listed = page.split('<details class="meso-list"', 1)[1].split("</details>", 1)[0]
    assert sorted([*re.findall(r'name="move" value="([^"]+)"', listed), "end"]) == sorted(legal(state))
    assert 'name="move" value="end"' in page, "the end of the movement is a button of the bar, beside the map"
    on_map = set(re.findall(r'hx-vals=\'\{"move": "([^"]+)"', page))
    assert {"move b1 se", "discover b2 n"} <= on_map
    assert 'aria-haspopup="dialog" data-ask="meso-camp-m1_0"' in page, "b1 and b2, carrying wood, on one hex"
    assert 'src="/static/js/boards/mesopotamia.js"' in page


def test_the_opponent_sees_the_last_moves_marked_on_the_page(client, alice, bob):
    match = start_timed_match(alice, bob, game="mesopotamia")
    for move in ("move b1 se", "move b1 ne", "carry b1 wood"):
        match.refresh_from_db()
        services.move_submit(match_id=match.pk, move=move, expected_version=match.version, user=alice)
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    board = page.split('id="board"', 1)[1]
    assert board.count('class="meso-step meso-step-blue"') == 2
    assert re.search(r'data-tribe="b1" data-last-move data-order="2"', board)
    assert "data-last-move" not in board.split('data-tribe="b2"', 1)[1].split(">", 1)[0]
