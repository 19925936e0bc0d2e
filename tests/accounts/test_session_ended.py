"""An open match page outlives its session (signed out, or out and in again, in another
tab): its next poll or click must take the whole page somewhere sensible, never swap a
sign-in form or Django's CSRF page into the board, and never play a move."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from accounts.middleware import SIGNED_OUT_NOTHING_SENT
from accounts.models import User
from accounts.views import OUT_OF_DATE
from games.models import Match
from tests.accounts.conftest import link_in, sign_up

pytestmark = pytest.mark.django_db


def htmx_headers(match: Match) -> dict[str, str]:
    """What a page drawn for a signed-in player sends with each htmx request (base.html)."""
    page = reverse("match_detail", args=[match.pk])
    return {"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}", "X-Signed-In": "true"}


@pytest.mark.parametrize("public", [True, False])
def test_a_poll_after_signing_out_sends_the_whole_page_to_sign_in_and_back(client, match, public):
    """Even where anyone may watch: the page, drawn for the player, is not redrawn for a visitor."""
    Match.objects.filter(pk=match.pk).update(public=public)
    poll = reverse("match_poll", args=[match.pk]) + f"?token={match.poll_token}"

    response = client.get(poll, headers=htmx_headers(match))

    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fmatches%2F{match.pk}%2F"
    assert not response.content, "nothing is swapped into the board"


def test_a_move_sent_after_signing_out_is_not_played_and_the_sign_in_page_says_so(client, match):
    move = reverse("match_move", args=[match.pk])

    response = client.post(move, {"move": "1", "version": match.version}, headers=htmx_headers(match))

    assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fmatches%2F{match.pk}%2F"
    assertContains(client.get(response["HX-Redirect"]), SIGNED_OUT_NOTHING_SENT)
    match.refresh_from_db()
    assert match.version == 0 and not match.moves.exists(), "no move was played"


def test_a_plain_form_sent_after_signing_out_is_not_made_and_the_sign_in_page_says_so(client, match):
    response = client.post(reverse("match_resign", args=[match.pk]), follow=True)

    assertContains(response, SIGNED_OUT_NOTHING_SENT)
    match.refresh_from_db()
    assert match.status == "active"


def test_a_poll_after_signing_out_says_nothing_was_sent(client, match):
    """Only what the player sent was not sent: a page that polled sent nothing."""
    poll = reverse("match_poll", args=[match.pk]) + f"?token={match.poll_token}"
    response = client.get(poll, headers=htmx_headers(match))

    assertNotContains(client.get(response["HX-Redirect"]), SIGNED_OUT_NOTHING_SENT)


def test_without_htmx_a_private_match_is_not_found_and_signing_in_comes_back_to_it(client, match):
    Match.objects.filter(pk=match.pk).update(public=False)
    response = client.get(reverse("match_detail", args=[match.pk]))

    assert response.status_code == 404 and "HX-Redirect" not in response
    assertContains(response, f'href="/accounts/login/?next=/matches/{match.pk}/"', status_code=404)


def test_a_click_from_a_page_older_than_the_session_reloads_it_and_says_why(alice, match):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("match_detail", args=[match.pk]))  # the browser holds the new session's cookie
    move = reverse("match_move", args=[match.pk])

    response = client.post(
        move,
        {"move": "1", "version": match.version},
        headers={**htmx_headers(match), "X-CSRFToken": "from-the-old-session"},
    )

    assert response.status_code == 200 and response["HX-Refresh"] == "true"
    match.refresh_from_db()
    assert match.version == 0 and not match.moves.exists(), "no move was played"
    assertContains(client.get(reverse("match_detail", args=[match.pk])), OUT_OF_DATE)


def test_a_plain_form_from_an_old_page_gets_a_page_in_plain_words(alice, match):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("match_detail", args=[match.pk]))

    response = client.post(reverse("match_resign", args=[match.pk]), {"csrfmiddlewaretoken": "stale"})

    assertContains(response, "Nothing was sent", status_code=403)
    assertContains(response, "you signed in or out in another tab", status_code=403)
    assert "CSRF verification failed" not in response.content.decode()
    match.refresh_from_db()
    assert match.status == "active"


@pytest.mark.parametrize("secure_cookies", [True, False])
def test_a_browser_that_kept_no_cookie_is_told_so_not_blamed_for_a_sign_out(settings, secure_cookies):
    """Cookies blocked, or a site served over plain http with https-only cookies (the
    default with debug off): the browser never sends the form cookie back."""
    settings.CSRF_COOKIE_SECURE = secure_cookies
    client = Client(enforce_csrf_checks=True)

    response = client.post(reverse("account_login"), {"login": "alice", "password": "x", "csrfmiddlewaretoken": "t"})

    assertContains(response, "did not send back this site's cookie", status_code=403)
    assert "signed in or out" not in response.content.decode()
    assert ("DJANGO_SECURE_COOKIES=0" in response.content.decode()) is secure_cookies


@pytest.mark.parametrize("action", ["match_move", "match_join", "match_accept", "match_resign"])
def test_a_post_only_address_opened_by_get_goes_to_the_match_page(client, alice, match, action):
    """Signing in with ``?next=/matches/N/move/`` (after a plain post while signed out) used
    to end on an empty 405 page."""
    client.force_login(alice)

    response = client.get(reverse(action, args=[match.pk]))

    assert response.status_code == 302 and response["Location"] == reverse("match_detail", args=[match.pk])
    match.refresh_from_db()
    assert match.status == "active" and match.version == 0


def test_confirming_an_address_in_another_browser_is_not_called_unsent(db):
    """allauth sends an anonymous confirmation on to the sign-in page: the address is
    confirmed, and the page must not say that nothing was sent."""
    sign_up(Client())
    elsewhere = Client()  # the link opened on the phone, where nobody signed up
    response = elsewhere.post(link_in(mail.outbox[0]), follow=True)

    assert User.objects.get(username="dora").emailaddress_set.get().verified
    assertNotContains(response, SIGNED_OUT_NOTHING_SENT)
