"""The pages that list matches: My matches (your turn first, without a clock the longest waiting
first, a seat the AI took, who is only invited), the lobby's open challenges and invitations,
and every finished match a page at a time; none kept for Back, and each in a number of queries
that does not grow with the matches."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from chat import services as chat_services
from chat.models import Message
from games import selectors, services
from games.models import Match
from games.selectors import LATEST_FINISHED
from games.services import SeatSpec
from games.views import FINISHED_PER_PAGE
from tests.conftest import make_user, start_match
from tests.games.conftest import count_queries, start_timed_match, waiting_for_alice_since


def test_pages_need_a_login(client, match):
    for url in [reverse("dashboard"), reverse("lobby")]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.get(reverse("match_detail", args=[match.pk])).status_code == 200  # public: anyone may watch
    Match.objects.filter(pk=match.pk).update(public=False)
    response = client.get(reverse("match_detail", args=[match.pk]))
    assert response.status_code == 404 and f"/accounts/login/?next=/matches/{match.pk}/" in response.content.decode()


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


@pytest.mark.parametrize("page", ["dashboard", "finished_matches", "lobby"])
def test_the_pages_that_list_matches_are_not_kept_for_back(alice_client, match, page):
    """Back to them showed the browser's copy: "Your turn" after the move, the matches after signing out."""
    response = alice_client.get(reverse(page))
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


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


def test_without_a_clock_the_match_that_has_waited_longest_for_you_comes_first(alice, bob):
    """My matches and the digest said "the least time left first; without a clock, the one that
    waits longest", and put the latest last move first: the one that had waited least."""
    older, newer = waiting_for_alice_since(alice, bob, hours=(30, 2))
    timed = start_timed_match(alice, bob)  # a clock running out: before both
    assert [match.pk for match in selectors.matches_of(alice)[:3]] == [timed.pk, older.pk, newer.pk]
    assert [match.pk for match in selectors.matches_to_act(alice)] == [timed.pk, older.pk, newer.pk]
