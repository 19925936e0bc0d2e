"""A match's page in the staff admin: its seats, moves, events, emails and position but not the
seed, the result named by player, notation hidden until the match ends and not to be learnt by
filtering, clocks in words, seats numbered from 1, what a moderator with the match permission
reads, and as many queries for long matches and many seats as for short ones."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from chat import services as chat_services
from chat.models import Message
from games import services
from games.models import MatchEvent, MoveRecord, Seat
from games.services import ClockSpec, SeatSpec
from notifications.models import Notification
from tests.conftest import make_user, start_match
from tests.games.conftest import play_moves, play_random_moves, start_timed_match


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
