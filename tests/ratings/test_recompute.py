"""``manage.py recompute_ratings``: every rating rebuilt from the stored results, in the order the
matches finished, equals what the live updates made; in batches, whatever the number of matches."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Match, OnTimeout
from games.services import ClockSpec
from ratings import services as rating_services
from ratings.models import Rating, RatingChange
from tests.ratings.conftest import finish, new_match

pytestmark = pytest.mark.django_db


def snapshot() -> tuple[dict, dict]:
    """Every rating and change, by who and which match, as numbers (ids change in a recompute)."""
    ratings = {
        (rating.pool, rating.user_id, rating.ai_level): (
            rating.mu,
            rating.sigma,
            rating.value,
            rating.rated_matches,
            rating.last_played_at,
        )
        for rating in Rating.objects.all()
    }
    changes = {
        (change.rating.pool, change.rating.user_id, change.rating.ai_level, change.match_id): (
            change.seat,
            change.mu_before,
            change.sigma_before,
            change.mu_after,
            change.sigma_after,
            change.value_after,
            change.at,
        )
        for change in RatingChange.objects.select_related("rating")
    }
    return ratings, changes


def recompute(*options: str) -> str:
    out = io.StringIO()
    call_command("recompute_ratings", *options, stdout=out)
    return out.getvalue()


def a_series_of_matches(alice, bob, carol, staff, clock) -> list[Match]:
    """Rated, casual and cancelled matches, a resignation and an AI takeover, in three pools. One
    created first finishes last: the order is the order they finished in, not their ids'."""
    late = new_match("mancala", carol, 1)
    finished = []
    for make, seed in (
        (lambda: new_match("mancala", alice, bob), 1),
        (lambda: new_match("mancala", alice, bob, rated=False), 2),
        (lambda: new_match("mancala", alice, 2, options={"variant": "kalah"}), 3),
        (lambda: new_match("mancala", bob, carol), 4),
    ):
        clock.advance(hours=1)
        finished.append(finish(make(), seed))
    clock.advance(hours=1)
    resigned = new_match("mancala", carol, alice)
    services.match_resign(match_id=resigned.pk, user=carol)
    taken = new_match(
        "jeexa",
        alice,
        bob,
        carol,
        1,
        clock=ClockSpec(time_control="per_move", days_per_move=2, on_timeout=OnTimeout.AI),
    )
    clock.advance(days=3)
    services.match_timeout(match_id=taken.pk, expected_version=taken.version)
    finished.append(finish(taken, 5))
    aborted = new_match("mancala", alice, bob)
    services.match_abort(match_id=aborted.pk, actor=staff, reason="Test")
    clock.advance(hours=1)
    finished.append(finish(late, 6))
    return finished


@pytest.mark.parametrize("chunk", [2, 1000])
def test_recomputing_gives_the_numbers_of_the_live_updates(alice, bob, carol, staff, clock, monkeypatch, chunk):
    """In chunks of 2 matches, the ratings new to a chunk are written with it and updated at the end."""
    a_series_of_matches(alice, bob, carol, staff, clock)
    live = snapshot()
    assert len(live[0]) == 10 and len(live[1]) == 14  # three pools; casual and cancelled matches count for nobody
    # Numbers the recompute must not keep: it starts from nothing.
    Rating.objects.update(mu=1.0, sigma=1.0, value=0, rated_matches=99)
    RatingChange.objects.filter(rating__user=alice).delete()
    monkeypatch.setattr(rating_services, "REPLAY_CHUNK", chunk)
    monkeypatch.setattr(rating_services, "WRITE_BATCH", chunk)

    said = recompute()

    assert snapshot() == live
    assert said.startswith(
        "Deleted 10 ratings and 10 changes; replayed 6 finished rated matches: 10 ratings, 14 changes"
    )


def test_a_dry_run_says_what_it_would_do_and_changes_nothing(alice, bob):
    finish(new_match("mancala", alice, bob))
    finish(new_match("mancala", alice, bob, rated=False), seed=1)
    before = snapshot()

    said = recompute("--dry-run")

    assert said == "Would delete 2 ratings and 2 changes, and replay 1 finished rated match. Nothing was changed.\n"
    assert snapshot() == before


def test_recomputing_reads_and_writes_in_batches_not_per_match(alice, bob, carol, monkeypatch):
    """As many queries for 6 matches as for 2 (batches of 1,000): 100,000 matches are 100 batches."""

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            recompute()
        return len(captured)

    for seed in range(2):
        finish(new_match("mancala", alice, bob), seed)
    few = queries()
    for seed in range(2, 6):
        finish(new_match("mancala", bob if seed % 2 else alice, carol if seed % 3 else 1), seed)
    many = queries()

    assert many == few
    assert Rating.objects.get(user=carol, pool="mancala/egyptian").rated_matches == 3
