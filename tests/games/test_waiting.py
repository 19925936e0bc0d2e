"""The top bar's count of matches waiting for the player ("My matches (3)": their turn, or an
invitation to answer) and the match page's link to the next match waiting for their move."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from accounts.services import user_deactivate
from games import selectors, services
from games.models import Match, Status
from games.services import ClockSpec, SeatSpec
from tests.conftest import make_user, start_match
from tests.games.conftest import start_timed_match, waiting_for_alice_since

HTMX = {"HTTP_HX_REQUEST": "true"}
COUNT_SQL = 'COUNT(DISTINCT "U0"."match_id") AS "matches"'  # the count's first part (selectors._waiting)


def invite(creator, guest, game="mancala"):
    return services.match_create(
        creator=creator,
        game_slug=game,
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username=guest.username)],
    )


def my_matches_link(html: str) -> str:
    return re.search(r'<a id="my-matches"[^>]*>(.*?)</a>', html, re.S).group(1)


def said(html: str) -> str:
    return " ".join(strip_tags(html).split())


def on_dashboard(user) -> int:
    """What My matches lists as waiting for the player: "Your turn" rows and invitations."""
    return sum(match.my_turn for match in selectors.matches_of(user)) + len(selectors.invitations_for(user))


def test_it_counts_the_matches_where_it_is_your_turn_and_the_invitations_to_answer(alice, bob, carol):
    yours = start_match(alice, bob)  # Alice (seat 0) moves first
    invite(bob, alice)
    assert (selectors.waiting_count(alice), selectors.waiting_count(bob)) == (2, 0)
    assert selectors.waiting_count(carol) == 0, "nothing of others' matches"

    services.move_submit(match_id=yours.pk, user=alice, move="1", expected_version=0)
    assert (selectors.waiting_count(alice), selectors.waiting_count(bob)) == (1, 1)

    against_ai = start_match(alice, ai_level=1)
    assert selectors.waiting_count(alice) == 2
    services.move_submit(match_id=against_ai.pk, user=alice, move="1", expected_version=0)
    assert selectors.waiting_count(alice) == 1, "waiting for the AI is not waiting for her"

    services.match_resign(match_id=yours.pk, user=bob)  # finished: waits for nobody
    assert selectors.waiting_count(bob) == 0
    for user in (alice, bob, carol):
        assert selectors.waiting_count(user) == on_dashboard(user), user


def test_a_seat_the_ai_took_and_a_match_that_can_never_start_are_not_counted(alice, bob, carol):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    seat = match.seats.get(to_act=True)
    player = seat.user
    services.match_resign(match_id=match.pk, user=player)  # the AI plays her seat on: she only watches
    assert Match.objects.get(pk=match.pk).status == Status.ACTIVE
    assert selectors.waiting_count(player) == on_dashboard(player) == 0

    dave = make_user("dave")
    never = services.match_create(
        creator=bob,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="carol"), SeatSpec("user", username="dave")],
    )
    assert selectors.waiting_count(carol) == 1
    # An account closed before closing one cancelled its matches (services.waits_for_closed_account).
    type(dave).objects.filter(pk=dave.pk).update(is_active=False)
    assert Match.objects.get(pk=never.pk).status == Status.OPEN
    assert selectors.waiting_count(carol) == on_dashboard(carol) == 0
    user_deactivate(user_id=bob.pk, actor=None)
    assert selectors.waiting_count(carol) == on_dashboard(carol)


def test_the_top_bar_says_how_many_matches_wait_in_figures_and_in_words(client, alice, bob):
    client.force_login(alice)
    page = client.get(reverse("lobby")).content.decode()
    assert said(my_matches_link(page)) == "My matches" and "<title>Lobby" in page, "nothing when none wait"
    assert "aria-label" not in re.search(r'<a id="my-matches"[^>]*>', page).group(0)

    start_match(alice, bob)
    page = client.get(reverse("lobby")).content.decode()
    assert said(my_matches_link(page)) == "My matches (1)" and "<title>(1) Lobby · Boardgames</title>" in page
    assert 'aria-label="My matches: 1 match waits for you"' in page
    invite(bob, alice)
    page = client.get(reverse("lobby")).content.decode()
    assert said(my_matches_link(page)) == "My matches (2)" and 'aria-label="My matches: 2 matches wait for you"' in page


def test_anonymous_pages_pay_no_query_and_show_no_count(client, db):
    for url in (reverse("home"), reverse("game_rules", args=["mancala"]), reverse("account_login")):
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url).content.decode()
        assert [query["sql"] for query in queries.captured_queries if COUNT_SQL in query["sql"]] == [], url
        assert 'id="my-matches"' not in page and "<title>(" not in page, url
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("home"))
    assert len(queries.captured_queries) == 2, "its two lists of public matches to watch, and nothing else"


def queries(client, url: str, **headers) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, **headers).status_code == 200
    return [query["sql"] for query in captured.captured_queries]


def test_a_full_page_pays_one_count_query_for_2_matches_waiting_as_for_30(client, alice, bob, settings):
    settings.PENDING_INVITATIONS_TO_ONE_PLAYER = 20  # Bob invites Alice 15 times
    watched = start_match(bob, alice)  # Bob's turn: the page offers the next match waiting for Alice
    start_match(alice, bob)
    invite(bob, alice)  # as many kinds of rows as below: a list with none skips reading its seats
    client.force_login(alice)
    urls = [
        reverse("dashboard"),
        reverse("lobby"),
        reverse("match_detail", args=[watched.pk]),
        reverse("player", args=["bob"]),
    ]
    client.get(urls[2])  # the match page writes the presence only when due: the same in both below
    few = [queries(client, url) for url in urls]
    for _ in range(14):
        start_match(alice, bob)
        invite(bob, alice, game="mecca")
    assert selectors.waiting_count(alice) == 30
    many = [queries(client, url) for url in urls]
    assert [len(page) for page in many] == [len(page) for page in few]
    assert [sum(COUNT_SQL in sql for sql in page) for page in many] == [1, 1, 1, 1]


def test_htmx_fragments_without_the_top_bar_pay_no_count(client, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)
    client.force_login(alice)
    match.refresh_from_db()
    poll = reverse("match_poll", args=[match.pk])
    assert not any(
        COUNT_SQL in sql for sql in queries(client, reverse("match_replay", args=[match.pk]) + "?ply=1", **HTMX)
    )
    with CaptureQueriesContext(connection) as captured:
        assert client.get(poll, {"token": match.poll_token}, **HTMX).status_code == 204
    assert not any(COUNT_SQL in query["sql"] for query in captured.captured_queries)


def test_a_redraw_of_the_match_brings_the_top_bar_count_and_the_tab_title_out_of_band(client, alice, bob):
    """The move's answer redraws the board only: the top bar and the tab's title said the count from
    before the move until the next full page."""
    first = start_match(alice, bob)
    start_match(alice, bob)
    client.force_login(alice)
    assert "<title>(2) Mancala #" in client.get(reverse("match_detail", args=[first.pk])).content.decode()

    answer = client.post(reverse("match_move", args=[first.pk]), {"move": "1", "version": 0}, **HTMX)
    page = answer.content.decode()
    assert answer.status_code == 200
    assert f"<title>(1) Mancala #{first.pk} · Boardgames</title>" in page
    link = re.search(r'<a id="my-matches"[^>]*>', page).group(0)
    assert 'hx-swap-oob="true"' in link and 'aria-label="My matches: 1 match waits for you"' in link
    assert said(my_matches_link(page)) == "My matches (1)"
    assert page.count('id="my-matches"') == 1

    services.move_submit(match_id=first.pk, user=bob, move="1", expected_version=1)  # her turn again
    first.refresh_from_db()
    poll = client.get(reverse("match_poll", args=[first.pk]), {"token": "old"}, **HTMX).content.decode()
    assert said(my_matches_link(poll)) == "My matches (2)"
    full = client.get(reverse("match_detail", args=[first.pk])).content.decode()
    assert full.count('id="my-matches"') == 1 and "hx-swap-oob" not in full, "the full page draws it once"


def next_match_link(html: str) -> tuple[str, str] | None:
    found = re.search(r'<p class="next-match"><a class="own-line" href="([^"]+)">(.*?)</a></p>', html, re.S)
    return (found.group(1), said(found.group(2))) if found else None


def test_after_a_move_the_page_links_to_the_next_match_waiting_with_the_least_time_left(client, alice, bob, carol):
    here = start_timed_match(alice, bob)
    start_timed_match(alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=7))
    soonest = start_timed_match(
        alice, bob, carol, clock=ClockSpec(time_control="per_move", days_per_move=1), game="jeexa"
    )
    assert soonest.seats.get(to_act=True).user == alice
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[here.pk])).content.decode()
    assert next_match_link(page) is None, "her turn here: no way away from it"

    answer = client.post(reverse("match_move", args=[here.pk]), {"move": "1", "version": 0}, **HTMX)
    expected = f"Next match waiting for you: Jeexa #{soonest.pk} with Bob and Carol"
    assert next_match_link(answer.content.decode()) == (reverse("match_detail", args=[soonest.pk]), expected)
    page = client.get(reverse("match_detail", args=[soonest.pk])).content.decode()
    assert next_match_link(page) is None


def test_the_link_is_not_shown_when_no_other_match_waits(client, alice, bob):
    only = start_match(alice, bob)
    client.force_login(alice)
    answer = client.post(reverse("match_move", args=[only.pk]), {"move": "1", "version": 0}, **HTMX)
    assert answer.status_code == 200 and next_match_link(answer.content.decode()) is None
    invite(bob, alice)  # an invitation is answered from My matches, not played
    assert next_match_link(client.get(reverse("match_detail", args=[only.pk])).content.decode()) is None


def test_an_invitation_to_answer_shows_its_answer_not_the_next_match(client, alice, bob, carol):
    """It waits for her answer ("Waiting for you to accept"), which is given here: no way away from it."""
    start_match(alice, bob)  # her turn there
    invitation = invite(bob, alice)
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[invitation.pk])).content.decode()
    assert "Waiting for you to accept the invitation." in said(page) and next_match_link(page) is None
    client.force_login(carol)  # Bob's challenge to anyone waits for nobody's answer but a join
    open_one = services.match_create(
        creator=bob, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    start_match(carol, bob)
    assert next_match_link(client.get(reverse("match_detail", args=[open_one.pk])).content.decode()) is not None
    client.force_login(bob)  # the creator waits for her answer: his other matches are where he acts
    start_match(bob, carol)
    assert next_match_link(client.get(reverse("match_detail", args=[invitation.pk])).content.decode()) is not None


def test_without_a_clock_the_next_match_is_the_one_that_has_waited_longest(alice, bob):
    """As My matches orders them (tests/games/test_match_lists.py)."""
    older, newer = waiting_for_alice_since(alice, bob, hours=(30, 2))
    assert selectors.matches_of(alice)[0].pk == older.pk
    assert selectors.next_match_and_count(alice, besides=0)[0].match.pk == older.pk
    assert selectors.next_match_and_count(alice, besides=older.pk)[0].match.pk == newer.pk


@pytest.mark.parametrize("waiting", [1, 8])
def test_the_next_match_costs_one_query_however_many_wait(alice, bob, waiting):
    for _ in range(waiting):
        start_match(alice, bob)
    with CaptureQueriesContext(connection) as captured:
        found, _count = selectors.next_match_and_count(alice, besides=0)
    assert len(captured.captured_queries) == 1
    assert found.others == ["Bob"] and found.match.game_obj.name == "Mancala"


def test_a_page_shown_again_on_back_asks_for_the_link_alone_and_a_signed_out_one_reloads(client, alice, bob):
    """site.js asks /dashboard/count/ on Back: the link with its count, one query; signed out since,
    the answer makes htmx reload the page (which then shows the top bar of nobody)."""
    url = reverse("my_matches_link")
    assert client.get(url).headers.get("HX-Refresh") == "true"
    start_match(alice, bob)
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(url)
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    link = answer.content.decode()
    assert said(my_matches_link(link)) == "My matches (1)" and 'data-count="1"' in link and "<title>" not in link
    assert sum(COUNT_SQL in query["sql"] for query in queries.captured_queries) == 1
    assert client.post(url).status_code == 405
