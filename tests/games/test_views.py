"""Pages and the HTMX fragments: every action as a plain form and as HTMX, and every bad input."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from accounts.models import User
from chat import services as chat_services
from chat.models import Message
from games import selectors, services
from games.engine import get_game
from games.forms import NO_ONE_ELSE
from games.models import Match, MoveRecord, Status
from games.selectors import LATEST_FINISHED, PRESENCE_WRITE_SECONDS
from games.services import ClockSpec, SeatSpec
from games.views import FINISHED_PER_PAGE
from notifications.models import Notification
from tests.conftest import make_user, signed_in, start_match
from tests.games.conftest import start_timed_match

MANCALA = get_game("mancala")
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def move_url(match):
    return reverse("match_move", args=[match.pk])


def snapshot(match):
    match.refresh_from_db()
    return match.state, match.version, MoveRecord.objects.filter(match=match).count()


def play_moves(match, users, count, *, slowly=False):
    """Play ``count`` moves (fewer if the game ends). The easy AI chooses, or, ``slowly``,
    the move that banks the fewest coins, which keeps an Ethiopian game going for hundreds of moves."""
    for _ in range(count):
        match.refresh_from_db()
        state = MANCALA.load(match.state)
        if MANCALA.is_over(state):
            return
        seat = MANCALA.to_act(state)[0]
        if slowly:
            move = min(
                MANCALA.legal_moves(state, seat),
                key=lambda m: sum(MANCALA.view(MANCALA.apply(state, seat, m), None)["mancalas"]),
            )
        else:
            move = MANCALA.ai_move(state, seat, 1, seed=match.version)
        services.move_submit(match_id=match.pk, user=users[seat], move=move, expected_version=match.version)


def test_pages_need_a_login(client, match):
    for url in [reverse("dashboard"), reverse("lobby"), reverse("match_detail", args=[match.pk])]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_dashboard_lists_my_turn_first(alice_client, alice, bob, carol):
    waiting = start_match(bob, alice)  # bob moves first: not alice's turn
    mine = start_match(alice, carol)  # alice moves first
    services.match_create(
        creator=carol, game_slug="mancala", options={}, seats=[services.SeatSpec("creator"), services.SeatSpec("open")]
    )
    html = alice_client.get(reverse("dashboard")).content.decode()
    assert html.index(f"Mancala #{mine.pk}") < html.index(f"Mancala #{waiting.pk}")
    assert "Your turn" in html


def test_a_player_whose_seat_the_ai_took_still_finds_the_match_among_theirs(client, alice, bob, carol):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=match.pk, user=bob)  # three players: the AI plays on
    client.force_login(bob)

    page = " ".join(strip_tags(client.get(reverse("dashboard")).content.decode()).split())

    assert f"Jeexa #{match.pk}" in page and "The AI took your seat" in page
    assert "Your turn" not in page
    client.force_login(alice)
    assert "The AI took your seat" not in client.get(reverse("dashboard")).content.decode()


def test_lobby_shows_open_challenges_and_invitations(alice_client, alice, bob):
    challenge = services.match_create(
        creator=bob,
        game_slug="mancala",
        options={"variant": "kalah"},
        seats=[services.SeatSpec("creator"), services.SeatSpec("open")],
    )
    services.match_create(
        creator=bob,
        game_slug="mancala",
        options={},
        seats=[services.SeatSpec("creator"), services.SeatSpec("user", username="alice")],
    )
    html = alice_client.get(reverse("lobby")).content.decode()
    assert "Open challenges" in html and "Kalah" in html and ">Join<" in html
    link = f'<a href="{reverse("match_detail", args=[challenge.pk])}">Mancala #{challenge.pk}</a>'
    assert link in html, "a challenge can be looked at before joining"
    assert alice_client.get(reverse("match_detail", args=[challenge.pk])).status_code == 200
    assert "Invitations" in html and "Accept" in html


def test_match_lists_tell_invited_players_from_seated_ones_until_the_start(client, alice, bob, carol):
    """The lobby listed "Bob · Alice · Carol · Open seat" as if Carol, only invited, had a seat."""
    client.force_login(make_user("dave"))  # sees it as an open challenge
    match = services.match_create(
        creator=bob,
        game_slug="mecca",
        options={},
        seats=[
            services.SeatSpec("creator"),
            services.SeatSpec("user", username="alice"),
            services.SeatSpec("user", username="carol"),
            services.SeatSpec("open"),
        ],
    )
    services.match_accept(match_id=match.pk, user=alice)

    def players():
        html = client.get(reverse("lobby")).content.decode()
        row = html.split(f">Mecca #{match.pk}</a>", 1)[1].split("</tr>", 1)[0]
        return " ".join(strip_tags(row.split('class="players">', 1)[1].split("</td>", 1)[0]).split())

    assert players() == "Bob · Alice · Carol (invited) · Open seat"
    services.match_accept(match_id=match.pk, user=carol)
    assert players() == "Bob · Alice · Carol · Open seat"


def test_creating_a_match_against_the_ai(alice_client):
    response = alice_client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "ethiopian",
            "position": "first",
            "seat_1": "ai:2",
            "invite_1": "",
        },
    )
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("match_detail", args=[match.pk])
    assert match.status == Status.ACTIVE and match.options == {"variant": "ethiopian"}
    assert match.seats.get(number=1).ai_level == 2


def test_the_same_new_match_form_sent_again_makes_no_second_match(alice_client):
    """Back after creating, then Create again, made a second match in play against the AI."""
    page = alice_client.get(reverse("match_new", args=["mancala"])).content.decode()
    token = re.search(r'name="form_token" value="([^"]+)"', page).group(1)
    form = {"option_variant": "egyptian", "position": "first", "seat_1": "ai:1", "invite_1": "", "form_token": token}
    first = alice_client.post(reverse("match_new", args=["mancala"]), form)
    match = Match.objects.get()
    again = alice_client.post(reverse("match_new", args=["mancala"]), form, follow=True)
    assert Match.objects.count() == 1
    assert again.redirect_chain[-1][0] == first["Location"] == reverse("match_detail", args=[match.pk])
    assert "That form was sent already and made this match, so no second match was made." in again.content.decode()
    fresh = alice_client.get(reverse("match_new", args=["mancala"])).content.decode()
    assert re.search(r'name="form_token" value="([^"]+)"', fresh).group(1) != token, "a new form makes a new match"
    alice_client.post(reverse("match_new", args=["mancala"]), {**form, "form_token": "another"})
    assert Match.objects.count() == 2
    changed = alice_client.post(reverse("match_new", args=["mancala"]), {**form, "option_variant": "kalah"})
    assert Match.objects.count() == 3, "the same form with other choices is another match"
    assert Match.objects.get(pk=int(changed["Location"].strip("/").split("/")[-1])).options == {"variant": "kalah"}


def test_the_new_match_form_writes_each_heading_once(alice_client):
    """A group's legend names its select; the select's label is for screen readers only
    (the page read "Opponent 1" and then "Opponent 1:")."""
    page = alice_client.get(reverse("match_new", args=["jeexa"])).content.decode()
    visible = re.sub(r'<[^>]*class="visually-hidden"[^>]*>[^<]*</[^>]*>', "", page)
    visible = " ".join(strip_tags(visible).split())
    for heading in ("Time control", "Opponent 1", "Opponent 7"):
        assert visible.count(heading) == 1, heading
        assert f'class="visually-hidden">{heading}</label>' in page, heading


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"option_variant": "martian", "position": "first", "seat_1": "ai:1"}, "Select a valid choice"),
        ({"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": ""}, "Type the username"),
        (
            {"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": "ghost"},
            "no player called",
        ),
        ({"option_variant": "egyptian", "position": "first", "seat_1": "ai:7"}, "Select a valid choice"),
    ],
)
def test_a_forged_or_wrong_create_form_is_refused_with_a_reason(alice_client, data, message):
    response = alice_client.post(reverse("match_new", args=["mancala"]), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Match.objects.exists()


def test_a_refused_create_form_takes_the_player_to_the_field_it_refuses(alice_client):
    """The form came back at its top: on a phone an invite left without a name, at its foot, was
    out of sight, and Create seemed to do nothing."""
    data = {"position": "first", "seat_1": "ai:1", "seat_4": "invite", "invite_4": ""}
    page = alice_client.post(reverse("match_new", args=["mecca"]), data).content.decode()

    assert page.count("autofocus") == 1
    assert re.search(r'<input type="text" name="invite_4"[^>]* autofocus[ >]', page)


@pytest.mark.parametrize(
    ("clock", "left_over"),
    [
        ({"time_control": "none"}, {"days_per_move": "99", "bank_initial_days": "0", "on_timeout": "explode"}),
        ({"time_control": "per_move", "days_per_move": "3"}, {"bank_cap_days": "-4"}),
        ({"time_control": "bank", "bank_initial_days": "5"}, {"days_per_move": "abc"}),
    ],
)
def test_what_a_hidden_clock_field_still_holds_is_ignored_not_refused_out_of_sight(alice_client, clock, left_over):
    """The page hides the fields the chosen time control does not use: a refusal there was shown nowhere."""
    data = {"option_variant": "egyptian", "position": "first", "seat_1": "ai:1", **clock, **left_over}
    response = alice_client.post(reverse("match_new", args=["mancala"]), data)
    assert response.status_code == 302
    assert Match.objects.get().time_control == clock["time_control"]


def test_a_form_sent_back_for_its_time_bank_shows_the_defaults_of_the_hidden_clock_fields(alice_client):
    """It showed "1 day" per move (the list's first), which switching to days per move then offered."""
    data = {
        "option_variant": "egyptian",
        "position": "first",
        "seat_1": "ai:1",
        "time_control": "bank",
        "bank_initial_days": "9",
        "bank_increment_days": "1",
        "bank_cap_days": "5",
    }
    page = alice_client.post(reverse("match_new", args=["mancala"]), data)
    assert page.status_code == 400 and "a cap no smaller than that" in page.content.decode()
    assert page.context["form"]["days_per_move"].value() == "3"
    assert '<option value="3" selected>3 days</option>' in page.content.decode()


def test_a_forged_long_form_token_does_not_refuse_the_form(alice_client):
    data = {"option_variant": "egyptian", "position": "first", "seat_1": "ai:1", "form_token": "x" * 500}
    assert alice_client.post(reverse("match_new", args=["mancala"]), data).status_code == 302
    assert Match.objects.count() == 1


def test_a_refused_seat_choice_is_one_error_not_two(alice_client):
    data = {"option_variant": "egyptian", "position": "first", "seat_1": "ai:9"}
    page = alice_client.post(reverse("match_new", args=["mancala"]), data).content.decode()
    assert "Select a valid choice" in page and NO_ONE_ELSE not in page


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


@pytest.mark.parametrize("page", ["dashboard", "finished_matches", "lobby"])
def test_the_pages_that_list_matches_are_not_kept_for_back(alice_client, match, page):
    """Back to them showed the browser's copy: "Your turn" after the move, the matches after signing out."""
    response = alice_client.get(reverse(page))
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


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


def test_polling_an_unchanged_match_is_one_query_beside_the_session_and_the_user(alice_client, match, clock):
    """The match's version, status and revision, and whether the player's presence is due to
    be written again, in one query; the write, every PRESENCE_WRITE_SECONDS, is a fourth.
    Every poll wrote the presence (an UPDATE that changed nothing nine times in ten): 4 queries."""
    url = reverse("match_poll", args=[match.pk])
    match.refresh_from_db()

    def poll() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            assert alice_client.get(url, {"token": match.poll_token}, **HTMX).status_code == 204
        return [query["sql"] for query in queries.captured_queries]

    assert poll()[-1].startswith("UPDATE"), "the first poll writes the presence"
    clock.advance(seconds=PRESENCE_WRITE_SECONDS - 1)
    unchanged = poll()
    assert len(unchanged) == 3
    assert ["django_session" in unchanged[0], "accounts_user" in unchanged[1]] == [True, True]
    assert unchanged[2].startswith("SELECT") and "games_match" in unchanged[2]
    clock.advance(seconds=2)
    due = poll()
    assert len(due) == 4 and due[3].startswith("UPDATE")
    assert match.seats.get(user__username="alice").last_seen_at == clock.now


@pytest.mark.parametrize("slug", ["jeexa", "mancala"])  # Jeexa's tables, Mancala's row labels
def test_the_replay_names_a_seat_as_it_was_before_the_ai_took_it(alice_client, alice, bob, staff, slug):
    match = services.match_create(
        creator=alice, game_slug=slug, options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_accept(match_id=match.pk, user=bob)
    game = get_game(slug)
    players = {0: alice, 1: bob}
    while len(set(MoveRecord.objects.filter(match=match).values_list("seat", flat=True))) < 2:
        match.refresh_from_db()
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        services.move_submit(
            match_id=match.pk, user=players[seat], move=game.legal_moves(state, seat)[0], expected_version=match.version
        )
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Bob left")
    match.refresh_from_db()
    while not MoveRecord.objects.filter(match=match, by_ai=True).exists():
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        move = game.ai_move(state, seat, 1, match.seed)
        services.move_submit(
            match_id=match.pk,
            user=None if seat else alice,
            ai_seat=seat or None,
            move=move,
            expected_version=match.version,
        )
        match.refresh_from_db()
    url = reverse("match_replay", args=[match.pk])

    def board_at(**query) -> str:
        page = alice_client.get(url, query).content.decode()
        return re.search(r'<section class="board">(.*)</section>', page, re.S)[1]

    assert "Bob" in board_at(ply=1) and "AI (Easy)" not in board_at(ply=1), "Bob still played that seat"
    assert "AI (Easy)" in board_at() and "Bob" not in board_at()


def play_against_the_ai(match, alice, count):
    """``count`` moves, Alice's and the AI's (seat 1), each the easy AI's choice."""
    for _ in range(count):
        match.refresh_from_db()
        state = MANCALA.load(match.state)
        seat = MANCALA.to_act(state)[0]
        services.move_submit(
            match_id=match.pk,
            user=None if seat else alice,
            ai_seat=seat or None,
            move=MANCALA.ai_move(state, seat, 1, seed=match.version),
            expected_version=match.version,
        )
    match.refresh_from_db()


def replay_players(client, match, ply: int) -> str:
    page = client.get(reverse("match_replay", args=[match.pk]), {"ply": ply}).content.decode()
    return " ".join(strip_tags(re.search(r'<p class="replay-players">(.*?)</p>', page, re.S)[1]).split())


def test_the_replay_names_an_ai_at_the_level_it_played_before_staff_changed_it(alice_client, alice, staff):
    match = start_match(alice, ai_level=1)
    play_against_the_ai(match, alice, 6)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=2, actor=staff, reason="Too easy")
    play_against_the_ai(match, alice, 4)

    assert replay_players(alice_client, match, 0) == "Players: Alice · AI (Easy)"
    assert replay_players(alice_client, match, 6) == "Players: Alice · AI (Easy)", "move 6 came before the change"
    assert replay_players(alice_client, match, 7) == "Players: Alice · AI (Strong)"
    assert replay_players(alice_client, match, 10) == "Players: Alice · AI (Strong)"


def test_the_replay_names_an_ai_whose_level_changed_before_the_first_move_at_its_new_level(alice_client, alice, staff):
    match = start_match(alice, ai_level=1)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=2, actor=staff, reason="")
    play_against_the_ai(match, alice, 2)

    assert replay_players(alice_client, match, 0) == "Players: Alice · AI (Strong)"


def test_the_replay_says_who_plays_which_colour(client, alice, bob):
    match = start_timed_match(alice, bob, game="mesopotamia")
    client.force_login(bob)
    page = " ".join(strip_tags(client.get(reverse("match_replay", args=[match.pk])).content.decode()).split())
    assert "Players: Alice (Blue) · Bob (Yellow)" in page


def test_the_replay_names_ai_seats_once_with_their_colour(alice, alice_client):
    seats = [SeatSpec("creator"), *(SeatSpec("ai", ai_level=2) for _ in range(3))]
    match = services.match_create(creator=alice, game_slug="mecca", options={}, seats=seats)
    page = " ".join(strip_tags(alice_client.get(reverse("match_replay", args=[match.pk])).content.decode()).split())
    assert "Players: Alice (Yellow) · AI (Strong, Red) · AI (Strong, Green) · AI (Strong, Blue)" in page


def test_replay_steps_through_every_position(alice_client, match, alice, bob):
    play_moves(match, {0: alice, 1: bob}, 5)
    url = reverse("match_replay", args=[match.pk])
    start = alice_client.get(url, {"ply": 0}).content.decode()
    assert "The starting position" in start and "Position 0 of 5" in start
    step = alice_client.get(url, {"ply": 1}, **HTMX).content.decode()
    assert "<html" not in step and "After move 1: Alice sows tile" in step
    assert "Position 5 of 5" in alice_client.get(url, {"ply": 99}).content.decode()
    assert "Position 5 of 5" in alice_client.get(url, {"ply": "junk"}).content.decode()


def test_resigning_as_a_plain_form(alice_client, match):
    response = alice_client.post(reverse("match_resign", args=[match.pk]))
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Status.FINISHED and match.result["winners"] == [1]
    page = alice_client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Bob" in page and "wins" in page and "resigned" in page


def test_the_result_names_every_winner_and_tells_same_named_seats_apart(alice, alice_client):
    seats = [SeatSpec("creator"), *(SeatSpec("ai", ai_level=2) for _ in range(3))]
    match = services.match_create(creator=alice, game_slug="mecca", options={}, seats=seats)
    Match.objects.filter(pk=match.pk).update(
        status=Status.FINISHED, result={"scores": [9, 12, 12, 12], "winners": [1, 2, 3], "reason": "played out"}
    )
    page = " ".join(strip_tags(alice_client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())
    assert (
        "AI (Strong, player 2), AI (Strong, player 3) and AI (Strong, player 4) share the win. "
        "Score: Alice 9, AI (Strong, player 2) 12, AI (Strong, player 3) 12, AI (Strong, player 4) 12."
    ) in page


def test_waiting_for_names_the_seat_to_act(alice_client, match, alice, bob):
    while not match.seats.get(number=1).to_act:
        play_moves(match, {0: alice, 1: bob}, 1)
    page = " ".join(strip_tags(alice_client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())
    assert "Waiting for Bob." in page


def test_resign_asks_first_and_goes_away_in_the_fragment_that_ends_the_match(alice_client, match):
    url = reverse("match_detail", args=[match.pk])
    fragment = alice_client.get(url, **HTMX).content.decode()
    assert '<details class="resign" id="resign">' in fragment and "your opponent wins" in fragment
    alice_client.post(reverse("match_resign", args=[match.pk]))
    fragment = alice_client.get(url, **HTMX).content.decode()
    assert "The match is over." in fragment and "Resign" not in fragment


def test_a_refused_action_says_why(alice_client, match):
    response = alice_client.post(reverse("match_cancel", args=[match.pk]))
    assert response.status_code == 400
    assert "This match has already started." in response.content.decode()


def test_an_open_match_shows_no_board_prompts_before_it_starts(client, alice, bob):
    match = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("open"), SeatSpec("ai", ai_level=1)],
    )
    client.force_login(bob)
    waiting = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "The board appears here when every seat is taken" in waiting
    assert "choose a free entrance square" not in waiting, "nobody may choose yet"
    services.match_join(match_id=match.pk, user=bob)
    started = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Yellow: choose a free entrance square." in started and "The board appears" not in started


def test_a_match_cancelled_before_it_started_shows_no_board(client, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_decline(match_id=match.pk, user=bob)
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "This match was cancelled." in page and "row-label" not in page


def test_cancelling_a_match_takes_two_steps_and_says_who_is_told(client, alice, bob):
    """One stray click cancelled a match others had joined or been invited to (and emailed them)."""
    client.force_login(alice)
    alone = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    inviting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    for match, words in ((alone, "Nobody has joined yet"), (inviting, "Everyone who joined or was invited")):
        page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
        confirm = page[page.index("<summary>Cancel this match…</summary>") :]
        assert page.rindex("<details", 0, page.index("<summary>Cancel this match…")) > page.index('id="log"')
        assert confirm.index(words) < confirm.index("</details>")
        assert confirm.index(f'action="{reverse("match_cancel", args=[match.pk])}"') < confirm.index("</details>")


def test_a_join_that_loses_the_race_for_the_last_seat_leads_back_to_the_lobby(client, alice, bob, carol, monkeypatch):
    """The match was open to Carol when she pressed Join; Bob's join got the lock first."""
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    match_for_viewer = selectors.match_for_viewer
    raced = []

    def bob_joins_once_carol_looked(pk, user):
        seen = match_for_viewer(pk, user)
        if not raced:
            raced.append(pk)
            services.match_join(match_id=pk, user=bob)
        return seen

    monkeypatch.setattr(selectors, "match_for_viewer", bob_joins_once_carol_looked)
    client.force_login(carol)
    page = client.post(reverse("match_join", args=[match.pk])).content.decode()
    assert raced and "Another player took the last seat just before you." in page
    assert reverse("lobby") in page and reverse("match_detail", args=[match.pk]) not in page, "the match is not hers"


def test_a_join_that_came_too_late_says_so_and_leads_back_to_the_lobby(client, alice, bob, carol):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    client.force_login(carol)
    token = match.poll_token
    assert client.get(reverse("match_detail", args=[match.pk])).status_code == 200  # carol looks at it
    services.match_join(match_id=match.pk, user=bob)  # bob is quicker

    response = client.post(reverse("match_join", args=[match.pk]))
    page = response.content.decode()
    assert response.status_code == 400 and "Another player took the last seat just before you." in page
    assert reverse("lobby") in page and reverse("match_detail", args=[match.pk]) not in page

    # Carol's open page polls: it is told, and the fragment stops polling.
    response = client.get(reverse("match_poll", args=[match.pk]), {"token": token}, **HTMX)
    fragment = response.content.decode()
    assert response.status_code == 200 and "it started without you" in fragment
    assert 'id="live"' in fragment and "hx-trigger" not in fragment and "<html" not in fragment


def test_a_match_among_invited_players_is_theirs_alone_until_it_has_a_free_seat(client, alice, bob, carol):
    """It used to show strangers a "Join this match" button that could only be refused."""
    invited = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    client.force_login(carol)
    assert client.get(reverse("match_detail", args=[invited.pk])).status_code == 404

    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[invited.pk])).content.decode()
    assert "Accept" in page and "Join this match" not in page

    challenge = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("open")],
    )
    client.force_login(carol)
    assert "Join this match" in client.get(reverse("match_detail", args=[challenge.pk])).content.decode()


@pytest.mark.parametrize(
    "game, players, seat_lines",
    [
        ("mecca", 2, ["Alice Player 1 · Yellow and Green (you)", "Bob Player 2 · Red and Blue"]),
        ("mesopotamia", 3, ["Alice Player 1 · Blue (you)", "Bob Player 2 · Yellow", "Carol Player 3 · Green"]),
    ],
)
def test_the_seat_list_says_whose_colour_is_whose(client, alice, bob, carol, game, players, seat_lines):
    """Boards of colour games speak of colours ("Blue: choose a free entrance"); the seat list ties
    them to names."""
    match = start_timed_match(alice, *[bob, carol][: players - 1], game=game)
    client.force_login(alice)

    page = " ".join(strip_tags(client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())

    for line in seat_lines:
        assert line in page


@pytest.mark.parametrize(
    "game, players, first_lines",
    [
        # Two colours each: the colour says which of a player's pilgrims moved.
        ("mecca", 2, ["Alice (yellow) enters at", "Bob (red) enters at", "Alice (green) enters at"]),
        ("mesopotamia", 2, ["Alice (blue) "]),
    ],
)
def test_the_log_of_a_colour_game_names_the_player_and_the_colour(client, alice, bob, game, players, first_lines):
    match = start_timed_match(alice, bob, game=game)
    engine, users = get_game(game), {0: alice, 1: bob}
    for _ in first_lines:
        match.refresh_from_db()
        state = engine.load(match.state)
        seat = engine.to_act(state)[0]
        services.move_submit(
            match_id=match.pk, user=users[seat], move=engine.legal_moves(state, seat)[0], expected_version=match.version
        )
    client.force_login(alice)

    log = [
        " ".join(strip_tags(line).split())
        for line in re.findall(
            r"<li[^>]*>(.*?)</li>",
            client.get(reverse("match_detail", args=[match.pk])).content.decode().split('id="log"')[1],
            re.S,
        )
    ]

    for line in first_lines:
        assert any(entry.startswith(line) or f". {line}" in entry for entry in log), (line, log)
    assert not any(re.search(r"\b(Yellow|Red|Green|Blue)\b", entry) for entry in log), log


def test_the_jeexa_board_names_players_as_the_seat_list_does(client, alice, bob):
    match = start_timed_match(alice, bob, game="jeexa")
    client.force_login(bob)

    page = " ".join(strip_tags(client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())

    assert "Alice rolled" in page and "Your puzzle" in page and "Alice 0 pc" in page
    assert "Player 1 0 pc" not in page  # (the engine's own event lines still count players by number)


def test_a_game_without_colours_lists_seats_by_number_only(alice_client, match):
    page = " ".join(strip_tags(alice_client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())
    assert "Player 1 (you)" in page and "Player 2 ·" not in page


def test_an_invitation_says_that_declining_cancels_the_match_for_those_who_accepted(client, alice, bob, carol):
    """Carol had accepted a three-player match; Bob pressed Decline thinking the others would play on,
    and the match was cancelled for all three without a word before."""
    match = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("user", username="carol")],
    )
    services.match_accept(match_id=match.pk, user=carol)
    client.force_login(bob)

    page = " ".join(strip_tags(client.get(reverse("match_detail", args=[match.pk])).content.decode()).split())
    listed = " ".join(strip_tags(client.get(reverse("dashboard")).content.decode()).split())

    assert "Declining cancels this match for everyone in it, also for those who have accepted" in page
    assert "Declining an invitation cancels that match for everyone in it." in listed


def test_a_match_with_every_seat_taken_says_whose_acceptance_it_waits_for(client, alice, bob, carol):
    """Dave took the last open seat and read "Waiting for players to join", though nobody could
    join any more: the match waited for Bob and Carol to accept."""
    dave = make_user("dave", display_name="Dave")
    match = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[
            SeatSpec("creator"),
            SeatSpec("user", username="bob"),
            SeatSpec("user", username="carol"),
            SeatSpec("open"),
        ],
    )

    def status(user):
        client.force_login(user)
        page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
        return " ".join(strip_tags(re.search(r'<p class="turn"[^>]*>(.*?)</p>', page, re.S).group(1)).split())

    assert status(alice) == "Waiting for players to join, and for Bob and Carol to accept."
    services.match_join(match_id=match.pk, user=dave)
    assert status(dave) == "Waiting for Bob and Carol to accept the invitation."
    services.match_accept(match_id=match.pk, user=carol)
    assert status(bob) == "Waiting for you to accept the invitation."


def test_a_declined_invitation_shows_a_cancelled_match_with_nobody_still_invited(client, alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    client.force_login(bob)

    response = client.post(reverse("match_decline", args=[match.pk]), follow=True)

    page = " ".join(strip_tags(response.content.decode()).split())
    assert "This match was cancelled." in page and "Bob declined the invitation, so the match is cancelled." in page
    client.force_login(alice)
    mine = " ".join(strip_tags(client.get(reverse("dashboard")).content.decode()).split())
    assert f"Mancala #{match.pk}" in mine and "Cancelled" in mine and "Aborted" not in mine
    assert "invited" not in page and "aborted" not in page


def test_someone_elses_match_answers_the_same_as_none_in_plain_words(client, match, carol):
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
    match = services.match_create(creator=alice, game_slug="mancala", options={"variant": "egyptian"}, seats=seats)
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


def test_after_resigning_from_three_players_the_former_player_watches(client, alice, bob, carol):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    client.force_login(alice)
    response = client.post(reverse("match_resign", args=[match.pk]), follow=True)
    page = " ".join(strip_tags(response.content.decode()).split())
    assert response.status_code == 200 and "You resigned." in page
    assert "The AI plays your former seat (player 1); you are watching." in page and "Resign" not in page
    poll = client.get(reverse("match_poll", args=[match.pk]), {"token": "x"}, **HTMX)
    assert poll.status_code == 200 and "your former seat" in poll.content.decode()
    dashboard = client.get(reverse("dashboard"))
    mine = {m.pk: m for m in dashboard.context["matches"]}
    assert not mine[match.pk].seated, "listed among hers, to watch"
    row = dashboard.content.decode().split(f"/matches/{match.pk}/")[1].split("</tr>")[0]
    assert re.search(r'class="time-left">—</td>', row), "no clock of hers: she only watches"


def count_queries(client, method, url, data=None):
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, data or {}, **HTMX)
    assert response.status_code in (200, 302)
    return len(queries.captured_queries)


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


def test_dashboard_query_count_does_not_grow_with_the_number_of_matches(client, alice, bob):
    start_match(alice, bob)
    services.match_resign(match_id=start_match(alice, bob).pk, user=alice)  # the finished ones' seats are a query
    client.force_login(alice)
    few = count_queries(client, "get", reverse("dashboard"))
    for number in range(5):
        start_match(alice, bob)
        timed = start_timed_match(alice, bob)  # with clocks shown
        for text in ["hi", "gg", "rude"][:number]:  # and new messages in some, counted on each row
            chat_services.message_post(match_id=timed.pk, user=bob, text=text)
    services.match_resign(match_id=timed.pk, user=alice)  # one of them finished
    Message.objects.filter(text="rude").update(hidden=True)
    services.vacation_start(user_id=bob.pk, days=3)  # and an opponent on vacation
    assert count_queries(client, "get", reverse("dashboard")) == few
    assert [
        match.new_messages for match in client.get(reverse("dashboard")).context["matches"] if match.new_messages
    ] == [1, 2, 2, 2]


def test_lobby_and_dashboard_query_counts_do_not_grow_with_invitations_challenges_or_former_seats(
    client, alice, bob, carol, settings
):
    # Bob alone makes them all: past what one player may have waiting (24) and invite Alice to (12).
    settings.OPEN_MATCHES_PER_PLAYER = settings.PENDING_INVITATIONS_TO_ONE_PLAYER = 100

    def add(count):
        for _ in range(count):
            services.match_create(
                creator=bob, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
            )  # an open challenge
            services.match_create(
                creator=bob,
                game_slug="mecca",
                options={},  # an invitation to Alice
                seats=[SeatSpec("creator"), SeatSpec("user", username="alice"), SeatSpec("ai", ai_level=1)],
            )
            services.match_resign(match_id=start_timed_match(alice, bob, carol, game="jeexa").pk, user=alice)

    client.force_login(alice)
    add(2)
    few = [count_queries(client, "get", reverse(page)) for page in ("lobby", "dashboard")]
    add(10)
    assert [count_queries(client, "get", reverse(page)) for page in ("lobby", "dashboard")] == few


def test_an_unknown_address_gets_the_sites_own_not_found_page(alice_client):
    response = alice_client.get("/no-such-page/")
    assert response.status_code == 404
    assert "There is nothing at this address" in response.content.decode()
    assert reverse("home") in response.content.decode()
    response = alice_client.get(reverse("match_new", args=["chess"]))
    assert response.status_code == 404 and "There is no such game." in response.content.decode()
    assert reverse("lobby") in response.content.decode()  # the site's page, not the debug one


def test_the_move_log_puts_each_event_just_above_the_move_it_followed(client, alice, bob, staff):
    match = start_timed_match(alice, bob)
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=2, actor=staff, reason="Before any move")
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.seat_deadline_extend(match_id=match.pk, seat_number=1, hours=5, actor=staff, reason="Travelling")
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    client.force_login(alice)
    log = client.get(reverse("match_detail", args=[match.pk])).content.decode().split('id="log"')[1]
    lines = [" ".join(strip_tags(line).split()) for line in re.findall(r"<li[^>]*>.*?</li>", log)]
    assert lines == [
        "Bob sows tile 1: 4 coins.",
        "Bob was given 5 more hours: Travelling.",
        "Alice sows tile 1: 4 coins.",
    ], lines
    assert re.findall(r'<li[^>]*value="(\d+)"', log) == ["2", "1", "1"]
    after_the_list = strip_tags(log.split("</ol>")[1])
    assert after_the_list.index("Alice was given 2 more hours: Before any move") < after_the_list.index("Replay")


def test_events_before_any_move_are_listed_newest_first_like_the_rest_of_the_log(client, alice, bob, staff):
    match = start_timed_match(alice, bob)
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=2, actor=staff, reason="First")
    services.seat_deadline_extend(match_id=match.pk, seat_number=0, hours=3, actor=staff, reason="Second")
    client.force_login(alice)
    log = strip_tags(client.get(reverse("match_detail", args=[match.pk])).content.decode().split('id="log"')[1])
    assert log.index("No moves yet.") < log.index("3 more hours: Second") < log.index("2 more hours: First")


def test_the_mesopotamia_replay_does_not_ask_for_clicks(client, alice, bob):
    """The map's key told a replay's reader to click a dashed hex to make that move."""
    match = start_timed_match(alice, bob, game="mesopotamia")
    client.force_login(alice)
    playing = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    replay = client.get(reverse("match_replay", args=[match.pk]) + "?ply=0").content.decode()
    assert "click one to make that move" in playing
    assert "click one to make that move" not in replay and "The map of Mesopotamia" in replay


def test_every_finished_match_can_be_found_a_page_at_a_time(client, alice, bob):
    """My matches lists the latest finished matches; the rest are on the finished page,
    newest first, 25 a page, each page with a fixed number of queries."""
    finished = []
    for _ in range(LATEST_FINISHED + 8):
        match = start_match(alice, bob)
        services.match_resign(match_id=match.pk, user=bob)
        finished.append(match.pk)
    playing = start_match(alice, bob)
    client.force_login(alice)

    dashboard = client.get(reverse("dashboard")).content.decode()
    assert f"Mancala #{finished[0]}<" not in dashboard, "the oldest finished match is not on My matches"
    assert f'href="{reverse("finished_matches")}"' in dashboard

    first = client.get(reverse("finished_matches")).content.decode()
    shown = [int(pk) for pk in re.findall(r"Mancala #(\d+)<", first)]
    assert shown == finished[::-1][:FINISHED_PER_PAGE] and playing.pk not in shown
    assert "Page 1 of 2" in first and "Newer" not in first
    second = client.get(reverse("finished_matches"), {"page": 2}).content.decode()
    assert [int(pk) for pk in re.findall(r"Mancala #(\d+)<", second)] == finished[::-1][FINISHED_PER_PAGE:]
    assert "Newer" in second and "Older" not in second
    # A page number out of range or not a number shows a page that exists, not an error.
    assert "Page 2 of 2" in client.get(reverse("finished_matches"), {"page": 99}).content.decode()
    assert "Page 1 of 2" in client.get(reverse("finished_matches"), {"page": "x"}).content.decode()
    assert count_queries(client, "get", reverse("finished_matches")) == count_queries(
        client, "get", reverse("finished_matches"), {"page": 2}
    )


def test_a_match_that_ended_last_leads_the_finished_ones_however_old(client, alice, bob):
    old = start_match(alice, bob)
    for _ in range(LATEST_FINISHED):
        services.match_resign(match_id=start_match(alice, bob).pk, user=bob)
    services.match_resign(match_id=old.pk, user=bob)  # begun first, ended last
    client.force_login(alice)
    for url in (reverse("dashboard"), reverse("finished_matches")):
        assert re.search(r"Mancala #(\d+)<", client.get(url).content.decode())[1] == str(old.pk), url
    assert "Finished: you won" in client.get(reverse("finished_matches")).content.decode()
    client.force_login(bob)
    assert "Finished: you lost" in client.get(reverse("dashboard")).content.decode()


@pytest.mark.parametrize("ending", ["declined", "withdrawn"])
def test_a_match_cancelled_before_it_started_is_listed_by_when_it_ended_too(client, alice, bob, ending):
    """A declined or withdrawn invitation had no end time: it sank below every finished
    match, off My matches once 20 others had ended."""
    invitation = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    for _ in range(LATEST_FINISHED):
        services.match_resign(match_id=start_match(alice, bob).pk, user=bob)
    if ending == "declined":
        services.match_decline(match_id=invitation.pk, user=bob)
    else:
        services.match_cancel(match_id=invitation.pk, user=alice)
    client.force_login(alice)
    for url in (reverse("dashboard"), reverse("finished_matches")):
        assert re.search(r"Mancala #(\d+)<", client.get(url).content.decode())[1] == str(invitation.pk), url


def test_the_finished_page_shows_only_the_players_own_matches(client, alice, bob, carol):
    match = start_match(bob, carol)
    services.match_resign(match_id=match.pk, user=carol)
    client.force_login(alice)
    page = client.get(reverse("finished_matches")).content.decode()
    assert f"#{match.pk}<" not in page and "no finished matches yet" in page
    client.logout()
    assert "/accounts/login/" in client.get(reverse("finished_matches"))["Location"]


def waiting_for_alice_since(alice, bob, *, hours: tuple[int, ...]) -> list[Match]:
    """Matches without a clock where it is Alice's turn again, since her last move ``hours`` ago each."""
    matches = [start_match(alice, bob) for _ in hours]
    now = timezone.now()
    for match, ago in zip(matches, hours, strict=True):
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
        services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
        Match.objects.filter(pk=match.pk).update(last_move_at=now - timedelta(hours=ago))
    return matches


def test_without_a_clock_the_match_that_has_waited_longest_for_you_comes_first(alice, bob):
    """My matches and the digest said "the least time left first; without a clock, the one that
    waits longest", and put the latest last move first: the one that had waited least."""
    older, newer = waiting_for_alice_since(alice, bob, hours=(30, 2))
    timed = start_timed_match(alice, bob)  # a clock running out: before both
    assert [match.pk for match in selectors.matches_of(alice)[:3]] == [timed.pk, older.pk, newer.pk]
    assert [match.pk for match in selectors.matches_to_act(alice)] == [timed.pk, older.pk, newer.pk]
