"""Acting from a match's own page in the admin: the buttons that apply to it (abort, a seat to
the AI, more time, Send again where sending makes sense, also on the notifications list), each
posted with a CSRF token, and refused without the permission it needs."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains, assertTemplateUsed

from games import services
from games.models import Match, MatchEvent, Seat, Status
from games.services import SeatSpec
from notifications import services as notification_services
from notifications.models import Notification
from notifications.services import resending
from tests.conftest import make_user, start_match
from tests.games.conftest import play_moves, start_timed_match

# --- acting from a match's own page ---------------------------------------------------------------------------

ON_ITS_PAGE = "CHANGE_FORM-action"  # the action field's name on an object's own admin page


def match_page(match: Match) -> str:
    return reverse("admin:games_match_change", args=[match.pk])


def buttons(response) -> list[str]:
    return [label for _action, _seat, label in response.context["match_tools"]]


def act(client, match: Match, data: dict):
    """Post ``data`` on the match's page, follow the answer, and return it."""
    response = client.post(match_page(match), data, follow=True)
    assert response.redirect_chain == [(match_page(match), 302)], "back on the match's page"
    return response


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_a_matchs_page_offers_only_the_actions_that_apply_to_it(staff_client, staff, alice, bob, carol):
    timed = start_timed_match(alice, bob)  # Alice is to act: her clock runs, Bob's does not
    page = staff_client.get(match_page(timed))
    assert buttons(page) == [
        "Abort this match",
        "Replace Alice (seat 1) by the AI",
        "Extend Alice's deadline (seat 1)",
        "Replace Bob (seat 2) by the AI",
    ]
    assertContains(page, "Manage this match")
    assertContains(page, '<button type="submit" class="button">Abort this match</button>', html=True)

    against_ai = start_match(carol, ai_level=2)  # no clock; the AI's seat is no person's
    assert buttons(staff_client.get(match_page(against_ai))) == ["Abort this match", "Replace Carol (seat 1) by the AI"]
    open_challenge = services.match_create(
        creator=carol, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    assert buttons(staff_client.get(match_page(open_challenge))) == [
        "Abort this match",
        "Replace Carol (seat 1) by the AI",
    ]

    services.match_abort(match_id=timed.pk, actor=staff, reason="Test")
    over = staff_client.get(match_page(timed))
    assert buttons(over) == []
    assertNotContains(over, "Manage this match")


def test_staff_abort_a_match_from_its_page_after_giving_a_reason(staff_client, staff, alice, bob):
    match = start_match(alice, bob)
    chosen = {ON_ITS_PAGE: "abort_matches", "_selected_action": match.pk}

    form_page = staff_client.post(match_page(match), chosen)
    assertTemplateUsed(form_page, "admin/games/replace_seat.html")
    assertContains(form_page, "Abort this match:")
    assertContains(form_page, f'<input type="hidden" name="{ON_ITS_PAGE}" value="abort_matches">', html=True)
    assertContains(form_page, "Emailed to every player")
    match.refresh_from_db()
    assert match.status == Status.ACTIVE, "nothing happens before the form is sent"

    response = act(staff_client, match, {**chosen, "apply": "1", "reason": "Cheating reported"})

    assert messages_of(response) == [f"{match} aborted."]
    match.refresh_from_db()
    assert match.status == Status.ABORTED
    assert MatchEvent.objects.filter(match=match).last().reason == "Staff aborted the match: Cheating reported."
    history = staff_client.get(reverse("admin:games_match_history", args=[match.pk]))
    assertContains(history, f"{match} aborted. Reason: Cheating reported")

    # A second tab still showing the button: refused in words, and nothing is written.
    again = act(staff_client, match, {**chosen, "apply": "1", "reason": "Twice"})
    assert messages_of(again) == [f"{match}: This match is already cancelled."]
    assert MatchEvent.objects.filter(match=match, to_status=Status.ABORTED).count() == 1


def test_staff_give_a_players_seat_to_the_ai_from_the_matchs_page(staff_client, staff, alice, bob):
    match = start_match(alice, bob)
    chosen = {ON_ITS_PAGE: "replace_seat_by_ai", "_selected_action": match.pk, "seat": "2"}

    form_page = staff_client.post(match_page(match), chosen)
    assert form_page.context["form"]["seat"].value() == "2", "the seat's own button named it"
    assertContains(form_page, "Replace a seat by the AI:")

    response = act(staff_client, match, {**chosen, "apply": "1", "level": "2", "reason": "Bob left the site"})

    assert messages_of(response) == [f"{match}: The AI (Strong) plays seat 2."]
    seat = Seat.objects.get(match=match, number=1)
    assert (seat.user, seat.former_user, seat.ai_level) == (None, bob, 2)
    assertContains(
        staff_client.get(reverse("admin:games_match_history", args=[match.pk])),
        "The AI (Strong) plays seat 2. Reason: Bob left the site",
    )
    assert "Replace Bob (seat 2) by the AI" not in buttons(staff_client.get(match_page(match)))


def test_staff_extend_a_deadline_from_the_matchs_page_or_are_told_why_not(staff_client, alice, bob, clock):
    match = start_timed_match(alice, bob)
    deadline = Seat.objects.get(match=match, number=0).deadline
    chosen = {ON_ITS_PAGE: "extend_deadline", "_selected_action": match.pk}

    response = act(staff_client, match, {**chosen, "seat": "1", "apply": "1", "hours": "48", "reason": "Hospital stay"})

    assert Seat.objects.get(match=match, number=0).deadline == deadline + timedelta(hours=48)
    [done] = messages_of(response)
    assert done.startswith(f"{match}: Seat 1 now has until ")
    assertContains(staff_client.get(reverse("admin:games_match_history", args=[match.pk])), "Reason: Hospital stay")

    # Bob is not to act: a page older than his turn's end offered nothing the service would do.
    refused = act(staff_client, match, {**chosen, "seat": "2", "apply": "1", "hours": "48", "reason": "Late"})
    assert messages_of(refused) == [f"{match}: That seat has no clock running."]


def sent(notification: Notification) -> Notification:
    Notification.objects.filter(pk=notification.pk).update(sent_at=timezone.now(), outcome="sent", attempts=1)
    return notification


def test_staff_send_a_notification_again_from_its_row_on_the_matchs_page(
    staff_client, alice, bob, carol, django_capture_on_commit_callbacks
):
    match = start_match(alice, bob)
    services.match_abort(match_id=match.pk, actor=None, reason="Test")
    over = sent(Notification.objects.get(user=bob, match=match, kind=Notification.Kind.MATCH_OVER))
    page = staff_client.get(match_page(match))
    assertContains(
        page,
        f'<button type="submit" form="resend-notification" name="notification" '
        f'value="{over.pk}" class="button">Send again</button>',
        html=True,
    )
    assertContains(page, f'<input type="hidden" name="{ON_ITS_PAGE}" value="resend_notification">', html=True)
    chosen = {ON_ITS_PAGE: "resend_notification", "_selected_action": match.pk}

    with django_capture_on_commit_callbacks(execute=False):
        response = act(staff_client, match, {**chosen, "notification": over.pk})

    assert messages_of(response) == ["1 notification queued again, to be sent as they were written."]
    copy = Notification.objects.get(resent_from=over)
    assertContains(
        staff_client.get(reverse("admin:games_match_history", args=[match.pk])),
        f"Notification {over.pk} (Match over to Bob) sent again, as notification {copy.pk}.",
    )
    # Only this match's rows: another match's number posted here is not sent.
    elsewhere = sent(
        Notification.objects.get(user=carol, kind=Notification.Kind.INVITATION, match=start_timed_match(alice, carol))
    )
    staff_client.post(match_page(match), {**chosen, "notification": elsewhere.pk})
    assert not Notification.objects.filter(resent_from=elsewhere).exists()


def resend_buttons(response, name: str = "notification") -> set[int]:
    """The notifications whose row on the page has a "Send again" button."""
    return {
        int(pk)
        for pk in re.findall(rf'form="resend-notification" name="{name}" value="(\d+)"', response.content.decode())
    }


@pytest.fixture
def notices(alice, bob, carol):
    """Sent notices of two matches, one of each case: Bob's turn now (true still), Alice's turn
    before her move, Bob's accepted invitation, a reminder still to come; and the results of a
    cancelled match to a player who chose no email and to one whose account is closed."""
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    cancelled = start_match(alice, carol)
    services.match_abort(match_id=cancelled.pk, actor=None, reason="Test")
    Notification.objects.filter(kind=Notification.Kind.REMINDER).delete()
    Notification.objects.update(sent_at=timezone.now(), outcome="sent", attempts=1)
    to_come = Notification.objects.create(
        user=bob,
        match=match,
        kind=Notification.Kind.REMINDER,
        subject="A day left",
        body="Your clock runs out tomorrow.",
        due_at=timezone.now() + timedelta(days=1),
    )
    type(alice).objects.filter(pk=alice.pk).update(turn_notice="none")
    type(carol).objects.filter(pk=carol.pk).update(is_active=False)
    kind = Notification.Kind
    return {
        "match": match,
        "cancelled": cancelled,
        "bobs_turn": Notification.objects.get(user=bob, match=match, kind=kind.YOUR_TURN),
        "alices_turn": Notification.objects.get(user=alice, match=match, kind=kind.YOUR_TURN),
        "invitation": Notification.objects.get(user=bob, match=match, kind=kind.INVITATION),
        "to_come": to_come,
        "unsubscribed": Notification.objects.get(user=alice, match=cancelled, kind=kind.MATCH_OVER),
        "closed": Notification.objects.get(user=carol, match=cancelled, kind=kind.MATCH_OVER),
    }


def test_a_matchs_page_offers_send_again_only_where_sending_it_makes_sense(staff_client, notices):
    """It was offered on every sent row, then refused in words: an invitation Bob had accepted,
    a "your turn" after the turn, a result to a player who unsubscribed or whose account is closed."""
    match, cancelled = notices["match"], notices["cancelled"]

    assert resend_buttons(staff_client.get(match_page(match))) == {notices["bobs_turn"].pk}
    assert resend_buttons(staff_client.get(match_page(cancelled))) == set()

    # A page from before (or a forged form) posting one that makes no sense: refused in words, nothing sent.
    chosen = {ON_ITS_PAGE: "resend_notification", "_selected_action": match.pk}
    refused = act(staff_client, match, {**chosen, "notification": notices["invitation"].pk})
    assert messages_of(refused) == [
        f"Notification {notices['invitation'].pk} (Invitation to Bob about {match}): {resending.INVITATION_CLOSED}",
        "0 notifications queued again, to be sent as they were written.",
    ]
    closed = act(
        staff_client, cancelled, {**chosen, "_selected_action": cancelled.pk, "notification": notices["closed"].pk}
    )
    assert messages_of(closed)[0].endswith(resending.ACCOUNT_CLOSED)
    assert not Notification.objects.filter(resent_from__isnull=False).exists()


def test_the_notifications_list_offers_send_again_on_the_rows_where_it_makes_sense(
    staff_client, notices, django_capture_on_commit_callbacks
):
    notes = reverse("admin:notifications_notification_changelist")
    page = staff_client.get(notes)
    assert resend_buttons(page, "_selected_action") == {notices["bobs_turn"].pk}

    with django_capture_on_commit_callbacks(execute=False):
        response = staff_client.post(
            notes,
            {
                "action": "resend",
                "index": "0",  # what the row's button posts
                "_selected_action": notices["bobs_turn"].pk,
            },
            follow=True,
        )

    assert [str(message) for message in response.context["messages"]] == [
        "1 notification queued again, to be sent as they were written."
    ]
    assert Notification.objects.get(resent_from__isnull=False).resent_from == notices["bobs_turn"]


def test_a_closed_account_is_sent_nothing_again(notices):
    """A copy goes out as it was written, without the checks made when sending: staff could
    mail a player whose account is closed."""
    with pytest.raises(services.ServiceError, match=resending.ACCOUNT_CLOSED):
        notification_services.notification_resend(notification_id=notices["closed"].pk)


def test_the_notifications_list_makes_as_many_queries_for_thirty_rows_as_for_five(staff_client, alice, bob):
    """Whether each row may be sent again is read with the rows, not one query each."""

    def listed_queries() -> int:
        Notification.objects.update(sent_at=timezone.now(), outcome="sent")
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(reverse("admin:notifications_notification_changelist")).status_code == 200
        return len(queries)

    def play(count):
        for _ in range(count):
            play_moves(match, {0: alice, 1: bob}, 1, slowly=True)
            Notification.objects.update(sent_at=timezone.now(), outcome="sent")  # the next turn gets its own

    match = start_timed_match(alice, bob, options={"variant": "ethiopian"})
    play(3)
    listed_queries()  # the first request fills caches the next ones reuse
    few = listed_queries()
    play(25)
    assert Notification.objects.count() >= 30
    assert listed_queries() == few


def test_a_moderator_with_the_match_permission_acts_from_the_page_but_sends_no_notification(client, alice, bob):
    match = start_timed_match(alice, bob)
    sent(Notification.objects.get(user=bob, match=match, kind=Notification.Kind.INVITATION))
    moderator = make_user("moderator", is_staff=True)
    moderator.user_permissions.add(Permission.objects.get(codename="change_match"))
    client.force_login(moderator)

    page = client.get(match_page(match))

    assert buttons(page) == [
        "Abort this match",
        "Replace Alice (seat 1) by the AI",
        "Extend Alice's deadline (seat 1)",
        "Replace Bob (seat 2) by the AI",
    ]
    assertNotContains(page, "Send again")
    assertNotContains(page, "resend-notification")
    response = act(
        client, match, {ON_ITS_PAGE: "abort_matches", "_selected_action": match.pk, "apply": "1", "reason": "Reported"}
    )
    assert messages_of(response) == [f"{match} aborted."]
    over = sent(Notification.objects.get(user=bob, match=match, kind=Notification.Kind.MATCH_OVER))
    client.post(
        match_page(match), {ON_ITS_PAGE: "resend_notification", "_selected_action": match.pk, "notification": over.pk}
    )
    assert not Notification.objects.filter(resent_from=over).exists(), "resending needs the notifications' permission"


def test_a_moderator_who_may_only_look_gets_no_buttons_and_cannot_post_one(client, alice, bob):
    match = start_timed_match(alice, bob)
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client.force_login(viewer)

    page = client.get(match_page(match))

    assert page.status_code == 200 and buttons(page) == []
    assertNotContains(page, "Manage this match")
    response = client.post(
        match_page(match),
        {ON_ITS_PAGE: "abort_matches", "_selected_action": match.pk, "apply": "1", "reason": "no right"},
    )
    assert response.status_code == 403
    match.refresh_from_db()
    assert match.status == Status.ACTIVE


def test_the_matchs_page_buttons_post_with_a_csrf_token_and_are_refused_without(staff, alice, bob):
    from django.test import Client

    match = start_match(alice, bob)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    page = browser.get(match_page(match)).content.decode()
    tools = page[page.index('id="match-tools"') : page.index('id="content-main"')]
    # Abort, two seats to the AI, and the form the notifications' "Send again" buttons belong to.
    assert tools.count('method="post"') == tools.count('name="csrfmiddlewaretoken"') == 4

    forged = browser.post(
        match_page(match),
        {ON_ITS_PAGE: "abort_matches", "_selected_action": match.pk, "apply": "1", "reason": "From another site"},
    )

    assert forged.status_code == 403
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
