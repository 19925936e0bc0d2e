"""A Jeexa match the site stored before the scoring by partial goals (its state has no "scoring"):
its page still opens, it plays on under the first reading, and its replay rebuilds every position
from the seed as it was played."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import replay, services
from games.models import Match, MoveRecord, Seat, Status
from games.rules.jeexa.rules import JOINED_PIECES
from tests.conftest import signed_in
from tests.rules.test_jeexa_scoring import GAME, STORED

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored_match(alice, bob, carol):
    """The match as the site of before left it: its state, seed and move records."""
    stored = json.loads(STORED.read_text())
    match = Match.objects.create(
        game="jeexa", status=Status.ACTIVE, state=stored["state"], seed=stored["seed"], version=len(stored["moves"])
    )
    for number, player in enumerate((alice, bob, carol)):
        Seat.objects.create(match=match, number=number, user=player)
    MoveRecord.objects.bulk_create(
        MoveRecord(match=match, ply=ply, seat=seat, notation=move, description=f"move {ply + 1}")
        for ply, (seat, move) in enumerate(stored["moves"])
    )
    state = GAME.load(stored["state"])
    Seat.objects.filter(match=match, number__in=GAME.to_act(state)).update(to_act=True)
    return match


def test_its_page_opens_and_it_plays_on_under_the_first_reading(stored_match, alice, bob, carol):
    state = GAME.load(stored_match.state)
    seat = GAME.to_act(state)[0]
    player = (alice, bob, carol)[seat]
    assert signed_in(player).get(reverse("match_detail", args=[stored_match.pk])).status_code == 200
    services.move_submit(
        match_id=stored_match.pk,
        user=player,
        move=GAME.legal_moves(state, seat)[0],
        expected_version=stored_match.version,
    )
    stored_match.refresh_from_db()
    assert stored_match.state["scoring"] == JOINED_PIECES


def test_its_replay_rebuilds_every_position_as_it_was_played(stored_match, alice):
    moves = list(stored_match.moves.order_by("ply"))
    rebuilt = replay.replay_state(stored_match, moves)
    assert rebuilt.scores == GAME.load(stored_match.state).scores
    assert rebuilt.grids == GAME.load(stored_match.state).grids and rebuilt.scoring == JOINED_PIECES
    page = signed_in(alice).get(reverse("match_replay", args=[stored_match.pk]), {"ply": 40})
    assert page.status_code == 200
