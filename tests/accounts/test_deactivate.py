"""Staff deactivating a player in the admin: no match goes on waiting for someone who can no
longer sign in, and the other players are told why."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from games import selectors, services
from games.models import Match, MatchEvent, Seat, Status
from games.services import ClockSpec, SeatSpec
from notifications.models import Notification
from tests.conftest import make_user
from tests.games.conftest import start_timed_match

CLOSED = "Staff aborted the match: Alice's account was closed."
SEAT_TO_AI = "Staff gave Alice's seat to the AI: Alice's account was closed."


def deactivate(client, staff, user) -> None:
    """Untick "Active" on the player's admin page and save, as staff do."""
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[user.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None and key != "is_active"}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "10:00"})
    assert client.post(url, data).status_code == 302
    user.refresh_from_db()
    assert not user.is_active


def told_why(user, match) -> bool:
    """The player's email about ``match`` gives the reason in words."""
    return any(CLOSED in notice.body for notice in Notification.objects.filter(user=user, match=match))


def test_an_open_challenge_of_a_deactivated_player_leaves_the_lobby_and_takes_no_join(client, staff, alice, bob):
    """It stayed in the lobby: Bob could join and wait for ever for a player who cannot sign in."""
    seats = [SeatSpec("creator"), SeatSpec("open")]
    challenge = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)

    deactivate(client, staff, alice)

    assert challenge not in selectors.lobby_open_matches(bob)
    with pytest.raises(services.ServiceError) as refused:
        services.match_join(match_id=challenge.pk, user=bob)
    assert refused.value.message == CLOSED
    assert Match.objects.get(pk=challenge.pk).status == Status.ABORTED


def test_a_match_waiting_for_a_deactivated_invitee_is_cancelled_and_the_others_told(client, staff, alice, bob, carol):
    seats = [SeatSpec("creator"), SeatSpec("user", username="carol"), SeatSpec("user", username="alice")]
    waiting = services.match_create(creator=bob, game_slug="mecca", options={}, seats=seats)
    services.match_accept(match_id=waiting.pk, user=carol)

    deactivate(client, staff, alice)

    waiting.refresh_from_db()
    assert waiting.status == Status.ABORTED
    assert told_why(bob, waiting) and told_why(carol, waiting)
    assert MatchEvent.objects.filter(match=waiting, to_status=Status.ABORTED, actor=staff, reason=CLOSED).exists()


def test_the_invitations_of_a_deactivated_player_are_withdrawn(client, staff, alice, bob):
    """Bob could accept and start a match against a player who would never move."""
    seats = [SeatSpec("creator"), SeatSpec("user", username="bob")]
    invitation = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats)

    deactivate(client, staff, alice)

    assert selectors.invitations_for(bob) == []
    assert told_why(bob, invitation)
    with pytest.raises(services.ServiceError):
        services.match_accept(match_id=invitation.pk, user=bob)


@pytest.mark.parametrize(
    "clock",
    [ClockSpec(), ClockSpec(time_control="per_move", days_per_move=2)],
    ids=["no time limit", "two days per move"],
)
def test_the_ai_takes_a_deactivated_players_seat_in_a_match_in_play(
    client, staff, alice, bob, ai_moves, clock, django_capture_on_commit_callbacks
):
    """Without a time limit the match waited for ever for Alice's move; with one, Bob waited
    two days for a timeout."""
    match = start_timed_match(alice, bob, clock=clock)

    with django_capture_on_commit_callbacks(execute=True):
        deactivate(client, staff, alice)

    match.refresh_from_db()
    seat = Seat.objects.get(match=match, number=0)
    assert match.status == Status.ACTIVE
    assert seat.user is None and seat.former_user == alice and seat.ai_level == max(match.game_obj.ai_levels)
    assert seat.deadline is None, "the AI has no clock"
    assert ai_moves == [(match.pk, match.version)], "Alice was to move: the AI does"
    assert [event.reason for event in selectors.match_log(match)[1]] == [SEAT_TO_AI]


def test_a_player_deactivated_again_or_only_edited_changes_no_match(client, staff, alice, bob, ai_moves):
    match = start_timed_match(alice, bob, clock=ClockSpec())
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[alice.pk])
    form = client.get(url).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None}
    data.update({"date_joined_0": "2026-01-01", "date_joined_1": "10:00", "first_name": "Al"})
    assert client.post(url, data).status_code == 302

    assert Seat.objects.get(match=match, number=0).user == alice
    assert ai_moves == []


# --- accounts deactivated before closing one settled their matches ----------------------------------------------


def closed_long_ago(user) -> None:
    """Deactivated as the site did before user_deactivate: the flag alone, every match left as it was."""
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    user.refresh_from_db()


@pytest.fixture
def left_waiting(alice, bob, carol):
    """Alice's open challenge, her invitation to Bob, Bob's match that waits for her and Carol
    to accept, and her match against Bob in play, as her account, closed long ago, left them."""
    matches = {
        "in_play": start_timed_match(alice, bob, clock=ClockSpec()),  # no clock: it would wait for ever
        "challenge": services.match_create(
            creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
        ),
        "invitation": services.match_create(
            creator=alice,
            game_slug="mancala",
            options={},
            seats=[SeatSpec("creator"), SeatSpec("user", username="bob")],
        ),
        "invited_too": services.match_create(
            creator=bob,
            game_slug="mecca",
            options={},
            seats=[
                SeatSpec("creator"),
                SeatSpec("user", username="alice"),
                SeatSpec("user", username="carol"),
                SeatSpec("open"),
            ],
        ),
    }
    closed_long_ago(alice)
    return matches


def test_no_list_offers_a_match_that_waits_for_an_account_closed_before_and_it_takes_no_join(
    client, bob, carol, left_waiting
):
    """Alice's open challenge stayed in the lobby and her invitations on My matches: Bob could
    join or accept, and wait for ever for a player who cannot sign in."""
    dave = make_user("dave")
    assert selectors.lobby_open_matches(dave) == [] and selectors.lobby_open_matches(carol) == []
    assert selectors.invitations_for(bob) == [] and selectors.invitations_for(carol) == []
    challenge, invitation = left_waiting["challenge"], left_waiting["invitation"]
    client.force_login(dave)
    assert f"#{challenge.pk}<" not in client.get(reverse("lobby")).content.decode()
    client.force_login(bob)
    for page in ("lobby", "dashboard"):  # My matches still lists it among his, offering nothing
        html = client.get(reverse(page)).content.decode()
        assert "invites you" not in html and reverse("match_accept", args=[invitation.pk]) not in html

    client.force_login(dave)  # the link of an old email
    page = client.get(reverse("match_detail", args=[challenge.pk])).content.decode()
    never = "This match waits for Alice, whose account is closed, so it can never start."
    assert never in page and "Join this match" not in page
    with pytest.raises(services.ServiceError, match=re.escape(never)):
        services.match_join(match_id=challenge.pk, user=dave)
    client.force_login(carol)
    page = client.get(reverse("match_detail", args=[left_waiting["invited_too"].pk])).content.decode()
    assert never in page and ">Accept<" not in page and ">Decline<" in page, "declining still ends it"
    with pytest.raises(services.ServiceError, match=re.escape(never)):
        services.match_accept(match_id=left_waiting["invited_too"].pk, user=carol)
    assert Seat.objects.filter(user__in=[carol, dave], accepted=True).count() == 0


def test_staff_settle_the_matches_of_accounts_closed_before_with_one_command_run_again_safely(
    alice, bob, carol, left_waiting, ai_moves, django_capture_on_commit_callbacks
):
    in_play = left_waiting["in_play"]
    report = io.StringIO()

    call_command("close_deactivated_accounts", "--dry-run", stdout=report)

    assert report.getvalue() == (
        f"Alice (#{alice.pk}): would cancel 3 matches waiting for players and give the AI 1 seat in play.\n"
    )
    assert Match.objects.filter(status=Status.OPEN).count() == 3, "a dry run changes nothing"

    report = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("close_deactivated_accounts", stdout=report)

    assert report.getvalue() == (
        f"Alice (#{alice.pk}): cancelled 3 matches waiting for players and gave the AI 1 seat in play.\n"
    )
    assert not Match.objects.filter(status=Status.OPEN).exists()
    assert told_why(bob, left_waiting["invitation"]) and told_why(carol, left_waiting["invited_too"])
    seat = Seat.objects.get(match=in_play, number=0)
    assert seat.user is None and seat.former_user == alice and ai_moves == [(in_play.pk, 0)]
    assert [event.reason for event in selectors.match_log(in_play)[1]] == [SEAT_TO_AI]
    sent = Notification.objects.count()

    again = io.StringIO()
    call_command("close_deactivated_accounts", stdout=again)
    assert again.getvalue() == "No match waits for a deactivated player.\n"
    assert Notification.objects.count() == sent, "nobody is told twice"


def test_one_account_that_cannot_be_settled_does_not_stop_the_others_and_the_command_says_so(
    alice, bob, carol, monkeypatch
):
    from games.management.commands import close_deactivated_accounts as command

    for creator in (alice, bob):
        services.match_create(
            creator=creator, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
        )
        closed_long_ago(creator)
    settle = command.user_deactivate

    def held_for_alice(*, user_id, actor):
        if user_id == alice.pk:
            raise services.ServiceError("canceling statement due to lock timeout")
        return settle(user_id=user_id, actor=actor)

    monkeypatch.setattr(command, "user_deactivate", held_for_alice)
    report, errors = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match=r"^Not done for Alice: run the command again\.$"):
        call_command("close_deactivated_accounts", stdout=report, stderr=errors)

    assert report.getvalue() == f"Bob (#{bob.pk}): cancelled 1 match waiting for players.\n"
    assert "Alice" in errors.getvalue() and "lock timeout" in errors.getvalue()
    assert list(Match.objects.filter(status=Status.OPEN).values_list("created_by", flat=True)) == [alice.pk]
