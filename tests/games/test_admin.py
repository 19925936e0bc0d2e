"""The staff admin: finding matches, looking inside one, and the actions, which go
through the same services as the site."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags
from pytest_django.asserts import assertContains, assertNotContains, assertTemplateUsed

from chat import services as chat_services
from chat.models import Message
from games import services
from games.models import Match, MatchEvent, MoveRecord, Seat, Status
from games.services import ClockSpec, SeatSpec
from notifications import services as notification_services
from notifications.models import Notification
from notifications.services import resending
from tests.conftest import make_user, start_match
from tests.games.conftest import play_random_moves, start_timed_match
from tests.games.test_views import play_moves

CHANGELIST = reverse("admin:games_match_changelist")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def matches(alice, bob, carol, staff):
    """One match in each state worth finding: alice-bob and carol-AI in play, carol's open
    challenge, and an aborted bob-carol match."""
    aborted = start_match(bob, carol)
    services.match_abort(match_id=aborted.pk, actor=staff, reason="Test")
    return {
        "alice_bob": start_match(alice, bob),
        "carol_ai": start_match(carol, ai_level=2),
        "open": services.match_create(
            creator=carol, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
        ),
        "aborted": aborted,
    }


def listed(response) -> set[int]:
    return {match.pk for match in response.context["cl"].result_list}


def pks(matches: dict[str, Match], *names: str) -> set[int]:
    return {matches[name].pk for name in names}


def test_it_lists_matches_with_game_status_players_and_whose_turn(staff_client, matches):
    response = staff_client.get(CHANGELIST)

    assert listed(response) == pks(matches, "alice_bob", "carol_ai", "open", "aborted")
    assertContains(response, '<td class="field-game_name">Mancala</td>', count=4, html=True)
    assertContains(response, '<td class="field-status">In play</td>', count=2, html=True)
    assertContains(response, '<td class="field-status">Waiting for players</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Alice, Bob</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Carol, AI (Strong)</td>', count=1, html=True)
    assertContains(response, '<td class="field-players">Carol, Open seat</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">Alice</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">Carol</td>', count=1, html=True)
    assertContains(response, '<td class="field-whose_turn">—</td>', count=2, html=True)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status=active", {"alice_bob", "carol_ai"}),
        ("status=open", {"open"}),
        ("game=mancala", {"alice_bob", "carol_ai", "open", "aborted"}),
        ("game=mancala&status=aborted", {"aborted"}),
        ("turn=human", {"alice_bob", "carol_ai"}),
        ("q=bob", {"alice_bob", "aborted"}),
        ("q=Mancala %23{carol_ai}", {"carol_ai"}),  # as emails and messages name a match; pasted, it found nothing
        ("q=%23{open}", {"open"}),
        ("q=Mancala %23{alice_bob} (Egyptian)", {"alice_bob"}),
        ("q=carol&status=active", {"carol_ai"}),
    ],
)
def test_it_filters_and_searches_matches(staff_client, matches, query, expected):
    response = staff_client.get(f"{CHANGELIST}?{query.format(**{name: match.pk for name, match in matches.items()})}")
    assert response.status_code == 200
    assert listed(response) == pks(matches, *expected)


def test_staff_find_a_match_by_its_number_or_by_part_of_a_players_name_or_email(staff_client, matches, carol):
    left = start_timed_match(carol, make_user("dave", display_name="Davina"), make_user("erin"), game="jeexa")
    services.match_resign(match_id=left.pk, user=carol)  # the AI took her seat: found by her name still

    def found(words: str) -> set[int]:
        response = staff_client.get(CHANGELIST, {"q": words})
        assert response.status_code == 200
        return listed(response)

    everyone = pks(matches, "alice_bob", "carol_ai", "open", "aborted") | {left.pk}
    assert found("ali") == pks(matches, "alice_bob")
    assert found("carol@example") == pks(matches, "carol_ai", "open", "aborted") | {left.pk}
    assert found("davina") == found("DAVE") == {left.pk}
    assert found("carol example") == found("carol@example"), "every word names the same player"
    assert found("bob carol") == set()
    assert found(f"{left.pk}") == found(f"'{left.pk}'") == found(f"{left.pk} erin") == {left.pk}
    assert found("") == everyone and found("nobody") == set()


def test_searching_or_filtering_by_player_does_not_compare_whole_match_rows(staff_client, matches):
    """A join of seats and players lists a match once per seat, and DISTINCT then compared
    whole match rows, state included: 1.5 s for a search at 90,000 matches."""
    for query in ({"q": "bob"}, {"turn": "human"}, {"turn": "ai"}):
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(CHANGELIST, query).status_code == 200
        assert not [q["sql"] for q in queries.captured_queries if 'DISTINCT "games_match"."id"' in q["sql"]]


def test_the_game_filter_names_every_game_even_without_a_match(staff_client, matches):
    response = staff_client.get(CHANGELIST)
    choices = {
        choice["display"]
        for spec in response.context["cl"].filter_specs
        if spec.title == "game"
        for choice in spec.choices(response.context["cl"])
    }
    assert choices == {"All", "Mancala", "Mecca", "Jeexa", "Mesopotamia"}
    assert listed(staff_client.get(f"{CHANGELIST}?game=jeexa")) == set()


def test_its_change_page_shows_seats_moves_events_emails_and_the_position_but_not_the_seed(staff_client, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    chat_services.message_post(match_id=match.pk, user=bob, text="nice opening")

    response = staff_client.get(reverse("admin:games_match_change", args=[match.pk]))

    inlines = {inline.formset.model.__name__: len(inline.forms) for inline in response.context["inline_admin_formsets"]}
    assert inlines == {
        "Seat": 2,
        "MoveRecord": 1,
        "MatchEvent": MatchEvent.objects.filter(match=match).count(),
        "Message": 1,
        "Notification": Notification.objects.filter(match=match).count(),
    }
    assertContains(response, "Alice sows tile 1: 4 coins.")
    assertContains(response, "Every seat is taken.")
    assertContains(response, "Bob accepted the invitation.")
    html = " ".join(response.content.decode().split())
    assert 'field-moves_made"> <p>-</p>' in html and 'field-moves_made"> <p>None' not in html
    assertContains(response, f"Your turn in {match}")
    assertContains(response, "&quot;moves_played&quot;: 1")
    assertNotContains(response, str(match.seed))
    assert set(response.context["adminform"].form.fields) == set(), "staff cannot edit a match by hand"


def test_a_finished_matchs_page_names_who_won_not_a_seat_index_counted_from_zero(
    staff_client, staff, alice, bob, carol
):
    """The stored result reads "winners": [1], which on a page that numbers seats from 1
    named Alice when Bob had won."""
    match = start_match(alice, bob)
    services.match_resign(match_id=match.pk, user=alice)
    ongoing = start_match(carol, ai_level=1)

    def result(match):
        page = staff_client.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()
        [cell] = re.findall(r'<label>Result:</label>.*?<div class="readonly">(.*?)</div>', page, re.S)
        return cell

    assert result(match) == "Bob wins. (Alice resigned)"
    assert result(ongoing) == "-"


def test_move_notation_stays_hidden_from_staff_until_the_match_ends(staff_client, staff, alice, bob):
    """Notation can name a hidden thing (Mesopotamia's offering under a hut) and staff may be
    players: during play the admin shows the public description only."""
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    pages = (
        reverse("admin:games_match_change", args=[match.pk]),
        reverse("admin:games_moverecord_changelist") + f"?q={match.pk}",
    )

    for page in pages:
        response = staff_client.get(page)
        assertContains(response, "Alice sows tile 1: 4 coins.")
        assertContains(response, "shown when the match ends", count=1)

    services.match_abort(match_id=match.pk, actor=staff, reason="Test")
    for page in pages:
        response = staff_client.get(page)
        assertNotContains(response, "shown when the match ends")
        assert re.search(r'field-notation_shown">\s*(<p>)?1(</p>)?\s*</td>', response.content.decode())


def test_a_move_records_own_page_shows_no_raw_notation_during_play(staff_client, alice, bob):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    record = match.moves.get()

    response = staff_client.get(reverse("admin:games_moverecord_change", args=[record.pk]))

    assertContains(response, "shown when the match ends", count=1)
    assertNotContains(response, 'field-notation"')  # the model field itself, which Django lists unless told


@pytest.mark.parametrize(
    "page, lookup",
    [
        ("admin:games_match_changelist", "seed__gte=0"),
        ("admin:games_match_changelist", "state__icontains=moves"),
        ("admin:games_moverecord_changelist", "notation=1"),
        ("admin:games_moverecord_changelist", "notation__endswith=1"),
    ],
)
def test_addresses_cannot_filter_on_a_secret_to_learn_it_by_yes_or_no(staff_client, alice, bob, page, lookup):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)

    assert staff_client.get(reverse(page) + f"?{lookup}").status_code == 400
    assert staff_client.get(reverse(page) + f"?id={match.pk}").status_code == 200, "other filters still work"


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
    assert [c.func.__name__ for c in callbacks] == ["enqueue_ai_move", "enqueue_notification"]  # Alice is told


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


def test_the_resend_action_queues_a_new_outbox_row(staff_client, alice, bob, django_capture_on_commit_callbacks):
    waiting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    original = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=waiting)  # still open
    Notification.objects.filter(pk=original.pk).update(sent_at=original.created_at, attempts=1)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(
            reverse("admin:notifications_notification_changelist"),
            {"action": "resend", "_selected_action": [original.pk]},
        )

    assert response.status_code == 302
    copy = Notification.objects.exclude(pk=original.pk).get(subject=original.subject)
    assert (copy.user, copy.match, copy.kind, copy.body) == (bob, original.match, original.kind, original.body)
    assert copy.sent_at is None and copy.attempts == 0
    assert len(callbacks) == 1, "the copy is handed to the worker after the commit"


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


@pytest.mark.parametrize("codename", ["view_match", "change_match"])
def test_a_moderator_given_only_the_match_permission_reads_its_seats_and_whole_move_log(client, alice, bob, codename):
    """The README asks for the permission on matches; Django also wanted one on seats, move
    records and events, so such a moderator's match page had no seats and no move log, and
    "All 1 move" answered 403."""
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    moderator = make_user("moderator", is_staff=True)
    moderator.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(moderator)

    response = client.get(reverse("admin:games_match_change", args=[match.pk]))

    shown = {inline.formset.model for inline in response.context["inline_admin_formsets"]}
    assert shown == {Seat, MoveRecord, MatchEvent, Message}, "the outbox keeps its own permission"
    assertContains(response, "Alice sows tile 1: 4 coins.")
    log = client.get(f"{reverse('admin:games_moverecord_changelist')}?match__id__exact={match.pk}")
    assert log.status_code == 200 and log.context["cl"].result_count == 1


def test_staff_read_the_outbox_but_cannot_edit_or_delete_a_notification(staff_client, bob, matches):
    original = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=matches["alice_bob"])
    other = Notification.objects.exclude(pk=original.pk).first()
    page = staff_client.get(reverse("admin:notifications_notification_change", args=[original.pk])).content.decode()
    assert original.subject in page and 'name="resent_from"' not in page and 'name="_save"' not in page

    staff_client.post(reverse("admin:notifications_notification_change", args=[original.pk]), {"resent_from": other.pk})
    staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {"action": "delete_selected", "_selected_action": [original.pk], "post": "yes"},
    )

    original.refresh_from_db()
    assert original.resent_from is None, "a hand-set copy would skip the checks before sending"


def test_a_resent_digest_goes_out_as_written_even_with_another_digest_waiting(staff_client, bob, matches):
    sent = Notification.objects.create(
        user=bob,
        kind=Notification.Kind.DIGEST,
        subject="2 matches wait for you",
        body="Mancala #1 ...",
        sent_at=timezone.now(),
        outcome="sent",
    )
    Notification.objects.create(user=bob, kind=Notification.Kind.DIGEST, subject="", body="")  # the next one
    never_written = Notification.objects.create(
        user=bob, kind=Notification.Kind.DIGEST, subject="", body="", sent_at=timezone.now(), outcome="skipped"
    )

    response = staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {"action": "resend", "_selected_action": [sent.pk, never_written.pk]},
        follow=True,
    )

    assert response.status_code == 200
    texts = [str(message) for message in response.context["messages"]]
    assert any(
        text.startswith(f"Notification {never_written.pk} (Daily digest to Bob): It has no text to send again")
        for text in texts
    )
    assert "1 notification queued again, to be sent as they were written." in texts
    copy = Notification.objects.get(resent_from=sent)
    assert notification_services.notification_send(notification_id=copy.pk)  # not re-rendered, not skipped
    copy.refresh_from_db()
    assert (copy.outcome, copy.body) == (Notification.Outcome.SENT, "Mancala #1 ...")


def test_a_resent_your_turn_notice_goes_out_while_it_is_still_their_turn(staff_client, alice, bob, matches):
    original = Notification.objects.create(
        user=alice,
        match=matches["alice_bob"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        sent_at=timezone.now(),
        outcome="sent",
    )
    notification_services.notification_resend(notification_id=original.pk)
    copy = Notification.objects.get(resent_from=original)
    assert notification_services.notification_send(notification_id=copy.pk)


def test_staff_cannot_resend_a_notice_that_is_out_of_date_or_not_sent_yet(staff_client, alice, bob, carol, matches):
    """A "your turn" after the turn passed, an invitation to a match that started or was
    cancelled, or a reminder still waiting for its time (it would go twice): each misled or
    pestered the player. The action says why, and queues nothing."""
    sent = {"sent_at": timezone.now(), "outcome": "sent"}
    not_bobs_turn = Notification.objects.create(
        user=bob,
        match=matches["alice_bob"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        **sent,
    )
    aborted_turn = Notification.objects.create(
        user=carol,
        match=matches["aborted"],
        kind=Notification.Kind.YOUR_TURN,
        subject="Your turn",
        body="It is your turn.",
        **sent,
    )
    accepted = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=matches["alice_bob"])
    Notification.objects.filter(pk=accepted.pk).update(**sent)
    waiting = Notification.objects.create(
        user=alice,
        match=matches["alice_bob"],
        kind=Notification.Kind.REMINDER,
        subject="A day left",
        body="Your clock runs out tomorrow.",
        due_at=timezone.now() + timedelta(days=2),
    )
    over = Notification.objects.create(
        user=alice,
        match=matches["aborted"],
        kind=Notification.Kind.MATCH_OVER,
        subject="Match over",
        body="It was aborted.",
        **sent,
    )
    before = Notification.objects.count()

    response = staff_client.post(
        reverse("admin:notifications_notification_changelist"),
        {
            "action": "resend",
            "_selected_action": [not_bobs_turn.pk, aborted_turn.pk, accepted.pk, waiting.pk, over.pk],
        },
        follow=True,
    )

    texts = [str(message) for message in response.context["messages"]]
    alice_bob, aborted = matches["alice_bob"], matches["aborted"]
    stale = resending.NO_LONGER_THEIR_TURN
    assert f"Notification {not_bobs_turn.pk} (Your turn to Bob about {alice_bob}): {stale}" in texts
    assert f"Notification {aborted_turn.pk} (Your turn to Carol about {aborted}): {stale}" in texts
    assert f"Notification {accepted.pk} (Invitation to Bob about {alice_bob}): {resending.INVITATION_CLOSED}" in texts
    assert (
        f"Notification {waiting.pk} (Reminder before the clock runs out to Alice about {alice_bob}): "
        f"{resending.NOT_SENT_YET}"
    ) in texts
    assert "1 notification queued again, to be sent as they were written." in texts, "what happened stays true"
    assert Notification.objects.count() == before + 1
    assert Notification.objects.get(resent_from__isnull=False).resent_from == over


def test_staff_cannot_resend_an_email_the_player_unsubscribed_from(staff_client, alice, bob):
    """An unsubscribe counts at once, also for what staff would send again."""
    waiting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    invitation = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, match=waiting)
    Notification.objects.filter(pk=invitation.pk).update(sent_at=timezone.now(), outcome="sent")
    bob.turn_notice = "none"
    bob.save()
    with pytest.raises(services.ServiceError, match="They chose in their profile to get no such email"):
        notification_services.notification_resend(notification_id=invitation.pk)
    assert not Notification.objects.filter(resent_from=invitation).exists()


def test_the_seats_are_numbered_from_one_as_in_the_actions_forms(staff_client, alice, matches):
    """Seats and moves count from 1 everywhere, as the site's log ("1. Alice ...") and the
    actions' "Seat number, from 1" do: a seat 0 in the move records made staff type the wrong one."""
    match = matches["alice_bob"]
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    page = staff_client.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()
    assert re.findall(r'field-seat">\s*(?:<p>)?(\d+)', page) == ["1", "2"]
    assert re.findall(r'field-(move_number|seat_number)">\s*(?:<p>)?(\d+)', page) == [
        ("move_number", "1"),
        ("seat_number", "1"),
    ]
    records = staff_client.get(reverse("admin:games_moverecord_changelist")).content.decode()
    assert re.findall(r'field-(move_number|seat_number)">(\d+)', records) == [
        ("move_number", "1"),
        ("seat_number", "1"),
    ]


def test_a_cancelled_match_is_called_cancelled_in_the_admin_as_on_the_site(staff_client, staff, alice, bob):
    match = start_match(alice, bob)
    services.match_abort(match_id=match.pk, actor=staff, reason="Test")
    page = " ".join(strip_tags(staff_client.get(CHANGELIST).content.decode()).split())
    assert "Cancelled" in page and "Aborted" not in page


def test_a_player_who_is_not_staff_is_sent_to_the_admin_login(client, alice, matches):
    client.force_login(alice)
    response = client.get(CHANGELIST)
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


def test_the_changelist_makes_as_many_queries_for_twelve_matches_as_for_two(staff_client, alice, bob, carol):
    def changelist_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            response = staff_client.get(CHANGELIST)
        assert response.status_code == 200
        return len(queries)

    def add_matches(count: int) -> None:
        for number in range(count):
            if number % 2:
                start_match(alice, bob)
            else:
                start_match(carol, ai_level=1)

    add_matches(2)
    changelist_queries()  # the first request fills caches the next ones reuse
    with_two = changelist_queries()
    add_matches(10)
    assert Match.objects.count() == 12
    assert changelist_queries() == with_two


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


def test_a_matchs_change_page_makes_as_many_queries_after_thirty_moves_as_after_five(staff_client, alice, bob):
    """Each sent "your turn" email and each event is a row of the page: their players are read
    with the rows, not one query each."""

    def played(count):
        match = start_timed_match(alice, bob, options={"variant": "ethiopian"})
        for _ in range(count):
            play_moves(match, {0: alice, 1: bob}, 1, slowly=True)
            Notification.objects.update(sent_at=timezone.now(), outcome="sent")  # the next turn gets its own
        return match

    short, long = played(5), played(30)
    counts = []
    for match in (short, long):
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(reverse("admin:games_match_change", args=[match.pk])).status_code == 200
        counts.append(len(queries.captured_queries))
    assert Notification.objects.filter(match=long).count() > Notification.objects.filter(match=short).count() + 20
    assert counts[0] == counts[1]


def test_a_matchs_change_page_makes_as_many_queries_for_six_seats_as_for_two(staff_client, alice, bob, carol):
    """Each seat row named its player (and an AI seat its game) with a query of its own."""
    others = [make_user(name) for name in ("dave", "erin")]
    two = start_timed_match(alice, bob, game="mecca")
    six = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        clock=ClockSpec(),
        seats=[
            SeatSpec("creator"),
            *(SeatSpec("user", username=user.username) for user in (bob, carol, *others)),
            SeatSpec("ai", ai_level=1),
        ],
    )
    for user in (bob, carol, *others):
        services.match_accept(match_id=six.pk, user=user)
    services.match_resign(match_id=six.pk, user=carol)  # the AI takes her seat: a former player to name too
    counts = []
    for match in (two, six):
        staff_client.get(reverse("admin:games_match_change", args=[match.pk]))  # the first fills caches
        with CaptureQueriesContext(connection) as queries:
            assert staff_client.get(reverse("admin:games_match_change", args=[match.pk])).status_code == 200
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1]


def test_a_long_matchs_page_lists_its_latest_moves_and_links_to_all_of_them(staff_client, alice, bob, carol):
    match = start_timed_match(alice, bob, carol, clock=ClockSpec(), game="jeexa")
    play_random_moves(match, [alice, bob, carol], random.Random(3), limit=60)

    response = staff_client.get(reverse("admin:games_match_change", args=[match.pk]))

    [moves] = [inline for inline in response.context["inline_admin_formsets"] if inline.formset.model is MoveRecord]
    assert sorted(form.instance.ply for form in moves.forms) == list(range(10, 60)), "the newest 50"
    log_url = f"{reverse('admin:games_moverecord_changelist')}?match__id__exact={match.pk}"
    assertContains(response, f'<a href="{log_url}">All 60 moves</a>')
    assert staff_client.get(log_url).context["cl"].result_count == 60
    # Only this match's notifications, though other matches' subjects hold its number too.
    start_match(alice, bob)
    Notification.objects.filter(match=match).update(subject=f"Your turn in Jeexa #{match.pk}")
    notes_url = f"{reverse('admin:notifications_notification_changelist')}?match__id__exact={match.pk}"
    assertContains(response, f"all {Notification.objects.filter(match=match).count()} notification")
    assert staff_client.get(notes_url).context["cl"].result_count == Notification.objects.filter(match=match).count()


def test_admin_pages_name_an_icon_so_browsers_do_not_ask_for_a_missing_favicon(staff_client, matches):
    for url in (
        reverse("admin:index"),
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_change", args=[matches["alice_bob"].pk]),
    ):
        assert '<link rel="icon" href="data:,">' in staff_client.get(url).content.decode()


def test_the_admin_names_the_site_and_its_sections_apart(staff_client):
    """It said "Django administration", and allauth's email addresses and our users both sat
    under a heading "Accounts"."""
    page = staff_client.get(reverse("admin:index")).content.decode()
    assert "Boardgames administration" in page and "Django administration" not in page
    headings = re.findall(r"<caption>\s*<a[^>]*>([^<]+)</a>", page)
    assert "Players" in headings and len(headings) == len(set(headings)), headings


def test_a_matchs_admin_page_writes_clocks_in_words_and_offers_no_save(staff_client, alice, bob):
    """Nothing on it can be edited (staff act through the actions), yet it showed Save
    buttons; a time bank read 431897."""
    match = start_timed_match(
        alice, bob, clock=ClockSpec(time_control="bank", bank_initial_days=5, bank_increment_days=1, bank_cap_days=9)
    )
    page = staff_client.get(reverse("admin:games_match_change", args=[match.pk])).content.decode()
    assert 'name="_save"' not in page and 'name="_continue"' not in page
    cells = re.findall(r'field-time_in_bank">\s*(?:<p>)?([^<]+)', page)
    assert [cell.strip() for cell in cells] == ["5 d 0 h", "5 d 0 h"], cells
    assert "432000" not in page


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
