"""The AI taking a human's seat in the middle of their turn, through the real Celery worker:
by resignation (three players or more), by a timeout (on_timeout=AI) and by staff. The AI
finishes the turn legally, nobody is left waiting on a seat no one moves, no move is played
twice, no task fails, and the match goes on to its end, also where two AI seats follow each other.

The humans play seeded random legal moves until the position asked for; the match's seed
is fixed too, so each case replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

import pytest
from celery.signals import task_failure

from accounts.models import User
from games import services
from games.models import Match, MoveRecord, OnTimeout, Seat, Status, TimeControl
from games.replay import replay_state
from games.rules.mecca.rules import PLACE, REMOVE
from games.rules.mesopotamia.state import ACTION, MOVE, PLACE_CHOICE, TARGET_CHOICE, VOLCANO_CHOICE
from games.services import ClockSpec, SeatSpec
from tests.conftest import make_user
from tests.games.test_tasks import wait_until, worker  # noqa: F401 (the worker fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

SEED = 20240611
MAX_PLIES = 5000
ON_TIMEOUT_AI = ClockSpec(time_control=TimeControl.PER_MOVE, days_per_move=2, on_timeout=OnTimeout.AI)

Moment = Callable[[object, int], bool]  # (state, seat to act) -> the moment to take the seat


def any_turn(state, seat) -> bool:
    return True


def mecca_placements_left(state, seat) -> bool:
    return state.step == PLACE and state.placed > 0


def mecca_removal(state, seat) -> bool:
    return state.step == REMOVE


def jeexa_after_the_roll(state, seat) -> bool:
    return state.moves_played > 0 and state.die > 0 and not state.stealing


def jeexa_stealing(state, seat) -> bool:
    return state.stealing


def mesopotamia(phase: str) -> Moment:
    def moment(state, seat) -> bool:
        player = state.players[seat]
        mid_move = phase != MOVE or state.turn.discoveries or state.turn.free_steps or state.turn.mp < 3
        return state.turn.phase == phase and bool(player.cards) and bool(player.hand) and bool(mid_move)

    moment.__name__ = f"mesopotamia_{phase}"
    return moment


# (game, players, options, the moment, the human seat the AI takes (None: the first human at that
# moment), an AI seat from the start)
CASES = [
    ("mancala", 2, {}, any_turn, 0, None),
    ("mecca", 2, {}, mecca_placements_left, 0, None),
    ("mecca", 2, {}, mecca_removal, 1, None),
    ("mecca", 3, {}, mecca_placements_left, 0, 1),
    ("mecca", 3, {}, mecca_removal, 2, 0),
    ("mecca", 6, {}, mecca_placements_left, 3, 4),
    ("mecca", 6, {}, mecca_removal, None, 0),
    ("jeexa", 3, {}, jeexa_after_the_roll, 0, 1),
    ("jeexa", 3, {}, jeexa_stealing, 1, None),
    ("mesopotamia", 3, {"start_card": "yes"}, mesopotamia(MOVE), 0, 1),
    ("mesopotamia", 3, {"start_card": "yes"}, mesopotamia(ACTION), 1, 2),
    ("mesopotamia", 3, {"start_card": "yes"}, mesopotamia(VOLCANO_CHOICE), None, None),
    ("mesopotamia", 3, {"start_card": "yes"}, mesopotamia(PLACE_CHOICE), 0, None),
    ("mesopotamia", 3, {"start_card": "yes"}, mesopotamia(TARGET_CHOICE), 1, None),
]


@pytest.fixture
def failures():
    """The tasks that raised in the worker."""
    failed: list[str] = []

    def record(sender=None, exception=None, **kwargs):
        failed.append(f"{sender.name}: {exception!r}")

    task_failure.connect(record, weak=False)
    yield failed
    task_failure.disconnect(record)


def seated_match(game: str, players: int, options: dict, ai_seat: int | None) -> Match:
    people = [make_user(f"player{number}", display_name=f"Player{number}") for number in range(players)]
    creator = people[0]
    seats = [SeatSpec("creator")] + [SeatSpec("user", username=user.username) for user in people[1:]]
    if ai_seat is not None:
        seats[ai_seat] = SeatSpec("ai", ai_level=1)
        if ai_seat == 0:  # the creator sits elsewhere
            seats[1] = SeatSpec("creator")
    match = services.match_create(creator=creator, game_slug=game, options=options, seats=seats, clock=ON_TIMEOUT_AI)
    # A fixed seed before anyone moves: the same deal, rolls and AI choices on every run.
    game_obj = match.game_obj
    Match.objects.filter(pk=match.pk).update(
        seed=SEED, state=game_obj.dump(game_obj.initial_state(players, match.options, SEED))
    )
    for seat in match.seats.filter(accepted=False):
        services.match_accept(match_id=match.pk, user=seat.user)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    return match


def wait_for_the_ai(match: Match) -> None:
    version = match.version
    wait_until(
        lambda: Match.objects.filter(pk=match.pk).exclude(version=version, status=Status.ACTIVE).exists(),
        what=f"the AI to move in match {match.pk} at version {version} (a stuck match?)",
    )


def play(match: Match, rng: random.Random, *, until: Callable[[object, Seat], bool]) -> Seat | None:
    """Humans play random legal moves and the worker plays the AI seats until ``until`` holds
    for the human seat to act; that seat, or None when the match ended first."""
    game = match.game_obj
    for _ in range(MAX_PLIES):
        match.refresh_from_db()
        if match.status != Status.ACTIVE:
            return None
        state = game.load(match.state)
        (number,) = game.to_act(state)
        seat = Seat.objects.select_related("user").get(match=match, number=number)
        if seat.is_ai:
            wait_for_the_ai(match)
            continue
        if until(state, seat):
            return seat
        services.move_submit(
            match_id=match.pk,
            user=seat.user,
            move=rng.choice(game.legal_moves(state, number)),
            expected_version=match.version,
        )
    pytest.fail(f"no end after {MAX_PLIES} moves")


def take_over(match: Match, seat: Seat, how: str, staff: User) -> None:
    if how == "resignation":
        services.match_resign(match_id=match.pk, user=seat.user)
    elif how == "timeout":
        assert services.match_timeout(
            match_id=match.pk, expected_version=match.version, now=seat.deadline + timedelta(seconds=1)
        ) == [seat.number]
    else:
        services.seat_replace_by_ai(
            match_id=match.pk, seat_number=seat.number, level=2, actor=staff, reason="Gone for good"
        )


def assert_played_legally(match: Match) -> None:
    """Every move recorded once, in order, each legal where it was played: the replay of the
    records is the stored position. The next AI seat may be moving meanwhile: the records are
    read between two reads of the same version (a move commits its record and version together)."""
    for _ in range(100):
        match.refresh_from_db()
        version = match.version
        records = list(MoveRecord.objects.filter(match=match).order_by("ply"))
        match.refresh_from_db()
        if match.version == version:
            break
    assert [record.ply for record in records] == list(range(match.version))
    game = match.game_obj
    assert game.dump(replay_state(match, records)) == match.state


HOWS = ["resignation", "timeout", "staff"]


def cases():
    for game, players, options, moment, seat, ai_seat in CASES:
        for how in HOWS:
            if how == "resignation" and players == 2:
                continue  # two players: a resignation ends the match
            yield pytest.param(
                game,
                players,
                options,
                moment,
                seat,
                ai_seat,
                how,
                id=f"{game}-{players}p-{moment.__name__}-seat{seat}-{how}",
            )


# Each case plays on to the end after one way of taking the seat (the slowest part); the
# others stop once the AI finished the turn.
TO_THE_END = {"mancala": "staff", "mecca": "timeout", "jeexa": "resignation", "mesopotamia": "staff"}


@pytest.mark.parametrize(("game", "players", "options", "moment", "taken", "ai_seat", "how"), list(cases()))
def test_the_ai_finishes_a_turn_it_took_over_and_the_match_goes_on_to_the_end(
    worker,  # noqa: F811
    failures,
    staff,
    game,
    players,
    options,
    moment,
    taken,
    ai_seat,
    how,
):
    match = seated_match(game, players, options, ai_seat)
    rng = random.Random(f"{game}-{taken}-{how}")
    seat = play(match, rng, until=lambda state, seat: taken in (None, seat.number) and moment(state, seat.number))
    assert seat is not None, "the match ended before the moment to take the seat"
    taken, version = seat.number, match.version

    take_over(match, seat, how, staff)

    # The AI plays the rest of that turn: the seat to act is another one, or the match is over.
    def turn_done():
        match.refresh_from_db()
        return match.status != Status.ACTIVE or taken not in match.game_obj.to_act(match.game_obj.load(match.state))

    wait_until(turn_done, what="the AI to finish the turn it took over (a stuck match?)")
    assert MoveRecord.objects.filter(match=match, ply__gte=version).exists()
    assert not MoveRecord.objects.filter(match=match, ply__gte=version, seat=taken, by_ai=False).exists()
    assert_played_legally(match)
    assert failures == []
    if TO_THE_END[game] != how:
        return

    assert play(match, rng, until=lambda state, seat: False) is None
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    assert not match.seats.filter(to_act=True).exists()
    assert_played_legally(match)
    assert failures == []


def test_two_ai_seats_that_follow_each_other_play_a_match_through_to_its_end(worker, failures, staff):  # noqa: F811
    """Every seat given to the AI mid-turn, one after the other: the AIs hand the turn on among
    themselves until the end."""
    match = seated_match("mecca", 3, {}, None)
    rng = random.Random("all the AI")
    seat = play(match, rng, until=lambda state, seat: mecca_placements_left(state, seat.number))
    for number in range(3):
        services.seat_replace_by_ai(
            match_id=match.pk, seat_number=(seat.number + number) % 3, level=1, actor=staff, reason=""
        )
    wait_until(
        lambda: Match.objects.filter(pk=match.pk, status=Status.FINISHED).exists(),
        what="the AIs to play the match to its end",
        timeout=120,
    )
    assert_played_legally(match)
    assert not match.seats.filter(to_act=True).exists()
    assert failures == []
