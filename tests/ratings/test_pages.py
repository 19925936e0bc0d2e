"""The leaderboards and the ratings on a player's page, open to anyone: ranks, the active players
only, pages, the viewer's own row, the AI levels, the history chart; each page's queries the same
for 1 player as for 200, and for 1 match as for 1,000."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import make_password
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from accounts.models import User
from accounts.services import user_deactivate
from games.models import Match, Seat, Status
from ratings import selectors
from ratings.models import Rating, RatingChange, displayed_value
from ratings.selectors import LEADERBOARD_PAGE
from tests.conftest import signed_in
from tests.html_check import html_problems
from tests.ratings.conftest import finish, new_match

pytestmark = pytest.mark.django_db

KALAH = "mancala/kalah"


def text(html: str) -> str:
    return " ".join(strip_tags(html).split())


def players(count: int, *, start: int = 0) -> list[User]:
    """``count`` players made at once (no email addresses: a leaderboard never reads them)."""
    password = make_password(None)
    return User.objects.bulk_create(
        User(
            username=f"p{number:04}", display_name=f"Player {number}", email=f"p{number}@example.com", password=password
        )
        for number in range(start, start + count)
    )


def rate(user: User, value: int, *, pool: str = KALAH, matches: int = 12, days_ago: float = 1) -> Rating:
    return Rating.objects.create(
        pool=pool,
        user=user,
        mu=25.0,
        sigma=3.0,
        value=value,
        rated_matches=matches,
        last_played_at=timezone.now() - timedelta(days=days_ago),
    )


def leaderboard(client, pool: str = KALAH, **params) -> str:
    response = client.get(reverse("leaderboard", args=[pool]), params)
    assert response.status_code == 200
    return response.content.decode()


def rows(html: str) -> list[list[str]]:
    """The leaderboard's rows, each its cells' words: rank, player, rating, rated matches, last played."""
    table = html.split('<table class="matches leaderboard">')[1].split("</table>")[0]
    return [
        [text(cell) for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.split("</thead>")[1], re.S)
        if "<td>" in row and "colspan" not in row
    ]


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


# --- the leaderboard ---


def test_a_visitor_sees_the_active_players_by_rating_with_links_to_their_pages(client, alice, bob, carol):
    rate(alice, 1420, matches=3)
    rate(bob, 1560)
    rate(carol, 1700, days_ago=100)  # not active in the last 90 days
    rate(carol, 1800, pool="mancala/egyptian")  # another pool

    html = leaderboard(client)

    day = (timezone.now() - timedelta(days=1)).strftime("%-d %b %Y")
    assert rows(html) == [["1", "Bob", "1560", "12", day], ["2", "Alice", "1420?", "3", day]]
    assert 'href="/players/bob/"' in html and "Carol" not in html
    assert "Players with a rated match in the last 90 days." in text(html)


def test_a_closed_account_leaves_the_leaderboard(client, alice, bob, staff):
    rate(alice, 1420)
    rate(bob, 1560)
    user_deactivate(user_id=bob.pk, actor=staff)

    assert [row[1] for row in rows(leaderboard(client))] == ["Alice"]


def test_it_is_paginated_and_ranks_go_on_from_page_to_page(client):
    for number, user in enumerate(players(LEADERBOARD_PAGE + 3)):
        rate(user, 2000 - number)

    first, second = leaderboard(client), leaderboard(client, page=2)

    assert len(rows(first)) == LEADERBOARD_PAGE and rows(first)[0][:3] == ["1", "Player 0", "2000"]
    assert [row[0] for row in rows(second)] == [str(LEADERBOARD_PAGE + n) for n in (1, 2, 3)]
    assert "Page 2 of 2" in second and 'rel="prev"' in second


def test_your_own_row_is_shown_below_the_page_when_it_is_on_another(client, alice):
    for number, user in enumerate(players(LEADERBOARD_PAGE)):
        rate(user, 2000 - number)
    rate(alice, 1000)
    client.force_login(alice)

    first = leaderboard(client)
    last = leaderboard(client, page=2)

    mine = first.split('class="mine-elsewhere"')[1]
    assert [text(cell) for cell in re.findall(r"<td>(.*?)</td>", mine, re.S)][:3] == [
        str(LEADERBOARD_PAGE + 1),
        "Alice (you)",
        "1000",
    ]
    assert "mine-elsewhere" not in last and rows(last)[0][:2] == [str(LEADERBOARD_PAGE + 1), "Alice (you)"]


def test_your_rating_too_old_to_be_listed_is_said_so(client, alice, bob):
    rate(bob, 1500)
    rate(alice, 1300, days_ago=120)

    html = leaderboard(signed_in(alice))

    assert [row[1] for row in rows(html)] == ["Bob"]
    assert "You are not listed: your last rated match here was on" in text(html)


def test_the_ai_levels_ratings_stand_beside_the_leaderboard(client, alice):
    finish(new_match("mancala", alice, 2, options={"variant": "kalah"}), seed=3)
    strong = Rating.objects.get(pool=KALAH, ai_level=2)

    html = leaderboard(client)

    assert re.search(rf"<th scope=\"row\">AI \(Strong\)</th><td>{strong.value}\?</td><td>1</td>", html)
    assert [row[1] for row in rows(html)] == ["Alice"], "the AI is not ranked among the players"


def test_mancala_has_one_leaderboard_per_variant_and_an_unknown_pool_is_a_404(client):
    assert client.get(reverse("leaderboard", args=["mancala"]))["Location"] == "/ratings/mancala/egyptian/"
    html = leaderboard(client, "mancala/nigerian")
    assert "<h1>Mancala (Nigerian) leaderboard</h1>" in html and 'href="/ratings/mancala/kalah/"' in html
    assert client.get("/ratings/chess/").status_code == 404
    assert client.get("/ratings/mancala/oware/").status_code == 404
    index = client.get(reverse("leaderboards")).content.decode()
    assert 'href="/ratings/jeexa/"' in index and 'href="/ratings/mancala/kalah/"' in index


def test_each_games_page_links_to_its_leaderboard(client):
    assert (
        'href="/ratings/mecca/">Mecca leaderboard</a>' in client.get(reverse("game", args=["mecca"])).content.decode()
    )


@pytest.mark.parametrize("viewer", ["visitor", "listed", "off the page"])
def test_the_leaderboard_costs_the_same_queries_for_1_player_as_for_200(client, alice, monkeypatch, viewer):
    """Off the page: pages of one row, so that Alice is off the first with one player above her too."""
    url = reverse("leaderboard", args=[KALAH])
    if viewer == "off the page":
        monkeypatch.setattr(selectors, "LEADERBOARD_PAGE", 1)
    if viewer != "visitor":
        client.force_login(alice)
        rate(alice, 2500 if viewer == "listed" else 100)
    rate(players(1)[0], 1500)
    few = queries(client, url)
    for number, user in enumerate(players(199, start=1)):
        rate(user, 1500 + number)

    assert queries(client, url) == few
    assert ("mine-elsewhere" in client.get(url).content.decode()) == (viewer == "off the page")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the plan is PostgreSQL's")
def test_the_leaderboard_page_is_read_from_its_index():
    """A page is the first rows of the index in its order, not a sort of every active player."""
    for number, user in enumerate(players(1000)):
        rate(user, 1000 + number, pool=KALAH if number % 4 else "mecca", days_ago=number % 120)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ratings_rating")
        cursor.execute("ANALYZE accounts_user")
    plan = selectors.leaderboard_rows(KALAH)[:LEADERBOARD_PAGE].explain()
    assert "rating_leaderboard" in plan and "Seq Scan on ratings_rating" not in plan, plan


# --- the player's page ---


def test_a_visitor_opens_a_players_page_with_their_ratings_and_history_chart(client, alice, bob):
    played = [finish(new_match("mancala", alice, bob, options={"variant": "kalah"}), seed=seed) for seed in range(3)]
    finish(new_match("jeexa", alice, 1, 2), seed=4)

    response = client.get(reverse("player", args=["alice"]))

    assert response.status_code == 200
    html = response.content.decode()
    ratings = html.split("<h2>Ratings</h2>")[1].split("</section>")[0]
    kalah = Rating.objects.get(user=alice, pool=KALAH)
    link = '<a class="own-line" href="/ratings/mancala/kalah/">Mancala (Kalah)</a>'
    assert f"{link}</th><td>{kalah.value}?</td><td>3</td>" in ratings
    assert ratings.index("Mancala (Kalah)") < ratings.index("Jeexa"), "in the order of the games"
    charts = re.findall(r'<polyline points="([^"]+)"', ratings)
    assert len(charts) == 2
    heights = [float(point.split(",")[1]) for point in charts[0].split()]
    values = [1200] + [change.value_after for change in RatingChange.objects.filter(rating=kalah).order_by("at")]
    assert len(heights) == len(played) + 1
    # Higher on the chart (a smaller y) for a higher rating, the lowest at the bottom.
    assert sorted(range(4), key=lambda i: heights[i]) == sorted(range(4), key=lambda i: -values[i])
    assert f"Highest {max(values)}, lowest {min(values)}" in text(ratings)
    assert "Challenge" not in html, "a visitor has no challenge to make"


def test_a_player_without_rated_matches_says_so(client, alice):
    assert "No rated matches yet." in client.get(reverse("player", args=["alice"])).content.decode()


def test_a_player_page_lists_only_public_matches_to_a_visitor(client, alice, bob):
    public = finish(new_match("mancala", alice, bob), seed=1)
    private = finish(new_match("mancala", alice, bob), seed=2)
    Match.objects.filter(pk=private.pk).update(public=False)

    html = client.get(reverse("player", args=["alice"])).content.decode()

    assert f'href="/matches/{public.pk}/"' in html and f'href="/matches/{private.pk}/"' not in html
    assert "Won" in text(html) or "Lost" in text(html) or "Shared win" in text(html)


@override_settings(RATING_PROVISIONAL_MATCHES=1)
def test_a_settled_rating_has_no_question_mark_on_the_players_page(client, alice, bob):
    finish(new_match("mancala", alice, bob), seed=1)
    value = Rating.objects.get(user=alice).value
    assert f"<td>{value}</td>" in client.get(reverse("player", args=["alice"])).content.decode()


def finished_rated_matches(player: User, other: User, count: int, *, pool: str = KALAH) -> None:
    """``count`` finished public matches of ``player`` against ``other``, each with its rating change, at once."""
    now = timezone.now()
    matches = Match.objects.bulk_create(
        Match(
            game="mancala",
            options={"variant": "kalah"},
            status=Status.FINISHED,
            state={},
            seed=number,
            result={"scores": [], "winners": [number % 2], "reason": "played out"},
            created_at=now,
            finished_at=now - timedelta(minutes=count - number),
        )
        for number in range(count)
    )
    Seat.objects.bulk_create(
        Seat(match=match, number=number, user=user, turns=5, timeouts=number)
        for match in matches
        for number, user in enumerate((player, other))
    )
    rating, _ = Rating.objects.get_or_create(
        pool=pool, user=player, defaults={"mu": 25.0, "sigma": 8.0, "value": 1200, "last_played_at": now}
    )
    RatingChange.objects.bulk_create(
        RatingChange(
            rating=rating,
            match=match,
            seat=0,
            mu_before=25.0,
            sigma_before=25 / 3,
            mu_after=25.0 + number % 7,
            sigma_after=6.0,
            value_after=displayed_value(25.0 + number % 7, 6.0),
            at=match.finished_at,
        )
        for number, match in enumerate(matches)
    )
    Rating.objects.filter(pk=rating.pk).update(rated_matches=rating.rated_matches + count)


@pytest.mark.parametrize("viewer", ["visitor", "the player", "another player"])
def test_the_player_page_costs_the_same_queries_for_1_match_as_for_1000(client, alice, bob, carol, viewer):
    if viewer != "visitor":
        client.force_login(alice if viewer == "the player" else carol)
    url = reverse("player", args=["alice"])
    finished_rated_matches(alice, bob, 1)
    few = queries(client, url)
    finished_rated_matches(alice, bob, 999)

    html = client.get(url).content.decode()
    assert queries(client, url) == few
    assert "after 1000 rated matches" in html and html.count("<polyline") == 1


# --- reliability ---


def test_reliability_is_the_share_of_turns_on_a_clock_that_ran_out_in_the_last_12_months(client, alice, bob, carol):
    finished_rated_matches(alice, bob, 4)  # Alice's seats: 5 turns each, none ran out
    Seat.objects.filter(user=alice).update(turns=10)
    one = Seat.objects.filter(user=alice).order_by("pk").first()
    Seat.objects.filter(pk=one.pk).update(timeouts=1)
    # A seat the AI took from her when her clock ran out counts too.
    taken = Seat.objects.filter(user=alice).order_by("pk").last()
    Seat.objects.filter(pk=taken.pk).update(user=None, ai_level=1, former_user=alice, timeouts=2)
    # A match older than 12 months does not.
    old = Match.objects.filter(seats__user=alice).order_by("pk")[1]
    long_ago = timezone.now() - timedelta(days=400)
    Match.objects.filter(pk=old.pk).update(created_at=long_ago, finished_at=long_ago)

    html = text(client.get(reverse("player", args=["alice"])).content.decode())

    assert "Clock ran out in 10% of their turns: 3 of 30 turns on a clock in the last 12 months." in html


def test_no_reliability_is_shown_without_a_turn_on_a_clock(client, alice, bob):
    finish(new_match("mancala", alice, bob), seed=1)  # no clock
    assert "Clock ran out" not in client.get(reverse("player", args=["alice"])).content.decode()


def test_the_pages_are_html_a_browser_reads_as_written(client, alice, bob):
    for seed in range(2):
        finish(new_match("mancala", alice, bob, options={"variant": "kalah"}), seed=seed)
    finish(new_match("jeexa", alice, 1, 2), seed=4)
    for url in (reverse("leaderboards"), reverse("leaderboard", args=[KALAH]), reverse("player", args=["alice"])):
        assert html_problems(client.get(url).content.decode()) == [], url
    client.force_login(bob)
    assert html_problems(leaderboard(client, "jeexa")) == [], "signed in, with no rating here"
