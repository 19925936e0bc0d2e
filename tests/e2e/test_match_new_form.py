"""The new-match form shows only the fields its choices use, by CSS alone (no script); a
script disables the hidden clock fields, so that a value left there cannot stop the form.
It asks the number of players first and shows that many seats: at once with the script, by
its Set button without it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games.models import Match
from tests.conftest import make_user, start_match
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e]


def test_the_form_shows_the_fields_of_the_chosen_time_control_and_invite(page, live_server, db):
    make_user("petra")
    log_in(page, live_server.url, "petra")
    page.goto(live_server.url + reverse("match_new", args=["mancala"]))
    time_control = page.get_by_label("Time control")
    days_per_move = page.get_by_label("Days per move")
    bank = [
        page.get_by_label("Time bank: days at the start"),
        page.get_by_label("Days added per move"),
        page.get_by_label("At most (days)"),
    ]
    on_timeout = page.get_by_label("When a clock runs out")

    expect(time_control).to_have_value("none")
    for field in [days_per_move, *bank, on_timeout]:
        expect(field).to_be_hidden()

    time_control.select_option(label="Time bank")
    for field in [*bank, on_timeout]:
        expect(field).to_be_visible()
    expect(days_per_move).to_be_hidden()

    time_control.select_option(label="Fixed days per move")
    expect(days_per_move).to_be_visible()
    expect(on_timeout).to_be_visible()
    for field in bank:
        expect(field).to_be_hidden()

    invite = page.get_by_label(re.compile(r"to invite \(opponent 1\)"))
    opponent = page.get_by_label(re.compile(r"^Opponent 1"))
    expect(invite).to_be_hidden()
    opponent.select_option(label="Invite a player")
    expect(invite).to_be_visible()
    opponent.select_option(label="Open seat: anyone may join")
    expect(invite).to_be_hidden()


def test_a_bad_value_left_in_a_hidden_clock_field_does_not_stop_the_form(page, live_server, db):
    """Chromium refused to send the form, silently ("An invalid form control is not focusable")."""
    make_user("petra")
    log_in(page, live_server.url, "petra")
    page.goto(live_server.url + reverse("match_new", args=["mancala"]))
    page.get_by_label("Time control").select_option(label="Time bank")
    page.get_by_label("Time bank: days at the start").fill("0")
    page.get_by_label("Time control").select_option(label="No time limit")
    page.get_by_role("button", name="Create match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    expect(page.get_by_text("No time limit")).to_be_visible()


def test_back_to_the_form_its_clock_fields_are_those_of_the_time_control_chosen(page, live_server, db):
    """Back from the match made, the browser put "Fixed days per move" back after the script had run:
    the days were greyed out (and showed 3, not the 7 chosen), and the time bank's hidden fields were
    enabled again, so a bad value there stopped Create silently once more."""
    make_user("petra")
    log_in(page, live_server.url, "petra")
    page.goto(live_server.url + reverse("match_new", args=["mancala"]))
    page.get_by_role("combobox", name="Opponent 1").select_option(label="AI: Easy")
    page.get_by_label("Time control").select_option(label="Fixed days per move")
    page.get_by_label("Days per move").select_option(label="7 days")
    page.get_by_role("button", name="Create match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))

    page.go_back()
    expect(page.get_by_label("Time control")).to_have_value("per_move")
    expect(page.get_by_label("Days per move")).to_be_enabled()
    expect(page.get_by_label("Days per move")).to_have_value("7")
    expect(page.get_by_label("When a clock runs out")).to_be_enabled()
    for label in ("Time bank: days at the start", "Days added per move", "At most (days)"):
        expect(page.get_by_label(label)).to_be_disabled()


def test_the_invite_fields_suggest_recent_opponents(page, live_server, db):
    """The browser ties every invite field to the one list: each suggestion shows the display name and
    fills in the username, which the form accepts."""
    petra = make_user("petra")
    start_match(petra, make_user("quinn", display_name="Quinn"))
    start_match(petra, ai_level=1)
    log_in(page, live_server.url, "petra")
    page.goto(live_server.url + reverse("match_new", args=["jeexa"]))
    invites = page.get_by_label(re.compile(r"to invite \(opponent \d\)"))
    suggestions = invites.evaluate_all("fields => fields.map(f => [...f.list.options].map(o => [o.value, o.label]))")
    assert suggestions == [[["quinn", "Quinn"]]] * 7

    page.get_by_role("combobox", name="Opponent 1").select_option(label="Invite a player")
    invite = page.get_by_label("Username or display name to invite (opponent 1)")
    expect(invite).to_have_accessible_description("Players you played with lately are suggested as you type.")
    # Announced as a field with suggestions. (Headless Chromium draws no list to pick from with the
    # arrow keys, so the test types what picking "Quinn" fills in.)
    expect(page.get_by_role("combobox", name="Username or display name to invite (opponent 1)")).to_be_visible()
    invite.fill("quinn")
    page.get_by_role("button", name="Create match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    expect(page.get_by_text("Waiting for Quinn to accept")).to_be_visible()


def opponents_shown(page) -> list[str]:
    return [name for name in (f"Opponent {n}" for n in range(1, 8)) if page.get_by_role("group", name=name).count()]


def test_the_number_of_players_shows_as_many_seats_and_keeps_those_it_hides(page, live_server, db):
    make_user("petra")
    log_in(page, live_server.url, "petra")
    page.goto(live_server.url + reverse("match_new", args=["jeexa"]))
    players = page.get_by_role("combobox", name=re.compile(r"^Players"))
    expect(players).to_have_value("2")
    expect(page.get_by_role("button", name="Set")).to_be_hidden()  # the script does its work
    assert opponents_shown(page) == ["Opponent 1"]

    players.select_option("5")
    assert opponents_shown(page) == ["Opponent 1", "Opponent 2", "Opponent 3", "Opponent 4"]
    page.get_by_role("combobox", name="Opponent 4").select_option(label="Open seat: anyone may join")
    page.get_by_role("combobox", name="Opponent 2").select_option(label="AI: Strong")
    players.select_option("3")
    assert opponents_shown(page) == ["Opponent 1", "Opponent 2"]
    players.select_option("5")
    expect(page.get_by_role("combobox", name="Opponent 4")).to_have_value("open")

    players.select_option("3")
    page.get_by_role("button", name="Create match").click()
    expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
    match = Match.objects.get()
    assert [seat.ai_level for seat in match.seats.order_by("number")] == [None, 1, 2], "the hidden seat is not sent"


def test_without_a_script_set_shows_the_seats_and_enter_still_creates_the_match(browser, live_server, db):
    """Enter in a field sends the form with its first button: Set, before the seats, would have
    drawn the form again instead of making the match."""
    make_user("petra")
    make_user("quinn", display_name="Quinn")
    with console_checked_page(browser, java_script_enabled=False) as page:
        log_in(page, live_server.url, "petra")
        page.goto(live_server.url + reverse("match_new", args=["jeexa"]))
        page.get_by_role("combobox", name="Opponent 1").select_option(label="Invite a player")
        page.get_by_label("Username or display name to invite (opponent 1)").fill("quinn")
        page.get_by_role("combobox", name=re.compile(r"^Players")).select_option("4")
        assert opponents_shown(page) == ["Opponent 1"], "no script: the page is as it was drawn"

        page.get_by_role("button", name="Set").click()
        assert opponents_shown(page) == ["Opponent 1", "Opponent 2", "Opponent 3"]
        expect(page.get_by_label("Username or display name to invite (opponent 1)")).to_have_value("quinn")
        expect(page.get_by_role("combobox", name=re.compile(r"^Players"))).to_be_focused()
        assert not Match.objects.exists()

        page.get_by_role("combobox", name="Opponent 3").select_option(label="Open seat: anyone may join")
        page.get_by_label("Username or display name to invite (opponent 1)").press("Enter")
        expect(page).to_have_url(re.compile(r"/matches/\d+/$"))
        assert Match.objects.get().seats.count() == 4
