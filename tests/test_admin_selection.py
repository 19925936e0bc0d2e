"""A changelist action posted with rows that are no rows (a forged or mangled form): every list
in the admin, ours and the installed apps', refuses it in words and does nothing."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.test import RequestFactory
from django.urls import reverse

from accounts.models import User
from config.admin import NO_SUCH_ROWS
from games.models import Match, MatchEvent, Status
from tests.conftest import start_match


def lists_with_actions() -> list[tuple[str, str]]:
    """Each list that has actions, with its first action."""
    request = RequestFactory().get("/")
    request.user = User(is_staff=True, is_superuser=True)  # every permission, without the database
    return [
        (reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"), next(iter(actions)))
        for model, model_admin in admin.site._registry.items()
        if (actions := model_admin.get_actions(request))
    ]


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


# Whole numbers no row's id can be: past what a 64-bit column holds, on either side.
BEYOND_EVERY_ID = ["999999999999999999999999999999", str(2**63), str(-(2**63) - 1)]


@pytest.mark.parametrize(("changelist", "action"), lists_with_actions())
@pytest.mark.parametrize("selected", [["abc"], [""], ["1.5"], *([number] for number in BEYOND_EVERY_ID)])
def test_a_forged_selection_is_refused_in_words_on_every_list(staff_client, changelist, action, selected):
    """Django answered 500 (ValueError: Field 'id' expected a number but got 'abc'; on SQLite,
    OverflowError for a number past 64 bits, which PostgreSQL compared and found no row for)."""
    response = staff_client.post(changelist, {"action": action, "index": "0", "_selected_action": selected})

    assert response.status_code == 302 and response.url == changelist
    assert [message.message for message in get_messages(response.wsgi_request)] == [NO_SUCH_ROWS]


def test_nothing_is_done_when_one_of_the_rows_is_forged(staff_client, staff, alice, bob):
    match = start_match(alice, bob)
    changelist = reverse("admin:games_match_changelist")
    chosen = {"action": "abort_matches", "_selected_action": [str(match.pk), "abc"], "reason": "Test", "apply": "1"}

    staff_client.post(changelist, {**chosen, "index": "0"})
    staff_client.post(changelist, chosen)  # the confirmation page's second post

    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    assert not MatchEvent.objects.filter(match=match, to_status=Status.ABORTED).exists()


def test_real_rows_still_get_the_action(staff_client, carol):
    staff_client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "delete_selected", "_selected_action": [str(carol.pk)], "post": "yes"},
    )

    assert not User.objects.filter(pk=carol.pk).exists()
    assert Match.objects.count() == 0


def change_pages() -> list[str]:
    """The name of the change page of every model in the admin."""
    return [f"admin:{model._meta.app_label}_{model._meta.model_name}_change" for model in admin.site._registry]


@pytest.mark.parametrize("page", change_pages())
@pytest.mark.parametrize("number", BEYOND_EVERY_ID)
def test_an_object_page_for_an_id_no_row_can_have_says_there_is_no_such_row(staff_client, page, number):
    """A match's page answered 500 on SQLite (OverflowError: Python int too large to convert to SQLite
    INTEGER, from the messages its page lists): Django's answer to a row that does not exist."""
    response = staff_client.get(reverse(page, args=[number]))

    assert response.status_code == 302 and response.url == reverse("admin:index")
    said = [message.message for message in get_messages(response.wsgi_request)]
    assert len(said) == 1 and f"ID “{number}” doesn’t exist" in said[0]
