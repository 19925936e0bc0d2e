"""The emails allauth sends (confirm your address, reset your password) can be read where a
new player looks for them: the file under ``var/mail/`` and the console of the default
backend, and the raw message a mail server receives. Their links stay on one line, and
they greet from the site's name, not from its host."""

from __future__ import annotations

import email
import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import User
from tests.accounts.conftest import sign_up
from tests.local_servers import MailServer

CONFIRM_LINK = re.compile(r"http://testserver/accounts/confirm-email/\S+/")
RESET_LINK = re.compile(r"http://testserver/accounts/password/reset/key/\S+/")


@pytest.fixture
def mail_dir(settings, tmp_path):
    """The default backend (console and ``var/mail/``), writing under ``tmp_path``."""
    settings.MAILERS = {
        "default": {"BACKEND": "config.mail.ConsoleAndFileEmailBackend", "OPTIONS": {"file_path": str(tmp_path)}}
    }
    return tmp_path


def newest_mail(folder) -> str:
    return max(folder.iterdir(), key=lambda path: path.stat().st_mtime).read_text()


def test_the_confirmation_link_copied_from_the_mail_file_confirms_the_address(client, db, mail_dir, capsys):
    sign_up(client)
    text = newest_mail(mail_dir)
    link = CONFIRM_LINK.search(text)
    assert link, f"no whole confirmation link on one line in:\n{text}"
    assert link.group() in capsys.readouterr().out, "the console shows it whole too"

    response = client.post(link.group().removeprefix("http://testserver"))
    assert response.status_code == 302
    assert User.objects.get(username="dora").emailaddress_set.get().verified


def test_the_password_reset_link_in_the_mail_file_is_on_one_line(client, alice, mail_dir):
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    text = newest_mail(mail_dir)
    link = RESET_LINK.search(text)
    assert link, f"no whole reset link on one line in:\n{text}"
    assert client.get(link.group().removeprefix("http://testserver")).status_code == 302  # to the form


def test_the_confirmation_link_reaches_a_mail_server_on_one_line(client, db, settings):
    with MailServer() as server:
        settings.MAILERS = server.mailer
        sign_up(client)
    raw = server.messages[0].original_content.decode()
    assert CONFIRM_LINK.search(raw), f"no whole confirmation link on one line in:\n{raw}"
    assert "=\r\n" not in raw, "no quoted-printable soft line breaks"


def test_the_confirmation_email_greets_from_the_sites_name(client, db, mail_dir):
    sign_up(client)
    text = newest_mail(mail_dir)
    assert "Hello from Boardgames!" in text and "Thank you for using Boardgames!" in text
    assert "Hello from testserver" not in text
    assert not re.search(r"^testserver$", text, re.M), "a link to the site, not a bare host name"


def test_account_emails_are_automatic_of_the_site_and_in_no_match_conversation(client, alice, db, settings):
    """Sent automatically (no vacation reply back, RFC 3834), with an id of the site's
    domain, and no unsubscribe header: nobody can unsubscribe from a reset they asked for."""
    settings.SITE_URL = "https://boardgames.example.org"
    sign_up(client)
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    confirmation, reset = (email.message_from_string(message.message().as_string()) for message in mail.outbox)
    assert confirmation["Subject"] == "[Boardgames] Please confirm your email address"
    assert reset["Subject"] == "[Boardgames] Your password reset link"
    for message in (confirmation, reset):
        assert message["Auto-Submitted"] == "auto-generated"
        assert message["Message-ID"].endswith("@boardgames.example.org>")
        assert message["Date"] and message["From"] == "Boardgames <noreply@boardgames.invalid>"
        for absent in ("References", "In-Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post", "Reply-To"):
            assert message[absent] is None, absent
