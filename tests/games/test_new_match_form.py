"""The new match form, as a plain form: a match against the AI, the same form sent twice, each
heading written once, and wrong or forged choices refused with a reason at the field they
refuse; what a hidden clock field still holds is ignored."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games.forms import NO_ONE_ELSE
from games.models import Match, Status


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
    for heading in ("Time control", "Your seat", "Opponent 1", "Opponent 7"):
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
