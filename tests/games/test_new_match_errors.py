"""The new-match form names every problem at once, each beside its field, and keeps what was typed:
a player who got two things wrong saw the second only after fixing the first."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.forms import INVITE_NEEDS_NAME
from games.models import Match
from games.services import creating
from tests.conftest import make_user


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def send(client, slug: str, data: dict):
    response = client.post(reverse("match_new", args=[slug]), {"position": "first", **data})
    assert response.status_code == 400
    assert not Match.objects.exists()
    return response


def beside(page: str, field: str) -> str:
    """The text of the form row that holds the field ``field``: its label, the field and its errors."""
    row = re.search(rf'<div class="field[^"]*">(?:(?!</div>).)*name="{field}"(?:(?!</div>).)*</div>', page, re.DOTALL)
    assert row, field
    return row.group(0)


def test_every_wrong_invitation_is_named_at_once_beside_its_own_name(alice_client, alice, bob):
    stranger = make_user("stranger")
    stranger.emailaddress_set.update(verified=False)
    data = {
        "players": "7",
        "seat_1": "invite",
        "invite_1": "ghost",
        "seat_2": "invite",
        "invite_2": "",
        "seat_3": "invite",
        "invite_3": "Alice",
        "seat_4": "invite",
        "invite_4": "stranger",
        "seat_5": "invite",
        "invite_5": "bob",
        "seat_6": "invite",
        "invite_6": "BOB",
    }

    response = send(alice_client, "jeexa", data)

    page = response.content.decode().replace("&#x27;", "'")
    expected = {
        "invite_1": creating.UNKNOWN_PLAYER.format(name="ghost"),
        "invite_2": INVITE_NEEDS_NAME,
        "invite_3": creating.INVITED_SELF,
        "invite_4": creating.UNCONFIRMED_PLAYER.format(name="stranger"),
        "invite_6": creating.INVITED_TWICE.format(name="bob"),
    }
    assert response.context["form"].errors == {field: [message] for field, message in expected.items()}
    for field, message in expected.items():
        assert message in beside(page, field), field
    assert "error" not in beside(page, "invite_5"), "the first invitation of bob is fine"
    for field, typed in data.items():
        if field.startswith("invite_") and typed:
            assert f'value="{typed}"' in beside(page, field), "what was typed is still there"


def test_a_wrong_clock_and_a_wrong_invitation_are_named_together(alice_client):
    data = {
        "option_variant": "egyptian",
        "seat_1": "invite",
        "invite_1": "ghost",
        "time_control": "bank",
        "bank_initial_days": "9",
        "bank_increment_days": "2",
        "bank_cap_days": "5",
        "on_timeout": "ai",
    }

    page = send(alice_client, "mancala", data).content.decode()

    assert creating.UNKNOWN_PLAYER.format(name="ghost") in beside(page, "invite_1")
    assert creating.BAD_TIME_BANK in beside(page, "bank_cap_days")
    for field, typed in (("bank_initial_days", "9"), ("bank_increment_days", "2"), ("bank_cap_days", "5")):
        assert f'value="{typed}"' in beside(page, field)
    assert '<option value="ai" selected>' in beside(page, "on_timeout")


def test_a_refused_field_does_not_hide_what_else_is_wrong(alice_client):
    """A forged option and a start of 0 days (refused by their fields) used to keep the
    invitation and the seat choice from being checked at all."""
    data = {
        "option_variant": "martian",
        "seat_1": "invite",
        "invite_1": "ghost",
        "time_control": "bank",
        "bank_initial_days": "0",
        "bank_increment_days": "1",
        "bank_cap_days": "5",
    }

    response = send(alice_client, "mancala", data)

    errors = response.context["form"].errors
    assert set(errors) == {"option_variant", "bank_initial_days", "invite_1"}
    assert errors["invite_1"] == [creating.UNKNOWN_PLAYER.format(name="ghost")]
    assert creating.BAD_TIME_BANK not in response.content.decode(), "the start is refused already, in its own words"


def test_a_wrong_ai_level_and_a_missing_name_are_named_together(alice_client):
    data = {"seat_1": "ai:9", "seat_2": "invite", "invite_2": "", "seat_3": "open"}

    errors = send(alice_client, "mecca", data).context["form"].errors

    assert set(errors) == {"seat_1", "invite_2"}
    assert errors["invite_2"] == [INVITE_NEEDS_NAME]


def test_the_first_refused_field_is_the_one_the_page_opens_at(alice_client):
    data = {
        "option_variant": "egyptian",
        "seat_1": "invite",
        "invite_1": "ghost",
        "time_control": "bank",
        "bank_initial_days": "9",
        "bank_increment_days": "1",
        "bank_cap_days": "5",
    }

    page = send(alice_client, "mancala", data).content.decode()

    assert page.count("autofocus") == 1
    assert re.search(r'<input type="number" name="bank_cap_days"[^>]* autofocus[ >]', page)
