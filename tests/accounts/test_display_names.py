"""Players' names: a display name or username may not be another player's (in other letters or
other spaces either), pass for a seat label or hide characters, and staff renaming a player meet
the same rules; others invite a player by username or display name."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import User
from games.models import Match
from tests.accounts.conftest import profile_data, sign_up
from tests.conftest import make_user


def test_staff_renaming_a_player_meet_the_same_name_rules_as_the_profile(client, alice, bob, staff):
    """The user's admin page let staff call Alice "Bob": two players of one name, and an
    invitation to "Bob" found neither."""
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "10:00", "display_name": "bob"})
    response = client.post(url, data)
    assert response.status_code == 200 and "Another player is already called “Bob”" in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"
    data["display_name"] = "Alice  Smith"
    assert client.post(url, data).status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "Alice Smith"


@pytest.mark.parametrize(
    ("name", "taken"), [("bob", "Bob"), (" BOB ", "Bob"), ("Bob", "Bob"), ("captain", "Captain"), ("DAVE", "dave")]
)
def test_profile_refuses_a_display_name_another_player_has(client, alice, bob, name, taken):
    """The refusal names the player as he writes his name, not as it was typed."""
    make_user("dave", display_name="Captain")
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400
    assert f"Another player is already called “{taken}”; choose another name." in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"


@pytest.mark.parametrize("name", ["Carol\u00a0Ann", "Carol  Ann", "Carol\u3000Ann", "Carol\u2009Ann", "Carol\tAnn"])
def test_a_name_that_differs_only_in_its_spaces_is_taken(client, alice, name):
    """A no-break, wide, thin or doubled space is drawn as a plain one: "Carol Ann" twice."""
    make_user("carol", display_name="Carol Ann")
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400
    assert "Another player is already called “Carol Ann”; choose another name." in response.content.decode()


def test_the_spaces_inside_a_name_are_saved_as_single_plain_spaces(client, alice):
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name="山田\u3000 太郎", webhook_url=""))
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "山田 太郎"


@pytest.mark.parametrize(
    "name, why",
    [
        ("AI (Strong)", "how the site labels seats"),
        ("ai", "how the site labels seats"),
        ("Player 2", "how the site labels seats"),
        ("players 1 and 2", "how the site labels seats"),
        ("Open   Seat", "how the site labels seats"),
        ("Bob\u200b", "invisible or control characters"),
        ("player2", "how the site labels seats"),
        ("AI_bot", "how the site labels seats"),
        ("Bo\u0431", "may not mix alphabets"),
        ("Ali\u0441e", "may not mix alphabets"),  # Cyrillic б, с
        ("\uff22\uff4f\uff42", "letter variants"),  # Ｂｏｂ in wide letters
        ("\u0410\u0406 (\u0415\u0430\u0455\u0443)", "how the site labels seats"),  # АІ (Еаѕу), all Cyrillic
        ("Al (Strong)", "may not contain brackets"),
        ("Bob (green)", "may not contain brackets"),
        ("\u0420\u04cf\u0430\u0443\u0435\u0433 2", "how the site labels seats"),  # Рӏауег 2, all Cyrillic
        ("-", "at least one letter or digit"),
        (". .", "at least one letter or digit"),
    ],
)
def test_profile_refuses_a_display_name_that_passes_for_a_seat_label_or_hides_characters(client, alice, name, why):
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400 and why in response.content.decode()
    alice.refresh_from_db()
    assert alice.display_name == "Alice"


@pytest.mark.parametrize("name", ["\u0410\u04cf\u0456\u0441\u0435", "\u0410\u04c0\u0406\u0421\u0415"])  # Аӏісе, АӀІСЕ
def test_a_name_in_look_alike_letters_of_another_players_is_refused(client, alice, carol, name):
    """All Cyrillic, so no alphabets are mixed, yet it reads "Alice"."""
    client.force_login(carol)
    response = client.post(reverse("profile"), profile_data(display_name=name, webhook_url=""))
    assert response.status_code == 400 and "looks just like the name of another player" in response.content.decode()
    client.logout()
    response = sign_up(client, username=name)
    assert not User.objects.filter(username=name).exists()
    assert "looks just like the name of another player" in response.content.decode()


def test_a_latin_name_that_reads_as_another_players_name_in_other_letters_is_refused(client, alice, db):
    make_user("tor", display_name="\u0422\u043e\u0440")  # Тор, all Cyrillic: it reads "Top"
    client.force_login(alice)
    response = client.post(reverse("profile"), profile_data(display_name="Top", webhook_url=""))
    assert response.status_code == 400 and "looks just like the name of another player" in response.content.decode()
    assert client.post(reverse("profile"), profile_data(display_name="Tip", webhook_url="")).status_code == 302


@pytest.mark.parametrize(
    "name",
    [
        "Aiden",
        "Playful",
        "Opener",
        "Kai",
        "José",
        "Ελένη",
        "Владимир",
        "山田たろう",
        "ターナー",
        "Kealiʻi",
        "山田\u3000太郎",
        "Вова",
        "Al",
    ],
)
def test_names_that_only_begin_like_a_label_are_fine(client, alice, name):
    client.force_login(alice)
    assert client.post(reverse("profile"), profile_data(display_name=name, webhook_url="")).status_code == 302


@pytest.mark.parametrize(
    "username, why", [("player", "how the site labels seats"), ("Alic\u0435", "may not mix alphabets")]
)  # a Cyrillic е
def test_sign_up_refuses_a_username_that_is_a_seat_label_or_a_lookalike(client, alice, username, why):
    response = sign_up(client, username=username)
    assert response.status_code == 200 and not User.objects.filter(username=username).exists()
    assert why in response.content.decode()


def test_a_player_may_take_their_own_username_as_display_name(client, alice, bob):
    client.force_login(alice)
    assert client.post(reverse("profile"), profile_data(display_name=" ALICE ", webhook_url="")).status_code == 302
    alice.refresh_from_db()
    assert alice.display_name == "ALICE"


def test_the_profile_says_which_names_others_invite_by(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert (
        "Others invite you by your username, <strong>alice</strong>, or your display name, <strong>Alice</strong>."
    ) in page


def test_the_profile_links_to_ones_own_player_page(client, alice):
    client.force_login(alice)
    page = client.get(reverse("profile")).content.decode()
    assert f'<a href="{reverse("player", args=["alice"])}">your player page</a>' in page


def test_the_invite_field_asks_for_a_username_or_display_name(client, alice):
    client.force_login(alice)
    assert "Username or display name to invite" in client.get(reverse("match_new", args=["mancala"])).content.decode()


@pytest.mark.parametrize("typed", ["captain", " CAPTAIN ", "DAVE", "captain  hook", "Captain\u00a0Hook"])
def test_a_player_is_invited_by_username_or_display_name(client, alice, typed):
    dave = make_user("dave", display_name="Captain Hook" if "hook" in typed.lower() else "Captain")
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "invite",
            "invite_1": typed,
        },
    )
    assert response.status_code == 302
    assert Match.objects.get().seats.get(number=1).user == dave


def test_inviting_a_name_no_player_has_is_refused_with_that_name(client, alice):
    make_user("dave", display_name="Captain")
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]),
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "invite",
            "invite_1": "Major",
        },
    )
    assert response.status_code == 400
    assert "There is no player called “Major”." in response.content.decode()
    assert not Match.objects.exists()
