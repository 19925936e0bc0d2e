"""A player's page (/players/<username>/), open to anyone: their public name, since when they play,
their record per game, the matches of theirs the viewer may open, and a Challenge link to the
new-match form for those signed in. Names next to matches lead there. It costs the same queries for
2 matches as for 30 (tests/ratings/test_pages.py: 1 and 1,000 with ratings)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from accounts.services import user_deactivate
from games import services
from games.models import Match, Status
from games.services import SeatSpec
from tests.conftest import make_user, start_match


def page_of(client, username: str) -> str:
    response = client.get(reverse("player", args=[username]))
    assert response.status_code == 200
    return response.content.decode()


def text(html: str) -> str:
    return " ".join(strip_tags(html).split())


def record_row(html: str, game: str) -> list[str]:
    """The cells of ``game``'s row in the record: finished, won, shared wins, lost."""
    row = re.search(rf"<tr><th scope=\"row\">{game}</th>(.*?)</tr>", html, re.S)
    return re.findall(r"<td>(\d+)</td>", row[1]) if row else []


def finish(match: Match, winners: list[int]) -> Match:
    """Ends ``match`` with ``winners``, as the engine's outcome would."""
    Match.objects.filter(pk=match.pk).update(
        status=Status.FINISHED,
        finished_at=timezone.now(),
        result={"scores": [], "winners": winners, "reason": "played out"},
    )
    match.refresh_from_db()
    return match


def jeexa(creator, *others):
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=user.username) for user in others)]
    match = services.match_create(creator=creator, game_slug="jeexa", options={}, seats=seats)
    for user in others:
        services.match_accept(match_id=match.pk, user=user)
    return match


def test_a_visitor_not_signed_in_opens_the_page_without_a_challenge(client, alice, bob):
    services.match_resign(match_id=start_match(alice, bob).pk, user=bob)

    html = page_of(client, "alice")

    assert "<h1>Alice</h1>" in html and record_row(html, "Mancala") == ["1", "1", "0", "0"]
    assert "Challenge" not in html and "?invite=" not in html


def test_it_shows_the_public_name_the_month_joined_and_the_record_per_game(client, alice, bob, carol):
    services.match_resign(match_id=start_match(alice, bob).pk, user=bob)  # alice won
    services.match_resign(match_id=start_match(alice, bob).pk, user=alice)  # alice lost
    finish(start_match(bob, alice), [0, 1])  # shared
    start_match(alice, bob)  # in play: not in the record
    cancelled = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={"variant": "egyptian"},
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )
    services.match_cancel(match_id=cancelled.pk, user=alice)
    finish(jeexa(bob, carol, alice), [0, 2])  # alice on seat 2: a shared win
    left = jeexa(alice, bob, carol)
    services.match_resign(match_id=left.pk, user=alice)  # the AI took her seat: not hers to count
    finish(left, [0])
    client.force_login(carol)

    html = page_of(client, "alice")

    assert "<h1>Alice</h1>" in html
    assert f"Playing here since {alice.date_joined:%B %Y}." in text(html)
    assert record_row(html, "Mancala") == ["3", "1", "1", "1"]
    assert record_row(html, "Jeexa") == ["1", "0", "1", "0"]
    assert record_row(html, "Mecca") == [], "a game never finished has no row"


def test_a_player_without_a_finished_match_has_an_empty_record(client, alice, bob):
    client.force_login(bob)
    assert "No finished matches yet." in page_of(client, "alice")


def test_it_lists_only_the_matches_the_viewer_may_open_with_links(client, alice, bob, carol, staff):
    with_bob = start_match(alice, bob)
    with_carol = start_match(alice, carol)
    done_with_bob = start_match(alice, bob)
    services.match_resign(match_id=done_with_bob.pk, user=bob)
    challenge = services.match_create(
        creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("open")], public=False
    )
    Match.objects.filter(pk__in=[with_bob.pk, with_carol.pk, done_with_bob.pk]).update(public=False)
    public = start_match(alice, bob)  # anyone may watch it
    links = {
        match: reverse("match_detail", args=[match.pk])
        for match in (with_bob, with_carol, done_with_bob, challenge, public)
    }

    def listed(viewer) -> set[Match]:
        client.force_login(viewer)
        html = page_of(client, "alice")
        return {match for match, link in links.items() if f'href="{link}"' in html}

    assert listed(carol) == {with_carol, challenge, public}, "a private match among others stays theirs alone"
    assert listed(bob) == {with_bob, done_with_bob, challenge, public}
    assert listed(alice) == set(links)
    assert listed(staff) == set(links)
    client.force_login(bob)
    html = page_of(client, "alice")
    finished = html.split("Latest finished matches")[1]
    assert "Their result" in text(finished) and "Won" in text(finished) and "Mancala #" in finished, (
        "Alice's result, which Bob, who lost that match, must not take for his own"
    )
    assert "Your result" in text(page_of(client, "bob").split("Latest finished matches")[1])
    assert record_row(html, "Mancala") == ["1", "1", "0", "0"], "the record counts the same for everyone"


def section(html: str, heading: str) -> str:
    """The words of the page's section under ``heading``, the heading's included."""
    return text(re.search(rf"<h2>{heading}</h2>.*?</section>", html, re.S)[0])


def test_which_matches_are_listed_is_said_under_their_heading_not_the_records(client, alice, bob, staff):
    """The note stood between the Record and the matches in play, as if it said something of the record;
    the heading said "in play" over invitations not yet accepted."""
    start_match(alice, bob)
    services.match_create(creator=alice, game_slug="mecca", options={}, seats=[SeatSpec("creator"), SeatSpec("open")])
    client.force_login(bob)
    html = page_of(client, "alice")

    assert section(html, "Matches in play or waiting for players").startswith(
        "Matches in play or waiting for players Only the matches you may open are listed, here and below: "
        "public ones, the ones you play with Alice, and open challenges anyone may join. Match"
    )
    assert "Waiting for players" in section(html, "Matches in play or waiting for players")
    assert "may open" not in section(html, "Record")
    for viewer in (alice, staff):  # they see every match
        client.force_login(viewer)
        assert "may open" not in page_of(client, "alice")

    user_deactivate(user_id=alice.pk, actor=staff)
    client.force_login(bob)
    assert section(page_of(client, "alice"), "Latest finished matches").startswith(
        "Latest finished matches Only the matches you may open are listed: public ones, and the ones you played with "
        "Alice. "
    )


def test_finished_matches_are_the_latest_twenty(client, alice, bob):
    matches = [start_match(alice, bob) for _ in range(22)]
    for match in matches:
        finish(match, [0])
    client.force_login(bob)

    html = page_of(client, "alice").split("Latest finished matches")[1]

    shown = [int(pk) for pk in re.findall(r'href="/matches/(\d+)/"', html)]
    assert len(shown) == 20 and matches[0].pk not in shown and matches[-1].pk in shown


def test_it_names_no_private_detail(client, alice, bob):
    alice.time_zone = "Asia/Kolkata"
    alice.webhook_url = "https://hooks.example.com/secret-hook"
    alice.turn_notice = "digest"
    alice.digest_hour = 17
    alice.vacation_days_used = 9
    alice.save()
    start_match(alice, bob)
    client.force_login(bob)

    html = page_of(client, "alice")

    for private in ("alice@example.com", "Kolkata", "secret-hook", "digest", "17:00", "9 days", "Vacation days"):
        assert private not in html
    assert "vacation" not in html.lower(), "not on vacation: nothing said"


def test_a_player_on_vacation_is_said_to_be_as_the_match_page_says(client, alice, bob):
    alice.vacation_started_at = timezone.now()
    alice.vacation_until = timezone.now() + timedelta(days=3)
    alice.save()
    client.force_login(bob)
    assert "On vacation until " in text(page_of(client, "alice"))


def test_challenge_opens_the_new_match_form_with_the_player_invited(client, alice, bob):
    client.force_login(bob)
    html = page_of(client, "alice")

    link = re.search(r'href="(/new/mancala/\?invite=alice)">Challenge Alice to Mancala</a>', html)
    assert link and "<h2>Challenge Alice</h2>" in html
    form = client.get(link[1]).content.decode()

    assert re.search(r'<option value="invite" selected>', form.split('name="seat_1"')[1].split("</select>")[0])
    assert re.search(r'<input [^>]*name="invite_1"[^>]*value="alice"', form)


def test_the_challenged_player_can_be_invited_from_the_prefilled_form(client, alice, bob):
    client.force_login(bob)
    response = client.post(
        reverse("match_new", args=["mancala"]) + "?invite=alice",
        {"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": "alice"},
    )
    match = Match.objects.get(pk=response["Location"].rstrip("/").split("/")[-1])
    assert [seat.user for seat in match.seats.all()] == [bob, alice]


def test_no_challenge_on_ones_own_page(client, alice):
    client.force_login(alice)
    assert "Challenge" not in page_of(client, "alice")


def test_no_challenge_link_for_a_player_who_cannot_be_invited_yet(client, alice):
    make_user("dora").emailaddress_set.update(verified=False)
    client.force_login(alice)
    html = page_of(client, "dora")
    assert "?invite=" not in html and "has not confirmed their email address yet" in html


def test_a_closed_account_says_so_and_shows_the_finished_record_only(client, alice, bob, staff):
    services.match_resign(match_id=start_match(alice, bob).pk, user=bob)
    start_match(alice, bob)
    user_deactivate(user_id=alice.pk, actor=staff)
    client.force_login(bob)

    html = page_of(client, "alice")

    assert "This account is closed." in html
    assert record_row(html, "Mancala") == ["1", "1", "0", "0"]
    assert "Challenge" not in html and "?invite=" not in html
    assert "Matches in play" not in html and "On vacation" not in html


def test_an_unknown_player_is_a_404_in_plain_words(client, bob):
    client.force_login(bob)
    response = client.get(reverse("player", args=["nobody"]))
    assert response.status_code == 404
    assert "There is no player called “nobody”." in response.content.decode()


def test_names_next_to_matches_lead_to_the_players_pages_but_an_ai_has_none(client, alice, bob, carol):
    match = start_match(alice, bob)
    against_ai = start_match(alice, ai_level=1)
    services.match_create(
        creator=carol,
        game_slug="mancala",
        options={"variant": "egyptian"},
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )
    client.force_login(alice)

    seats = client.get(reverse("match_detail", args=[match.pk])).content.decode().split('<ol class="seats">')[1]
    assert 'href="/players/alice/"' in seats.split("</ol>")[0] and 'href="/players/bob/"' in seats.split("</ol>")[0]
    ai_seats = client.get(reverse("match_detail", args=[against_ai.pk])).content.decode()
    assert "/players/" not in ai_seats.split('<ol class="seats">')[1].split("</ol>")[0].split("AI (")[1]
    assert 'href="/players/carol/">Carol</a>' in client.get(reverse("lobby")).content.decode()
    assert 'href="/players/bob/">Bob</a>' in client.get(reverse("dashboard")).content.decode()


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


@pytest.mark.parametrize("viewer", ["bob", "alice"])
def test_the_page_costs_the_same_queries_for_2_matches_as_for_30(client, alice, bob, viewer):
    def play(count: int) -> None:
        for number in range(count):
            match = start_match(alice, bob)
            if number % 3:
                finish(match, [number % 2])

    client.force_login(alice if viewer == "alice" else bob)
    url = reverse("player", args=["alice"])
    play(2)
    few = queries(client, url)
    play(28)

    assert queries(client, url) == few


def test_an_address_no_username_can_have_is_a_404_in_words_not_an_error(client, bob):
    client.force_login(bob)
    response = client.get("/players/a%00b/")  # PostgreSQL refuses a NUL: it was a 500
    assert response.status_code == 404 and "There is no player at this address." in response.content.decode()


def test_a_username_in_any_script_has_its_page(client, alice, bob):
    helene = make_user("hélène", display_name="Hélène")
    match = start_match(helene, bob)
    client.force_login(bob)
    seats = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    link = re.search(r'<a href="(/players/[^"]+)"><span class="seat-name">Hélène</span></a>', seats)
    assert link and "<h1>Hélène</h1>" in client.get(link[1]).content.decode()
