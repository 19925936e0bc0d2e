"""Ratings under matches finishing at once, in real concurrent transactions on PostgreSQL (threads
released together, as tests/games/test_race.py does): no update is lost, none counted twice."""

from __future__ import annotations

import pytest

from games import services
from games.models import Match, MoveRecord, Status
from games.services import ClockSpec, leaving, turns
from ratings import services as rating_services
from ratings.models import Rating, RatingChange
from tests.games.test_race import enqueued, hold_the_lock_longer, require_postgresql, run_together  # noqa: F401
from tests.ratings.conftest import NEWCOMER, finish, last_move, near_the_end, new_match, openskill_after, ranks_of

# Tasks handed to Celery after a commit are recorded, not published (``enqueued``).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("enqueued")]


@pytest.mark.parametrize("earlier", [0, 1], ids=["first ratings", "ratings held"])
def test_two_matches_of_one_player_and_one_ai_level_finishing_at_once_both_count(alice, monkeypatch, earlier):
    """Both update Alice's and the AI's ratings: the second waits for the first's rows and starts
    from what the first wrote. New ratings: it waits on the first's insert of them, then adds
    nothing; ratings that exist: on the first's lock of them."""
    require_postgresql()
    for seed in range(earlier):
        finish(new_match("mancala", alice, 1), seed=10 + seed)
    matches = [new_match("mancala", alice, 1), new_match("mancala", alice, 1)]
    endings = [near_the_end(match, seed) for seed, match in enumerate(matches)]
    hold_the_lock_longer(monkeypatch, (rating_services, "apply"))

    ends = [lambda m=match, e=ending: last_move(m, *e) for match, ending in zip(matches, endings, strict=True)]
    results = run_together(*ends)

    assert all(isinstance(result, MoveRecord) for result in results), results
    alice_rating = Rating.objects.get(user=alice)
    ai_rating = Rating.objects.get(ai_level=1)
    assert (alice_rating.rated_matches, ai_rating.rated_matches) == (earlier + 2, earlier + 2)
    # In the order they were applied: each from the one before's numbers, as openskill says.
    expected = [NEWCOMER, NEWCOMER]  # Alice, the AI
    for change in RatingChange.objects.filter(rating=alice_rating).order_by("pk"):
        match = Match.objects.get(pk=change.match_id)
        ranks = ranks_of(match.result, [0, 1])
        ai_change = RatingChange.objects.get(match=match, rating=ai_rating)
        assert (change.mu_before, change.sigma_before) == expected[0]
        assert (ai_change.mu_before, ai_change.sigma_before) == expected[1]
        expected = openskill_after(expected, [ranks[0], ranks[1]])
    assert (alice_rating.mu, alice_rating.sigma) == expected[0]
    assert (ai_rating.mu, ai_rating.sigma) == expected[1]


def test_a_last_move_racing_a_timeout_sweep_and_a_resignation_updates_the_ratings_once(alice, bob, monkeypatch):
    """Whichever ends the match (the move, the late player's timeout, the other player resigning),
    the others find it over: two changes, one rated match each, matching the result that stands."""
    require_postgresql()
    match = new_match("mancala", alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=2))
    mover, move = near_the_end(match, seed=3)
    other = bob if mover == 0 else alice
    match.refresh_from_db()
    deadline_passed = match.seats.get(number=mover).deadline
    hold_the_lock_longer(monkeypatch, (turns, "after_position_change"), (leaving, "set_status"))

    results = run_together(
        lambda: last_move(match, mover, move),
        lambda: services.match_timeout(match_id=match.pk, expected_version=match.version, now=deadline_passed),
        lambda: services.match_resign(match_id=match.pk, user=other),
    )

    assert not any(
        isinstance(result, Exception) and not isinstance(result, services.ServiceError) for result in results
    )
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    assert RatingChange.objects.count() == 2
    assert list(Rating.objects.values_list("rated_matches", flat=True)) == [1, 1]
    ranks = ranks_of(match.result, [0, 1])
    expected = openskill_after([NEWCOMER, NEWCOMER], [ranks[0], ranks[1]])
    for seat, user in enumerate((alice, bob)):
        rating = Rating.objects.get(user=user)
        assert (rating.mu, rating.sigma) == expected[seat], match.result
