"""Helpers of the ratings tests: matches played to one move before their end and finished through
the services, the ranks a result gives worked out on their own, and openskill's update computed
directly, to compare the stored ratings with."""

from __future__ import annotations

import random
from datetime import timedelta

from django.db.models import Case, Q, Value, When
from django.utils import timezone
from openskill.models import PlackettLuce

from games import services
from games.models import Match, Seat, Status, TimeControl
from games.services import SeatSpec
from ratings.models import Rating

OPENSKILL = PlackettLuce()  # the library's defaults, as the site's
NEWCOMER = (OPENSKILL.mu, OPENSKILL.sigma)


def new_match(game: str, creator, *others, options=None, rated: bool = True, clock=None) -> Match:
    """A started match: the creator on seat 0, then each of ``others``: a user (invited, accepted) or an AI level."""
    seats = [SeatSpec("creator")] + [
        SeatSpec("ai", ai_level=other) if isinstance(other, int) else SeatSpec("user", username=other.username)
        for other in others
    ]
    match = services.match_create(
        creator=creator, game_slug=game, options=options or {}, seats=seats, rated=rated, clock=clock
    )
    for other in others:
        if not isinstance(other, int):
            services.match_accept(match_id=match.pk, user=other)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    return match


def near_the_end(match: Match, seed: int = 0) -> tuple[int, str]:
    """The match's game played on with random legal moves to one move before its end, that position
    stored with its seat to act (its clock running, where the match has one); that seat and the last move."""
    match.refresh_from_db()
    game, rng = match.game_obj, random.Random(seed)
    state = game.load(match.state)
    while True:
        seat = game.to_act(state)[0]
        move = rng.choice(game.legal_moves(state, seat))
        after = game.apply(state, seat, move)
        if game.is_over(after):
            break
        state = after
    Match.objects.filter(pk=match.pk).update(state=game.dump(state))
    seats = Seat.objects.filter(match=match)
    seats.update(to_act=Case(When(number=seat, then=Value(True)), default=Value(False)))
    if match.time_control != TimeControl.NONE:
        now = timezone.now()
        seats.update(deadline=None, clock_started_at=None)
        seats.filter(number=seat).update(deadline=now + timedelta(days=1), clock_started_at=now)
    return seat, move


def last_move(match: Match, seat: int, move: str):
    """The move that ends the match, by its seat's player or AI."""
    player = Seat.objects.get(match=match, number=seat)
    return services.move_submit(
        match_id=match.pk,
        move=move,
        expected_version=match.version,
        user=player.user,
        ai_seat=None if player.user_id else seat,
    )


def finish(match: Match, seed: int = 0) -> Match:
    """The match played to its end, its last move through the services."""
    last_move(match, *near_the_end(match, seed))
    match.refresh_from_db()
    assert match.status == Status.FINISHED and match.result["reason"] == "played out"
    return match


def ranks_of(result: dict, playing: list[int], replaced: tuple[int, ...] = ()) -> dict[int, int]:
    """Each seat's rank (1 best), counted as one plus the seats that did better: a winner beats every
    other seat; between the others, a higher score; every seat that played on beats one the AI took."""
    winners, scores = set(result["winners"]), result["scores"] or [0] * (max(playing + list(replaced)) + 1)

    def beats(one: int, other: int) -> bool:
        if other in winners:
            return False
        return one in winners or scores[one] > scores[other]

    ranks = {seat: 1 + sum(beats(other, seat) for other in playing) for seat in playing}
    ranks.update({seat: 1 + len(playing) for seat in replaced})
    return ranks


def openskill_after(before: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """(mu, sigma) of each team of one after the match, as openskill's model.rate gives them."""
    rated = OPENSKILL.rate([[OPENSKILL.rating(mu, sigma)] for mu, sigma in before], ranks=ranks)
    return [(team[0].mu, team[0].sigma) for team in rated]


def rating_of(pool: str, *, user=None, ai_level: int | None = None) -> Rating:
    return Rating.objects.get(Q(user=user) if user else Q(ai_level=ai_level), pool=pool)


def mu_sigma(pool: str, *, user=None, ai_level: int | None = None) -> tuple[float, float]:
    """A rating's (mu, sigma), a newcomer's where there is none yet."""
    rating = Rating.objects.filter(Q(user=user) if user else Q(ai_level=ai_level), pool=pool).first()
    return (rating.mu, rating.sigma) if rating else NEWCOMER
