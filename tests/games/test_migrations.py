"""Data migrations, run on rows as an older version of the site left them."""

from __future__ import annotations

from importlib import import_module

from django.apps import apps

from games import services
from games.models import Match, MatchEvent, Seat, Status
from games.services import SeatSpec
from tests.conftest import make_user
from tests.games.conftest import start_timed_match

ENDED_AT = import_module("games.migrations.0014_ended_at_for_declined_and_withdrawn_matches")


def test_declined_and_withdrawn_matches_of_before_get_the_time_they_ended(alice, bob, carol):
    declined = services.match_create(creator=alice, game_slug="mancala", options={},
                                     seats=[SeatSpec("creator"), SeatSpec("user", username="bob")])
    services.match_decline(match_id=declined.pk, user=bob)
    withdrawn = services.match_create(creator=carol, game_slug="mancala", options={},
                                      seats=[SeatSpec("creator"), SeatSpec("open")])
    services.match_cancel(match_id=withdrawn.pk, user=carol)
    waiting = services.match_create(creator=alice, game_slug="mancala", options={},
                                    seats=[SeatSpec("creator"), SeatSpec("open")])
    Match.objects.update(finished_at=None)  # as the site wrote them before

    ENDED_AT.fill_in(apps, None)

    for match in (declined, withdrawn):
        match.refresh_from_db()
        event = MatchEvent.objects.get(match=match, to_status=Status.ABORTED)
        assert match.finished_at == event.created_at
    waiting.refresh_from_db()
    assert waiting.finished_at is None, "a match still open has not ended"


TAKEN_OVER_AT = import_module("games.migrations.0015_seat_taken_over_at")


def test_seats_the_ai_took_in_play_before_get_the_time_the_move_log_gives(alice, bob, carol, staff):
    """Seats taken over before the time was kept: their players, who took part, hear how the match ends."""
    dave, erin = make_user("dave", display_name="Dave"), make_user("erin")
    resigned = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=resigned.pk, user=carol)
    replaced = start_timed_match(alice, bob, dave, game="jeexa")
    services.seat_replace_by_ai(match_id=replaced.pk, seat_number=2, level=1, actor=staff, reason="Left")
    withdrawn = services.match_create(creator=alice, game_slug="mancala", options={},
                                      seats=[SeatSpec("creator"), SeatSpec("user", username="erin")])
    services.seat_replace_by_ai(match_id=withdrawn.pk, seat_number=1, level=1, actor=staff, reason="No answer")
    renamed = start_timed_match(alice, bob, erin, game="jeexa")
    services.match_resign(match_id=renamed.pk, user=erin)
    erin.display_name = "Erin"  # "erin resigned; the AI plays on." names her as she was
    erin.save()
    Seat.objects.update(taken_over_at=None)  # as the site left them

    TAKEN_OVER_AT.fill_in(apps, None)

    for match, reason in ((resigned, "Carol resigned; the AI plays on."),
                          (replaced, "Staff gave Dave's seat to the AI: Left.")):
        event = MatchEvent.objects.get(match=match, reason=reason)
        assert Seat.objects.get(match=match, number=2).taken_over_at == event.created_at
    assert Seat.objects.get(match=withdrawn, number=1).taken_over_at is None, "an invitation withdrawn: no part"
    assert Seat.objects.get(match=renamed, number=2).taken_over_at is None, "not found by name: left as it was"
