"""How time left is written: one format ("6 d 23 h", "5 h 12 min", "12 min", "less than a
minute") on the match page and the dashboard, and the dashboard's column for a stopped clock."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from games.models import Match
from games.services import ClockSpec
from games.templatetags.clocks import duration, time_ago, time_until
from tests.games.conftest import start_timed_match

MINUTE, HOUR, DAY = 60, 3600, 86400
BANK_7_DAYS = ClockSpec(time_control="bank", bank_initial_days=7, bank_increment_days=1, bank_cap_days=14)


@pytest.mark.parametrize(
    ("seconds", "written"),
    [
        (None, ""),
        (-5, "less than a minute"),
        (0, "less than a minute"),
        (59, "less than a minute"),
        (60, "1 min"),
        (HOUR - 1, "59 min"),
        (HOUR, "1 h 0 min"),
        (5 * HOUR + 12 * MINUTE + 59, "5 h 12 min"),
        (DAY - 1, "23 h 59 min"),
        (DAY, "1 d 0 h"),
        (7 * DAY - 1, "6 d 23 h"),
        (9 * DAY, "9 d 0 h"),
        (61.9, "1 min"),
    ],
)
def test_a_duration_is_written_in_days_hours_and_minutes_rounded_down(seconds, written):
    assert duration(seconds) == written


def test_time_until_and_ago_write_the_span_between_two_moments(clock):
    later = clock.now + timedelta(days=1, hours=2, minutes=3)
    assert time_until(later, clock.now) == "1 d 2 h"
    assert time_ago(clock.now, later) == "1 d 2 h ago"
    assert time_ago(clock.now, clock.now + timedelta(seconds=59)) == "just now"
    assert time_until(None, clock.now) == ""


def time_left_cell(page: str) -> str:
    cells = re.findall(r'<td class="time-left">(.*?)</td>', page, re.S)
    assert len(cells) == 1, cells
    return cells[0]


def test_the_dashboard_says_a_clock_stopped_by_a_vacation_and_the_time_left(clock, alice, bob, client):
    match = start_timed_match(alice, bob, clock=BANK_7_DAYS)
    clock.advance(hours=1)
    services.vacation_start(user_id=alice.pk, days=5)
    client.force_login(alice)

    cell = time_left_cell(client.get(reverse("dashboard")).content.decode())
    assert "Clock stopped with 6 d 23 h left" in cell
    assert match.clock_label not in cell, "the time control's description is not the time left"
    detail = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "Clock stopped with 6 d 23 h left" in detail, "the same words as on the match page"


def test_a_finished_match_has_no_time_left_on_the_dashboard(clock, alice, bob, client):
    match = start_timed_match(alice, bob, clock=BANK_7_DAYS)
    services.match_resign(match_id=match.pk, user=bob)
    client.force_login(alice)
    assert time_left_cell(client.get(reverse("dashboard")).content.decode()).strip() == "—"


def test_a_player_waiting_for_a_stopped_opponent_sees_the_time_control(clock, alice, bob, client):
    match = start_timed_match(alice, bob, clock=BANK_7_DAYS)
    services.vacation_start(user_id=alice.pk, days=5)
    client.force_login(bob)
    page = client.get(reverse("dashboard")).content.decode()
    assert match.clock_label in time_left_cell(page), "Bob's own clock is not the one stopped"
    assert "(on vacation)" in page


def test_a_player_waiting_for_their_turn_sees_their_own_time_bank(clock, alice, bob, client):
    """Not only the time control's description: the time Bob's bank holds, as on the match page."""
    match = start_timed_match(alice, bob, clock=BANK_7_DAYS)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    clock.advance(hours=30)
    services.move_submit(match_id=match.pk, user=bob, move="4", expected_version=1)  # 7 d - 30 h + 1 d
    client.force_login(bob)
    cell = time_left_cell(client.get(reverse("dashboard")).content.decode())
    assert "6 d 18 h in your bank" in cell and match.clock_label in cell and cell.count("Time bank") == 1
    assert "Time bank: 6 d 18 h" in client.get(reverse("match_detail", args=[match.pk])).content.decode()


def test_the_dashboard_and_the_match_page_write_a_running_clock_alike(clock, alice, bob, client):
    match = start_timed_match(alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=14))
    clock.advance(days=5)
    client.force_login(alice)
    dashboard = client.get(reverse("dashboard")).content.decode()
    detail = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    for page in (dashboard, detail):
        assert "9 d 0 h left" in page
        assert "week" not in page, 'not Django\'s timeuntil ("1 week, 2 days")'


def test_the_last_move_is_written_in_the_same_format(clock, alice, bob, client):
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    clock.advance(hours=5, minutes=12)
    client.force_login(alice)
    assert "5 h 12 min ago" in client.get(reverse("dashboard")).content.decode()


def test_under_a_minute_left_reads_as_words(clock, alice, bob, client):
    start_timed_match(alice, bob, clock=ClockSpec(time_control="per_move", days_per_move=1))
    clock.advance(days=1, seconds=-30)
    client.force_login(alice)
    assert "less than a minute left" in time_left_cell(client.get(reverse("dashboard")).content.decode())


@pytest.mark.parametrize(
    "fields, label",
    [
        ({"time_control": "per_move", "days_per_move": 1}, "1 day per move"),
        ({"time_control": "per_move", "days_per_move": 3}, "3 days per move"),
        (
            {"time_control": "bank", "bank_initial_days": 1, "bank_increment_days": 1, "bank_cap_days": 2},
            "Time bank: 1 day, +1 day per move, at most 2 days",
        ),
        (
            {"time_control": "bank", "bank_initial_days": 3, "bank_increment_days": 0, "bank_cap_days": 3},
            "Time bank: 3 days for all your moves",
        ),  # not "+0 days per move", nor "at most 3 days"
        ({"time_control": "none"}, "No time limit"),
    ],
)
def test_a_time_control_is_described_in_plain_words(fields, label):
    assert Match(game="mancala", **fields).clock_label == label
