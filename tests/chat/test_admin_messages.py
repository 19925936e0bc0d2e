"""Staff and the players' messages: read on a match's admin page, hidden with a tick (the match
page then says "(message removed by staff)" with its author and time), found in a list by words,
author or whether hidden."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from chat import services as chat_services
from chat.models import Message, MessageReport
from games import services
from games.models import Match
from tests.conftest import make_user, signed_in


@pytest.fixture
def said(alice, bob, match) -> list[Message]:
    return [
        chat_services.message_post(match_id=match.pk, user=alice, text="good luck"),
        chat_services.message_post(match_id=match.pk, user=bob, text="rude words"),
    ]


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
    url = reverse("admin:chat_message_changelist")
    chat_services.message_hide(message_id=said[1].pk, hidden=True)
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
    data = {
        "form-TOTAL_FORMS": "2",
        "form-INITIAL_FORMS": "2",
        "form-0-id": said[1].pk,
        "form-0-hidden": "on",
        "form-1-id": said[0].pk,
        "_save": "Save",
    }
    response = client.post(reverse("admin:chat_message_changelist"), data)
    assert response.status_code == 302
    assert [m.hidden for m in Message.objects.order_by("pk")] == [False, True]
    assert Match.objects.get(pk=match.pk).revision == before + 1


@pytest.fixture
def reported(alice, bob, carol, staff, said) -> Message:
    """Bob's rude words, reported by Alice and by staff; Alice's 'good luck' by nobody."""
    for reporter, reason in ((alice, "insult"), (staff, "")):
        chat_services.message_report(match_id=said[1].match_id, message_id=said[1].pk, user=reporter, reason=reason)
    return said[1]


def rows(page: str) -> list[str]:
    """The list's rows, top to bottom."""
    table = page.split('id="result_list"')[1].split("</table>")[0]
    return re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.DOTALL)


def test_the_list_filters_reported_messages_and_counts_their_reports(staff, reported):
    client = signed_in(staff)
    url = reverse("admin:chat_message_changelist")
    listed = client.get(url).content.decode()
    assert "sortable column-report_count" in listed
    [rude] = [row for row in rows(listed) if "rude words" in row]
    [kind] = [row for row in rows(listed) if "good luck" in row]
    assert '<td class="field-report_count">2</td>' in rude and '<td class="field-report_count">0</td>' in kind
    yes = client.get(url, {"reported": "yes"}).content.decode()
    assert "rude words" in yes and "good luck" not in yes
    no = client.get(url, {"reported": "no"}).content.decode()
    assert "good luck" in no and "rude words" not in no
    most = rows(client.get(url, {"o": "-5"}).content.decode())
    assert "rude words" in most[0] and "good luck" in most[1], "sorted by the number of reports"


def test_a_message_s_admin_page_lists_its_reports_read_only(staff, reported):
    page = signed_in(staff).get(reverse("admin:chat_message_change", args=[reported.pk])).content.decode()
    section = page.split('id="reports-group"')[1]
    assert "Alice" in section and "insult" in section and "staffer" in section
    assert 'name="reports-0-reason"' not in section, "read-only"


def test_the_match_s_admin_page_counts_each_message_s_reports(staff, match, reported):
    page = signed_in(staff).get(admin_page(match)).content.decode()
    messages = page.split('id="messages-group"')[1]
    assert "Reports" in messages.split("</thead>")[0]
    cells = re.findall(r'<td class="field-report_count">\s*<p>(\d+)</p>', messages)
    assert cells == ["0", "2"]


def test_staff_hide_a_reported_message_on_its_own_page(staff, match, reported):
    client = signed_in(staff)
    url = reverse("admin:chat_message_change", args=[reported.pk])
    page = client.get(url).content.decode()
    response = client.post(
        url,
        {
            **dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)),
            "hidden": "on",
            "_save": "Save",
        },
    )
    assert response.status_code == 302 and Message.objects.get(pk=reported.pk).hidden
    assert MessageReport.objects.filter(message=reported).count() == 2, "the reports stay"
