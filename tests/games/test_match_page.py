"""The match page around the board: resigning, cancelling, joining and declining, the result and
whose turn or acceptance it waits for, the seat list and the log of colour games, the events in
the move log, what an open or cancelled match shows, and the site's own not-found page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games import selectors, services
from games.engine import get_game
from games.models import Match, Status
from games.services import SeatSpec
from tests.conftest import make_user
from tests.games.conftest import HTMX, play_moves, start_timed_match


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
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")], public=False
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
    match = services.match_create(  # private: a public one stays in sight, to watch
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")], public=False
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
    seats = [SeatSpec("creator"), SeatSpec("user", username="bob")]
    invited = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats, public=False)
    watched = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)
    client.force_login(carol)
    assert client.get(reverse("match_detail", args=[invited.pk])).status_code == 404
    assert "Join this match" not in client.get(reverse("match_detail", args=[watched.pk])).content.decode()

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
