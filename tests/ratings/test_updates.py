"""A finished rated match changes its players' and AI levels' ratings as openskill's Plackett-Luce
model says, once, in the transaction that finishes it; casual and cancelled matches change nothing.
The expected numbers are computed here with openskill directly, from ranks worked out on their own."""

from __future__ import annotations

import pytest
from django.test import override_settings

from games import services, signals
from games.models import Match, OnTimeout, Seat
from games.services import ClockSpec
from ratings.models import Rating, RatingChange, displayed_value
from ratings.services import entries_of, ratings_update
from tests.conftest import make_user
from tests.ratings.conftest import (
    NEWCOMER,
    finish,
    mu_sigma,
    new_match,
    openskill_after,
    ranks_of,
    rating_of,
)

pytestmark = pytest.mark.django_db

PER_MOVE = ClockSpec(time_control="per_move", days_per_move=2)


def assert_rated(pool: str, expected: tuple[float, float], *, matches: int, user=None, ai_level=None) -> Rating:
    rating = rating_of(pool, user=user, ai_level=ai_level)
    assert (rating.mu, rating.sigma) == expected
    assert rating.value == round(1200 + 20 * (expected[0] - 3 * expected[1]))
    assert rating.rated_matches == matches
    return rating


def stored() -> list[tuple]:
    return list(
        Rating.objects.order_by("pk").values_list("pool", "user_id", "ai_level", "mu", "sigma", "rated_matches")
    )


def test_a_newcomer_reads_1200_and_the_scale_is_the_ordinal_times_20_plus_1200():
    assert displayed_value(*NEWCOMER) == 1200
    assert displayed_value(25.0, 10 / 3) == 1500  # an established average player
    assert displayed_value(30.0, 2.0) == 1680


def test_a_rated_two_player_match_changes_both_ratings_as_openskill_says_once(alice, bob):
    match = finish(new_match("mancala", alice, bob, options={"variant": "kalah"}), seed=1)
    ranks = ranks_of(match.result, [0, 1])
    after = openskill_after([NEWCOMER, NEWCOMER], [ranks[0], ranks[1]])

    first = assert_rated("mancala/kalah", after[0], matches=1, user=alice)
    assert_rated("mancala/kalah", after[1], matches=1, user=bob)
    assert first.last_played_at == match.finished_at
    change = RatingChange.objects.get(match=match, rating=first)
    assert (change.seat, change.mu_before, change.sigma_before) == (0, *NEWCOMER)
    assert (change.mu_after, change.sigma_after, change.value_after, change.at) == (
        *after[0],
        first.value,
        match.finished_at,
    )
    before = stored()

    assert ratings_update(match=match) == [], "a second call for the same match is a no-op"
    signals.match_finished.send(Match, match=match)
    assert stored() == before and RatingChange.objects.filter(match=match).count() == 2
    assert not Rating.objects.exclude(pool="mancala/kalah").exists(), "Kalah is a pool of its own"

    # The next match starts from where the first left them; Bob now on seat 0.
    again = finish(new_match("mancala", bob, alice, options={"variant": "kalah"}), seed=2)
    ranks = ranks_of(again.result, [0, 1])
    bob_after, alice_after = openskill_after([after[1], after[0]], [ranks[0], ranks[1]])
    assert_rated("mancala/kalah", alice_after, matches=2, user=alice)
    assert_rated("mancala/kalah", bob_after, matches=2, user=bob)


def test_a_rated_five_player_match_of_people_and_ai_levels_changes_each_rating_as_openskill_says(alice, bob, carol):
    match = finish(new_match("jeexa", alice, bob, 1, carol, 2), seed=3)
    ranks = ranks_of(match.result, [0, 1, 2, 3, 4])
    assert len(set(ranks.values())) > 2, "the result orders more than winners and losers"
    after = openskill_after([NEWCOMER] * 5, [ranks[seat] for seat in range(5)])

    assert_rated("jeexa", after[0], matches=1, user=alice)
    assert_rated("jeexa", after[1], matches=1, user=bob)
    assert_rated("jeexa", after[2], matches=1, ai_level=1)
    assert_rated("jeexa", after[3], matches=1, user=carol)
    assert_rated("jeexa", after[4], matches=1, ai_level=2)
    changes = RatingChange.objects.filter(match=match)
    assert sorted(changes.values_list("seat", flat=True)) == [0, 1, 2, 3, 4]
    before = stored()

    signals.match_finished.send(Match, match=match)
    assert stored() == before and changes.count() == 5


def test_a_casual_match_changes_no_rating(alice, bob):
    match = finish(new_match("mancala", alice, bob, rated=False))

    assert ratings_update(match=match) == []
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_cancelled_match_changes_no_rating(alice, bob, staff):
    match = new_match("mancala", alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.match_abort(match_id=match.pk, actor=staff, reason="Test")
    match.refresh_from_db()

    assert ratings_update(match=match) == [], "even asked directly"
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_who_resigns_takes_a_loss(alice, bob):
    match = new_match("mancala", alice, bob)
    services.match_resign(match_id=match.pk, user=alice)

    alice_after, bob_after = openskill_after([NEWCOMER, NEWCOMER], [2, 1])
    assert_rated("mancala/egyptian", alice_after, matches=1, user=alice)
    assert_rated("mancala/egyptian", bob_after, matches=1, user=bob)
    assert alice_after[0] < NEWCOMER[0] < bob_after[0]


def test_who_runs_out_of_time_takes_a_loss(alice, bob, clock):
    match = new_match("mancala", alice, bob, clock=PER_MOVE)
    clock.advance(days=3)

    assert services.match_timeout(match_id=match.pk, expected_version=match.version) == [0]
    alice_after, bob_after = openskill_after([NEWCOMER, NEWCOMER], [2, 1])
    assert_rated("mancala/egyptian", alice_after, matches=1, user=alice)
    assert_rated("mancala/egyptian", bob_after, matches=1, user=bob)


def test_a_player_whose_seat_the_ai_took_after_a_timeout_takes_a_loss_and_the_ai_is_not_rated_for_it(alice, bob, clock):
    """The Strong AI plays seat 2 from the start and takes Alice's seat when her clock runs out: it
    is rated for seat 2 alone, whatever it made of hers; Alice loses, below everyone."""
    clock_to_ai = ClockSpec(time_control="per_move", days_per_move=2, on_timeout=OnTimeout.AI)
    match = new_match("jeexa", alice, bob, 2, clock=clock_to_ai)
    clock.advance(days=3)
    assert services.match_timeout(match_id=match.pk, expected_version=match.version) == [0]
    taken = Seat.objects.get(match=match, number=0)
    assert (taken.ai_level, taken.former_user, taken.taken_over_at) == (2, alice, clock.now)

    match = finish(match, seed=4)
    ranks = ranks_of(match.result, [1, 2], replaced=(0,))
    alice_after, bob_after, ai_after = openskill_after([NEWCOMER] * 3, [ranks[0], ranks[1], ranks[2]])
    assert_rated("jeexa", alice_after, matches=1, user=alice)
    assert_rated("jeexa", bob_after, matches=1, user=bob)
    assert_rated("jeexa", ai_after, matches=1, ai_level=2)
    assert sorted(RatingChange.objects.filter(match=match).values_list("seat", flat=True)) == [0, 1, 2]


def test_an_ai_level_on_several_seats_moves_once_by_the_average_of_its_seats(alice, bob):
    match = finish(new_match("jeexa", alice, 1, 1, bob), seed=5)
    ranks = ranks_of(match.result, [0, 1, 2, 3])
    after = openskill_after([NEWCOMER] * 4, [ranks[seat] for seat in range(4)])

    average = ((after[1][0] + after[2][0]) / 2, (after[1][1] + after[2][1]) / 2)
    assert_rated("jeexa", average, matches=1, ai_level=1)
    assert_rated("jeexa", after[0], matches=1, user=alice)
    assert_rated("jeexa", after[3], matches=1, user=bob)
    assert RatingChange.objects.get(match=match, rating__ai_level=1).seat == 1, "once, on its first seat"


def test_a_player_new_to_a_pool_starts_from_openskills_newcomer_in_each_pool(alice, bob):
    finish(new_match("mancala", alice, bob), seed=6)
    finish(new_match("mancala", alice, 2, options={"variant": "nigerian"}), seed=7)

    assert mu_sigma("mancala/nigerian", user=bob) == NEWCOMER, "Bob played no Nigerian match"
    assert RatingChange.objects.get(rating__pool="mancala/nigerian", rating__user=alice).mu_before == NEWCOMER[0]
    assert set(Rating.objects.values_list("pool", flat=True)) == {"mancala/egyptian", "mancala/nigerian"}


@override_settings(RATING_PROVISIONAL_MATCHES=2)
def test_a_rating_is_provisional_until_it_has_counted_enough_matches(alice, bob):
    finish(new_match("mancala", alice, bob), seed=8)
    assert rating_of("mancala/egyptian", user=alice).provisional
    finish(new_match("mancala", alice, bob), seed=9)
    assert not rating_of("mancala/egyptian", user=alice).provisional


# --- the ranks a result gives (no database) ---


def seats(*players, taken=()) -> list[Seat]:
    """Seats in order: a user id, or "ai" (level 1); ``taken``: seats the AI took from their user in play."""
    made = []
    for number, player in enumerate(players):
        if number in taken:
            made.append(Seat(number=number, ai_level=2, former_user_id=player, taken_over_at="2026-01-01T00:00Z"))
        elif player == "ai":
            made.append(Seat(number=number, ai_level=1))
        else:
            made.append(Seat(number=number, user_id=player))
    return made


def ranks(result: dict, table: list[Seat]) -> dict[int, int]:
    return {entry.seat: entry.rank for entry in entries_of(Match(result=result), table)}


def test_winners_share_the_first_rank_and_the_others_follow_by_score_equal_scores_tied():
    """Mecca's tie-break: seat 3 scored as much as the winner and comes second; seats 1 and 2 tie."""
    assert ranks({"scores": [10, 9, 9, 10], "winners": [0]}, seats(1, 2, 3, 4)) == {0: 1, 3: 2, 1: 3, 2: 3}
    assert ranks({"scores": [5, 7, 3], "winners": [0, 1]}, seats(1, 2, 3)) == {0: 1, 1: 1, 2: 2}
    assert ranks({"scores": [4, 4], "winners": [0, 1]}, seats(1, 2)) == {0: 1, 1: 1}, "a draw"


def test_without_scores_every_seat_but_the_winners_shares_the_last_rank():
    assert ranks({"scores": [], "winners": [1]}, seats(1, 2, 3)) == {1: 1, 0: 2, 2: 2}


def test_a_seat_the_ai_took_in_play_is_last_for_its_former_player_even_where_the_ai_won_it():
    assert ranks({"scores": [9, 5, 7], "winners": [0]}, seats(1, 2, 3, taken=(0,))) == {2: 1, 1: 2, 0: 3}
    entries = entries_of(Match(result={"scores": [9, 5, 7], "winners": [0]}), seats(1, "ai", 3, taken=(0,)))
    assert {entry.key for entry in entries} == {(1, None), (None, 1), (3, None)}, "the AI counts for its own seat only"


def test_an_ai_seat_left_by_its_player_before_the_start_is_rated_as_an_ai():
    table = [Seat(number=0, user_id=1), Seat(number=1, ai_level=2, former_user_id=2, taken_over_at=None)]
    entries = entries_of(Match(result={"scores": [1, 3], "winners": [1]}), table)
    assert [(entry.key, entry.rank) for entry in entries] == [((1, None), 2), ((None, 2), 1)]


def test_a_match_with_one_rating_alone_rates_nothing():
    """Two seats of one AI level, the person who left them gone (their account deleted): nothing to learn."""
    table = [Seat(number=0, ai_level=1), Seat(number=1, ai_level=1)]
    assert entries_of(Match(result={"scores": [1, 3], "winners": [1]}), table) == []


def test_a_deleted_match_takes_its_changes_with_it_and_a_deleted_player_their_ratings(alice):
    dora = make_user("dora")
    kept = finish(new_match("mancala", alice, 1), seed=10)
    gone = finish(new_match("mancala", dora, 1), seed=11)

    Match.objects.filter(pk=gone.pk).delete()
    assert not RatingChange.objects.filter(match_id=gone.pk).exists()
    assert RatingChange.objects.filter(match=kept).count() == 2
    assert rating_of("mancala/egyptian", user=dora).rated_matches == 1, "the rating stays as the match left it"

    dora.delete()
    assert list(Rating.objects.filter(user__isnull=False).values_list("user", flat=True)) == [alice.pk]
    assert rating_of("mancala/egyptian", ai_level=1).rated_matches == 2
