"""Watching: who may open a public or a private match and what they see there (the spectator's view,
no control of the players'), the Watch button and the Watching list of My matches with its "new"
mark, and the public matches the home page and each game's page list, each in a fixed number of
queries."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from chat import services as chat_services
from games import selectors, services
from games.engine import all_games, get_game
from games.models import Match, Seat, Status, Watch
from games.services import SeatSpec
from games.services.watching import NOT_WATCHING, PLAYING_IT, WATCHING_ALREADY
from games.views import NOT_FOUND
from tests.conftest import make_user, signed_in, start_match
from tests.games import test_secrets as secret_pages

HTMX = {"HTTP_HX_REQUEST": "true"}
MANCALA = get_game("mancala")
MOVE_FORM = 'name="move"'


def text(html: str) -> str:
    """What a reader reads: no tags, one space between words."""
    return " ".join(strip_tags(html).split())


def private_match(alice, bob) -> Match:
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    match = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats, public=False)
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


def move(match: Match, user, notation: str = "1") -> None:
    match.refresh_from_db()
    services.move_submit(match_id=match.pk, user=user, move=notation, expected_version=match.version)
    match.refresh_from_db()


def to_move(match: Match) -> int:
    match.refresh_from_db()
    return MANCALA.to_act(MANCALA.load(match.state))[0]


def play(match: Match, players: list, count: int) -> None:
    """``count`` moves (the easy AI's choice) by whoever is to act."""
    for _ in range(count):
        seat = to_move(match)
        state = MANCALA.load(match.state)
        move(match, players[seat], MANCALA.ai_move(state, seat, 1, seed=match.version))


# --- who may open a match -----------------------------------------------------------------


@pytest.mark.parametrize("status", ["waiting", "in play", "finished"])
def test_a_visitor_opens_a_public_match_in_any_status_and_sees_the_spectators_view(client, alice, bob, status):
    seats = [SeatSpec("creator"), SeatSpec("open")]
    match = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)
    if status != "waiting":
        services.match_join(match_id=match.pk, user=bob)
        move(match, alice)
    if status == "finished":
        services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()

    response = client.get(reverse("match_detail", args=[match.pk]))

    page = response.content.decode()
    assert response.status_code == 200
    assert response.context["view"] == MANCALA.view(MANCALA.load(match.state), None)
    assert response.context["my_seat"] is None and response.context["legal"] == []
    assert MOVE_FORM not in page and "Resign" not in page and "Cancel this match" not in page
    assert "Join this match" not in page and "Rematch" not in page
    assert f'href="/accounts/login/?next=/matches/{match.pk}/"' in page
    assert ("to join this match" in page) is (status == "waiting")
    assert 'id="my-matches"' not in page


def test_a_signed_in_outsider_sees_the_spectators_view_and_may_watch(alice, bob, carol):
    match = start_match(alice, bob)
    response = signed_in(carol).get(reverse("match_detail", args=[match.pk]))
    page = response.content.decode()
    assert response.status_code == 200 and response.context["view"] == MANCALA.view(match.game_state, None)
    assert MOVE_FORM not in page and "Resign" not in page
    assert f'action="{reverse("match_watch", args=[match.pk])}"' in page
    for player in (alice, bob):  # their match is on My matches already
        page = signed_in(player).get(match.get_absolute_url()).content.decode()
        assert reverse("match_watch", args=[match.pk]) not in page


PRIVATE_GETS = {
    "page": lambda match: ("get", reverse("match_detail", args=[match.pk]), {}, {}),
    "part": lambda match: ("get", reverse("match_detail", args=[match.pk]), {}, HTMX),
    "poll": lambda match: ("get", reverse("match_poll", args=[match.pk]), {"token": match.poll_token}, HTMX),
    "poll, another token": lambda match: ("get", reverse("match_poll", args=[match.pk]), {"token": "0-open-0"}, HTMX),
    "replay": lambda match: ("get", reverse("match_replay", args=[match.pk]), {}, {}),
    "replay step": lambda match: ("get", reverse("match_replay", args=[match.pk]), {"ply": "0"}, HTMX),
    "message": lambda match: ("post", reverse("match_message", args=[match.pk]), {"text": "hi"}, {}),
    "report": lambda match: (
        "post",
        reverse("match_message_report", args=[match.pk, match.messages.get().pk]),
        {"reason": "x"},
        HTMX,
    ),
    "join": lambda match: ("post", reverse("match_join", args=[match.pk]), {}, {}),
    "move": lambda match: ("post", reverse("match_move", args=[match.pk]), {"move": "1", "version": "0"}, HTMX),
    "resign": lambda match: ("post", reverse("match_resign", args=[match.pk]), {}, {}),
    "watch": lambda match: ("post", reverse("match_watch", args=[match.pk]), {}, {}),
}


@pytest.mark.parametrize("who", ["visitor", "outsider"])
@pytest.mark.parametrize("address", list(PRIVATE_GETS))
def test_a_private_match_is_not_found_for_a_visitor_or_an_outsider_at_every_address(alice, bob, carol, who, address):
    match = private_match(alice, bob)
    chat_services.message_post(match_id=match.pk, user=alice, text="between us")
    client = Client() if who == "visitor" else signed_in(carol)
    method, url, data, headers = PRIVATE_GETS[address](match)

    response = getattr(client, method)(url, data, **headers)

    html = response.content.decode()
    assert response.status_code == 404, (address, response.status_code, response.get("Location"))
    assert NOT_FOUND in html and "between us" not in html and "Alice" not in html
    assert not Watch.objects.exists() and match.messages.count() == 1 and match.moves.count() == 0


def test_a_visitor_is_offered_to_sign_in_on_the_not_found_page_and_comes_back(client, alice, bob):
    match = private_match(alice, bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert f'href="/accounts/login/?next=/matches/{match.pk}/"' in page
    assert signed_in(alice).get(reverse("match_detail", args=[match.pk])).status_code == 200


@pytest.mark.parametrize("address", ["message", "join", "move", "resign", "watch"])
def test_a_visitor_who_acts_on_a_public_match_is_sent_to_sign_in_and_nothing_is_done(client, alice, bob, address):
    match = start_match(alice, bob)
    chat_services.message_post(match_id=match.pk, user=alice, text="good luck")
    method, url, data, headers = PRIVATE_GETS[address](match)
    response = getattr(client, method)(url, data, **headers)
    location = response["HX-Redirect"] if headers else response["Location"]
    assert location.startswith(reverse("account_login"))
    assert match.moves.count() == 0 and match.messages.count() == 1 and not Watch.objects.exists()
    assert Match.objects.get(pk=match.pk).status == Status.ACTIVE


def test_a_page_whose_session_ended_is_sent_to_sign_in_not_redrawn_for_a_visitor(client, alice, bob):
    match = start_match(alice, bob)
    page = signed_in(alice).get(reverse("match_detail", args=[match.pk])).content.decode()
    assert '"x-signed-in": "true"' in page  # what htmx sends with every request of this page
    assert '"x-signed-in"' not in client.get(reverse("match_detail", args=[match.pk])).content.decode()
    poll = reverse("match_poll", args=[match.pk])
    response = client.get(poll, {"token": "stale"}, HTTP_X_SIGNED_IN="true", **HTMX)
    assert response["HX-Redirect"].startswith(reverse("account_login")) and not response.content


# --- what a visitor's page does ----------------------------------------------------------


def test_a_visitor_polls_a_public_match_and_writes_no_presence(client, alice, bob):
    match = start_match(alice, bob)
    poll = reverse("match_poll", args=[match.pk])
    token = match.poll_token
    assert client.get(poll, {"token": token}, **HTMX).status_code == 204
    move(match, alice)
    response = client.get(poll, {"token": token}, **HTMX)
    fragment = response.content.decode()
    assert response.status_code == 200 and "Alice sows tile 1" in fragment and "<html" not in fragment
    assert 'id="my-matches"' not in fragment, "no top bar count to swap out of band"
    assert client.get(poll, {"token": match.poll_token}, **HTMX).status_code == 204
    assert not Seat.objects.filter(match=match, last_seen_at__isnull=False).exists()


def test_a_visitor_steps_through_the_replay(client, alice, bob):
    match = start_match(alice, bob)
    play(match, [alice, bob], 4)
    for ply in range(5):
        response = client.get(reverse("match_replay", args=[match.pk]), {"ply": ply}, **HTMX)
        assert response.status_code == 200 and f"Position {ply} of 4" in response.content.decode()
    assert client.get(reverse("match_replay", args=[match.pk])).status_code == 200


def test_a_visitor_polls_a_public_open_challenge_that_started_and_watches_on(client, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    token = match.poll_token
    services.match_join(match_id=match.pk, user=bob)
    response = client.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX)
    assert response.status_code == 200 and "Waiting for Alice." in text(response.content.decode())


@pytest.mark.parametrize("chat_public", [False, True], ids=["players only", "public"])
def test_the_players_messages_are_read_by_watchers_only_where_they_made_them_public(alice, bob, carol, chat_public):
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    match = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats, chat_public=chat_public)
    services.match_accept(match_id=match.pk, user=bob)
    chat_services.message_post(match_id=match.pk, user=bob, text="well played so far")
    url = reverse("match_detail", args=[match.pk])
    for watcher, signed in ((Client(), False), (signed_in(carol), True)):
        page = watcher.get(url).content.decode()
        part = watcher.get(url, {"messages": "all"}, **HTMX).content.decode()
        for html in (page, part):
            assert ("well played so far" in html) is chat_public
            assert ("The players' messages are theirs alone." in html) is not chat_public
            assert "<textarea" not in html, "a watcher never writes"
        assert ("Report…" in page) is (chat_public and signed), "reporting takes an account"
    assert "well played so far" in signed_in(alice).get(url).content.decode()


# --- Watch and Unwatch ------------------------------------------------------------------


def test_watch_puts_the_match_on_my_matches_and_unwatch_takes_it_off(alice, bob, carol):
    match = start_match(alice, bob)
    carols = signed_in(carol)

    response = carols.post(reverse("match_watch", args=[match.pk]), follow=True)
    page = response.content.decode()
    assert response.redirect_chain == [(match.get_absolute_url(), 302)]
    assert "You watch this match" in page and f'action="{reverse("match_unwatch", args=[match.pk])}"' in page
    again = carols.post(reverse("match_watch", args=[match.pk]), follow=True).content.decode()
    assert WATCHING_ALREADY in again and Watch.objects.filter(user=carol, match=match).count() == 1
    dashboard = carols.get(reverse("dashboard")).content.decode()
    assert "Watching" in dashboard and f"Mancala #{match.pk}" in dashboard

    response = carols.post(reverse("match_unwatch", args=[match.pk]), {"back": "dashboard"}, follow=True)
    assert response.redirect_chain == [(reverse("dashboard"), 302)]
    assert f"Mancala #{match.pk}" not in response.content.decode() and not Watch.objects.exists()
    gone = carols.post(reverse("match_unwatch", args=[match.pk]), follow=True).content.decode()
    assert NOT_WATCHING in gone


def test_a_player_cannot_watch_their_own_match(alice, bob):
    match = start_match(alice, bob)
    response = signed_in(alice).post(reverse("match_watch", args=[match.pk]))
    assert response.status_code == 400 and PLAYING_IT in response.content.decode()
    assert not Watch.objects.exists()


def test_the_watching_list_marks_the_moves_since_the_page_was_last_open(alice, bob, carol):
    match = start_match(alice, bob)
    carols = signed_in(carol)
    carols.post(reverse("match_watch", args=[match.pk]))

    def mark() -> str:
        page = carols.get(reverse("dashboard")).content.decode()
        row = page.split('id="watching-heading"')[1]
        found = [text for text in ("New move", "new moves", "Over since you looked") if text in row]
        return row.split('class="new-moves"')[1].split("</a>")[0].split(">")[1] if found else ""

    assert mark() == "", "watched as it stood: nothing is new yet"
    play(match, [alice, bob], 1)
    assert mark() == "New move"
    play(match, [alice, bob], 2)
    assert mark() == "3 new moves"
    carols.get(match.get_absolute_url())
    assert mark() == "", "opening the page marks it seen"

    token = match.poll_token
    play(match, [alice, bob], 1)
    assert mark() == "New move"
    carols.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX)  # the open page redraws
    assert mark() == ""

    services.match_resign(match_id=match.pk, user=bob)  # no move, but the end
    assert mark() == "Over since you looked"
    carols.get(match.get_absolute_url())
    assert mark() == ""


def test_the_watching_list_leaves_out_what_the_watcher_now_plays_in_or_may_no_longer_open(alice, bob, carol, dave):
    seats = [SeatSpec("creator"), SeatSpec("open")]
    joined = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)
    private = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats, public=False)
    for match in (joined, private):
        services.match_watch(match_id=match.pk, user=carol)
    assert {match.pk for match in selectors.watched_by(carol)} == {joined.pk, private.pk}
    services.match_join(match_id=joined.pk, user=carol)  # on My matches as hers now
    services.match_join(match_id=private.pk, user=dave)  # started among others: theirs alone
    assert selectors.watched_by(carol) == []
    assert 'id="watching-heading"' not in signed_in(carol).get(reverse("dashboard")).content.decode()


@pytest.fixture
def dave(db):
    return make_user("dave", display_name="Dave")


# --- the public lists: the home page and each game's page --------------------------------


def test_the_home_page_lists_public_matches_in_play_and_finished_for_a_visitor(client, alice, bob, carol):
    older, newer = start_match(alice, bob), start_match(alice, carol)
    private = private_match(alice, bob)
    unmoved = start_match(bob, carol)
    done = start_match(bob, alice)
    for match in (older, newer, private, done):
        move(match, match.seats.get(number=0).user)
    Match.objects.filter(pk=older.pk).update(last_move_at=timezone.now() - timedelta(hours=1))
    services.match_resign(match_id=done.pk, user=alice)

    page = client.get(reverse("home")).content.decode()

    live, finished = page.split('id="live-heading"')[1].split('id="finished-heading"')
    links = [f'href="{reverse("match_detail", args=[match.pk])}"' for match in (newer, older, done, private, unmoved)]
    assert live.index(links[0]) < live.index(links[1]), "the latest to move first"
    assert links[2] in finished and "Bob won" in text(finished) and links[2] not in live
    assert links[3] not in page and links[4] not in page, "neither a private match nor one not begun"
    assert "Watch Mancala" in live and "Alice" in live and "Carol" in live
    mine = signed_in(alice).get(reverse("home")).content.decode()
    assert "Your matches waiting" in mine and 'id="live-heading"' in mine, "a player's waiting matches, then the lists"


def test_each_list_shows_a_handful_of_matches(client, alice, bob):
    matches = [start_match(alice, bob) for _ in range(selectors.PUBLIC_SHOWN + 2)]
    for match in matches:
        move(match, alice)
    live = selectors.public_matches().live
    assert [match.pk for match in live] == [match.pk for match in reversed(matches)][: selectors.PUBLIC_SHOWN]


@pytest.mark.parametrize("game", [game.slug for game in all_games()])
def test_each_game_has_a_page_for_anyone_with_its_rules_and_a_way_to_play(client, alice, game):
    url = reverse("game", args=[game])
    name = get_game(game).name
    page = client.get(url).content.decode()
    assert f"<h1>{name}</h1>" in page and reverse("game_rules", args=[game]) in page
    assert "players" in page and "Sign up to play" in page and reverse("match_new", args=[game]) in page
    assert f'href="{reverse("match_new", args=[game])}"' in signed_in(alice).get(url).content.decode()
    rules = client.get(reverse("game_rules", args=[game])).content.decode()
    assert f'href="{url}"' in rules and f'href="{url}"' in client.get(reverse("home")).content.decode()


def test_a_games_page_lists_its_own_public_matches_only(client, alice, bob):
    mancala = start_match(alice, bob)
    mecca = services.match_create(
        creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("ai", ai_level=1)]
    )
    move(mancala, alice)
    Match.objects.filter(pk=mecca.pk).update(last_move_at=timezone.now())
    page = client.get(reverse("game", args=["mecca"])).content.decode()
    assert f"Watch Mecca #{mecca.pk}" in page and f"Mancala #{mancala.pk}" not in page
    assert "No public Mecca match has finished yet." in page


def test_an_unknown_game_has_no_page(client):
    response = client.get(reverse("game", args=["chess"]))
    assert response.status_code == 404 and "There is no such game." in response.content.decode()


# --- query counts ---------------------------------------------------------------------------


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_home_and_game_pages_read_each_list_in_one_query_however_many_matches(client, alice, bob, carol):
    def one_of_each():
        live, done = start_match(alice, bob), start_match(alice, carol)
        move(live, alice)
        move(done, alice)
        services.match_resign(match_id=done.pk, user=carol)

    one_of_each()
    few = [queries(client, reverse("home")), queries(client, reverse("game", args=["mancala"]))]
    for _ in range(selectors.PUBLIC_SHOWN + 2):
        one_of_each()
    many = [queries(client, reverse("home")), queries(client, reverse("game", args=["mancala"]))]
    assert few == many == [2, 2]


def test_my_matches_reads_the_watching_list_in_two_queries_however_many_are_watched(alice, bob, carol):
    carols = signed_in(carol)
    first = start_match(alice, bob)
    services.match_watch(match_id=first.pk, user=carol)
    services.match_resign(match_id=first.pk, user=bob)
    one = queries(carols, reverse("dashboard"))
    for _ in range(6):
        match = start_match(alice, bob)
        move(match, alice)
        services.match_watch(match_id=match.pk, user=carol)
    assert len(selectors.watched_by(carol)) == 7
    assert queries(carols, reverse("dashboard")) == one
    Watch.objects.all().delete()
    assert queries(carols, reverse("dashboard")) == one - 1, "the list and its seats: none to read when empty"


def test_a_spectators_page_costs_no_more_queries_as_the_match_grows(alice, bob, carol, client):
    match = start_match(alice, bob)
    play(match, [alice, bob], 2)
    carols = signed_in(carol)
    services.match_watch(match_id=match.pk, user=carol)
    carols.get(match.get_absolute_url())
    few = [queries(client, match.get_absolute_url()), queries(carols, match.get_absolute_url())]
    play(match, [alice, bob], 20)
    carols.get(match.get_absolute_url())  # seen: the next one writes nothing
    assert [queries(client, match.get_absolute_url()), queries(carols, match.get_absolute_url())] == few


# --- a visitor never sees a seat's secret (Mesopotamia) ---------------------------------------

PLAYERS_ONLY_WORDS = "our secret plan for the temple"
SECRET_CHECKPOINTS = 6  # rounds of requests at regular intervals over the random part of the game ...
SECRET_MOMENTS = 3  # ... and right after the first huts are built or offerings taken up
SECRET_BOARD_PARTS = ("meso-secret", "Top of the stack", "The stack was", "The deck was")


def visitor_reads(table: secret_pages.Table, visitor: Client, html: str, state, what: str) -> None:
    """Nothing of a seat's own in a page a visitor got: no secret id, no hidden value, no part of
    the board drawn for a seat's eyes, no word of the players' messages, not the seed."""
    secret_pages.assert_no_ids(html, state, None, table.match.seed, what)
    assert PLAYERS_ONLY_WORDS not in html, f"{what} shows the players' messages"
    if 'class="meso' in html:  # a board
        secret_pages.assert_board_hides_values(table, html, None, what, over=state.over)
        if not state.over:
            shown = [part for part in SECRET_BOARD_PARTS if part in html]
            assert not shown, f"{what} at ply {state.ply} shows {shown}"


def visitor_checks_every_page(table: secret_pages.Table, visitor: Client) -> None:
    match = table.match
    match.refresh_from_db()
    state, last = table.states[-1], len(table.states) - 1
    detail, poll, replay = (reverse(name, args=[match.pk]) for name in ("match_detail", "match_poll", "match_replay"))
    pages = {
        "match page": visitor.get(detail),
        "its live part": visitor.get(detail, **HTMX),
        "every message": visitor.get(detail, {"messages": "all"}, **HTMX),
        "poll": visitor.get(poll, {"token": "stale"}, **HTMX),
        "home page": visitor.get(reverse("home")),
        "game page": visitor.get(reverse("game", args=["mesopotamia"])),
        "a player's page": visitor.get(reverse("player", args=[table.users[1].username])),
    }
    for what, response in pages.items():
        assert response.status_code == 200, what
        visitor_reads(table, visitor, response.content.decode(), state, what)
    assert 'class="meso' in pages["poll"].content.decode(), "a changed match gets its board"
    assert visitor.get(poll, {"token": match.poll_token}, **HTMX).status_code == 204
    for ply in sorted({0, last // 2, max(0, last - 1), last}):
        for what, headers in (("replay", {}), ("replay step", HTMX)):
            response = visitor.get(replay, {"ply": ply}, **headers)
            assert response.status_code == 200
            visitor_reads(table, visitor, response.content.decode(), table.states[ply], f"{what} at {ply}")
    secret_pages.assert_page_independent_of_others_secrets(table, None, visitor)
    # The check can fail: the seat to act sees its own markers' ids on the same page.
    seat = state.turn.seat
    own = table.clients[seat].get(detail).content.decode()
    table.own_secrets_shown += any(secret in own for secret in secret_pages.GAME.secrets(state, seat))


def test_a_visitor_watching_a_public_mesopotamia_match_never_sees_a_seats_secret(db, monkeypatch):
    table = secret_pages.setup_table(3, monkeypatch)
    table.own_secrets_shown = 0
    match, visitor = table.match, Client()
    assert match.public and not match.chat_public
    chat_services.message_post(match_id=match.pk, user=table.users[0], text=PLAYERS_ONLY_WORDS)
    rng = random.Random(secret_pages.SEEDS[3])
    every = secret_pages.RANDOM_MOVES // SECRET_CHECKPOINTS
    moments, moves = SECRET_MOMENTS, 0
    visitor_checks_every_page(table, visitor)
    while not secret_pages.GAME.is_over(table.states[-1]):
        state = table.states[-1]
        seat = secret_pages.GAME.to_act(state)[0]
        played = secret_pages.choose(rng, state, seat, finishing=moves >= secret_pages.RANDOM_MOVES)
        services.move_submit(match_id=match.pk, user=table.users[seat], move=played, expected_version=match.version)
        match.refresh_from_db()
        table.states.append(secret_pages.GAME.load(match.state))
        moves += 1
        moment = moments and secret_pages.secret_moment(played)
        if moment or (moves % every == 0 and moves <= secret_pages.RANDOM_MOVES):
            moments -= bool(moment)
            visitor_checks_every_page(table, visitor)
        assert moves < 3000, "the game does not end"

    assert match.status == Status.FINISHED
    html = visitor.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "The stack was:" in html, "after the end everything shows, to visitors too"
    assert PLAYERS_ONLY_WORDS not in html
    # The checks met real secrets: markers hidden on the board, positions whose secrets differed.
    assert table.hidden_markers_checked > 0 and table.twins_that_differed > 0 and table.own_secrets_shown > 0
