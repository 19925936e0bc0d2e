"""The benchmarks still run against the site as it is (they print numbers; nothing here times anything)."""

from __future__ import annotations

from django.test import override_settings

from bench import site
from tests.conftest import start_match


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

    for key, value in [("broker_url", "filesystem://"), ("broker_transport", "config.broker:Transport"),
                       ("broker_transport_options", {"data_folder_out": "data_out"}),
                       ("broker_write_url", None), ("broker_read_url", None)]:  # (other tests set these two)
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
    from games import tasks

    try:
        bench.fill(3)
        cleared = tasks.clear_expired()
        assert [cleared[name] for name in ("sessions", "cache_rows", "notifications")] == [3, 3, 3]
    finally:
        cache.clear()
