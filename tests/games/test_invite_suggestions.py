"""The new-match form suggests the player's recent human opponents in its invite fields (one
<datalist> that every invite field uses): who they played with lately, the latest first, each once,
only players the form would accept. One query, whatever the number of past matches."""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import selectors, services
from games.forms import SUGGESTIONS_HELP
from games.models import Match
from games.selectors import SUGGESTED_OPPONENTS
from games.services import SeatSpec
from tests.conftest import make_user, start_match


def played_ago(match: Match, days: int) -> Match:
    """``match`` as if created, and last moved in, ``days`` days ago."""
    moment = timezone.now() - timedelta(days=days)
    Match.objects.filter(pk=match.pk).update(created_at=moment, last_move_at=moment)
    return match


def form_page(client, slug: str = "mancala", query: str = "") -> str:
    response = client.get(reverse("match_new", args=[slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def datalist(html: str) -> tuple[str, list[tuple[str, str]]]:
    """The datalist's id and its options as (value, text)."""
    found = re.search(r'<datalist id="([^"]+)">(.*?)</datalist>', html, re.S)
    assert found, "no datalist on the page"
    return found[1], re.findall(r'<option value="([^"]*)"(?: label="([^"]*)")?>', found[2])


def invite_inputs(html: str) -> list[str]:
    return re.findall(r'<input [^>]*name="invite_\d+"[^>]*>', html)


def test_the_suggestions_are_recent_opponents_the_latest_first_each_once(alice, bob, carol):
    dora = make_user("dora", display_name="Dora")
    played_ago(start_match(alice, carol), 9)
    played_ago(start_match(alice, bob), 5)
    played_ago(start_match(alice, dora), 1)
    played_ago(start_match(alice, carol), 3)  # carol again, more recently than bob
    played_ago(start_match(bob, carol), 0)  # not alice's match

    assert [user.username for user in selectors.recent_opponents(alice)] == ["dora", "carol", "bob"]


def test_the_latest_move_counts_not_only_when_the_match_began(alice, bob, carol):
    long_ago = played_ago(start_match(alice, bob), 30)
    played_ago(start_match(alice, carol), 10)
    Match.objects.filter(pk=long_ago.pk).update(last_move_at=timezone.now() - timedelta(days=1))

    assert [user.username for user in selectors.recent_opponents(alice)] == ["bob", "carol"]


def test_ai_seats_the_player_closed_and_unconfirmed_accounts_are_not_suggested(alice, bob, carol):
    dora = make_user("dora")
    erin = make_user("erin")
    start_match(alice, ai_level=1)
    start_match(alice, bob)
    start_match(alice, dora)
    start_match(alice, erin)
    User.objects.filter(pk=dora.pk).update(is_active=False)  # a finished match keeps a closed account's seat
    erin.emailaddress_set.update(verified=False)
    services.match_create(
        creator=alice,
        game_slug="mancala",
        options={"variant": "egyptian"},
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )  # nobody joined: no one to suggest

    assert [user.username for user in selectors.recent_opponents(alice)] == ["bob"]
    assert carol not in selectors.recent_opponents(alice)


def test_a_match_whose_seat_the_ai_took_from_the_player_still_counts(alice, bob, carol):
    match = services.match_create(
        creator=alice,
        game_slug="jeexa",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("user", username="carol")],
    )
    for user in (bob, carol):
        services.match_accept(match_id=match.pk, user=user)
    services.match_resign(match_id=match.pk, user=alice)

    assert {user.username for user in selectors.recent_opponents(alice)} == {"bob", "carol"}


def test_at_most_twenty_are_suggested(alice):
    for number in range(SUGGESTED_OPPONENTS + 3):
        played_ago(start_match(alice, make_user(f"p{number}")), 100 - number)

    suggested = [user.username for user in selectors.recent_opponents(alice)]
    assert suggested == [f"p{number}" for number in range(SUGGESTED_OPPONENTS + 2, 2, -1)]


def test_every_invite_field_uses_the_one_list_of_suggestions(client, alice, bob, carol):
    start_match(alice, bob)
    start_match(alice, make_user("hal"))  # no display name: the username alone
    client.force_login(alice)
    html = form_page(client, "jeexa")

    list_id, options = datalist(html)
    assert html.count("<datalist") == 1
    assert sorted(options) == [("bob", "Bob"), ("hal", "")]
    fields = invite_inputs(html)
    assert len(fields) == 7 and all(f'list="{list_id}"' in field for field in fields)
    assert all('aria-describedby="id_invite_' in field for field in fields)
    assert html.count(SUGGESTIONS_HELP) == 7


def test_a_player_with_no_past_opponent_gets_no_empty_list(client, alice):
    client.force_login(alice)
    html = form_page(client)
    assert "<datalist" not in html and " list=" not in invite_inputs(html)[0]
    assert SUGGESTIONS_HELP not in html


def test_the_form_accepts_a_suggested_value(client, alice, bob):
    start_match(alice, bob)
    client.force_login(alice)
    ((value, _label),) = datalist(form_page(client))[1]

    response = client.post(
        reverse("match_new", args=["mancala"]),
        {"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": value},
    )

    assert response.status_code == 302
    match = Match.objects.latest("pk")
    assert [seat.user for seat in match.seats.all()] == [alice, bob]


def test_a_challenge_keeps_its_name_beside_the_suggestions(client, alice, bob, carol):
    start_match(bob, carol)
    client.force_login(bob)
    html = form_page(client, query="?invite=alice")

    list_id, options = datalist(html)
    assert options == [("carol", "Carol")]
    field = invite_inputs(html)[0]
    assert 'value="alice"' in field and f'list="{list_id}"' in field


def test_a_refused_form_keeps_the_typed_names_and_the_suggestions(client, alice, bob):
    start_match(alice, bob)
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["jeexa"]),
        {"position": "first", "seat_1": "invite", "invite_1": "Bob", "seat_2": "invite", "invite_2": "ghost"},
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert "ghost" in html.split('name="invite_2"')[1].split("</div>")[0]
    assert 'value="Bob"' in invite_inputs(html)[0]
    assert datalist(html)[1] == [("bob", "Bob")]
    assert all("_helptext" in field for field in invite_inputs(html))
    assert 'aria-describedby="id_invite_2_helptext id_invite_2_error"' in invite_inputs(html)[1]  # read together
    assert html.count(f'<small id="id_invite_1_helptext">{SUGGESTIONS_HELP}</small>') == 1


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_suggestions_cost_one_query_for_2_past_matches_as_for_30(client, alice):
    def play(count: int) -> None:
        for _ in range(count):
            start_match(alice, make_user(f"p{Match.objects.count()}"))

    client.force_login(alice)
    url = reverse("match_new", args=["mancala"])
    play(2)
    few = queries(client, url)
    with CaptureQueriesContext(connection) as captured:
        assert len(selectors.recent_opponents(alice)) == 2
    play(28)

    assert len(captured.captured_queries) == 1
    assert queries(client, url) == few
    assert len(datalist(form_page(client))[1]) == SUGGESTED_OPPONENTS


def test_a_sent_form_that_makes_a_match_does_not_look_up_suggestions(client, alice, bob, monkeypatch):
    def unwanted(user):
        raise AssertionError("suggestions looked up for a page never drawn")

    monkeypatch.setattr(selectors, "recent_opponents", unwanted)
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": "bob"},
    )
    assert response.status_code == 302
