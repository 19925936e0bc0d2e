"""Staff deleting a player's account in the admin: a player who sat at a match is kept, and
the page says why in plain words and what to do instead."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils.html import strip_tags
from pytest_django.asserts import assertContains, assertNotContains

from accounts.models import User
from games import services
from games.models import MatchEvent, Seat
from notifications.models import Notification
from tests.conftest import make_user, start_match

CHANGELIST = reverse("admin:accounts_user_changelist")


def delete_page(user: User) -> str:
    return reverse("admin:accounts_user_delete", args=[user.pk])


def text(response) -> str:
    return " ".join(strip_tags(response.content.decode()).split())


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def test_a_player_who_played_is_not_deleted_and_staff_read_why_and_what_to_do_instead(staff_client, alice, bob):
    """It said: 'Deleting the user “Alice” would result in deleting related objects, but your
    account doesn't have permission to delete the following types of objects: notification.'"""
    match = start_match(alice, bob)
    notifications = Notification.objects.filter(user=alice).count()

    page = staff_client.get(delete_page(alice))

    words = text(page)
    assert "Cannot delete user" in words
    assert (
        "“Alice” cannot be deleted: they played in the matches below (or were invited to them), and those "
        "matches' move logs, results and replays name them."
    ) in words
    assert f"Alice: {match} (in play)" in words
    assert "deactivate it instead: on the player's page (their name above), untick “Active”" in words
    assertContains(page, f'<a href="{reverse("admin:games_match_change", args=[match.pk])}">{match}</a>', html=True)
    assertContains(page, f'<a href="{reverse("admin:accounts_user_change", args=[alice.pk])}">Alice</a>', html=True)
    assertNotContains(page, "have permission")
    assertNotContains(page, "Yes, I’m sure")

    staff_client.post(delete_page(alice), {"post": "yes"})

    assert User.objects.filter(pk=alice.pk).exists()
    assert Seat.objects.filter(match=match, user=alice).exists()
    assert Notification.objects.filter(user=alice).count() == notifications


def test_a_player_whose_seat_the_ai_took_is_kept_too(staff_client, staff, alice, bob):
    """Only a seat held now protects the account in the database; the replay still names the
    player who sat there before the AI, so that one is kept as well."""
    match = start_match(alice, bob)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Left")

    page = staff_client.get(delete_page(bob))
    assert f"Bob: {match} (in play)" in text(page)

    staff_client.post(delete_page(bob), {"post": "yes"})
    assert Seat.objects.get(match=match, number=1).former_user == bob


def test_a_player_who_never_sat_at_a_match_can_still_be_deleted(staff_client, carol):
    page = staff_client.get(delete_page(carol))
    assertContains(page, "Are you sure you want to delete the user “Carol”?")

    staff_client.post(delete_page(carol), {"post": "yes"})

    assert not User.objects.filter(pk=carol.pk).exists()
    assert not EmailAddress.objects.filter(email="carol@example.com").exists()


def test_deleting_several_players_names_those_kept_and_deletes_nobody(staff_client, alice, bob, carol):
    match = start_match(alice, bob)
    chosen = {"action": "delete_selected", "_selected_action": [alice.pk, carol.pk]}

    page = staff_client.post(CHANGELIST, chosen)

    words = text(page)
    assert "Nothing was deleted. These players cannot be deleted: they played in the matches named" in words
    assert f"Alice: {match} (in play)" in words and "Carol:" not in words
    assert "Select only the others to delete those." in words
    assertNotContains(page, "have permission")
    staff_client.post(CHANGELIST, {**chosen, "post": "yes"})
    assert User.objects.filter(pk__in=[alice.pk, carol.pk]).count() == 2


def test_a_player_of_many_matches_has_the_newest_named_and_the_rest_counted(staff_client, alice, settings):
    settings.AI_ONLY_MATCHES_PER_PLAYER = 12
    matches = [start_match(alice, ai_level=1) for _ in range(12)]
    services.match_abort(match_id=matches[-1].pk, actor=None, reason="Test")

    words = text(staff_client.get(delete_page(alice)))

    named = ", ".join(f"{match} (in play)" for match in reversed(matches[2:-1]))
    assert f"Alice: {matches[-1]} (cancelled), {named} and 2 more" in words


def test_a_moderator_with_only_the_match_permission_cannot_reach_a_players_delete_page(client, alice, bob):
    start_match(alice, bob)
    moderator = make_user("moderator", is_staff=True)
    moderator.user_permissions.add(Permission.objects.get(codename="change_match"))
    client.force_login(moderator)

    assert client.get(delete_page(alice)).status_code == 403
    assert client.post(delete_page(alice), {"post": "yes"}).status_code == 403
    assert User.objects.filter(pk=alice.pk).exists()


def test_a_moderator_who_may_delete_players_reads_the_same_reason_not_a_permission_list(client, alice, bob, carol):
    """Without the permission on allauth's email addresses either, Django's page listed
    'notification' and 'email address' as types the moderator may not delete."""
    match = start_match(alice, bob)
    moderator = make_user("moderator", is_staff=True)
    moderator.user_permissions.add(*Permission.objects.filter(codename__in=["view_user", "delete_user"]))
    client.force_login(moderator)

    page = client.get(delete_page(alice))

    assert f"Alice: {match} (in play)" in text(page)
    assertNotContains(page, "have permission")
    client.post(delete_page(alice), {"post": "yes"})
    assert User.objects.filter(pk=alice.pk).exists()
    assert MatchEvent.objects.filter(match=match).exists(), "the match's history is untouched"


HOOK = "https://discord.com/api/webhooks/1234567890/T0k3nThatPostsToTheirChannel"


def test_staff_see_whether_a_player_has_a_webhook_and_where_but_not_its_secret(staff_client, alice):
    """The address is the key to post in the player's chat (Discord's /api/webhooks/<id>/<token>):
    the player's page showed it whole, in a field staff could edit, to anyone who may view players."""
    User.objects.filter(pk=alice.pk).update(webhook_url=HOOK)
    page = staff_client.get(reverse("admin:accounts_user_change", args=[alice.pk]))
    assertNotContains(page, "T0k3n")
    assertNotContains(page, "1234567890")
    assert "Webhook: https://discord.com/… (set by the player in their profile)" in text(page)

    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if name in form.fields and value is not None}
    data.update(
        display_name="Ally",
        password="",
        date_joined_0=data["date_joined"].date().isoformat(),
        date_joined_1=data["date_joined"].time().isoformat(timespec="seconds"),
    )
    saved = staff_client.post(
        reverse("admin:accounts_user_change", args=[alice.pk]),
        {
            key: value
            for key, value in data.items()
            if key not in ("date_joined", "last_login", "groups", "user_permissions")
        },
    )
    assert saved.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.webhook_url) == ("Ally", HOOK), "saving the page keeps it"


@pytest.mark.parametrize("prefix", [HOOK[:50], "https://discord.com/api/webhooks/1234567890/X"])
def test_no_address_filters_players_by_their_webhook(staff_client, alice, prefix):
    """``?webhook_url__startswith=…`` answered yes or no: the token could be found a letter at a time."""
    User.objects.filter(pk=alice.pk).update(webhook_url=HOOK)
    response = staff_client.get(CHANGELIST, {"webhook_url__startswith": prefix})
    assert response.status_code == 400
