"""Staff deactivating a player in the admin: no match goes on waiting for someone who can no
longer sign in, and the other players are told why."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import selectors, services, tasks
from games.models import Match, MatchEvent, Notification, Seat, Status
from games.services import ClockSpec, SeatSpec
from tests.games.conftest import start_timed_match

CLOSED = "Staff aborted the match: Alice's account was closed."
SEAT_TO_AI = "Staff gave Alice's seat to the AI: Alice's account was closed."


@pytest.fixture
def ai_moves(monkeypatch):
    calls = []
    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: calls.append(args))
    return calls


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


def test_a_match_waiting_for_a_deactivated_invitee_is_cancelled_and_the_others_told(client, staff, alice, bob,
                                                                                    carol):
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


@pytest.mark.parametrize("clock", [ClockSpec(), ClockSpec(time_control="per_move", days_per_move=2)],
                         ids=["no time limit", "two days per move"])
def test_the_ai_takes_a_deactivated_players_seat_in_a_match_in_play(client, staff, alice, bob, ai_moves, clock,
                                                                   django_capture_on_commit_callbacks):
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
    assert [event.reason for event in selectors.match_log_events(match)] == [SEAT_TO_AI]


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
