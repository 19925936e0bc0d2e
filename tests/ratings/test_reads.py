"""What the pages and the player's data read of ratings: the number as players read it, a
player's ratings and their history, the AI levels', each in one query; the staff's lists, read-only;
"Download my data"."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ratings import selectors
from ratings.models import Rating, RatingChange
from ratings.pools import all_pools, pool_label, pool_of
from tests.conftest import signed_in
from tests.ratings.conftest import finish, new_match

pytestmark = pytest.mark.django_db


def one_query(read):
    with CaptureQueriesContext(connection) as captured:
        result = read()
    assert len(captured) == 1, [query["sql"] for query in captured]
    return result


@pytest.fixture
def played(alice, bob, clock):
    """Alice: two Egyptian matches with Bob, one Kalah match against the Strong AI, one Jeexa match with both AIs."""
    matches = []
    for make, seed in (
        (lambda: new_match("mancala", alice, bob), 1),
        (lambda: new_match("mancala", bob, alice), 2),
        (lambda: new_match("mancala", alice, 2, options={"variant": "kalah"}), 3),
        (lambda: new_match("jeexa", alice, 1, 2), 4),
    ):
        clock.advance(hours=1)
        matches.append(finish(make(), seed))
    return matches


def test_the_pools_are_the_games_and_mancalas_variants():
    assert all_pools() == [
        "mancala/egyptian",
        "mancala/ethiopian",
        "mancala/nigerian",
        "mancala/kalah",
        "mecca",
        "jeexa",
        "mesopotamia",
    ]
    assert pool_of("mancala", {"variant": "nigerian"}) == "mancala/nigerian"
    assert pool_of("mecca", {}) == "mecca"
    assert (pool_label("mancala/kalah"), pool_label("jeexa")) == ("Mancala (Kalah)", "Jeexa")


@override_settings(RATING_PROVISIONAL_MATCHES=2)
def test_a_rating_reads_as_one_number_with_a_question_mark_while_provisional():
    rating = Rating(pool="mecca", user_id=1, mu=27.0, sigma=3.0, value=1560, rated_matches=1)
    assert selectors.display(rating) == "1560?"
    rating.rated_matches = 2
    assert selectors.display(rating) == "1560"


def test_a_players_ratings_by_pool_in_one_query(alice, bob, played):
    ratings = one_query(lambda: selectors.ratings_of(alice))

    assert list(ratings) == ["jeexa", "mancala/egyptian", "mancala/kalah"]
    assert ratings["mancala/egyptian"].rated_matches == 2
    assert list(selectors.ratings_of(bob)) == ["mancala/egyptian"]


def test_a_players_history_in_a_pool_oldest_first_in_one_query(alice, bob, played):
    history = one_query(lambda: selectors.history(alice, "mancala/egyptian"))

    assert [change.match_id for change in history] == [played[0].pk, played[1].pk]
    assert history[0].mu_after == history[1].mu_before
    assert history[1].value_after == Rating.objects.get(user=alice, pool="mancala/egyptian").value
    assert selectors.history(bob, "jeexa") == []


def test_each_ai_levels_rating_in_a_pool_in_one_query(played):
    levels = one_query(lambda: selectors.ai_ratings("jeexa"))

    assert list(levels) == [1, 2]
    assert all(rating.user_id is None and rating.rated_matches == 1 for rating in levels.values())
    assert list(selectors.ai_ratings("mancala/kalah")) == [2]
    assert selectors.ai_ratings("mecca") == {}


# --- the staff's lists ---


@pytest.mark.parametrize("model", ["rating", "ratingchange"])
def test_staff_find_ratings_by_player_and_pool_and_cannot_change_them(staff, alice, played, model):
    client = signed_in(staff)
    changelist = reverse(f"admin:ratings_{model}_changelist")
    field = "pool" if model == "rating" else "rating__pool"

    everyone = client.get(changelist).content.decode()
    alices = client.get(changelist, {"q": "alice"}).content.decode()
    kalah = client.get(changelist, {field: "mancala/kalah"}).content.decode()
    bobs = client.get(changelist, {"q": "bob"}).content.decode()

    assert "AI (Strong)" in everyone and "Alice" in everyone
    assert "Alice" in alices and "AI (Strong)" not in alices and "Bob" not in alices
    assert "AI (Strong)" in kalah and "Bob" not in kalah
    assert "Alice" not in bobs.split('id="result_list"')[1]
    row = (Rating if model == "rating" else RatingChange).objects.first()
    page = client.get(reverse(f"admin:ratings_{model}_change", args=[row.pk]))
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get(reverse(f"admin:ratings_{model}_add")).status_code == 403
    assert client.post(reverse(f"admin:ratings_{model}_delete", args=[row.pk]), {"post": "yes"}).status_code == 403
    assert (Rating if model == "rating" else RatingChange).objects.filter(pk=row.pk).exists()


# --- Download my data ---


def test_download_my_data_has_the_players_ratings_and_their_history(alice, bob, played):
    response = signed_in(alice).get(reverse("account_data"))
    data = json.loads(b"".join(response.streaming_content))

    ratings = {entry["pool"]: entry for entry in data["ratings"]}
    assert list(ratings) == ["jeexa", "mancala/egyptian", "mancala/kalah"]
    egyptian = ratings["mancala/egyptian"]
    rating = Rating.objects.get(user=alice, pool="mancala/egyptian")
    assert egyptian["game"] == "Mancala (Egyptian)"
    assert (egyptian["value"], egyptian["provisional"], egyptian["rated_matches"]) == (rating.value, True, 2)
    assert egyptian["last_played_at"] == played[1].finished_at.isoformat()
    assert [(entry["match"], entry["value_after"]) for entry in egyptian["history"]] == [
        (change.match_id, change.value_after) for change in selectors.history(alice, "mancala/egyptian")
    ]
    assert egyptian["history"][0]["at"] == played[0].finished_at.isoformat()
    assert "AI" not in json.dumps(data["ratings"]), "nothing of the AI's ratings"
