"""Data migrations, run on rows as an older version of the site left them."""

from __future__ import annotations

from importlib import import_module

from django.apps import apps

from games import services
from games.models import Match, MatchEvent, Status
from games.services import SeatSpec

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
