"""Moves on the match page, as a plain form and with HTMX, and every bad request: the board's
legal moves (and the confirmation a player may ask for), refusals in words with a 4xx that
change nothing, another player's match answering as one that does not exist, polling, and query
counts that do not grow with the number of moves."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from chat.models import Message
from games import services
from games.models import Match, MoveRecord, Status
from games.selectors import PRESENCE_WRITE_SECONDS
from games.services import ClockSpec, SeatSpec
from notifications.models import Notification
from tests.conftest import signed_in, start_match
from tests.games.conftest import HTMX, MANCALA, count_queries, play_moves, start_timed_match


def move_url(match):
    return reverse("match_move", args=[match.pk])


def snapshot(match):
    match.refresh_from_db()
    return match.state, match.version, MoveRecord.objects.filter(match=match).count()


def test_the_match_page_draws_the_board_with_clickable_legal_moves(alice_client, match):
    response = alice_client.get(reverse("match_detail", args=[match.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('name="move"') == 6  # six tiles of four coins
    assert 'name="version" value="0"' in html
    assert "Your turn" in html
    assert response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    assert "HX-Request" in response["Vary"]


def confirms_moves(client, match, **headers) -> bool:
    """Whether the board asks site.js to have each move confirmed (the player's profile setting)."""
    html = client.get(reverse("match_detail", args=[match.pk]), **headers).content.decode()
    board = re.search(r'<section id="board"[^>]*>', html)
    assert board, "the board is drawn"
    return "data-confirm-moves" in board.group()


def test_the_board_asks_for_a_confirmation_only_of_a_player_who_chose_it_and_is_to_act(alice, bob, staff, match):
    players = {"alice": signed_in(alice), "bob": signed_in(bob), "staff": signed_in(staff)}
    assert not confirms_moves(players["alice"], match)  # off by default: one click sends the move

    User.objects.update(confirm_moves=True)
    assert confirms_moves(players["alice"], match) and confirms_moves(players["alice"], match, **HTMX)
    assert not confirms_moves(players["bob"], match)  # not his turn
    assert not confirms_moves(players["staff"], match)  # watching

    players["alice"].post(move_url(match), {"move": "1", "version": "0"}, **HTMX)
    assert not confirms_moves(players["alice"], match)
    assert confirms_moves(players["bob"], match)
    User.objects.filter(pk=bob.pk).update(confirm_moves=False)
    assert not confirms_moves(players["bob"], match)


def test_a_move_as_a_plain_form_redirects_back_to_the_match(alice_client, match):
    response = alice_client.post(move_url(match), {"move": "1", "version": "0"})
    assert response.status_code == 302
    assert snapshot(match)[1] == 1


def test_a_move_with_htmx_returns_the_redrawn_fragment(alice_client, match):
    response = alice_client.post(move_url(match), {"move": "1", "version": "0"}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and 'id="live"' in html
    assert "Alice sows tile 1" in html  # the move log
    assert 'name="move"' not in html  # now it is Bob's turn


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_move_sent_twice_shows_the_board_after_it_not_a_refusal(alice_client, match, headers):
    alice_client.post(move_url(match), {"move": "1", "version": "0"}, **headers)
    again = alice_client.post(move_url(match), {"move": "1", "version": "0"}, **headers, follow=True)
    html = again.content.decode()
    assert again.status_code == 200 and "not played" not in html and "Alice sows tile 1" in html
    assert MoveRecord.objects.filter(match=match).count() == 1


@pytest.mark.parametrize("name", ["match_detail", "match_poll", "match_replay"])
def test_a_post_to_a_page_is_refused_in_words(alice_client, match, name):
    response = alice_client.post(reverse(name, args=[match.pk]), {"move": "1", "version": "0"})
    html = response.content.decode()
    assert response.status_code == 405 and response["Allow"] in ("GET", "GET, HEAD")
    assert response["Content-Length"] == str(len(response.content)), "a browser reads only Content-Length bytes"
    assert "This address does not take that kind of request (only GET)." in html and "site.css" in html
    assert Match.objects.get(pk=match.pk).version == 0


@pytest.mark.parametrize("forged", ["too large", "too many fields"])
def test_a_request_django_cannot_read_is_refused_in_words(alice_client, match, settings, forged):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    data = {"move": "1" * 20_000, "version": "0"} if forged == "too large" else {f"f{n}": "1" for n in range(60)}
    response = alice_client.post(move_url(match), data)
    assert response.status_code == 400
    assert "The site could not read that request" in response.content.decode()
    assert Match.objects.get(pk=match.pk).version == 0


@pytest.mark.parametrize("name", ["match_move", "match_resign", "match_rematch", "match_cancel"])
def test_a_button_address_opened_by_link_says_nothing_was_done(alice_client, match, name):
    response = alice_client.get(reverse(name, args=[match.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("match_detail", args=[match.pk])
    assert "That address takes a button press on this page, so nothing was done." in response.content.decode()
    assert Match.objects.get(pk=match.pk).status == Status.ACTIVE


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"move": "7", "version": "0"}, 422, "1 to 6"),
        ({"move": "1", "version": "5"}, 409, "changed since you loaded it"),
        ({"move": "1", "version": "abc"}, 400, "malformed"),
        ({"move": "", "version": "0"}, 400, "malformed"),
        ({"version": "0"}, 400, "malformed"),
        ({"move": "x" * 500, "version": "0"}, 400, "malformed"),
    ],
)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_bad_moves_get_a_clear_message_a_4xx_and_change_nothing(alice_client, match, data, status, message, headers):
    before = snapshot(match)
    response = alice_client.post(move_url(match), data, **headers)
    assert response.status_code == status
    assert message in response.content.decode()
    assert snapshot(match) == before


def test_a_move_out_of_turn_is_refused(client, match, bob):
    client.force_login(bob)
    before = snapshot(match)
    response = client.post(move_url(match), {"move": "1", "version": "0"}, **HTMX)
    assert response.status_code == 422 and "not your turn" in response.content.decode()
    assert snapshot(match) == before


def test_someone_elses_match_is_not_found(client, match, carol):
    Match.objects.filter(pk=match.pk).update(public=False)  # anyone may open a public match
    client.force_login(carol)
    before = snapshot(match)
    assert client.get(reverse("match_detail", args=[match.pk])).status_code == 404
    assert client.post(move_url(match), {"move": "1", "version": "0"}).status_code == 404
    assert client.get(reverse("match_replay", args=[match.pk])).status_code == 404
    assert snapshot(match) == before


def test_a_missing_match_is_not_found(alice_client):
    assert alice_client.get(reverse("match_detail", args=[9999])).status_code == 404
    assert alice_client.get(reverse("match_poll", args=[9999])).status_code == 404


def test_a_move_without_csrf_token_is_refused(alice, match):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    before = snapshot(match)
    response = client.post(move_url(match), {"move": "1", "version": "0"})
    assert response.status_code == 403
    assert snapshot(match) == before


def test_polling_returns_nothing_until_the_match_changes(alice_client, match, bob, staff):
    url = reverse("match_poll", args=[match.pk])
    match.refresh_from_db()
    token = match.poll_token
    assert alice_client.get(url, {"token": token}, **HTMX).status_code == 204
    services.move_submit(match_id=match.pk, user=match.seats.get(number=0).user, move="1", expected_version=0)
    response = alice_client.get(url, {"token": token}, **HTMX)
    assert response.status_code == 200 and "Alice sows tile 1" in response.content.decode()
    match.refresh_from_db()
    token = match.poll_token
    assert alice_client.get(url, {"token": token}, **HTMX).status_code == 204
    # A change that is not a move reaches the open page too.
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    response = alice_client.get(url, {"token": token}, **HTMX)
    assert response.status_code == 200 and "Staff gave Bob&#x27;s seat to the AI" in response.content.decode()


def test_polling_an_unchanged_match_is_one_query_beside_the_session(alice_client, match, clock):
    """The match's version, status and revision, and whether the player's presence is due to
    be written again, in one query; the write, every PRESENCE_WRITE_SECONDS, is a third. The
    user is not read for a poll that answers "nothing changed" (games.selectors.player_poll)."""
    url = reverse("match_poll", args=[match.pk])
    match.refresh_from_db()

    def poll() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            assert alice_client.get(url, {"token": match.poll_token}, **HTMX).status_code == 204
        return [query["sql"] for query in queries.captured_queries]

    assert poll()[-1].startswith("UPDATE"), "the first poll writes the presence"
    clock.advance(seconds=PRESENCE_WRITE_SECONDS - 1)
    unchanged = poll()
    assert len(unchanged) == 2
    assert "django_session" in unchanged[0]
    assert unchanged[1].startswith("SELECT") and "games_match" in unchanged[1]
    clock.advance(seconds=2)
    due = poll()
    assert len(due) == 3 and due[2].startswith("UPDATE")
    assert match.seats.get(user__username="alice").last_seen_at == clock.now


def test_someone_elses_match_answers_the_same_as_none_in_plain_words(client, match, carol):
    Match.objects.filter(pk=match.pk).update(public=False)  # anyone may open a public match
    client.force_login(carol)
    token = match.poll_token
    for url in (
        reverse("match_detail", args=[match.pk]),
        reverse("match_detail", args=[99999]),
        reverse("match_poll", args=[match.pk]) + f"?token={token}",
        reverse("match_replay", args=[match.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 404, url  # a right token tells nothing either
        assert "There is no such match, or it is not yours to see." in response.content.decode()
        assert reverse("lobby") in response.content.decode()
    fragment = client.post(move_url(match), {"move": "1", "version": "0"}, **HTMX).content.decode()
    assert fragment.lstrip().startswith('<div id="live"') and "not yours to see" in fragment


@pytest.mark.parametrize("then", ["playing", "finished", "cancelled"])
def test_an_outsider_learns_nothing_of_a_match_among_invited_players(client, alice, bob, carol, then):
    """Join and the poll once answered any match id in words ("This match is over.", "This
    match was cancelled.", "it started without you"); only an open challenge may say so."""
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    match = services.match_create(
        creator=alice, game_slug="mancala", options={"variant": "egyptian"}, seats=seats, public=False
    )
    if then == "cancelled":
        services.match_cancel(match_id=match.pk, user=alice)
    else:
        services.match_accept(match_id=match.pk, user=bob)
    if then == "finished":
        services.match_resign(match_id=match.pk, user=bob)
    client.force_login(carol)
    for response in (
        client.post(reverse("match_join", args=[match.pk])),
        client.get(reverse("match_poll", args=[match.pk]), {"token": "0-open-0"}, **HTMX),
    ):
        assert response.status_code == 404
        assert "There is no such match, or it is not yours to see." in response.content.decode()


@pytest.mark.parametrize(
    "time_control", [None, ClockSpec(time_control="bank", bank_initial_days=3, bank_increment_days=1, bank_cap_days=9)]
)
def test_query_counts_do_not_grow_with_the_number_of_moves(client, alice, bob, time_control):
    if time_control is None:
        short, long = start_match(alice, bob, variant="ethiopian"), start_match(alice, bob, variant="ethiopian")
    else:
        short, long = (
            start_timed_match(alice, bob, clock=time_control, options={"variant": "ethiopian"}) for _ in range(2)
        )
    users = {0: alice, 1: bob}
    play_moves(short, users, 1)
    play_moves(long, users, 200, slowly=True)
    short.refresh_from_db()
    long.refresh_from_db()
    assert (short.version, long.version) == (1, 200)
    Message.objects.bulk_create(Message(match=long, author=users[n % 2], text="gg", after_move=n) for n in range(60))
    client.force_login(alice)
    pages = [count_queries(client, "get", reverse("match_detail", args=[m.pk])) for m in (short, long)]
    assert pages[0] == pages[1]
    replays = [count_queries(client, "get", reverse("match_replay", args=[m.pk])) for m in (short, long)]
    assert replays[0] == replays[1]
    moves = []
    Notification.objects.update(sent_at=timezone.now())  # the same email work in both matches
    for m in (short, long):
        state = MANCALA.load(m.state)
        seat = MANCALA.to_act(state)[0]
        client.force_login(users[seat])
        legal = MANCALA.legal_moves(state, seat)
        passing = [mv for mv in legal if MANCALA.to_act(MANCALA.apply(state, seat, mv)) != (seat,)]
        data = {"move": passing[0], "version": m.version}
        moves.append(count_queries(client, "post", move_url(m), data))
    assert moves[0] == moves[1]
