"""The Mancala board as a player reads it: both rows numbered 1-6 from their owner's left (as
the move log counts), whose row is whose, Ethiopian buttons whose arrows and words match the way
the coins go on the screen, and why a finished Nigerian score does not add up to 48."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from games import services
from games.engine import get_game
from games.models import Match, Status
from tests.conftest import start_match

MANCALA = get_game("mancala")
NIGERIAN_NOTE = "Coins left on the tiles do not count in the Nigerian game"


class Node:
    def __init__(self, tag: str, attrs: dict[str, str]):
        self.tag, self.attrs, self.children, self.texts = tag, attrs, [], []

    @property
    def text(self) -> str:
        return " ".join("".join(self.texts).split())

    def find_all(self, predicate) -> list[Node]:
        found = [self] if predicate(self) else []
        return found + [node for child in self.children for node in child.find_all(predicate)]

    def find(self, predicate) -> Node:
        (node,) = self.find_all(predicate)
        return node

    def has_class(self, name: str) -> bool:
        return name in self.attrs.get("class", "").split()


class Tree(HTMLParser):
    """Just enough of a DOM: elements, their attributes and their text (descendants' included)."""

    VOID = frozenset({"input", "br", "meta", "link", "img", "hr"})

    def __init__(self, html: str):
        super().__init__()
        self.root = Node("document", {})
        self.open = [self.root]
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {name: value or "" for name, value in attrs})
        self.open[-1].children.append(node)
        if tag not in self.VOID:
            self.open.append(node)

    def handle_endtag(self, tag):
        while len(self.open) > 1 and self.open.pop().tag != tag:
            pass

    def handle_data(self, data):
        for node in self.open:
            node.texts.append(data)


def board_of(client, user, match) -> Node:
    client.force_login(user)
    response = client.get(reverse("match_detail", args=[match.pk]))
    assert response.status_code == 200
    return Tree(response.content.decode()).root.find(lambda node: node.attrs.get("id") == "board")


def row(board: Node, name: str) -> list[Node]:
    """The tiles of one row (``row-top`` or ``row-bottom``), left to right on the screen."""
    found = board.find(lambda node: node.has_class(name))
    return found.find_all(lambda node: node.has_class("tile"))


def numbers(tiles: list[Node]) -> list[str]:
    return [tile.find(lambda node: node.has_class("tile-number")).text for tile in tiles]


def counts(tiles: list[Node]) -> list[int]:
    return [int(tile.find(lambda node: node.has_class("count")).text) for tile in tiles]


def text_of(board: Node, testid: str) -> str:
    return board.find(lambda node: node.attrs.get("data-testid") == testid).text


def with_state(match: Match, **changes) -> Match:
    """The match with its stored position changed (a position the test needs, reached faster)."""
    stored = {**match.state, **changes}
    Match.objects.filter(pk=match.pk).update(state=stored)
    match.refresh_from_db()
    return match


@pytest.fixture
def played_match(alice, bob):
    """A match in a position where no row reads the same both ways, so a row drawn the wrong
    way round, or the wrong row, shows."""
    return with_state(start_match(alice, bob), tiles=[[1, 2, 3, 4, 5, 6], [7, 8, 0, 3, 2, 1]], mancalas=[4, 2])


@pytest.mark.parametrize(("viewer", "bottom_seat"), [("alice", 0), ("bob", 1), ("staff", 0)])
def test_both_rows_are_numbered_from_their_owners_left(client, played_match, request, viewer, bottom_seat):
    board = board_of(client, request.getfixturevalue(viewer), played_match)
    tiles = played_match.state["tiles"]
    top, bottom = row(board, "row-top"), row(board, "row-bottom")
    # The viewer's row reads 1-6 left to right; across the table the owner's left is on our right.
    assert numbers(bottom) == ["1", "2", "3", "4", "5", "6"]
    assert numbers(top) == ["6", "5", "4", "3", "2", "1"]
    # Tile n of each row is the tile the log calls "Player N sows tile n".
    assert counts(bottom) == tiles[bottom_seat]
    assert counts(top) == list(reversed(tiles[1 - bottom_seat]))


@pytest.mark.parametrize(
    ("viewer", "top_label", "bottom_label"),
    [
        ("alice", "Player 2's tiles · Bob", "Player 1's tiles · Alice (you)"),
        ("bob", "Player 1's tiles · Alice", "Player 2's tiles · Bob (you)"),
        ("staff", "Player 2's tiles · Bob", "Player 1's tiles · Alice"),
    ],
)
def test_each_row_says_whose_it_is(client, played_match, request, viewer, top_label, bottom_label):
    board = board_of(client, request.getfixturevalue(viewer), played_match)
    me = 1 if viewer == "bob" else 0
    assert text_of(board, f"row-label-{1 - me}") == top_label
    assert text_of(board, f"row-label-{me}") == bottom_label


def first_coin_on_screen(match: Match, seat: int, move: str, bottom: list[Node]) -> str:
    """Which way, on the screen, the engine carries the first coin of ``move`` along the mover's
    (bottom) row: towards the tile drawn to the left of the one sown, or to the right."""
    state = MANCALA.load(match.state)
    before = MANCALA.view(state, None)["tiles"][seat]
    after = MANCALA.view(MANCALA.apply(state, seat, move), None)["tiles"][seat]
    drawn = [int(number) for number in numbers(bottom)]
    at = drawn.index(int(move[:-1]))
    left, right = drawn[at - 1] - 1, drawn[at + 1] - 1
    gained = {side for side, tile in (("◀", left), ("▶", right)) if after[tile] == before[tile] + 1}
    assert len(gained) == 1, (before, after)
    return gained.pop()


@pytest.mark.parametrize("mover", [0, 1])
def test_ethiopian_buttons_point_the_way_the_coins_go_and_name_it(client, alice, bob, mover):
    match = start_match(alice, bob, variant="ethiopian")
    if mover == 1:
        services.move_submit(match_id=match.pk, user=alice, move="1r", expected_version=0)
        match.refresh_from_db()
    assert MANCALA.to_act(MANCALA.load(match.state)) == (mover,)
    board = board_of(client, [alice, bob][mover], match)
    bottom = row(board, "row-bottom")
    assert all(tile.attrs["data-testid"].startswith(f"tile-{mover}-") for tile in bottom)
    for move, turn, side in [("3l", "clockwise", "left"), ("3r", "counterclockwise", "right")]:
        button = board.find(lambda node, move=move: node.tag == "button" and node.attrs.get("value") == move)
        assert button.text == first_coin_on_screen(match, mover, move, bottom)
        coins = MANCALA.view(MANCALA.load(match.state), mover)["tiles"][mover][2]
        assert button.attrs["aria-label"] == f"Sow tile 3 ({coins} coins) {turn} (to your {side})"
    assert text_of(board, "direction-key") == (
        "Choose a tile, then a direction: ◀ clockwise (to your left) or ▶ counterclockwise (to your right)."
    )


def test_the_ethiopian_board_names_the_directions_for_the_player_waiting(client, alice, bob):
    match = start_match(alice, bob, variant="ethiopian")
    board = board_of(client, bob, match)
    assert not board.find_all(lambda node: node.tag == "button")
    assert text_of(board, "direction-key") == (
        "Each move sows clockwise (to the mover's left) or counterclockwise (to the mover's right)."
    )


@pytest.mark.parametrize(
    ("variant", "quiet", "shown"),
    [
        ("ethiopian", 19, None),
        (
            "ethiopian",
            35,
            "No coin banked for 35 moves: if 15 more bank none, the game ends and each player banks the "
            "coins on their own tiles.",
        ),
        ("egyptian", 35, None),  # coins only go forward: no stall rule
    ],
)
def test_a_long_ethiopian_stall_is_counted_down_on_the_board(client, alice, bob, variant, quiet, shown):
    match = with_state(start_match(alice, bob, variant=variant), quiet_moves=quiet)
    board = board_of(client, alice, match)
    stall = board.find_all(lambda node: node.attrs.get("data-testid") == "stall")
    assert [" ".join(node.text.split()) for node in stall] == ([shown] if shown else [])


def test_a_game_the_stall_rule_ended_says_so_on_the_board_without_a_countdown(client, alice, bob):
    match = with_state(start_match(alice, bob, variant="ethiopian"), quiet_moves=49)
    services.move_submit(match_id=match.pk, user=alice, move="1l", expected_version=match.version)
    match.refresh_from_db()
    assert match.status == Status.FINISHED, "the 50th move in a row that banks no coin ends the game"
    board = board_of(client, bob, match)
    stall = board.find_all(lambda node: node.attrs.get("data-testid") == "stall")
    assert [" ".join(node.text.split()) for node in stall] == [
        "50 moves in a row banked no coin, so the game ended and each player banked the coins on their own tiles."
    ]


def finished_by_the_last_move(match: Match, user, tiles, mancalas, move: str) -> Match:
    """Play ``move`` from a position one move before the end: the match finishes as in play."""
    with_state(match, tiles=tiles, mancalas=mancalas)
    services.move_submit(match_id=match.pk, user=user, move=move, expected_version=match.version)
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    return match


def test_only_a_finished_nigerian_board_says_the_coins_left_on_the_tiles_do_not_count(client, alice, bob):
    # Alice's last single coin reaches her mancala; Bob, to move, has no coin left: the game ends
    # with Alice's 2 coins on her first tile, which count for nobody.
    nigerian = finished_by_the_last_move(
        start_match(alice, bob, variant="nigerian"), alice, [[2, 0, 0, 0, 0, 1], [0] * 6], [23, 22], "6"
    )
    assert nigerian.result["scores"] == [24, 22]
    assert text_of(board_of(client, alice, nigerian), "uncounted-note") == (
        f"{NIGERIAN_NOTE}: 2 coins left here, so the scores add up to 46 of the 48."
    )
    # Elsewhere the end sweeps every coin into a mancala (Bob banks his 3), and a Nigerian game
    # in play has no score to explain yet.
    others = [
        finished_by_the_last_move(
            start_match(alice, bob, variant=variant), alice, [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 3]], [23, 21], "6"
        )
        for variant in ("egyptian", "kalah")
    ]
    assert [match.result["scores"] for match in others] == [[24, 24], [24, 24]]
    for match in [*others, start_match(alice, bob, variant="nigerian")]:
        assert NIGERIAN_NOTE not in board_of(client, alice, match).text, match.options


def test_the_ethiopian_key_says_why_a_tile_with_one_coin_has_no_button(client, alice, bob):
    match = with_state(
        start_match(alice, bob, variant="ethiopian"), tiles=[[1, 4, 1, 0, 5, 2], [4, 4, 4, 4, 4, 4]], mancalas=[11, 0]
    )
    board = board_of(client, alice, match)
    tiles = row(board, "row-bottom")
    assert [bool(tile.find_all(lambda node: node.tag == "button")) for tile in tiles] == [
        False,
        True,
        False,
        False,
        True,
        True,
    ]
    assert text_of(board, "direction-key").endswith("Tiles 1 and 3 hold a single coin, which may never start a sowing.")
    assert "single coin" not in text_of(board_of(client, bob, match), "direction-key"), "the mover's row only"
