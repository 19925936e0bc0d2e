"""The conformance suite: every registered game, every player count and option value,
seeded random playouts checked against the engine contract."""

from __future__ import annotations

import ast
import copy
import itertools
import json
import random
from pathlib import Path

import pytest

from games.engine import IllegalMove, Outcome, all_games, get_game

PLAYOUTS_PER_SETUP = 3
ROOT = Path(__file__).resolve().parents[2]


def setups():
    for game in all_games():
        names = list(game.options)
        for values in itertools.product(*(game.options[name] for name in names)):
            options = dict(zip(names, values, strict=True))
            for players in range(game.min_players, game.max_players + 1):
                label = "-".join([game.slug, str(players), *values])
                yield pytest.param(game, players, options, id=label)


def playout(game, players, options, seed, pick):
    """Yield (state, seat, move) along one game; ``pick`` chooses among legal moves."""
    state = game.initial_state(players, options, seed)
    for _ply in range(game.playout_limit):
        if game.is_over(state):
            return
        seat = game.to_act(state)[0]
        move = pick(state, seat, game.legal_moves(state, seat))
        yield state, seat, move
        state = game.apply(state, seat, move)
    pytest.fail(f"{game.slug}: a random game did not end within {game.playout_limit} moves")


def random_picker(rng):
    return lambda _state, _seat, moves: rng.choice(moves)


def test_registry_knows_every_game_by_slug():
    for game in all_games():
        assert get_game(game.slug) is game
    with pytest.raises(KeyError):
        get_game("no-such-game")


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_identity_and_options_are_declared(game):
    assert game.name and 1 <= game.min_players <= game.max_players
    for allowed in game.options.values():
        assert allowed and len(set(allowed)) == len(allowed)
    assert game.ai_levels, "every game offers at least one AI level"


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_bad_setups_are_refused_with_a_readable_error(game):
    with pytest.raises(ValueError, match=r"\w"):
        game.initial_state(game.max_players + 1, {}, 1)
    with pytest.raises(ValueError, match=r"\w"):
        game.initial_state(game.min_players - 1, {}, 1)
    with pytest.raises(ValueError, match="option"):
        game.initial_state(game.min_players, {"no-such-option": "x"}, 1)
    for name in game.options:
        with pytest.raises(ValueError, match=r"\w"):
            game.initial_state(game.min_players, {name: "no-such-value"}, 1)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
@pytest.mark.parametrize("move", [None, 3, b"1", ["1"]], ids=["none", "int", "bytes", "list"])
def test_a_move_that_is_not_a_string_is_an_illegal_move(game, move):
    # The spec: moves cross the boundary as notation strings, "anything else raises IllegalMove";
    # a checker handing Mancala the tile number 3 got an AttributeError.
    state = game.initial_state(game.min_players, {}, 1)
    seat = game.to_act(state)[0]
    with pytest.raises(IllegalMove, match="notation"):
        game.apply(state, seat, move)
    with pytest.raises(IllegalMove, match="notation"):
        game.describe(state, seat, move)


@pytest.mark.parametrize(("game", "players", "options"), list(setups()))
def test_random_playouts_keep_the_contract(game, players, options):
    for n in range(PLAYOUTS_PER_SETUP):
        seed = 1000 + n
        rng = random.Random(seed)
        moves = []
        conserved = None
        last = None
        for state, seat, move in playout(game, players, options, seed, random_picker(rng)):
            dumped = game.dump(state)
            json.dumps(dumped)  # JSON-ready
            assert game.load(dumped) == state
            assert game.dump(game.load(dumped)) == dumped
            to_act = game.to_act(state)
            assert to_act and all(0 <= s < players for s in to_act)
            legal = game.legal_moves(state, seat)
            assert legal == sorted(legal) and move in legal
            for other in range(players):
                if other not in to_act:
                    assert game.legal_moves(state, other) == []
            if conserved is None:
                conserved = game.conserved(state)
            assert game.conserved(state) == conserved
            assert isinstance(game.describe(state, seat, move), str)
            before = copy.deepcopy(dumped)
            # Forgiven notation: surrounding white space and letter case.
            assert game.apply(state, seat, f"  {move.upper()} ") == game.apply(state, seat, move)
            with pytest.raises(IllegalMove):
                game.apply(state, seat, "not-a-move")
            assert game.dump(state) == before, "apply must not change its input"
            assert game.outcome(state) is None and not game.is_over(state)
            moves.append((seat, move))
            last = game.apply(state, seat, move)
        assert last is not None and game.is_over(last)
        assert game.to_act(last) == ()
        outcome = game.outcome(last)
        assert isinstance(outcome, Outcome)
        assert len(outcome.scores) == players and outcome.winners
        assert set(outcome.winners) <= set(range(players))
        assert all(isinstance(value, tuple) for value in outcome)
        scores, winners = outcome  # the contract writes it as a pair as well
        assert (scores, winners) == (outcome.scores, outcome.winners)
        assert game.conserved(last) == conserved

        replayed = game.initial_state(players, options, seed)
        for seat, move in moves:
            replayed = game.apply(replayed, seat, move)
        assert replayed == last, "seed + move list must replay the game exactly"


@pytest.mark.parametrize(("game", "players", "options"), list(setups()))
def test_views_hide_other_seats_secrets_and_the_seed(game, players, options):
    seed = 987_654_321_987
    rng = random.Random(7)
    for state, _seat, _move in playout(game, players, options, seed, random_picker(rng)):
        for viewer in [None, *range(players)]:
            text = json.dumps(game.view(state, viewer))
            assert str(seed) not in text
            for other in range(players):
                if other != viewer:
                    for secret in game.secrets(state, other):
                        assert secret not in text, f"seat {viewer} sees a secret of seat {other}"


@pytest.mark.parametrize(("game", "players", "options"), list(setups()))
def test_every_ai_level_picks_legal_moves(game, players, options):
    def ai_pick(state, seat, legal):
        level = sorted(game.ai_levels)[len(legal) % len(game.ai_levels)]
        move = game.ai_move(state, seat, level, seed=len(legal))
        assert move in legal
        return move

    for _ in playout(game, players, options, 5, ai_pick):
        pass


def test_rules_and_engine_do_not_import_django():
    offenders = []
    for path in [*(ROOT / "games" / "engine").rglob("*.py"), *(ROOT / "games" / "rules").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "django"]
    assert offenders == []
