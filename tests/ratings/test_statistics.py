"""Each game's statistics page: the figures of its finished matches (casual ones too, aborted ones
not), by player count and per AI level against people; refreshed by the nightly task and by the
command; the page reads the stored row, its queries the same for 1 match as for 30, open to anyone."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from accounts.models import User
from games.engine import get_game
from games.models import Match, Seat, Status
from ratings import statistics
from ratings.models import PoolStatistics
from ratings.pools import all_pools
from ratings.tasks import refresh_statistics
from tests.html_check import html_problems

pytestmark = pytest.mark.django_db

EASY, STRONG = 1, 2


def taken_from(user: User) -> tuple[str, User]:
    """A seat the AI (Easy) took from ``user`` during play."""
    return ("taken", user)


def finished(
    game: str,
    seats: list,
    winners: list[int],
    *,
    moves: int = 20,
    days: float = 1,
    options: dict | None = None,
    status: str = Status.FINISHED,
    rated: bool = True,
) -> Match:
    """A match ended ``days`` after it was created, after ``moves`` moves; each seat a user, an AI
    level, or ``taken_from(user)``."""
    now = timezone.now()
    match = Match.objects.create(
        game=game,
        options=options or {},
        status=status,
        state={},
        seed=0,
        version=moves,
        rated=rated,
        result={"scores": [], "winners": winners, "reason": "played out"},
        finished_at=now if status == Status.FINISHED else None,
    )
    Match.objects.filter(pk=match.pk).update(created_at=now - timedelta(days=days))
    for number, occupant in enumerate(seats):
        if isinstance(occupant, int):
            Seat.objects.create(match=match, number=number, ai_level=occupant)
        elif isinstance(occupant, tuple):
            Seat.objects.create(
                match=match,
                number=number,
                ai_level=EASY,
                former_user=occupant[1],
                taken_over_at=now - timedelta(hours=1),
            )
        else:
            Seat.objects.create(match=match, number=number, user=occupant)
    return match


@pytest.fixture
def jeexa_matches(alice, bob, carol):
    """Four 2-player and three 3-player Jeexa matches that count; an aborted one and a Mecca one that do not."""
    finished("jeexa", [alice, bob], [0], moves=30, days=2)
    finished("jeexa", [alice, STRONG], [1], moves=40, days=4)
    finished("jeexa", [bob, carol], [0], moves=20, days=0, rated=False)  # casual: counted all the same
    finished("jeexa", [EASY, STRONG], [0], moves=50, days=1)  # no person: not among the AI's results
    finished("jeexa", [alice, bob, STRONG], [1, 2], moves=10, days=1)  # a resignation: the others share the win
    finished("jeexa", [alice, STRONG, taken_from(bob)], [2], moves=60, days=5)  # the AI won on Bob's seat
    finished("jeexa", [carol, STRONG, STRONG], [1, 2], moves=30, days=3)  # Strong's two seats won together
    finished("jeexa", [alice, bob], [0], status=Status.ABORTED)
    finished("mecca", [alice, bob], [1])


def test_figures_by_player_count(jeexa_matches):
    figures = statistics.compute("jeexa")
    assert figures["matches"] == 7
    assert figures["average_moves"] == round(240 / 7, 1)
    assert figures["average_days"] == pytest.approx(16 / 7, abs=0.001)
    two, three = figures["by_players"]
    assert two == {
        "players": 2,
        "matches": 4,
        "seat_wins": [3, 1],
        "seat_shared": [0, 0],
        "shared": 0,
        "no_winner": 0,
        "average_moves": 35.0,
        "average_days": pytest.approx(7 / 4, abs=0.001),
    }
    assert three["matches"] == 3
    assert three["seat_wins"] == [0, 0, 1], "a shared win is no seat's win alone"
    assert three["seat_shared"] == [0, 2, 2]
    assert three["shared"] == 2
    assert three["average_moves"] == round(100 / 3, 1)
    assert three["average_days"] == pytest.approx(3, abs=0.001)


def test_ai_levels_against_people(jeexa_matches):
    """Strong: won alone once, won with its own second seat once (won), shared with Bob once, lost
    once (the AI on Bob's seat won that one, which counts for Bob, not for a level). Easy played
    only the AI match and Bob's seat: no result against people."""
    assert statistics.compute("jeexa")["ai_levels"] == [
        {"level": STRONG, "matches": 4, "won": 2, "shared": 1, "lost": 1}
    ]


def test_a_mancala_variant_counts_its_own_matches(alice, bob):
    first, other = get_game("mancala").options["variant"][:2]
    finished("mancala", [alice, bob], [0], options={"variant": first})
    finished("mancala", [alice, bob], [1], options={})  # stored without a variant: the first one's
    finished("mancala", [alice, bob], [1], options={"variant": other})
    assert statistics.compute(f"mancala/{first}")["by_players"][0]["seat_wins"] == [1, 1]
    assert statistics.compute(f"mancala/{other}")["by_players"][0]["seat_wins"] == [0, 1]


def test_no_match_yet():
    figures = statistics.compute("mecca")
    assert figures == {"matches": 0, "average_moves": None, "average_days": None, "by_players": [], "ai_levels": []}


def test_the_nightly_task_refreshes_every_pool(jeexa_matches, alice, bob):
    counted = refresh_statistics()
    assert set(counted) == set(all_pools())
    assert counted["jeexa"] == 7 and counted["mecca"] == 1
    assert PoolStatistics.objects.count() == len(all_pools())
    finished("jeexa", [alice, bob], [1])
    assert PoolStatistics.objects.get(pool="jeexa").figures["matches"] == 7, "stored: not counted until refreshed"
    refresh_statistics()
    assert PoolStatistics.objects.get(pool="jeexa").figures["matches"] == 8
    assert PoolStatistics.objects.count() == len(all_pools()), "replaced, one row per pool"


def test_the_task_is_scheduled_nightly(settings):
    assert settings.CELERY_BEAT_SCHEDULE["refresh-statistics"]["task"] == refresh_statistics.name


def test_one_failing_pool_leaves_the_others(jeexa_matches, monkeypatch, caplog):
    compute = statistics.compute

    def failing(pool):
        if pool == "mecca":
            raise RuntimeError("mecca")
        return compute(pool)

    monkeypatch.setattr(statistics, "compute", failing)
    counted = refresh_statistics()
    assert "mecca" not in counted and counted["jeexa"] == 7
    assert "Computing the statistics of mecca failed" in caplog.text


def test_the_command_refreshes_the_pools_named(jeexa_matches, capsys):
    call_command("statistics_refresh", "jeexa")
    assert "jeexa: 7 finished matches." in capsys.readouterr().out
    assert list(PoolStatistics.objects.values_list("pool", flat=True)) == ["jeexa"]
    call_command("statistics_refresh")
    assert PoolStatistics.objects.count() == len(all_pools())
    with pytest.raises(CommandError, match="No such pool: chess"):
        call_command("statistics_refresh", "chess")


def table_rows(html: str) -> list[list[str]]:
    """Each body row of the page's tables, its cells' words."""
    return [
        [text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for body in re.findall(r"<tbody>(.*?)</tbody>", html, re.S)
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def text(html: str) -> str:
    return " ".join(strip_tags(html).split())


def page(client: Client, pool: str) -> str:
    response = client.get(reverse("pool_statistics", args=[pool]))
    assert response.status_code == 200
    return text(response.content.decode())


def test_a_visitor_opens_the_page(jeexa_matches, client):
    """Not signed in. No row yet: the first visit computes and stores it."""
    assert not PoolStatistics.objects.exists()
    html = client.get(reverse("pool_statistics", args=["jeexa"])).content.decode()
    assert html_problems(html) == []
    assert PoolStatistics.objects.filter(pool="jeexa").exists()
    assert "7 matches played, on average 34.3 moves and 2.3 days long." in text(html)
    assert "4 matches, on average 35 moves and 1.8 days long." in text(html)
    assert table_rows(html) == [
        ["Seat 1 (moves first)", "3", "75%", "0"],
        ["Seat 2", "1", "25%", "0"],
        ["Seat 1 (moves first)", "0", "0%", "0"],
        ["Seat 2", "0", "0%", "2"],
        ["Seat 3", "1", "33%", "2"],
        ["AI (Strong)", "4", "2", "1", "1", "50%"],
    ]


def test_the_page_shows_the_stored_figures_until_refreshed(jeexa_matches, alice, bob, client):
    statistics.refresh("jeexa")
    finished("jeexa", [alice, bob], [1])
    assert "7 matches played" in page(client, "jeexa")
    statistics.refresh("jeexa")
    assert "8 matches played" in page(client, "jeexa")


def test_durations_within_a_day_in_hours(alice, bob, client):
    finished("mecca", [alice, bob], [0], days=0.25)
    assert "on average 20 moves and 6 hours long" in page(client, "mecca")
    assert statistics.days_words(0.01) == "under an hour"
    assert statistics.days_words(1) == "1 day"


def test_a_pool_without_matches(client):
    assert "No Mecca match has finished yet." in page(client, "mecca")


def test_mancala_goes_to_its_first_variant_and_an_unknown_game_is_not_found(client):
    first = get_game("mancala").options["variant"][0]
    response = client.get(reverse("pool_statistics", args=["mancala"]))
    assert response.status_code == 302
    assert response.url == reverse("pool_statistics", args=[f"mancala/{first}"])
    assert client.get(reverse("pool_statistics", args=["chess"])).status_code == 404


def test_linked_from_the_game_page_and_the_leaderboard(client):
    statistics_url = reverse("pool_statistics", args=["mecca"])
    assert statistics_url in client.get(reverse("game", args=["mecca"])).content.decode()
    assert statistics_url in client.get(reverse("leaderboard", args=["mecca"])).content.decode()
    assert reverse("leaderboard", args=["mecca"]) in client.get(statistics_url).content.decode()


def queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_page_reads_one_row_whatever_the_matches(alice, bob, carol, client):
    url = reverse("pool_statistics", args=["jeexa"])
    finished("jeexa", [alice, STRONG], [0])
    statistics.refresh("jeexa")
    few = queries(client, url)
    for number in range(30):
        finished("jeexa", [alice, bob, carol][: 2 + number % 2], [number % 2])
    statistics.refresh("jeexa")
    assert "31 matches played" in page(client, "jeexa")
    assert queries(client, url) == few
    assert few <= 2, "the stored row (and the session where there is one)"
