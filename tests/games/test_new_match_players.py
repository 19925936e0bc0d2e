"""The new-match form asks how many players first, then shows a seat block for each opponent:
Jeexa's form showed seven "Opponent N" blocks at once. Without a script, Set draws the form
again with that many blocks, keeping what was filled in; a number out of range, or more seats
filled than it leaves, is refused at the number and loses nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.forms import PLAYERS_OUT_OF_RANGE, SEAT_NEEDS_SOMEONE, TOO_MANY_SEATS
from games.models import Match


def seat_blocks(page: str) -> dict[int, bool]:
    """Each opponent's seat block on the page: whether it is shown (not hidden and disabled)."""
    blocks = re.findall(r'<fieldset class="seat-choice" data-opponent="(\d+)"([^>]*)>', page)
    for _, attributes in blocks:
        assert ("hidden" in attributes) == ("disabled" in attributes), "a hidden block is never sent"
    return {int(number): "hidden" not in attributes for number, attributes in blocks}


def shown(page: str) -> list[int]:
    return [number for number, visible in seat_blocks(page).items() if visible]


def selected(page: str, name: str) -> str:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.DOTALL)
    assert select, name
    option = re.search(r'<option value="([^"]*)" selected>', select.group(1))
    return option.group(1) if option else ""


def new_match(client, slug: str, data: dict, *, status: int):
    response = client.post(reverse("match_new", args=[slug]), data)
    assert response.status_code == status
    return response.content.decode()


@pytest.mark.parametrize(
    ("slug", "numbers"),
    [
        ("jeexa", ["2", "3", "4", "5", "6", "7", "8"]),
        ("mecca", ["2", "3", "4", "5", "6"]),
        ("mesopotamia", ["2", "3", "4"]),
    ],
)
def test_the_form_asks_the_number_of_players_and_shows_one_opponent_at_first(alice_client, slug, numbers):
    page = alice_client.get(reverse("match_new", args=[slug])).content.decode()

    players = re.search(r'<select name="players"[^>]*>(.*?)</select>', page, re.DOTALL).group(1)
    assert re.findall(r'<option value="(\d+)"', players) == numbers
    assert selected(page, "players") == "2"
    assert shown(page) == [1]
    assert len(seat_blocks(page)) == len(numbers), "a block for every opponent the game may have, the rest hidden"
    assert page.index('name="players"') < page.index('name="position"') < page.index('name="seat_1"')


def test_a_two_player_game_asks_no_number(alice_client):
    page = alice_client.get(reverse("match_new", args=["mancala"])).content.decode()

    assert 'name="players"' not in page and 'name="set_players"' not in page
    assert seat_blocks(page) == {1: True}


def test_set_draws_the_form_again_with_that_many_seats_and_keeps_what_was_filled_in(alice_client):
    data = {
        "players": "5",
        "set_players": "1",
        "position": "last",
        "seat_1": "invite",
        "invite_1": "ghost",  # checked only when the form is sent to make its match
        "time_control": "per_move",
        "days_per_move": "7",
        "rating": "casual",
        "form_token": "token-of-this-form",
    }

    page = new_match(alice_client, "jeexa", data, status=200)

    assert not Match.objects.exists()
    assert shown(page) == [1, 2, 3, 4]
    assert selected(page, "players") == "5"
    assert selected(page, "position") == "last" and selected(page, "days_per_move") == "7"
    assert selected(page, "rating") == "casual" and selected(page, "time_control") == "per_move"
    assert selected(page, "seat_1") == "invite" and 'value="ghost"' in page
    assert [selected(page, f"seat_{n}") for n in (2, 3, 4)] == ["ai:1"] * 3, "a block shown anew offers the usual"
    assert 'name="form_token" value="token-of-this-form"' in page, "still the same form: sent twice, one match"
    assert 'class="errorlist' not in page
    assert re.search(r'<select name="players"[^>]* autofocus', page), "the page opens at the number"
    assert page.count("autofocus") == 1


def test_set_to_fewer_players_hides_the_seats_beyond_and_the_form_then_makes_that_match(alice_client):
    data = {"players": "3", "set_players": "1", "position": "first"}
    data |= {"seat_1": "ai:1", "seat_2": "ai:2", "seat_3": "open", "seat_4": "ai:1"}

    page = new_match(alice_client, "jeexa", data, status=200)

    assert shown(page) == [1, 2]
    # The hidden blocks are disabled: the browser sends only the seats shown.
    del data["set_players"], data["seat_3"], data["seat_4"]
    response = alice_client.post(reverse("match_new", args=["jeexa"]), data)
    assert response.status_code == 302
    match = Match.objects.get()
    assert [seat.ai_level for seat in match.seats.order_by("number")] == [None, 1, 2]


def test_a_match_of_the_number_of_players_chosen(alice_client, bob):
    data = {"players": "4", "position": "first", "seat_1": "ai:1", "seat_2": "invite", "invite_2": "Bob"}
    data |= {"seat_3": "open"}

    assert alice_client.post(reverse("match_new", args=["mecca"]), data).status_code == 302

    seats = list(Match.objects.get().seats.order_by("number"))
    assert len(seats) == 4
    assert [seats[1].ai_level, seats[2].user, seats[3].user] == [1, bob, None]


@pytest.mark.parametrize("set_players", [False, True], ids=["create", "set"])
@pytest.mark.parametrize("players", ["1", "9", "many"])
def test_a_number_out_of_range_is_refused_at_the_number_and_keeps_the_seats_filled(alice_client, players, set_players):
    data = {"players": players, "position": "first", "seat_1": "ai:2", "seat_2": "invite", "invite_2": "bob"}
    data |= {"seat_3": "open"}
    if set_players:
        data["set_players"] = "1"

    response = alice_client.post(reverse("match_new", args=["jeexa"]), data)

    assert response.status_code == 400 and not Match.objects.exists()
    errors = response.context["form"].errors
    assert errors["players"] == [PLAYERS_OUT_OF_RANGE.format(low=2, high=8)]
    if set_players:
        assert set(errors) == {"players"}, "Set checks the number only"
    page = response.content.decode()
    assert "Choose between 2 and 8 players." in page
    assert shown(page) == [1, 2, 3], "every seat filled is still there"
    assert [selected(page, f"seat_{n}") for n in (1, 2, 3)] == ["ai:2", "invite", "open"]
    assert 'value="bob"' in page
    assert re.search(r'<select name="players"[^>]* autofocus', page)


def test_more_seats_filled_than_the_number_leaves_is_refused_and_every_seat_kept(alice_client):
    """Without a script: the number lowered, then Create pressed instead of Set."""
    data = {"players": "3", "position": "first", "seat_1": "ai:1", "seat_2": "ai:2", "seat_3": "invite"}
    data |= {"invite_3": "bob", "seat_4": "open"}

    response = alice_client.post(reverse("match_new", args=["jeexa"]), data)

    assert response.status_code == 400 and not Match.objects.exists()
    message = TOO_MANY_SEATS.format(players=3, opponents=2, seats="seats", filled=4, needed=5)
    assert response.context["form"].errors["players"] == [message]
    assert message == "3 players leave 2 other seats, but 4 are filled: choose 5 players, or press Set to show 2."
    page = response.content.decode()
    assert shown(page) == [1, 2, 3, 4]
    assert [selected(page, f"seat_{n}") for n in (1, 2, 3, 4)] == ["ai:1", "ai:2", "invite", "open"]
    assert 'value="bob"' in page and selected(page, "players") == "3"


def test_each_seat_the_number_asks_for_must_be_filled(alice_client):
    data = {"players": "4", "position": "first", "seat_1": "ai:1"}

    response = alice_client.post(reverse("match_new", args=["jeexa"]), data)

    assert response.status_code == 400 and not Match.objects.exists()
    assert response.context["form"].errors == {"seat_2": [SEAT_NEEDS_SOMEONE], "seat_3": [SEAT_NEEDS_SOMEONE]}
    assert shown(response.content.decode()) == [1, 2, 3]


def test_a_form_without_the_number_counts_the_seats_filled(alice_client):
    """An older page, or a script, sends no number: the seats filled make the match, as before."""
    data = {"position": "first", "seat_1": "ai:1", "seat_3": "open"}

    assert alice_client.post(reverse("match_new", args=["mecca"]), data).status_code == 302

    assert Match.objects.get().seats.count() == 3
