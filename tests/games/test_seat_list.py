"""The match page's list of seats says who played a seat the AI took over (the seat keeps
its former player), in the same number of queries however many seats were taken over."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from games import services
from tests.conftest import make_user
from tests.games.conftest import start_timed_match


def seat_list(client, match) -> list[str]:
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    items = re.findall(r'<li class="seat[^"]*">(.*?)</li>', page.split('<ol class="seats">')[1], re.DOTALL)
    return [" ".join(strip_tags(item).split()) for item in items]


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


@pytest.fixture
def four_players(alice, bob, carol):
    return alice, bob, carol, make_user("dave", display_name="Dave")


def test_a_seat_the_ai_took_names_the_player_it_replaces(client, four_players, staff):
    alice, bob, carol, dave = four_players
    match = start_timed_match(alice, bob, carol, dave, game="jeexa")
    services.match_resign(match_id=match.pk, user=bob)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=2, level=1, actor=staff, reason="Carol is away")
    client.force_login(alice)

    seats = seat_list(client, match)

    assert seats[0].startswith("Alice Player 1 (you)")
    assert seats[1].startswith("AI (Strong) Player 2 · replacing Bob")
    assert seats[2].startswith("AI (Easy) Player 3 · replacing Carol")
    assert seats[3].startswith("Dave Player 4") and "replacing" not in seats[3]
    client.force_login(bob)
    assert seat_list(client, match)[1].startswith("AI (Strong) Player 2 · replacing you")


def test_naming_former_players_costs_no_query_per_seat(client, four_players, staff):
    alice, bob, carol, dave = four_players
    kept = start_timed_match(alice, bob, carol, dave, game="jeexa")
    left = start_timed_match(alice, bob, carol, dave, game="jeexa")
    for number in (1, 2, 3):
        services.seat_replace_by_ai(match_id=left.pk, seat_number=number, level=1, actor=staff, reason="Away")
    client.force_login(alice)

    for page in ("match_detail", "match_replay"):
        counts = [queries(client, reverse(page, args=[match.pk])) for match in (kept, left)]
        assert counts[0] == counts[1], page
