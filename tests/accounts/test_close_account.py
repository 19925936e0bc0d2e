"""A player closing their own account from the profile: after their password, as staff
closing it in the admin (``accounts.services.user_deactivate``), in words that say the player did it."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from accounts.forms import PASSWORD_TO_CLOSE, TOO_MANY_TO_CLOSE, WRONG_PASSWORD_TO_CLOSE
from accounts.models import User
from accounts.services import user_deactivate
from accounts.views import ACCOUNT_CLOSED, STAFF_CLOSE_IN_ADMIN
from games import selectors, services
from games.models import Match, MatchEvent, Seat, Status
from games.services import ClockSpec, SeatSpec
from notifications import services as notification_services
from notifications.models import Notification
from notifications.services import delivery, resending
from tests.accounts.conftest import link_in, sign_up
from tests.conftest import PASSWORD, make_user, signed_in
from tests.games.conftest import start_timed_match

CANCELLED = "Alice closed their account, so the match is cancelled."
SEAT_TO_AI = "Alice closed their account; the AI plays on."
CLOSE = reverse("account_close")
CLOSED_SUBJECT = "[Boardgames] The account for this address is closed"


def is_active(user) -> bool:
    user.refresh_from_db()
    return user.is_active


@pytest.fixture
def alices_matches(alice, bob, carol, ai_moves):
    """A match in play with Bob, an open challenge of hers and Carol's invitation to her."""
    in_play = start_timed_match(alice, bob, clock=ClockSpec())
    challenge = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    invited = services.match_create(
        creator=carol, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="alice")]
    )
    return in_play, challenge, invited


def nothing_changed(alice, alices_matches) -> bool:
    in_play = alices_matches[0]
    statuses = [Match.objects.get(pk=match.pk).status for match in alices_matches]
    return (
        is_active(alice)
        and statuses == [Status.ACTIVE, Status.OPEN, Status.OPEN]
        and Seat.objects.get(match=in_play, number=0).user == alice
    )


# --- the page -----------------------------------------------------------------------------------------------------


def test_the_profile_links_to_a_page_that_says_what_closing_does_and_asks_for_the_password(alice):
    client = signed_in(alice)
    assertContains(client.get(reverse("profile")), f'href="{CLOSE}">Close my account</a>')

    page = client.get(CLOSE)

    for said in (
        "You can no longer sign in",
        "no more emails",
        "the AI takes your seat",
        "invitations you sent and those you were sent are cancelled",
        "Finished matches stay as they are, in the other players' history, under your name",
        "yours stays with your finished matches",
    ):
        assertContains(page, said)
    assertContains(page, 'type="password" name="password"')
    assertContains(page, '<button type="submit" class="danger">Close my account</button>')  # as Remove (an address)
    assert is_active(alice), "looking at the page changes nothing"


def test_closing_signs_out_says_so_and_settles_the_matches_telling_the_others(
    alice, bob, carol, alices_matches, ai_moves, django_capture_on_commit_callbacks
):
    in_play, challenge, invited = alices_matches
    client = signed_in(alice)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(CLOSE, {"password": PASSWORD}, follow=True)

    assert response.redirect_chain == [(reverse("home"), 302)]
    assertContains(response, ACCOUNT_CLOSED)
    assert client.get(reverse("dashboard")).status_code == 302, "signed out"
    assert not is_active(alice)
    seat = Seat.objects.get(match=in_play, number=0)
    assert seat.user is None and seat.former_user == alice and seat.is_ai
    assert ai_moves == [(in_play.pk, in_play.version)], "Alice was to move: the AI does"
    assert [event.reason for event in selectors.match_log(in_play)[1]] == [SEAT_TO_AI]
    assert Match.objects.get(pk=challenge.pk).status == Match.objects.get(pk=invited.pk).status == Status.ABORTED
    assert CANCELLED in Notification.objects.get(user=carol, match=invited).body
    assert not MatchEvent.objects.filter(reason__startswith="Staff").exists(), "no staff did anything"


def test_closing_ends_the_players_other_sessions_too(alice):
    phone = signed_in(alice)
    signed_in(alice).post(CLOSE, {"password": PASSWORD})
    assert phone.get(reverse("dashboard")).status_code == 302


@pytest.mark.parametrize(
    ("password", "error"),
    [("not-my-password", WRONG_PASSWORD_TO_CLOSE), ("", PASSWORD_TO_CLOSE)],
    ids=["wrong", "missing"],
)
def test_a_wrong_or_missing_password_is_refused_in_words_and_changes_nothing(alice, alices_matches, password, error):
    client = signed_in(alice)

    response = client.post(CLOSE, {"password": password})

    assert response.status_code == 400
    assertContains(response, error, status_code=400)
    assert nothing_changed(alice, alices_matches)
    assert client.get(reverse("dashboard")).status_code == 200, "still signed in"


def test_a_form_sent_with_no_fields_at_all_is_refused_too(alice):
    response = signed_in(alice).post(CLOSE)
    assertContains(response, PASSWORD_TO_CLOSE, status_code=400)
    assert is_active(alice)


def test_wrong_passwords_count_toward_the_accounts_sign_in_limit(alice, settings):
    """Without a limit the page would tell a stolen session's holder, as fast as they post, whether
    a guess is the password (then usable wherever the player reuses it)."""
    settings.SIGN_IN_FAILURES_PER_ACCOUNT = 3  # the account's own count, not the address's
    client = signed_in(alice)
    for _ in range(3):
        assertContains(client.post(CLOSE, {"password": "guess"}), WRONG_PASSWORD_TO_CLOSE, status_code=400)

    response = client.post(CLOSE, {"password": PASSWORD})

    assertContains(response, TOO_MANY_TO_CLOSE, status_code=400)
    assert is_active(alice)
    signed_out = Client()
    signed_out.post(reverse("account_login"), {"login": "alice@example.com", "password": PASSWORD})
    assert signed_out.get(reverse("dashboard")).status_code == 302, "the same count as signing in by that address"


def test_a_forged_form_without_the_csrf_token_changes_nothing(alice, alices_matches):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post(CLOSE, {"password": PASSWORD})

    assert response.status_code == 403
    assert nothing_changed(alice, alices_matches)


def test_another_players_session_cannot_close_her_account_with_her_password(alice, bob):
    response = signed_in(bob).post(CLOSE, {"password": "not-bobs-password"})
    assertContains(response, WRONG_PASSWORD_TO_CLOSE, status_code=400)
    assert is_active(alice) and is_active(bob)


def test_signed_out_the_page_sends_to_sign_in_and_a_post_closes_nothing(alice):
    client = Client()
    assertRedirects(client.get(CLOSE), f"{reverse('account_login')}?next={CLOSE}")
    response = client.post(CLOSE, {"password": PASSWORD})
    assert response.status_code == 302 and response["Location"].startswith(reverse("account_login"))
    assert is_active(alice)


def test_a_staff_account_is_told_to_ask_another_staff_member_and_cannot_close_itself(db):
    boss = make_user("boss", is_staff=True)
    client = signed_in(boss)

    page = client.get(CLOSE)
    assertContains(page, "ask another staff member to close it in the admin")
    assertNotContains(page, 'type="password"')
    refused = client.post(CLOSE, {"password": PASSWORD})

    assertContains(refused, STAFF_CLOSE_IN_ADMIN, status_code=403)
    assert is_active(boss)


# --- signing in again ---------------------------------------------------------------------------------------------


def test_signing_in_to_a_closed_account_says_it_is_closed_not_that_the_password_is_wrong(alice):
    signed_in(alice).post(CLOSE, {"password": PASSWORD})
    client = Client()

    response = client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD}, follow=True)

    page = response.content.decode()
    assert "This account is closed" in page and "can no longer sign in" in page
    assert "Its finished matches stay in the other players' history" in page, "matches, as the site says everywhere"
    assert "not correct" not in page and "inactive" not in page
    assert client.get(reverse("dashboard")).status_code == 302, "not signed in"
    # She closed it herself (its address is gone, as only that does), so she may start again.
    assert "You closed this account" in page and "by its owner or by staff" not in page
    assert "You may sign up again with your email address as a new player." in page
    assert f'<a class="own-line" href="{reverse("account_signup")}">Sign up as a new player</a>' in page


def test_signing_in_to_an_account_staff_closed_does_not_say_its_owner_closed_it(alice, bob, staff):
    """Staff keep its address (perhaps a ban): it opens no new account, and the page offers none (not even
    in a browser where someone signed in to an account they closed themselves just before)."""
    user_deactivate(user_id=alice.pk, actor=staff)
    signed_in(bob).post(CLOSE, {"password": PASSWORD})
    client = Client()
    assertContains(
        client.post(reverse("account_login"), {"login": "bob", "password": PASSWORD}, follow=True),
        "You closed this account",
    )
    for login in ("alice", "alice@example.com"):
        page = client.post(reverse("account_login"), {"login": login, "password": PASSWORD}, follow=True)
        assertContains(page, "This account was closed, by its owner or by staff, so it can no longer sign in.")
        assertNotContains(page, "You closed this account")
        assertNotContains(page, "sign up again")
    page = Client().get(reverse("account_inactive"))  # nobody gave a password: nothing is known
    assertContains(page, "by its owner or by staff")
    assertNotContains(page, "You closed this account")


def test_a_wrong_password_for_a_closed_account_is_only_called_wrong(alice):
    """Whether an account is closed is told only to whoever knows its password."""
    signed_in(alice).post(CLOSE, {"password": PASSWORD})
    response = Client().post(reverse("account_login"), {"login": "alice", "password": "nope"}, follow=True)
    assert "not correct" in response.content.decode() and "closed" not in response.content.decode()


# --- the service --------------------------------------------------------------------------------------------------


def test_the_players_own_closing_is_told_in_their_name_and_a_join_refused_with_it(alice, bob, ai_moves):
    challenge = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )

    user_deactivate(user_id=alice.pk, actor=alice)

    assert MatchEvent.objects.filter(match=challenge, to_status=Status.ABORTED, actor=alice, reason=CANCELLED).exists()
    with pytest.raises(services.ServiceError) as refused:
        services.match_join(match_id=challenge.pk, user=bob)
    assert refused.value.message == CANCELLED


def test_closed_by_staff_it_still_says_staff_did_it(alice, bob, staff, ai_moves):
    in_play = start_timed_match(alice, bob, clock=ClockSpec())

    user_deactivate(user_id=alice.pk, actor=staff)

    assert [event.reason for event in selectors.match_log(in_play)[1]] == [
        "Staff gave Alice's seat to the AI: Alice's account was closed."
    ]


# --- the email address --------------------------------------------------------------------------------------------


def test_closing_frees_the_address_for_a_new_player_who_can_confirm_it(alice, client):
    """A player who closed their account could not sign up again: the address stayed with it,
    and allauth's "already exists, reset your password" led to "unknown account"."""
    assertContains(signed_in(alice).get(CLOSE), "it is free again, and you may later sign up with it as a new player")
    signed_in(alice).post(CLOSE, {"password": PASSWORD})
    alice.refresh_from_db()
    assert alice.email == "" and not EmailAddress.objects.filter(user=alice).exists()

    sign_up(client, username="alicia", email="alice@example.com")

    [confirmation] = mail.outbox
    assert confirmation.to == ["alice@example.com"] and "Please confirm your email address" in confirmation.subject
    assert client.post(link_in(confirmation))["Location"] == reverse("dashboard")
    alicia = User.objects.get(username="alicia")
    assert alicia.is_active and alicia.emailaddress_set.get(email="alice@example.com").verified
    assert not is_active(alice), "the old account stays closed, under its name"


def test_staff_closing_an_account_keeps_its_address(alice, staff):
    user_deactivate(user_id=alice.pk, actor=staff)  # perhaps a ban: the address opens no new account
    alice.refresh_from_db()
    assert alice.email == "alice@example.com" and EmailAddress.objects.filter(user=alice).exists()


def test_a_password_reset_for_an_account_staff_closed_says_it_is_closed(alice, staff, client):
    user_deactivate(user_id=alice.pk, actor=staff)

    client.post(reverse("account_reset_password"), {"email": "Alice@example.com"})

    [sent] = mail.outbox
    assert sent.to == ["alice@example.com"] and sent.subject == CLOSED_SUBJECT
    assert "asked for a new password" in sent.body
    assert "is closed: it can no longer sign in, and its password cannot be reset" in sent.body
    assert "no record" not in sent.body and "sign up for an account" not in sent.body


def test_signing_up_with_the_address_of_an_account_staff_closed_says_it_is_closed(alice, staff, client):
    """The loop: "already exists: use the password forgotten procedure", then "unknown account"."""
    user_deactivate(user_id=alice.pk, actor=staff)

    sign_up(client, username="alicia", email="alice@example.com")
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})  # as allauth's email said

    signed_up, reset = mail.outbox
    assert signed_up.subject == reset.subject == CLOSED_SUBJECT
    assert "tried to sign up on Boardgames with this address: alice@example.com" in signed_up.body
    assert "cannot be used to sign up for a new account either" in signed_up.body
    assert "password forgotten" not in signed_up.body and "no record" not in reset.body
    assert not User.objects.filter(username="alicia").exists()


def test_a_password_reset_for_an_unknown_address_still_says_it_is_unknown(alice, client):
    client.post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    [sent] = mail.outbox
    assert sent.subject == "[Boardgames] Unknown account" and "we do not have any record" in sent.body


def test_after_closing_no_email_goes_to_the_players_address_even_if_staff_open_it_again(alice, client):
    """Opened again by staff, the account has no address: a message is skipped (Django would
    send it to nobody and count it sent), and staff cannot send one again."""
    signed_in(alice).post(CLOSE, {"password": PASSWORD})
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert "Unknown account" in mail.outbox[0].subject, "the address is nobody's now"
    alice.refresh_from_db()
    alice.is_active = True
    alice.save(update_fields=["is_active"])
    notice = Notification.objects.create(
        user=alice, kind=Notification.Kind.MATCH_OVER, subject="Result", body="Mancala #1 is over."
    )
    mail.outbox.clear()

    assert not notification_services.notification_send(notification_id=notice.pk)

    notice.refresh_from_db()
    assert (notice.outcome, notice.last_error) == (Notification.Outcome.SKIPPED, delivery.NO_EMAIL_ADDRESS)
    assert mail.outbox == []
    assert notification_services.resend_refusal(notice) == resending.NO_EMAIL_NOW
