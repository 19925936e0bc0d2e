"""The site's own answers to bad input outside a match: its error pages (400, 403, 404, 405,
500 and a failed CSRF check) in its layout and in plain words, and account forms that say
why nothing changed."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from accounts.middleware import SIGNED_OUT_NOTHING_SENT
from accounts.models import User
from accounts.views import NO_ADDRESS_CHOSEN, NOT_ON_ACCOUNT
from config.middleware import NUL_REFUSED
from games import selectors
from tests.conftest import make_user
from tests.conftest import signed_in as signed_in_as
from tests.games.test_bad_input import NOT_PLAIN, said, stored

HTMX = {"HTTP_HX_REQUEST": "true"}


def assert_site_page(response, status: int, words: str) -> None:
    html = response.content.decode()
    assert response.status_code == status
    assert words in " ".join(html.split()), said(response)[:300]
    assert "site.css" in html and 'class="topbar"' in html, "the site's layout"
    assert not NOT_PLAIN.search(said(response)), said(response)[:300]


def signed_in(user) -> Client:
    return signed_in_as(user, raise_request_exception=False)


def test_a_request_refused_as_unreadable_still_knows_who_is_signed_in(alice, match, settings):
    """The check for NUL characters read the form before the session was: a form Django
    refuses (too many fields) came back with a top bar offering Alice "Sign in" and "Sign up",
    as if the refused request had signed her out."""
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    response = signed_in(alice).post(reverse("match_move", args=[match.pk]), {f"f{n}": "1" for n in range(9)})
    assert_site_page(response, 400, "The site could not read that request")
    assert "Sign out" in said(response) and "Sign in" not in said(response)


def test_a_page_staff_may_not_open_is_refused_in_the_sites_words(db):
    """Django's own "403 Forbidden" came without the site's layout or a word of why."""
    moderator = make_user("moderator", is_staff=True)
    response = signed_in(moderator).get(reverse("admin:games_match_changelist"))
    assert_site_page(response, 403, "Your account may not open this page")


def test_an_unknown_address_is_not_found_in_the_sites_words(alice):
    assert_site_page(signed_in(alice).get("/matches/%ff/"), 404, "There is nothing at this address")


def test_a_method_an_address_does_not_take_is_named_without_jargon(alice):
    response = signed_in(alice).post(reverse("account_inactive"))
    assert_site_page(response, 405, "does not take that kind of request (only GET).")


def test_a_server_error_page_looks_like_the_site(alice, monkeypatch):
    """It had no stylesheet and no top bar: a bare page from somewhere else."""

    def fail(user):
        raise RuntimeError("the database is gone")

    monkeypatch.setattr(selectors, "matches_of", fail)
    response = signed_in(alice).get(reverse("dashboard"))
    assert_site_page(response, 500, "Our server failed to answer this request")
    assert "the database is gone" not in response.content.decode()


def test_a_form_from_an_old_page_is_refused_in_the_sites_words(alice, match):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("profile"))
    response = client.post(reverse("profile"), {"display_name": "Al", "csrfmiddlewaretoken": "stale"})
    assert_site_page(response, 403, "This form was out of date")
    assert User.objects.get(pk=alice.pk).display_name == "Alice"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
@pytest.mark.parametrize("origin", ["https://evil.example", "https://testserver"], ids=["forged", "proxy"])
def test_a_form_sent_from_another_address_is_refused_as_such(alice, origin, headers):
    """A forged form (or every form, on a site behind an https proxy it was not told of) was
    called "out of date: you signed in or out in another tab", which was not what happened, and
    reloading, as it said, never helped; under htmx the page reloaded itself with that word."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("profile"))
    token = client.cookies["csrftoken"].value
    response = client.post(
        reverse("profile"), {"display_name": "Al", "csrfmiddlewaretoken": token}, HTTP_ORIGIN=origin, **headers
    )
    assert_site_page(response, 403, "This form came from another site")
    assert ("DJANGO_BEHIND_TLS_PROXY=1" in said(response)) == (origin == "https://testserver")
    assert User.objects.get(pk=alice.pk).display_name == "Alice"


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_nul_character_is_refused_in_the_sites_layout_and_words(alice, match, headers):
    """The refusal was a bare line of text, with no way back to the site."""
    before = stored()
    response = signed_in(alice).post(
        reverse("match_move", args=[match.pk]), {"move": "1\x00", "version": "0"}, **headers
    )
    assert_site_page(response, 400, NUL_REFUSED)
    assert "Sign out" in said(response)  # still signed in
    assert stored() == before


# --- account forms ------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["profile", "vacation"])
def test_a_profile_form_sent_with_no_fields_says_which_are_missing(alice, url):
    """An empty profile form was taken for no form at all: a 400, and not a word of why."""
    client = signed_in(alice)
    before = User.objects.filter(pk=alice.pk).values().get()
    response = client.post(reverse(url), {})
    assert response.status_code == 400 and "This field is required." in said(response)
    assert User.objects.filter(pk=alice.pk).values().get() == before


@pytest.fixture
def two_addresses(alice):
    EmailAddress.objects.create(user=alice, email="alice@work.example", verified=False, primary=False)
    return alice


@pytest.mark.parametrize("action", ["action_remove", "action_primary", "action_send"])
@pytest.mark.parametrize("email", ["alice@work.example", "bob@example.com", "not an address", "x" * 100_000])
def test_an_address_no_longer_on_the_account_is_refused_in_words(two_addresses, bob, action, email):
    """Removed in another tab, then chosen in this one (or someone else's, in a forged form):
    the page came back unchanged, as if the button did nothing."""
    client = signed_in(two_addresses)
    if email == "alice@work.example":
        client.post(reverse("account_email"), {"action_remove": "", "confirmed": "yes", "email": email})  # other tab
    before = list(EmailAddress.objects.order_by("pk").values_list("user_id", "email", "primary", "verified"))

    response = client.post(reverse("account_email"), {action: "", "email": email}, follow=True)

    assert response.status_code == 200 and said(response).count(NOT_ON_ACCOUNT) == 1
    assert list(EmailAddress.objects.order_by("pk").values_list("user_id", "email", "primary", "verified")) == before


@pytest.mark.parametrize("data", [{}, {"action_remove": ""}, {"action_primary": "", "email": ""}])
def test_an_email_form_with_no_address_chosen_says_so(two_addresses, data):
    response = signed_in(two_addresses).post(reverse("account_email"), data, follow=True)
    assert response.status_code == 200 and said(response).count(NO_ADDRESS_CHOSEN) == 1
    assert EmailAddress.objects.filter(user=two_addresses).count() == 2


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_move_sent_twice_while_signed_out_is_said_once(client, match, headers):
    for _ in range(2):
        response = client.post(reverse("match_move", args=[match.pk]), {"move": "1", "version": "0"}, **headers)
    page = client.get(response["HX-Redirect"] if headers else response["Location"])
    assert strip_tags(page.content.decode()).count(SIGNED_OUT_NOTHING_SENT) == 1
