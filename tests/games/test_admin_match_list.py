"""The staff admin's list of matches: game, status, players and whose turn, its filters and
search (by number, by part of a player's name or email), in as many queries for twelve matches
as for two; only staff get in, and the admin names the site and its sections apart."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags
from pytest_django.asserts import assertContains

from games import services
from games.models import Match
from tests.conftest import make_user, start_match
from tests.games.conftest import CHANGELIST, start_timed_match


def listed(response) -> set[int]:
    return {match.pk for match in response.context["cl"].result_list}


def pks(matches: dict[str, Match], *names: str) -> set[int]:
    return {matches[name].pk for name in names}


def test_it_lists_matches_with_game_status_players_and_whose_turn(staff_client, matches):
    response = staff_client.get(CHANGELIST)

    assert listed(response) == pks(matches, "alice_bob", "carol_ai", "open", "aborted")
    assertContains(response, '<td class="field-game_name">Mancala</td>', count=4, html=True)
    assertContains(response, '<td class="field-status">In play</td>', count=2, html=True)
    assertContains(response, '<td class="field-status">Waiting for players</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Alice, Bob</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Carol, AI (Strong)</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Carol, Open seat</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">Alice</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">Carol</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">—</td>', count=2, html=True)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status=active", {"alice_bob", "carol_ai"}),
        ("status=open", {"open"}),
        ("game=mancala", {"alice_bob", "carol_ai", "open", "aborted"}),
        ("game=mancala&status=aborted", {"aborted"}),
        ("turn=human", {"alice_bob", "carol_ai"}),
        ("q=bob", {"alice_bob", "aborted"}),
        ("q=Mancala %23{carol_ai}", {"carol_ai"}),  # as emails and messages name a match; pasted, it found nothing
        ("q=%23{open}", {"open"}),
        ("q=Mancala %23{alice_bob} (Egyptian)", {"alice_bob"}),
        ("q=carol&status=active", {"carol_ai"}),
    ],
)
def test_it_filters_and_searches_matches(staff_client, matches, query, expected):
    response = staff_client.get(f"{CHANGELIST}?{query.format(**{name: match.pk for name, match in matches.items()})}")
    assert response.status_code == 200
    assert listed(response) == pks(matches, *expected)


def test_staff_find_a_match_by_its_number_or_by_part_of_a_players_name_or_email(staff_client, matches, carol):
    left = start_timed_match(carol, make_user("dave", display_name="Davina"), make_user("erin"), game="jeexa")
    services.match_resign(match_id=left.pk, user=carol)  # the AI took her seat: found by her name still

    def found(words: str) -> set[int]:
        response = staff_client.get(CHANGELIST, {"q": words})
        assert response.status_code == 200
        return listed(response)

    everyone = pks(matches, "alice_bob", "carol_ai", "open", "aborted") | {left.pk}
    assert found("ali") == pks(matches, "alice_bob")
    assert found("carol@example") == pks(matches, "carol_ai", "open", "aborted") | {left.pk}
    assert found("davina") == found("DAVE") == {left.pk}
    assert found("carol example") == found("carol@example"), "every word names the same player"
    assert found("bob carol") == set()
    assert found(f"{left.pk}") == found(f"'{left.pk}'") == found(f"{left.pk} erin") == {left.pk}
    assert found("") == everyone and found("nobody") == set()


def test_searching_or_filtering_by_player_does_not_compare_whole_match_rows(staff_client, matches):
    """A join of seats and players lists a match once per seat, and DISTINCT then compared
    whole match rows, state included: 1.5 s for a search at 90,000 matches."""
    for query in ({"q": "bob"}, {"turn": "human"}, {"turn": "ai"}):
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(CHANGELIST, query).status_code == 200
        assert not [q["sql"] for q in queries.captured_queries if 'DISTINCT "games_match"."id"' in q["sql"]]


def test_the_game_filter_names_every_game_even_without_a_match(staff_client, matches):
    response = staff_client.get(CHANGELIST)
    choices = {
        choice["display"]
        for spec in response.context["cl"].filter_specs
        if spec.title == "game"
        for choice in spec.choices(response.context["cl"])
    }
    assert choices == {"All", "Mancala", "Mecca", "Jeexa", "Mesopotamia"}
    assert listed(staff_client.get(f"{CHANGELIST}?game=jeexa")) == set()


def test_a_cancelled_match_is_called_cancelled_in_the_admin_as_on_the_site(staff_client, staff, alice, bob):
    match = start_match(alice, bob)
    services.match_abort(match_id=match.pk, actor=staff, reason="Test")
    page = " ".join(strip_tags(staff_client.get(CHANGELIST).content.decode()).split())
    assert "Cancelled" in page and "Aborted" not in page


def test_a_player_who_is_not_staff_is_sent_to_the_admin_login(client, alice, matches):
    client.force_login(alice)
    response = client.get(CHANGELIST)
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


def test_the_changelist_makes_as_many_queries_for_twelve_matches_as_for_two(staff_client, alice, bob, carol, settings):
    settings.AI_ONLY_MATCHES_PER_PLAYER = 12

    def changelist_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            response = staff_client.get(CHANGELIST)
        assert response.status_code == 200
        return len(queries)

    def add_matches(count: int) -> None:
        for number in range(count):
            if number % 2:
                start_match(alice, bob)
            else:
                start_match(carol, ai_level=1)

    add_matches(2)
    changelist_queries()  # the first request fills caches the next ones reuse
    with_two = changelist_queries()
    add_matches(10)
    assert Match.objects.count() == 12
    assert changelist_queries() == with_two


def test_admin_pages_name_an_icon_so_browsers_do_not_ask_for_a_missing_favicon(staff_client, matches):
    for url in (
        reverse("admin:index"),
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_change", args=[matches["alice_bob"].pk]),
    ):
        assert '<link rel="icon" href="data:,">' in staff_client.get(url).content.decode()


def test_the_admin_names_the_site_and_its_sections_apart(staff_client):
    """It said "Django administration", and allauth's email addresses and our users both sat
    under a heading "Accounts"."""
    page = staff_client.get(reverse("admin:index")).content.decode()
    assert "Boardgames administration" in page and "Django administration" not in page
    headings = re.findall(r"<caption>\s*<a[^>]*>([^<]+)</a>", page)
    assert "Players" in headings and len(headings) == len(set(headings)), headings
