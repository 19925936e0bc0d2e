"""The benchmarks still run against the site as it is (they print numbers; nothing here times anything)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from bench import load, site
from games.models import Match
from housekeeping import tasks as housekeeping_tasks
from tests.conftest import start_match
from tests.games.conftest import play_moves


def test_the_bare_write_the_move_is_compared_with_answers_an_htmx_post(client, alice, bob):
    """The site's middleware names the sign-in page on every htmx request: with only the
    bare view's address the bench stopped with NoReverseMatch before printing a number."""
    match = start_match(alice, bob)
    client.force_login(alice)
    with override_settings(ROOT_URLCONF=site.__name__):
        response = client.post(f"/bare/{match.pk}/", **site.HTMX)
    assert response.status_code == 200 and response.content == b"ok"


def test_the_bench_keeps_its_tasks_in_memory_without_redis(monkeypatch):
    """Without REDIS_URL the settings name the filesystem transport: the bench's moves then
    wrote hundreds of task files into data_out/ and control/ of the directory it ran from."""
    from config.celery import app

    for key, value in [
        ("broker_url", "filesystem://"),
        ("broker_transport", "config.broker:Transport"),
        ("broker_transport_options", {"data_folder_out": "data_out"}),
        ("broker_write_url", None),
        ("broker_read_url", None),
    ]:  # (other tests set these two)
        monkeypatch.setitem(app.conf, key, value)  # as config/settings.py sets them without REDIS_URL
    site.keep_tasks_in_memory()
    with app.connection_for_write() as connection:
        assert connection.transport_cls == "memory"


def test_the_ai_part_runs_through_the_mancala_benchmark(capsys):
    site.report_ai(0)  # no games: only the wiring, not the AI's time
    assert "Mancala, 2 players, 0 games per matchup" in capsys.readouterr().out


def test_the_housekeeping_bench_fills_what_the_clearing_clears(db):
    from django.core.cache import cache

    from bench import housekeeping as bench

    try:
        bench.fill(3)
        cleared = housekeeping_tasks.clear_expired()
        assert [cleared[name] for name in ("sessions", "cache_rows", "notifications")] == [3, 3, 3]
    finally:
        cache.clear()


def _started(slug: str, options: dict, alice, bob):
    from games import services

    seats = [services.SeatSpec("creator"), services.SeatSpec("user", username=bob.username)]
    match = services.match_create(creator=alice, game_slug=slug, options=options, seats=seats)
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("slug, options", sorted({(slug, tuple(options.items())) for slug, options, *_ in load.MIX}))
def test_the_load_bench_reads_every_move_a_match_page_offers(client, alice, bob, slug, options):
    """The load bench's players click what the page shows: it must find every legal move of
    each game's board (buttons, and Mesopotamia's clickable hexes), the poll token and the version."""
    match = _started(slug, dict(options), alice, bob)
    game = match.game_obj
    state = game.load(match.state)
    seat = game.to_act(state)[0]
    client.force_login([alice, bob][seat])
    page = load.Page(match.pk)
    page.read(client.get(reverse("match_detail", args=[match.pk])).content.decode(), load.Stats())
    assert page.moves == sorted(game.legal_moves(state, seat))
    assert (page.token, page.version, page.live) == (match.poll_token, match.version, True)


def test_the_load_bench_check_finds_a_state_that_is_not_the_replay_and_a_lost_move(alice, bob):
    match = start_match(alice, bob)
    play_moves(match, {0: alice, 1: bob}, 3)
    record = match.moves.get(ply=1)
    stats = load.Stats(accepted=[(match.pk, 1, record.notation, [alice, bob][record.seat].pk)])
    assert load.check_matches(stats) == []
    stats.accepted.append((match.pk, 3, record.notation, alice.pk))  # answered 200, never stored
    Match.objects.filter(pk=match.pk).update(state=start_match(alice, bob).state)
    wrong = load.check_matches(stats)
    assert any("not the replay of its 3 moves" in line for line in wrong)
    assert any("at version 3 was answered 200 but is not its record" in line for line in wrong)


def test_the_replay_bench_plays_a_match_to_its_end_and_steps_through_it(db):
    from bench import replay as bench
    from bench.site import logged_in

    case = bench.Case("Mecca, 2 players", "mecca", 2)
    users = bench.players(2)
    match = bench.finished_match(case, users, seed=1)
    row = bench.measure(case, match, logged_in(users[0]), repeat=1)
    assert row[1] == str(match.version) and row[-1].endswith("(flat)")


def test_the_mecca_value_bench_describes_the_ais_turns_from_round_2(monkeypatch):
    """What bench/mecca_value.py fits the learned value to: one row of ``value.FEATURES`` per
    turn of the AI colour from round 2 on, each labelled with the game's result."""
    import math

    from bench import mecca_value
    from games.rules.mecca import ai, value

    for name, setting in [("LATE", math.inf), ("BEAM", 3), ("PLANS_LOOKED_AHEAD", 0)]:
        monkeypatch.setattr(ai, name, setting)  # as bench/mecca_judge.configure sets them in its workers
    rows = mecca_value.positions(5)
    assert 3 <= len(rows) <= 8  # a game lasts five or six rounds
    assert {len(numbers) for numbers, _, _ in rows} == {len(value.FEATURES)}
    assert len({won for _, won, _ in rows}) == 1 and {n for _, _, n in rows} == {5}
    hands = [numbers[value.FEATURES.index("hand_mine")] for numbers, _, _ in rows]
    assert hands[0] == 16  # its entrance and its round-1 pilgrim are down
