"""Mesopotamia's secrets: every page and response, for every seat, during seeded random games.

For 2, 3 and 4 human players a game is played move by move through the services (random
legal moves, half of them chosen by the easy AI so that huts with markers, carried
offerings and cards in hand really occur). At checkpoints every seat's player and a staff
member fetch the match page, its HTMX fragment, the poll answer, the replay at several
positions, a refused move's answer and the dashboard; every email written to the outbox is
read as well. None may hold another seat's secret:

- the ids ``GAME.secrets(state, other)`` (offering markers "o-blue-7", cards "card-01");
- the meaning behind them: the value of another seat's face-down marker at its hut or on
  its carrying tribe, and which cards another seat holds. Besides parsing the board, every
  checkpoint renders the page again from a *twin* position in which the other seats'
  hidden markers trade places, their cards are swapped for other cards from the deck and
  the hidden stack is reordered: the page must not change by one byte;
- the seed.

Move log lines are checked the same way: building a hut with another marker, picking up
another offering or drawing another card must read the same. After the game everything
is shown.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.boards import board_context
from games.engine import get_game
from games.models import Match, MoveRecord, Status
from games.rules.mesopotamia.state import CARDS, COLOURS, LETTERS, OFFERINGS, Hut, Tribe
from games.services import SeatSpec, creating
from notifications.models import Notification
from tests.conftest import make_user

GAME = get_game("mesopotamia")
HTMX = {"HTTP_HX_REQUEST": "true"}
SEEDS = {2: 8_123_456_027, 3: 8_123_456_046, 4: 8_123_456_116}  # chosen so huts get built early
AI_SHARE = 0.5  # the rest are uniformly random legal moves (biased towards actions)
RANDOM_MOVES = 240  # after these, the players only end their turns until the game ends
CHECKPOINTS = 4  # full rounds of requests per game at regular intervals ...
EXTRA_CHECKPOINTS = 3  # ... and right after the first huts are built or offerings taken up

CSRF = re.compile(r'(csrfmiddlewaretoken" value="|"x-csrftoken": ")[^"]+"')
HUT_MARKER = re.compile(
    r'<polygon points="0,-8 8,-1 8,7 -8,7 -8,-1" class="meso-piece meso-(\w+)"></polygon>\s*'
    r'<text y="5" text-anchor="middle" class="meso-letter">\w</text>\s*'
    r'(?:<rect [^>]*class="meso-marker"></rect><text [^>]*class="meso-marker-text">([^<]*)</text>)?'
)
TRIBE_LOAD = re.compile(
    r'class="meso-tribe-id">([bygr])\d</text>\s*'
    r'(?:<rect [^>]*class="meso-load meso-load-(\w+)"></rect><text [^>]*class="meso-load-text">([^<]*)</text>)?'
)


@dataclass
class Table:
    match: Match
    users: list
    clients: list[Client]
    staff: Client
    states: list = field(default_factory=list)  # the position after each ply
    seen_notifications: int = 0
    twins_that_differed: int = 0
    own_values_seen: int = 0
    hidden_markers_checked: int = 0

    @property
    def viewers(self) -> list[tuple[int | None, Client]]:
        return [*enumerate(self.clients), (None, self.staff)]


def setup_table(n: int, monkeypatch) -> Table:
    monkeypatch.setattr(creating, "new_seed", lambda: SEEDS[n])
    users = [make_user(f"meso{n}p{i}", display_name=f"Player{n}{i}") for i in range(n)]
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=u.username) for u in users[1:])]
    match = services.match_create(creator=users[0], game_slug="mesopotamia", options={}, seats=seats)
    for user in users[1:]:
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    staff = Client()
    staff.force_login(make_user(f"meso{n}staff", is_staff=True, is_superuser=True))
    return Table(match, users, clients, staff, states=[GAME.load(match.state)])


# --- what a viewer may not know ----------------------------------------------------------


def others(state, viewer: int | None) -> list[int]:
    return [s for s in range(state.num_players) if s != viewer]


def forbidden(state, viewer: int | None, seed: int) -> set[str]:
    ids = {secret for other in others(state, viewer) for secret in GAME.secrets(state, other)}
    return ids | {str(seed)}


def assert_no_ids(text: str, state, viewer: int | None, seed: int, what: str) -> None:
    leaked = sorted(secret for secret in forbidden(state, viewer, seed) if secret in text)
    assert not leaked, f"{what} shows {leaked} to seat {viewer}"


def assert_board_hides_values(table: Table, html: str, viewer: int | None, what: str, *, over: bool = False) -> None:
    """Every face-down marker on a hut and every carried offering of another colour shows "?"."""
    mine = COLOURS[viewer] if viewer is not None else None
    for colour, text in HUT_MARKER.findall(html):
        if not text:
            continue  # a hut without a marker
        if over or colour == mine:
            assert text.isdigit(), f"{what}: the {colour} hut's own marker shows {text!r}"
            table.own_values_seen += 1
        else:
            assert text == "?", f"{what}: seat {viewer} sees {text!r} under a {colour} hut"
            table.hidden_markers_checked += 1
    my_letter = LETTERS[viewer] if viewer is not None else None
    for letter, load, text in TRIBE_LOAD.findall(html):
        if load != "offering":
            continue
        if over or letter == my_letter:
            assert text.isdigit(), f"{what}: own carried offering shows {text!r}"
        else:
            assert text == "?", f"{what}: seat {viewer} sees {text!r} carried by a {letter} tribe"
            table.hidden_markers_checked += 1
    if not over:
        for other in others(table.states[0], viewer):
            colour = COLOURS[other]
            assert f'data-id="o-{colour}-' not in html, f"{what}: {colour}'s marker list shown to seat {viewer}"
            assert f"{colour.capitalize()}'s markers" not in html, f"{what}: {colour}'s markers shown"
            assert f"{colour.capitalize()}'s cards" not in html, f"{what}: {colour}'s cards shown"


def assert_presenter_hides(state, viewer: int | None) -> None:
    """The board presenter's output for the viewer carries no value of another seat's marker
    and none of its cards (checked after every move: it needs no request)."""
    if state.over:
        return
    view = GAME.view(state, viewer)
    board = board_context("mesopotamia", view, viewer, [])
    hidden = set(others(state, viewer))
    by_colour = {COLOURS[s]: s for s in range(state.num_players)}
    for tile in board["map"]["hexes"]:
        for hut in tile["huts"]:
            if by_colour.get(hut["colour"]) in hidden:
                assert hut["value"] is None, f"hut {tile['coords']} value shown to {viewer}"
        for token in tile["tribes"]:
            if by_colour[token["colour"]] in hidden and token["load"] == "offering":
                assert token["load_letter"] == "?", f"{token['id']}'s offering shown to {viewer}"
    for player in board["players"]:
        if player["seat"] in hidden:
            assert "offerings" not in player and "hand" not in player and player["card_names"] == []
    assert "stack_order" not in view and "deck_order" not in view
    if viewer is None or not state.known_top[viewer]:
        assert "peek" not in view and board["peek"] == []


# --- the twin position: same public facts, other secrets ------------------------------------


def twin(state, viewer: int | None):
    """The position with every other seat's hidden markers rotated between their places,
    its cards swapped with other cards of the deck, and the unseen stack reversed."""
    rng = random.Random(state.ply)
    tiles = [list(t.huts) for t in state.tiles]
    tribes = list(state.tribes)
    players = list(state.players)
    deck = list(state.deck)
    fresh = list(state.turn.fresh)
    for seat in others(state, viewer):
        places = [("hand", i) for i in range(len(players[seat].hand))]
        places += [
            ("hut", t, h)
            for t, huts in enumerate(tiles)
            for h, hut in enumerate(huts)
            if hut.owner == seat and hut.offering
        ]
        places += [("tribe", i) for i, tribe in enumerate(tribes) if i // 8 == seat and tribe.load == "offering"]
        values = []
        hand = list(players[seat].hand)
        for place in places:
            values.append(
                hand[place[1]]
                if place[0] == "hand"
                else tiles[place[1]][place[2]].offering
                if place[0] == "hut"
                else tribes[place[1]].offering
            )
        rotated = values[1:] + values[:1]
        for place, value in zip(places, rotated, strict=True):
            if place[0] == "hand":
                hand[place[1]] = value
            elif place[0] == "hut":
                tiles[place[1]][place[2]] = Hut(seat, value)
            else:
                tribes[place[1]] = Tribe(tribes[place[1]].pos, "offering", value)
        cards = list(players[seat].cards)
        for i, card in enumerate(cards):
            choices = [j for j, other in enumerate(deck) if CARDS[other] != CARDS[card]]
            if not choices:
                continue
            j = rng.choice(choices)
            cards[i], deck[j] = deck[j], card
            fresh = [cards[i] if f == card else f for f in fresh]
        players[seat] = players[seat]._replace(hand=tuple(hand), cards=tuple(cards))
    keep = state.known_top[viewer] if viewer is not None else 0
    stack = state.stack[:keep] + tuple(reversed(state.stack[keep:]))
    new_tiles = tuple(t._replace(huts=tuple(h)) for t, h in zip(state.tiles, tiles, strict=True))
    return replace(
        state,
        tiles=new_tiles,
        tribes=tuple(tribes),
        players=tuple(players),
        deck=tuple(deck),
        stack=stack,
        turn=state.turn._replace(fresh=tuple(fresh)),
    )


def normalized(response) -> str:
    return CSRF.sub(r'\1-"', response.content.decode())


def assert_page_independent_of_others_secrets(table: Table, viewer: int | None, client: Client) -> None:
    match, state = table.match, table.states[-1]
    other = twin(state, viewer)
    if other == state:
        return
    table.twins_that_differed += 1
    url = reverse("match_detail", args=[match.pk])
    real = [normalized(client.get(url)), normalized(client.get(url, **HTMX))]
    Match.objects.filter(pk=match.pk).update(state=GAME.dump(other))
    try:
        fake = [normalized(client.get(url)), normalized(client.get(url, **HTMX))]
    finally:
        Match.objects.filter(pk=match.pk).update(state=GAME.dump(state))
    for kind, a, b in zip(("page", "fragment"), real, fake, strict=True):
        if a != b:
            diff = [(x, y) for x, y in zip(a.splitlines(), b.splitlines(), strict=False) if x != y][:3]
            pytest.fail(f"the {kind} for seat {viewer} changes with the other seats' secrets: {diff}")


# --- log lines ---------------------------------------------------------------------------------


def assert_description_hides(state, seat: int, move: str) -> None:
    """The log line of a move that involves a hidden marker or card reads the same with
    another marker or card."""
    words = move.split()
    line = GAME.describe(state, seat, move)
    alternatives = []
    if words[0] == "hut":
        alternatives = [f"hut {words[1]} {v}" for v in state.players[seat].hand if str(v) != words[2]]
    elif words[:1] == ["carry"] and words[2] == "offering":
        alternatives = [
            m for m in GAME.legal_moves(state, seat) if m.startswith(f"carry {words[1]} offering ") and m != move
        ]
    elif words[0] == "draw" and state.deck:
        different = [i for i, c in enumerate(state.deck) if CARDS[c] != CARDS[state.deck[0]]]
        if different:
            deck = list(state.deck)
            deck[0], deck[different[0]] = deck[different[0]], deck[0]
            assert GAME.describe(replace(state, deck=tuple(deck)), seat, move) == line, line
    for alternative in alternatives:
        assert GAME.describe(state, seat, alternative) == line, (move, alternative, line)
    for value in OFFERINGS:
        if words[0] == "hut" or "offering" in words:
            assert f"offering {value}" not in line and f"{value} underneath" not in line, line


# --- one checkpoint -------------------------------------------------------------------------------


def check_all_pages(table: Table) -> None:
    match = table.match
    match.refresh_from_db()
    state = table.states[-1]
    seed = match.seed
    detail = reverse("match_detail", args=[match.pk])
    last = len(table.states) - 1
    plies = sorted({0, last // 2, last})
    for viewer, client in table.viewers:
        pages = {
            "match page": client.get(detail),
            "fragment": client.get(detail, **HTMX),
            "poll": client.get(reverse("match_poll", args=[match.pk]), {"token": "stale"}, **HTMX),
            "stale move": client.post(
                reverse("match_move", args=[match.pk]), {"move": "end", "version": match.version - 1}, **HTMX
            ),
            "stale move (form)": client.post(
                reverse("match_move", args=[match.pk]), {"move": "end", "version": match.version - 1}
            ),
            "dashboard": client.get(reverse("dashboard")),
        }
        assert pages["match page"].status_code == 200
        assert pages["poll"].status_code == 200, "a stale token gets the fragment"
        assert pages["stale move"].status_code in (403, 409)
        for what, response in pages.items():
            html = response.content.decode()
            assert_no_ids(html, state, viewer, seed, what)
            if what != "dashboard":
                assert 'class="meso' in html, f"{what} drew no board"
                assert_board_hides_values(table, html, viewer, f"{what} (ply {state.ply})", over=state.over)
        for ply in plies:
            response = client.get(reverse("match_replay", args=[match.pk]), {"ply": ply})
            html = response.content.decode()
            assert_no_ids(html, table.states[ply], viewer, seed, f"replay at {ply}")
            assert_board_hides_values(table, html, viewer, f"replay at {ply}", over=table.states[ply].over)
        ply = max(0, last - 1)
        fragment = client.get(reverse("match_replay", args=[match.pk]), {"ply": ply}, **HTMX).content.decode()
        assert_no_ids(fragment, table.states[ply], viewer, seed, f"replay fragment at {ply}")
        assert_board_hides_values(table, fragment, viewer, f"replay fragment at {ply}", over=table.states[ply].over)
        assert_page_independent_of_others_secrets(table, viewer, client)


def check_new_notifications(table: Table) -> None:
    state = table.states[-1]
    seat_of = {user.pk: seat for seat, user in enumerate(table.users)}
    fresh = Notification.objects.filter(match=table.match, pk__gt=table.seen_notifications).order_by("pk")
    for note in fresh:
        table.seen_notifications = note.pk
        text = f"{note.subject}\n{note.body}"
        assert_no_ids(text, state, seat_of[note.user_id], table.match.seed, f"notification {note.kind}")


# --- playing ----------------------------------------------------------------------------------------

ACTIONS = ("hut", "holy", "grow", "draw", "play", "to", "volcano", "wood", "stone", "carry")


def choose(rng: random.Random, state, seat: int, finishing: bool) -> str:
    legal = GAME.legal_moves(state, seat)
    if finishing:
        return "end" if "end" in legal else rng.choice(legal)
    if rng.random() < AI_SHARE:
        return GAME.ai_move(state, seat, 1, rng.randrange(1 << 30))
    preferred = [m for m in legal if m.split()[0] in ACTIONS]
    if preferred and rng.random() < 0.6:
        return rng.choice(preferred)
    return rng.choice(legal)


def secret_moment(move: str) -> bool:
    """A marker went face down under a hut, or a tribe took one up."""
    words = move.split()
    return words[0] == "hut" or (words[0] == "carry" and words[2] == "offering")


def play_and_check(table: Table, n: int) -> None:
    rng = random.Random(SEEDS[n])
    match = table.match
    every = RANDOM_MOVES // CHECKPOINTS
    extra = EXTRA_CHECKPOINTS
    moves = 0
    while True:
        state = table.states[-1]
        if GAME.is_over(state):
            break
        seat = GAME.to_act(state)[0]
        move = choose(rng, state, seat, finishing=moves >= RANDOM_MOVES)
        assert_description_hides(state, seat, move)
        checkpoint = moves % every == every - 1 and moves < RANDOM_MOVES
        if checkpoint:
            # The move goes through the page, and its answer is read like any page.
            response = table.clients[seat].post(
                reverse("match_move", args=[match.pk]), {"move": move, "version": match.version}, **HTMX
            )
            assert response.status_code == 200, response.content.decode()[:500]
        else:
            services.move_submit(match_id=match.pk, user=table.users[seat], move=move, expected_version=match.version)
        match.refresh_from_db()
        table.states.append(GAME.load(match.state))
        moves += 1
        if checkpoint:
            assert_no_ids(response.content.decode(), table.states[-1], seat, match.seed, "move answer")
            assert_board_hides_values(table, response.content.decode(), seat, "move answer", over=table.states[-1].over)
        for viewer in [*range(n), None]:
            assert_presenter_hides(table.states[-1], viewer)
        check_new_notifications(table)
        if checkpoint or (extra and secret_moment(move)):
            if not checkpoint:
                extra -= 1
            check_all_pages(table)
        assert moves < 3000, "the game does not end"


def check_everything_shown_at_the_end(table: Table) -> None:
    match, state = table.match, table.states[-1]
    match.refresh_from_db()
    assert match.status == Status.FINISHED and GAME.is_over(state)
    for seat in range(state.num_players):
        assert GAME.secrets(state, seat) == []
    for viewer, client in table.viewers:
        for response in (
            client.get(reverse("match_detail", args=[match.pk])),
            client.get(reverse("match_replay", args=[match.pk])),
        ):
            html = response.content.decode()
            assert str(match.seed) not in html
            assert_board_hides_values(table, html, viewer, "the end", over=True)
            assert "The stack was:" in html
            assert not state.deck or "The deck was:" in html
            for seat in range(state.num_players):
                player = state.players[seat]
                # Every marker not delivered is shown with its value and place.
                for value in OFFERINGS:
                    if value not in player.delivered:
                        assert f'data-id="o-{COLOURS[seat]}-{value}">{value}</span>' in html, (viewer, seat, value)
                if player.cards and seat != viewer:
                    names = ", ".join(CARDS[c].replace("-", " ").title() for c in sorted(player.cards))
                    assert f"{COLOURS[seat].capitalize()}'s cards: {names}" in html


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_page_shows_another_seats_secret(db, monkeypatch, players):
    table = setup_table(players, monkeypatch)
    check_all_pages(table)
    play_and_check(table, players)
    check_everything_shown_at_the_end(table)
    records = MoveRecord.objects.filter(match=table.match).count()
    assert records == len(table.states) - 1
    # The checks met real secrets: others' markers under huts or carried, and twins that differed.
    assert table.hidden_markers_checked > 0, "no hidden marker was ever on the board"
    assert table.own_values_seen > 0
    assert table.twins_that_differed > 0
    assert Notification.objects.filter(match=table.match).exists()
