"""The limits against flooding hold when the tries come at once, from any number of processes:
messages, reports, data downloads and wrong passwords are counted one after the other (on
PostgreSQL, with threads released together), and wrong passwords count per account, whichever
of its names or addresses was typed."""

from __future__ import annotations

import threading

import pytest
from allauth.account import adapter as allauth_adapter
from django.test import Client
from django.urls import reverse

from accounts import limits
from accounts.models import Tries
from accounts.views import DOWNLOADS
from chat import services as chat_services
from chat.models import Message, MessageReport
from tests.conftest import PASSWORD, make_user, signed_in, start_match
from tests.games.test_race import require_postgresql, run_together

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_window_allows_most_tries_then_refuses_until_it_ends(db, clock):
    assert [limits.allowed("k", 3, 60) for _ in range(4)] == [True, True, True, False]
    clock.advance(seconds=61)
    assert limits.allowed("k", 3, 60), "a new window"
    assert Tries.objects.get(key="k").count == 1


def test_thirty_messages_sent_at_once_store_the_ten_a_minute_allows(alice, bob, carol):
    require_postgresql()
    matches = [start_match(alice, opponent) for opponent in (bob, carol, bob)]
    results = run_together(
        *(
            (
                lambda match=matches[n % 3], n=n: chat_services.message_post(
                    match_id=match.pk, user=alice, text=f"hi {n}"
                )
            )
            for n in range(30)
        )
    )
    assert Message.objects.filter(author=alice).count() == 10
    refused = [result for result in results if isinstance(result, chat_services.TooFast)]
    assert len(refused) == 20, [result for result in results if isinstance(result, Exception)]


def test_twenty_five_reports_at_once_store_the_ten_an_hour_allows(alice, bob):
    require_postgresql()
    match = start_match(alice, bob)
    said = [Message.objects.create(match=match, author=bob, text=f"rude {n}", after_move=0) for n in range(25)]
    run_together(
        *(
            (
                lambda message=message: chat_services.message_report(
                    match_id=match.pk, message_id=message.pk, user=alice, reason=""
                )
            )
            for message in said
        )
    )
    assert MessageReport.objects.filter(reporter=alice).count() == 10


def test_fifteen_data_downloads_at_once_give_the_five_ten_minutes_allow(alice):
    require_postgresql()
    client = signed_in(alice)
    statuses = run_together(*(lambda: client.get(reverse("account_data")).status_code for _ in range(15)))
    assert sorted(statuses) == [200] * DOWNLOADS + [429] * (15 - DOWNLOADS)


def sign_in(login: str, password: str) -> bool:
    """Whether the site's sign-in form took ``login`` and ``password``."""
    client = Client()
    client.post(reverse("account_login"), {"login": login, "password": password})
    return client.get(reverse("dashboard")).status_code == 200


def test_wrong_passwords_count_per_account_whichever_login_names_it(alice, settings):
    settings.ACCOUNT_RATE_LIMITS = False  # allauth's limits per address and per typed login are others
    for login in ("alice", "ALICE", "alice@example.com", "Alice@Example.com", "alice"):
        assert not sign_in(login, "wrong")
    assert not sign_in("alice@example.com", PASSWORD), "five wrong under any of her names: the sixth try waits"
    assert sign_in("bob-is-not-alice", "wrong") is False
    make_user("bob")
    assert sign_in("bob", PASSWORD), "another account has its own count"


def test_a_right_password_gives_back_its_try(alice, settings):
    settings.ACCOUNT_RATE_LIMITS = False
    for _ in range(4):
        assert not sign_in("alice", "wrong")
    assert sign_in("alice", PASSWORD)
    assert not sign_in("alice", "wrong"), "the fifth wrong one"
    assert not sign_in("alice", PASSWORD), "locked: five wrong ones in the window"


def test_forty_wrong_passwords_at_once_check_five(alice, settings, monkeypatch):
    """Each try that passes the limits has its password checked by Django's backends (allauth's
    ``authenticate``, the one call a try makes whatever login it names)."""
    require_postgresql()
    settings.ACCOUNT_RATE_LIMITS = False
    checked = []
    lock = threading.Lock()

    def counted(request, **credentials):
        with lock:
            checked.append(credentials)
        return real_authenticate(request, **credentials)

    real_authenticate = allauth_adapter.authenticate
    monkeypatch.setattr(allauth_adapter, "authenticate", counted)
    logins = ["alice", "alice@example.com", "ALICE"]
    run_together(*((lambda login=logins[n % 3]: sign_in(login, "wrong")) for n in range(40)))
    assert len(checked) == settings.SIGN_IN_FAILURES_PER_ACCOUNT
