"""The end of a game names its players as the seat list does ("Alice", not "P1"): Mecca's
score table and playing order, Jeexa's hand scores and its table of scores per hand."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string

from games.boards import board_context
from games.boards.mesopotamia import _card_label
from games.engine import get_game
from tests.rules.mesopotamia_positions import with_card

NAMES = {0: "Alice", 1: "Bob", 2: "AI (Strong)"}


def finished_board(slug: str, seed: int) -> str:
    """A three-player game of random legal moves, played to the end, drawn for seat 0."""
    game = get_game(slug)
    state = game.initial_state(3, {}, seed)
    rng = random.Random(seed)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    view = game.view(state, 0)
    html = render_to_string(
        f"games/boards/{slug}.html",
        {
            "view": view,
            "board": board_context(slug, view, 0, []),
            "match": SimpleNamespace(pk=1, version=0),
            "names": NAMES,
            "legal": [],
        },
    )
    return " ".join(html.split())


@pytest.mark.parametrize(
    "slug, table",
    [("mecca", "mecca-scores"), ("mecca", "mecca-colours"), ("jeexa", "jx-table"), ("jeexa", "jx-hand-scores")],
)
def test_finished_boards_name_the_players(slug, table):
    html = finished_board(slug, seed=7)
    part = re.search(rf'class="{table}".*?</(table|p)>', html)[0]
    assert all(name in part for name in NAMES.values())
    assert not re.search(r">\s*P\d", part), "no bare P1, P2 …"
    if slug == "mecca":
        assert "Alice (you)" in part, "the viewer's own line"


def test_the_mesopotamia_status_counts_one_movement_point_in_the_singular():
    game = get_game("mesopotamia")
    state = game.initial_state(2, {}, 3)
    seat = game.to_act(state)[0]
    state = game.apply(state, seat, next(m for m in game.legal_moves(state, seat) if m.startswith("move")))
    view = game.view(state, seat)
    assert view["turn"]["mp"] == 1
    html = render_to_string(
        "games/boards/mesopotamia.html",
        {
            "view": view,
            "board": board_context("mesopotamia", view, seat, []),
            "match": SimpleNamespace(pk=1, version=0),
            "names": NAMES,
            "legal": [],
        },
    )
    assert "1</span> movement point left" in html


def test_jeexa_tells_the_player_placing_of_your_pieces_and_the_others_of_that_puzzle():
    game = get_game("jeexa")
    state = game.initial_state(2, {}, 5)
    while game.view(state, None)["placement_rule"] != "fit":  # until a piece must fit
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_moves(state, seat)[0])
    placing = game.to_act(state)[0]
    rules = {
        seat: board_context(
            "jeexa", game.view(state, seat), seat, game.legal_moves(state, seat) if seat == placing else []
        )["rule"]
        for seat in (placing, 1 - placing)
    }
    assert rules == {
        placing: "It must be fitted: tab in slot with one of your pieces.",
        1 - placing: "It must be fitted: tab in slot with a piece already in that puzzle.",
    }


def test_a_mesopotamia_move_button_says_where_the_step_leads():
    """ "↘ SE" alone hid that the step goes into the Temple (and delivers what the tribe carries)."""
    game = get_game("mesopotamia")
    state = game.initial_state(2, {}, 3)
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    legal = game.legal_moves(state, seat)
    tribe = next(t for t in view["tribes"] if f"move {t['id']} se" in legal)
    board = board_context("mesopotamia", view, seat, legal)
    labels = {m["move"]: m["label"] for group in board["groups"] for m in group["moves"]}
    q, r = tribe["q"] + 1, tribe["r"]
    kind = next(t["kind"] for t in view["tiles"] if (t["q"], t["r"]) == (q, r))
    assert labels[f"move {tribe['id']} se"] == f"↘ SE to {q},{r} ({kind.capitalize()})"


def test_a_teleport_target_button_says_what_tile_it_is():
    """A Teleport into the Temple delivers the load: "0,0" alone did not say it was the Temple."""
    game = get_game("mesopotamia")
    state = game.apply(with_card("teleport"), 0, "play teleport b1")
    view = game.view(state, 0)
    legal = game.legal_moves(state, 0)
    labels = {
        m["move"]: m["label"]
        for group in board_context("mesopotamia", view, 0, legal)["groups"]
        for m in group["moves"]
    }
    assert labels["to 0,0"] == "0,0 (Temple)" and labels["to 1,-1"] == "1,-1 (Forest)"


def test_an_expulsion_button_says_whose_hut_it_is():
    tiles = {(-1, 1): {"huts": [{"owner": 0, "colour": "yellow"}, {"owner": -1, "colour": "neutral"}]}}
    assert [_card_label(["play", "expulsion", "-1,1", n], tiles) for n in ("1", "2")] == [
        "Hut 1 (yellow) on -1,1",
        "Hut 2 (neutral) on -1,1",
    ]


def test_mesopotamia_reads_delivered_offerings_as_a_list_not_one_number():
    game = get_game("mesopotamia")
    state = game.initial_state(2, {}, 4)
    while max(len(p["delivered"]) for p in game.view(state, 0)["players"]) < 2:  # the AI delivers in time
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.ai_move(state, seat, 2, seed=4))
    view = game.view(state, 0)
    html = render_to_string(
        "games/boards/mesopotamia.html",
        {
            "view": view,
            "board": board_context("mesopotamia", view, 0, []),
            "match": SimpleNamespace(pk=1, version=0),
            "names": NAMES,
            "legal": [],
        },
    )
    delivered = re.findall(r"offerings delivered: (.*?) ·", " ".join(re.sub(r"<[^>]+>", "", html).split()))
    assert any(re.fullmatch(r"\d(, \d)+", text) for text in delivered), delivered  # "2, 4", not "24"


def test_every_mesopotamia_move_button_says_what_it_does_and_no_two_say_the_same():
    """A screen reader heard "-3,2" for where a stone goes, and three tribes' buttons each said
    "Discover ↑ N at -1,-1"; the map's hexes began "Click:" for a keyboard too."""
    game = get_game("mesopotamia")
    state = game.initial_state(3, {"start_card": "yes"}, 8)
    rng = random.Random(8)
    kinds = set()
    for _ in range(300):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        board = board_context("mesopotamia", game.view(state, seat), seat, legal)
        said = [m["said"] for group in board["groups"] for m in group["moves"]]
        assert len(said) == len(set(said)), said
        for group in board["groups"]:
            for m in group["moves"]:
                assert re.search(r"[A-Za-z]", m["said"]) and m["label"] in m["said"], m
                kinds.add(m["move"].split()[0])
        hexes = board["map"]["hexes"] + board["map"]["ghosts"]
        assert all(not h["move_said"].startswith("Click") for h in hexes if h.get("move"))
        state = game.apply(state, seat, rng.choice(legal))
    assert {"discover", "move", "wood", "stone"} <= kinds


def test_a_jeexa_spot_says_what_the_placement_makes_as_the_log_will():
    """ "Place it at 1,0 turned 90°" told a screen reader nothing of the tabs and slots drawn:
    which way joined, which made a joker, was a blind guess."""
    game = get_game("jeexa")
    state = game.initial_state(2, {}, 3)
    rng = random.Random(3)
    checked = 0
    for _ in range(60):
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        board = board_context("jeexa", game.view(state, seat), seat, legal)
        for row in board["focus"]["rows"]:
            for cell in row:
                for option in cell["options"]:
                    said = f"at {cell['x']},{cell['y']} turned {option['rotation']}°: {option['makes']}"
                    described = game.describe(state, seat, option["move"])
                    assert said + "." in described, (said, described)
                    checked += 1
        state = game.apply(state, seat, rng.choice(legal))
    assert checked > 100
