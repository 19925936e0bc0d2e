"""Taking back a step (``games.services.holding``): in Mecca and Mesopotamia a step that neither
ends the turn nor reveals anything is held on the mover's seat, shown to them alone, and played
with the rest of the turn when it ends or something is revealed; until then the mover may take it
back. The move log only ever holds what was played, and the replay rebuilds the stored state."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import services
from games.engine import get_game
from games.models import MoveRecord, Seat
from games.replay import replay_state
from games.services import ClockSpec, creating
from games.services.holding import NOTHING_HELD, held_steps, may_hold
from games.services.turns import STALE_MOVE
from tests.games.conftest import HTMX, start_timed_match

pytestmark = pytest.mark.django_db

SEED = 7  # Mesopotamia with this seed: seat 0's second turn holds two steps, then discovers a tile
MESO = get_game("mesopotamia")
MECCA = get_game("mecca")


@pytest.fixture
def meso(alice, bob, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    return start_timed_match(alice, bob, clock=ClockSpec(), game="mesopotamia")


def held_of(match, user) -> list[str]:
    match.refresh_from_db()
    return held_steps(match, Seat.objects.get(match=match, user=user))


def step(match, user, move: str, **extra):
    """Send ``move`` as the mover's page would: with the number of steps it showed held."""
    match.refresh_from_db()
    held = extra.pop("held", len(held_of(match, user)))
    return services.move_submit(
        match_id=match.pk, user=user, move=move, expected_version=match.version, held=held, **extra
    )


def play_turns(match, users, rng, *, steps: int) -> list[tuple[bool, int]]:
    """Play ``steps`` random steps through the service as pages would, checking after each that a
    held step left the stored match alone and a played one recorded every step held before it."""
    game = match.game_obj
    seen = []
    for _ in range(steps):
        match.refresh_from_db()
        start, records = match.state, MoveRecord.objects.filter(match=match).count()
        seat = game.to_act(game.load(match.state))[0]
        held = held_of(match, users[seat])
        state = game.load(match.state)
        for earlier in held:
            state = game.apply(state, seat, earlier)
        move = rng.choice(game.legal_moves(state, seat))
        holds = may_hold(game, seat, state, game.apply(state, seat, move))
        step(match, users[seat], move)
        match.refresh_from_db()
        now = MoveRecord.objects.filter(match=match).count()
        if holds:
            assert (match.state, now) == (start, records), "a held step is not played"
            assert held_of(match, users[seat]) == [*held, game.normalize(move)]
        else:
            assert now == records + len(held) + 1, "the held steps are played with the step that ends them"
            assert held_of(match, users[seat]) == []
            moves = list(MoveRecord.objects.filter(match=match).order_by("ply"))
            assert [record.ply for record in moves] == list(range(now))
            assert game.dump(replay_state(match, moves)) == match.state
        seen.append((holds, len(held)))
    return seen


@pytest.mark.parametrize("game", ["mecca", "mesopotamia"])
def test_steps_are_held_then_played_together_and_the_replay_matches(alice, bob, game, monkeypatch):
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    match = start_timed_match(alice, bob, clock=ClockSpec(), game=game)
    seen = play_turns(match, [alice, bob], random.Random(1), steps=40)
    assert any(holds for holds, _ in seen), "some steps were held"
    assert any(not holds and held for holds, held in seen), "some turns played held steps when they ended"


def test_only_the_mover_sees_a_held_step_and_may_take_it_back(client, meso, alice, bob):
    step(meso, alice, "discover b2 nw")  # turn 1 of seat 0: each discovery reveals a tile, played at once
    step(meso, alice, "discover b2 n")
    step(meso, alice, "end")
    step(meso, bob, "discover y2 nw")
    step(meso, bob, "move y3 ne")
    assert held_of(meso, bob) == ["move y3 ne"]
    records = MoveRecord.objects.filter(match=meso).count()

    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[meso.pk])).content.decode()
    assert "y3 NE" not in page and "take-back" not in page, "the others see nothing of a held step"
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[meso.pk])).content.decode()
    assert "moves y3 NE" in page and "(not played yet)" in page
    assert 'data-testid="take-back"' in page

    address = reverse("match_take_back", args=[meso.pk])
    response = client.post(address, {"version": meso.version, "held": 1}, **HTMX)
    assert response.status_code == 200
    assert held_of(meso, bob) == []
    assert "moves y3 NE" not in response.content.decode()
    again = client.post(address, {"version": meso.version, "held": 1}, **HTMX)  # a double click
    assert again.status_code == 200 and 'class="error"' not in again.content.decode()
    assert MoveRecord.objects.filter(match=meso).count() == records, "taking back writes no move"


def test_a_step_that_reveals_plays_the_held_steps_and_cannot_be_taken_back(client, meso, alice, bob):
    for user, move in [(alice, "discover b2 nw"), (alice, "discover b2 n"), (alice, "end")]:
        step(meso, user, move)
    for move in ["discover y2 nw", "move y3 ne", "move y3 se", "move y2 se", "move y2 n", "carry y3 stone"]:
        step(meso, bob, move)
    for move in ["drop y3", "end"]:
        step(meso, bob, move)
    assert len(held_of(meso, bob)) == 7
    step(meso, bob, "draw")  # draws cards: the turn ends, every held step is played in order
    meso.refresh_from_db()
    log = list(MoveRecord.objects.filter(match=meso).order_by("ply").values_list("notation", flat=True))
    assert log[-8:] == [
        "move y3 ne",
        "move y3 se",
        "move y2 se",
        "move y2 n",
        "carry y3 stone",
        "drop y3",
        "end",
        "draw",
    ]
    client.force_login(alice)
    assert "moves y3 NE" in client.get(reverse("match_detail", args=[meso.pk])).content.decode()

    # Alice discovers with her first step: nothing before it can be taken back.
    step(meso, alice, "move b2 s")
    step(meso, alice, "move b3 nw")
    step(meso, alice, "discover b1 n")
    assert held_of(meso, alice) == []  # (held_of reads the match again)
    assert list(MoveRecord.objects.filter(match=meso).order_by("-ply").values_list("notation", flat=True)[:3]) == [
        "discover b1 n",
        "move b3 nw",
        "move b2 s",
    ]
    with pytest.raises(services.MoveRejected) as refused:
        services.step_take_back(match_id=meso.pk, user=alice, expected_version=meso.version, expected_held=0)
    assert refused.value.message == NOTHING_HELD


def test_a_page_behind_the_held_steps_is_told_so_and_a_double_click_holds_once(meso, alice, bob):
    for move in ["discover b2 nw", "discover b2 n", "end", "discover y2 nw"]:
        step(meso, alice if move.startswith(("discover b", "end")) else bob, move)
    step(meso, bob, "move y3 ne")
    assert step(meso, bob, "move y3 ne", held=0) is None  # sent twice: held once
    assert held_of(meso, bob) == ["move y3 ne"]
    with pytest.raises(services.StaleMove) as stale:
        step(meso, bob, "move y3 se", held=0)  # another tab, from before the first step
    assert stale.value.message == STALE_MOVE
    with pytest.raises(services.StaleMove):
        services.step_take_back(match_id=meso.pk, user=bob, expected_version=meso.version, expected_held=3)
    assert held_of(meso, bob) == ["move y3 ne"]


def test_a_move_without_the_held_count_is_played_at_once(meso, alice, bob):
    """A page from before steps could be taken back (or a script) sends no count: nothing is held."""
    for user, move in [(alice, "discover b2 nw"), (alice, "discover b2 n"), (alice, "end"), (bob, "discover y2 nw")]:
        step(meso, user, move)
    meso.refresh_from_db()
    record = services.move_submit(match_id=meso.pk, user=bob, move="move y3 ne", expected_version=meso.version)
    assert record is not None and record.notation == "move y3 ne"
    assert held_of(meso, bob) == []


@pytest.mark.parametrize("held", ["x", "-1", "1.5", "99999", "٣"])
def test_a_malformed_held_count_is_refused_and_changes_nothing(client, meso, alice, held):
    client.force_login(alice)
    for address in ("match_move", "match_take_back"):
        response = client.post(
            reverse(address, args=[meso.pk]), {"move": "discover b2 nw", "version": meso.version, "held": held}, **HTMX
        )
        assert response.status_code == 400, address
    assert MoveRecord.objects.filter(match=meso).count() == 0 and held_of(meso, alice) == []


def test_held_steps_lapse_when_the_match_moves_on(meso, alice, bob):
    """A timeout, a resignation or staff moving the match on leaves the held steps behind."""
    for user, move in [(alice, "discover b2 nw"), (alice, "discover b2 n"), (alice, "end"), (bob, "discover y2 nw")]:
        step(meso, user, move)
    step(meso, bob, "move y3 ne")
    services.match_resign(match_id=meso.pk, user=bob)
    assert held_of(meso, bob) == []
    assert Seat.objects.get(match=meso, user=bob).held == ["move y3 ne"], "kept, but no longer counted"
