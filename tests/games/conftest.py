"""Matches with a time control, and random play through the services."""

from __future__ import annotations

from games import services
from games.services import ClockSpec, SeatSpec


def play_random_moves(match, players, rng, *, until=lambda: False, limit: int | None = None) -> bool:
    """Random legal moves through ``move_submit``, ``players[seat]`` making each seat's, until
    ``until()`` holds, ``limit`` moves are made or the game is over; whether it is over."""
    game = match.game_obj
    for _ in range(game.playout_limit if limit is None else limit):
        match.refresh_from_db()
        state = game.load(match.state)
        if game.is_over(state):
            return True
        if until():
            return False
        seat = game.to_act(state)[0]
        services.move_submit(
            match_id=match.pk,
            move=rng.choice(game.legal_moves(state, seat)),
            expected_version=match.version,
            user=players[seat],
        )
    match.refresh_from_db()
    return game.is_over(game.load(match.state))


PER_MOVE_2_DAYS = ClockSpec(time_control="per_move", days_per_move=2)


def start_timed_match(creator, *opponents, clock: ClockSpec = PER_MOVE_2_DAYS, game="mancala", options=None):
    """A started match with a time control: the creator on seat 0, then the opponents (accepted)."""
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=user.username) for user in opponents)]
    match = services.match_create(creator=creator, game_slug=game, options=options or {}, seats=seats, clock=clock)
    for user in opponents:
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match
