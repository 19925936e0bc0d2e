"""Staff and the players' messages: read on a match's admin page, hidden with a tick (the match
page then says "(message removed by staff)" with its author and time), found in a list by words,
author or whether hidden."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from games import services
from games.models import Match, Message
from tests.conftest import make_user, signed_in


@pytest.fixture
def said(alice, bob, match) -> list[Message]:
    return [services.message_post(match_id=match.pk, user=alice, text="good luck"),
            services.message_post(match_id=match.pk, user=bob, text="rude words")]


def admin_page(match: Match) -> str:
    return reverse("admin:games_match_change", args=[match.pk])


def sent_form(page: str, ticked: list[str]) -> dict:
    """The match's admin form as a browser sends it: its hidden fields, the boxes ``ticked``, Save."""
    data = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    return {**data, **dict.fromkeys(ticked, "on"), "_continue": "Save and continue editing"}


def test_staff_read_the_messages_on_the_match_s_page_and_hide_one(staff, alice, bob, match, said):
    client = signed_in(staff)
    page = client.get(admin_page(match)).content.decode()
    assert "good luck" in page and "rude words" in page and 'name="_save"' in page
    checkboxes = re.findall(r'<input type="checkbox" name="(messages-\d+-hidden)"', page)
    assert len(checkboxes) == 2
    assert 'name="messages-0-text"' not in page, "the text is read-only"
    before = Match.objects.get(pk=match.pk).revision

    response = client.post(admin_page(match), sent_form(page, [checkboxes[1]]))

    assert response.status_code == 302
    assert [m.hidden for m in Message.objects.order_by("pk")] == [False, True]
    assert Match.objects.get(pk=match.pk).revision == before + 1, "open pages redraw"
    shown = signed_in(alice).get(reverse("match_detail", args=[match.pk])).content.decode()
    removed = shown.split(f'id="message-{said[1].pk}"')[1].split("</li>")[0]
    assert "rude words" not in shown and "(message removed by staff)" in removed and ">Bob</a>" in removed


def test_saving_the_page_leaves_the_match_as_it_stands(staff, alice, match, said):
    """The form read the match before a move made meanwhile: saving must not write it back."""
    client = signed_in(staff)
    page = client.get(admin_page(match)).content.decode()
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    client.post(admin_page(match), sent_form(page, []))
    assert Match.objects.get(pk=match.pk).version == 1


def test_staff_who_may_only_look_read_them_without_boxes(client, match, said):
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename="view_match"))
    page = signed_in(viewer).get(admin_page(match)).content.decode()
    assert "rude words" in page and 'type="checkbox" name="messages-' not in page and 'name="_save"' not in page


def test_the_list_finds_messages_by_words_author_and_hidden(staff, match, said):
    client = signed_in(staff)
    url = reverse("admin:games_message_changelist")
    services.message_hide(message_id=said[1].pk, hidden=True)
    assert "rude words" in client.get(url, {"q": "rude"}).content.decode()
    assert "good luck" not in client.get(url, {"q": "rude"}).content.decode()
    by_bob = client.get(url, {"q": "bob"}).content.decode()
    assert "rude words" in by_bob and "good luck" not in by_bob
    hidden = client.get(url, {"hidden__exact": "1"}).content.decode()
    assert "rude words" in hidden and "good luck" not in hidden
    assert client.get(url, {"match__seed__gte": "0"}).status_code == 400, "no question about a match's seed"


def test_the_list_hides_a_message_through_the_service(staff, match, said):
    client = signed_in(staff)
    before = Match.objects.get(pk=match.pk).revision
    data = {"form-TOTAL_FORMS": "2", "form-INITIAL_FORMS": "2", "form-0-id": said[1].pk, "form-0-hidden": "on",
            "form-1-id": said[0].pk, "_save": "Save"}
    response = client.post(reverse("admin:games_message_changelist"), data)
    assert response.status_code == 302
    assert [m.hidden for m in Message.objects.order_by("pk")] == [False, True]
    assert Match.objects.get(pk=match.pk).revision == before + 1
