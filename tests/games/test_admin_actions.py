"""The admin's actions on the list of matches, which go through the same services as the site:
abort, give a seat to the AI and extend a deadline (said on the staff member's clock), each
asking first and shown in the history; staff who may only look get no actions."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains, assertTemplateUsed

from games import services
from games.models import MatchEvent, Seat, Status
from notifications.models import Notification
from tests.conftest import make_user
from tests.games.conftest import CHANGELIST, start_timed_match


def test_the_abort_action_asks_why_then_aborts_through_the_service(staff_client, staff, matches):
    in_play, aborted = matches["alice_bob"], matches["aborted"]
    chosen = {"action": "abort_matches", "_selected_action": [in_play.pk, aborted.pk]}

    form_page = staff_client.post(CHANGELIST, chosen)
    assert form_page.status_code == 200 and "Emailed to every player" in form_page.content.decode()
    listed = form_page.content.decode()
    assert f"<li>{in_play}: " in listed and f"<li>{aborted} (cancelled): " in listed, "what cannot be aborted shows"
    in_play.refresh_from_db()
    assert in_play.status == Status.ACTIVE, "nothing happens before the form is sent"

    response = staff_client.post(CHANGELIST, {**chosen, "apply": "Abort", "reason": "Cheating reported"}, follow=True)

    texts = [str(message) for message in response.context["messages"]]
    assert f"{in_play} aborted." in texts
    assert f"{aborted}: This match is already cancelled." in texts
    in_play.refresh_from_db()
    assert in_play.status == Status.ABORTED and in_play.finished_at is not None
    assert not in_play.seats.filter(to_act=True).exists()
    event = MatchEvent.objects.filter(match=in_play).last()
    assert (event.from_status, event.to_status, event.actor, event.reason) == (
        Status.ACTIVE,
        Status.ABORTED,
        staff,
        "Staff aborted the match: Cheating reported.",
    )
    told = Notification.objects.filter(match=in_play, kind=Notification.Kind.MATCH_OVER)
    assert told.count() == 2 and all("Cheating reported" in notice.body for notice in told)
    assert MatchEvent.objects.filter(match=aborted, to_status=Status.ABORTED).count() == 1


def test_what_staff_did_through_the_actions_shows_in_the_history_and_recent_actions(staff_client, alice, bob, matches):
    """A match aborted in the admin had "no change history. It probably wasn't added via this
    admin site", and the admin's home page listed none of the staff member's actions."""
    in_play, aborted = matches["alice_bob"], matches["aborted"]
    staff_client.post(
        CHANGELIST,
        {
            "action": "abort_matches",
            "_selected_action": [in_play.pk, aborted.pk],
            "apply": "Abort",
            "reason": "Cheating reported",
        },
    )
    over = Notification.objects.get(user=alice, match=in_play, kind=Notification.Kind.MATCH_OVER)
    Notification.objects.filter(pk=over.pk).update(sent_at=timezone.now(), outcome="sent")
    staff_client.post(
        reverse("admin:notifications_notification_changelist"), {"action": "resend", "_selected_action": [over.pk]}
    )

    history = staff_client.get(reverse("admin:games_match_history", args=[in_play.pk]))
    assertContains(history, f"{in_play} aborted. Reason: Cheating reported")
    refused = staff_client.get(reverse("admin:games_match_history", args=[aborted.pk]))
    assertNotContains(refused, "Reason: Cheating reported")  # nothing happened to it
    copy = Notification.objects.get(resent_from=over)
    assertContains(
        staff_client.get(reverse("admin:notifications_notification_history", args=[over.pk])),
        f"Sent again, as notification {copy.pk}.",
    )
    recent = staff_client.get(reverse("admin:index"))
    assertContains(recent, str(in_play))
    assertNotContains(recent, "None available")


def test_the_replace_seat_action_asks_which_seat_then_hands_it_to_the_ai(
    staff_client, staff, matches, django_capture_on_commit_callbacks
):
    match = matches["alice_bob"]
    chosen = {"action": "replace_seat_by_ai", "_selected_action": [match.pk]}

    form_page = staff_client.post(CHANGELIST, chosen)
    assert form_page.status_code == 200
    assertTemplateUsed(form_page, "admin/games/replace_seat.html")
    assertContains(form_page, "Seat 2: Bob")
    assertContains(form_page, '<option value="2">2: Strong</option>', html=True)  # levels by name, not a bare number
    assertContains(form_page, f'<input type="hidden" name="_selected_action" value="{match.pk}">', html=True)
    assert Seat.objects.get(match=match, number=1).user is not None, "nothing changes before the form is sent"

    # Seat 1 (Alice) is to act: handing it over asks the AI to move once the change is committed.
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(
            CHANGELIST,
            {**chosen, "apply": "Replace the seat", "seat": "1", "level": "1", "reason": "Alice left the site"},
        )
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [f"{match}: The AI (Easy) plays seat 1."]
    seat = Seat.objects.get(match=match, number=0)
    assert (seat.user, seat.ai_level, seat.accepted) == (None, 1, True)
    event = MatchEvent.objects.filter(match=match).last()
    assert (event.reason, event.actor, event.to_status) == (
        "Staff gave Alice's seat to the AI: Alice left the site.",
        staff,
        Status.ACTIVE,
    )
    # The AI moves (Bob plays the AI alone now), and Alice is told.
    assert [c.func.__name__ for c in callbacks] == ["enqueue_ai_move_alone", "enqueue_notification"]


def test_the_replace_seat_action_warns_about_a_seat_that_does_not_exist(staff_client, matches):
    match = matches["alice_bob"]
    response = staff_client.post(
        CHANGELIST,
        {
            "action": "replace_seat_by_ai",
            "_selected_action": [match.pk],
            "apply": "Replace the seat",
            "seat": "3",
            "level": "1",
            "reason": "Typo",
        },
        follow=True,
    )
    assert [str(message) for message in response.context["messages"]] == [
        f"{match}: There is no seat 3: its seats are 1 to 2."
    ]
    assert not Seat.objects.filter(match=match, ai_level__isnull=False).exists()


def test_staff_who_may_only_look_get_no_actions_and_cannot_post_one(client, bob, matches):
    """Abort, replace, extend and resend change matches and send mail: they need the "change"
    permission, not "view" alone."""
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["view_match", "view_notification"]))
    client.force_login(viewer)
    matches_page = client.get(reverse("admin:games_match_changelist")).content.decode()
    notes_page = client.get(reverse("admin:notifications_notification_changelist")).content.decode()
    for action in ("abort_matches", "extend_deadline", "replace_seat_by_ai", "resend"):
        assert f'value="{action}"' not in matches_page + notes_page, action
    match = matches["alice_bob"]
    client.post(
        reverse("admin:games_match_changelist"),
        {"action": "abort_matches", "_selected_action": [match.pk], "apply": "1", "reason": "no right"},
    )
    note = Notification.objects.filter(user=bob).first()
    before = Notification.objects.count()
    client.post(
        reverse("admin:notifications_notification_changelist"), {"action": "resend", "_selected_action": [note.pk]}
    )
    match.refresh_from_db()
    assert match.status != Status.ABORTED and Notification.objects.count() == before
    viewer.user_permissions.add(*Permission.objects.filter(codename__in=["change_match", "change_notification"]))
    viewer = type(viewer).objects.get(pk=viewer.pk)  # permissions are cached on the user object
    client.force_login(viewer)
    matches_page = client.get(reverse("admin:games_match_changelist")).content.decode()
    notes_page = client.get(reverse("admin:notifications_notification_changelist")).content.decode()
    for action in ("abort_matches", "extend_deadline", "replace_seat_by_ai", "resend"):
        assert f'value="{action}"' in matches_page + notes_page, action


def test_staff_see_the_clocks_and_pending_notifications_and_extend_a_deadline_with_a_reason(
    staff_client, alice, bob, staff, clock
):
    match = start_timed_match(alice, bob)
    deadline = Seat.objects.get(match=match, number=0).deadline
    page = staff_client.get(reverse("admin:games_match_change", args=[match.pk]))
    assertContains(page, "Deadline")
    assertContains(page, "Time is running out in")  # Alice's pending reminders
    assertContains(page, "Fixed days per move")

    chosen = {"action": "extend_deadline", "_selected_action": [match.pk]}
    form_page = staff_client.post(CHANGELIST, chosen)
    assertContains(form_page, "Extend a seat&#x27;s deadline")
    response = staff_client.post(
        CHANGELIST, {**chosen, "apply": "1", "seat": "1", "hours": "48", "reason": "Hospital stay"}, follow=True
    )
    assert response.status_code == 200
    assert Seat.objects.get(match=match, number=0).deadline == deadline + timedelta(hours=48)
    event = MatchEvent.objects.filter(match=match).last()
    assert event.actor == staff and "48 more hours: Hospital stay" in event.reason
    due = Notification.objects.filter(match=match, kind="reminder", sent_at__isnull=True).order_by("due_at")
    assert due.first().due_at > clock.now + timedelta(days=1), "reminders follow the new deadline"
    until = timezone.localtime(deadline + timedelta(hours=48)).strftime("%-d %B %Y, %H:%M")
    assert f"{match}: Seat 1 now has until {until}" in next(str(m) for m in response.context["messages"])

    services.vacation_start(user_id=alice.pk, days=3)  # her clock stops with 4 days left
    response = staff_client.post(
        CHANGELIST, {**chosen, "apply": "1", "seat": "1", "hours": "24", "reason": "More"}, follow=True
    )
    assert [str(m) for m in response.context["messages"]] == [
        f"{match}: Seat 1 now has 5 d 0 h left once the vacation ends."
    ]


def test_an_extended_deadline_is_said_on_the_staff_members_clock_as_the_site_writes_it(
    staff_client, alice, bob, staff, clock
):
    staff.time_zone = "Pacific/Chatham"  # the tz database writes "+1345" there
    staff.save()
    clock.now = datetime.fromisoformat("2026-03-28T11:00Z")
    match = start_timed_match(alice, bob)  # two days: 30 March, 11:00 UTC
    response = staff_client.post(
        CHANGELIST,
        {
            "action": "extend_deadline",
            "_selected_action": [match.pk],
            "apply": "1",
            "seat": "1",
            "hours": "1",
            "reason": "More",
        },
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == [
        f"{match}: Seat 1 now has until 31 March 2026, 01:45 UTC+13:45."
    ]
