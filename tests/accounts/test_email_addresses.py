"""The email addresses page: adding, confirming, making primary and removing addresses (asking
first, never the last confirmed one), in sentence case, with no buttons that would do nothing."""

from __future__ import annotations

import re

from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from tests.accounts.conftest import link_in


def test_the_email_page_reads_in_sentence_case_with_separate_tags(client, alice):
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    client.force_login(alice)
    html = client.get(reverse("account_email")).content.decode()
    tag = r'<span class="badge[^"]*">\s*{}\s*</span>'
    assert re.search(tag.format("Verified") + r"\s*" + tag.format("Primary"), html), "two tags, not 'Verified Primary'"
    assert "Make primary" in html and "Send the confirmation again" in html and "Re-send" not in html
    assert re.search(r'<button\s+class="secondary"[^>]*name="action_send"', html), "a minor button looks minor"


def test_sending_the_confirmation_again_too_soon_says_why_nothing_was_sent(client, alice):
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    client.force_login(alice)
    first = client.post(reverse("account_email"), {"email": "alice2@example.com", "action_send": ""}, follow=True)
    assert len(mail.outbox) == 1 and "No email was sent" not in first.content.decode()
    again = client.post(reverse("account_email"), {"email": "alice2@example.com", "action_send": ""}, follow=True)
    assert len(mail.outbox) == 1, "allauth sends at most one every 3 minutes"
    assert "No email was sent: a confirmation went to that address less than 3 minutes ago" in again.content.decode()


def test_a_confirmed_address_is_not_asked_to_confirm_again(client, alice):
    """allauth's page offers the button whichever address is chosen; for alice's confirmed
    address it sent "Please confirm your email address" all the same."""
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_send": ""}, follow=True)
    assert mail.outbox == []
    assert "alice@example.com is confirmed already, so no email was sent." in page.content.decode()
    assert EmailAddress.objects.get(user=alice, email="alice@example.com").verified


def test_making_the_primary_address_primary_says_it_is_already_and_changes_nothing(client, alice):
    """allauth said "Primary email address set" and told the owner the address had changed."""
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_primary": ""}, follow=True)
    html = page.content.decode()
    assert "alice@example.com is your primary address already, so nothing changed." in html
    assert "Primary email address set" not in html
    assert mail.outbox == [], "no 'your email address has changed' notice"
    alice.refresh_from_db()
    assert alice.email == "alice@example.com" and alice.email_changed_at is None
    assert EmailAddress.objects.get(user=alice, primary=True).email == "alice@example.com"


def test_confirming_an_added_address_while_signed_in_goes_back_to_the_email_page(client, alice):
    client.force_login(alice)
    client.post(reverse("account_email"), {"email": "alice2@example.com", "action_add": ""})
    confirm_url = link_in(mail.outbox[0])
    response = client.post(confirm_url)
    assert response.status_code == 302 and response["Location"] == reverse("account_email"), "not to My matches"
    assert EmailAddress.objects.get(user=alice, email="alice2@example.com").verified
    assert "You have confirmed alice2@example.com." in client.get(response["Location"]).content.decode()


def test_the_email_page_still_needs_a_signed_in_player(client, db):
    response = client.get(reverse("account_email"))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_the_last_confirmed_address_cannot_be_removed(client, alice):
    """Removed, it left an account nobody could sign in to (confirmation is mandatory) nor reset."""
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_remove": ""}, follow=True)
    assert EmailAddress.objects.filter(user=alice, email="alice@example.com", verified=True).exists()
    assert "alice@example.com stays: it is your main confirmed address" in page.content.decode()

    spare = EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=False, primary=False)
    html = client.get(reverse("account_email")).content.decode()
    assert re.search(r'<button\s+class="danger"[^>]*name="action_remove"', html), "Remove looks like what it does"
    client.post(reverse("account_email"), {"email": spare.email, "action_remove": "", "confirmed": "yes"})
    assert not EmailAddress.objects.filter(pk=spare.pk).exists(), "a second, unconfirmed address can go"


def test_removing_an_address_asks_first_also_without_javascript(client, alice):
    """Without JavaScript one click on Remove took the address off at once: only a script asked first."""
    spare = EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    asked = client.post(reverse("account_email"), {"email": spare.email, "action_remove": ""})
    assert asked.status_code == 200
    assert EmailAddress.objects.filter(pk=spare.pk).exists(), "asked, not removed"
    assert mail.outbox == [], "no 'address removed' notice"
    html = asked.content.decode()
    assert "Remove alice2@example.com from your account?" in html
    form = re.search(r'<form[^>]*action="{}".*?</form>'.format(reverse("account_email")), html, re.S).group()
    assert 'name="email" value="alice2@example.com"' in form and 'name="confirmed" value="yes"' in form
    assert re.search(r'<button\s+class="danger"[^>]*name="action_remove"', form)
    # A No goes back to the list; under the button, as the close-account page has it (4 px beside it).
    assert re.search(
        r'</form>\s*<p><a class="own-line" href="{}">Keep it</a></p>'.format(reverse("account_email")), html
    )

    page = client.post(
        reverse("account_email"), {"email": spare.email, "action_remove": "", "confirmed": "yes"}, follow=True
    )
    assert not EmailAddress.objects.filter(pk=spare.pk).exists()
    assert "Removed email address alice2@example.com." in page.content.decode()
    assert [m.to for m in mail.outbox] == [["alice@example.com"]], "the owner is told, at the address that stays"


def test_an_address_that_may_not_go_is_not_asked_about(client, alice):
    """The primary address (and the last confirmed one) stays: Remove says so at once, not after a Yes."""
    EmailAddress.objects.create(user=alice, email="alice2@example.com", verified=True, primary=False)
    client.force_login(alice)
    page = client.post(reverse("account_email"), {"email": "alice@example.com", "action_remove": ""}, follow=True)
    html = page.content.decode()
    assert "from your account?" not in html
    assert "alice@example.com stays: it is your main confirmed address" in html
    assert EmailAddress.objects.filter(user=alice, email="alice@example.com", primary=True).exists()


def test_a_single_confirmed_address_gets_no_buttons_that_would_do_nothing(client, alice):
    client.force_login(alice)
    html = client.get(reverse("account_email")).content.decode()
    assert "alice@example.com" in html and "Add email" in html
    for action in ("action_primary", "action_send", "action_remove"):
        assert f'name="{action}"' not in html, action
    assert 'type="radio"' not in html, "nothing to choose between, so no radio button"
    assert re.search(r'<p class="lone-email">\s*alice@example.com\s.*Verified.*Primary', html, re.S)
    assert "This email address belongs to your account" in html  # one address, not "the following addresses"
