"""The pages a player sees are HTML a browser reads as written (tests/html_check.py says what is checked).

The new-match form wrote each field as <p>label field errors</p>: Django's error list is a <ul>, which ends a
paragraph, so a refused form's error stood outside its row and an empty paragraph followed it. The match page's
boards had h3s right under the page's h1, messages were list items with a role, and every <time datetime> of a
clock or an open match had microseconds, which no browser or screen reader has to understand."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import user_close_own
from chat import services as chat_services
from games import services
from games.services import ClockSpec, SeatSpec
from tests.conftest import PASSWORD, make_user
from tests.games.conftest import start_timed_match
from tests.html_check import html_problems

GAMES = {"mancala": 2, "mecca": 3, "jeexa": 2, "mesopotamia": 3}
BANK = ClockSpec(time_control="bank", bank_initial_days=7, bank_increment_days=1, bank_cap_days=14)


def test_the_html_checker_finds_what_a_browser_would_repair():
    page = (
        '<!DOCTYPE html><html><body><h1>T</h1><h3>skipped</h3><p>Label <input id="a">'
        '<ul class="errorlist"><li>Wrong</li></ul></p><span id="a"><b></span></b>'
        '<ul><li role="status">Saved</li></ul><time datetime="2026-03-29T07:00:00.123456+00:00">x</time>'
        '<label for="gone">?</label><div></body></html>'
    )
    problems = " | ".join(html_problems(page))
    for found in (
        "<ul> inside <p>",
        'id "a" used twice',
        "</span> closes <span> while <b>",
        "</b> closes nothing",
        "<h3> after <h1>",
        '<li role="status">',
        "is no date and time",
        '<label for="gone">',
        "<input name=None> (line 1, column 63) has no label",
        "</body> closes <body> while <div> inside it is open",
    ):
        assert found in problems
    assert html_problems("<section><p>A part of a page", whole_page=False) == ["<section> never closed"]
    fine = (
        '<!DOCTYPE html><html><body><h1>T</h1><h2>U</h2><div><label for="a">A</label><input id="a">'
        '<ul class="errorlist"><li>Wrong</li></ul></div><p>One</p><p>Two</p><table><tr><td>1<td>2</table>'
        '<svg><rect /></svg><time datetime="2026-03-29T07:00:12-04:00">x</time></body></html>'
    )
    assert html_problems(fine) == []


@pytest.fixture
def pages(db) -> dict[str, str]:
    """Every kind of page a player meets, refused forms included, as alice (and once as a spectator)."""
    alice, bob, carol = (make_user(name, display_name=name.title()) for name in ("alice", "bob", "carol"))
    matches = {
        slug: start_timed_match(alice, bob, *([carol] if players == 3 else []), clock=BANK, game=slug)
        for slug, players in GAMES.items()
    }
    services.match_create(
        creator=bob,
        game_slug="mecca",
        options={},  # an open challenge, open until a moment
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )
    invitation = services.match_create(
        creator=bob,
        game_slug="jeexa",
        options={},  # to answer by a moment
        seats=[SeatSpec("creator"), SeatSpec("user", username="alice")],
    )
    for text in ("good luck!", "sorry, on holiday\nuntil Monday", "rude words"):  # a conversation, one line hidden
        message = chat_services.message_post(match_id=matches["mancala"].pk, user=bob, text=text)
    chat_services.message_hide(message_id=message.pk, hidden=True)
    client, spectator, visitor = Client(), Client(), Client()
    client.force_login(alice)
    spectator.force_login(make_user("dora"))
    got = {}

    def get(name, url, via=client, **kwargs):
        got[name] = via.get(url, **kwargs).content.decode()

    def post(name, url, data, via=client, status=400):
        response = via.post(url, data)
        assert response.status_code == status, name
        got[name] = response.content.decode()

    for slug, match in matches.items():
        get(f"{slug} match", reverse("match_detail", args=[match.pk]))
        get(f"part: {slug} match redrawn", reverse("match_detail", args=[match.pk]), headers={"HX-Request": "true"})
        get(f"{slug} replay", reverse("match_replay", args=[match.pk]) + "?ply=0")
        get(f"{slug} new match", reverse("match_new", args=[slug]) + "?invite=bob")
        post(
            f"{slug} new match refused",
            reverse("match_new", args=[slug]),
            {
                "position": "first",
                "time_control": "bank",
                "bank_initial_days": "500",
                "bank_increment_days": "1",
                "bank_cap_days": "14",
                "on_timeout": "lose",
                "seat_1": "invite",
                "invite_1": "ghost",
            },
        )
    post("mancala message refused", reverse("match_message", args=[matches["mancala"].pk]), {"text": " "})
    good_luck = chat_services.message_post(match_id=matches["mancala"].pk, user=bob, text="good luck again")
    report = reverse("match_message_report", args=[matches["mancala"].pk, good_luck.pk])
    for name, reason in (("part: mancala report refused", "x" * 201), ("part: mancala reported", "rude")):
        got[name] = client.post(report, {"reason": reason}, headers={"HX-Request": "true"}).content.decode()
    get("mesopotamia match, watched", reverse("match_detail", args=[matches["mesopotamia"].pk]), via=spectator)
    get("invitation", reverse("match_detail", args=[invitation.pk]))
    for name in ("lobby", "dashboard", "finished_matches", "profile"):
        get(name, reverse(name))
    get("player page", reverse("player", args=["bob"]))
    post(
        "profile refused",
        reverse("profile"),
        {
            "display_name": "Bob",
            "time_zone": "Nowhere/Atlantis",
            "turn_notice": "instant",
            "digest_hour": "8",
            "webhook_url": "ftp://x",
        },
    )
    client.post(
        reverse("profile"),
        {
            "display_name": "Alice",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "reminders": "50,80",
        },
    )
    get("profile saved (a message)", reverse("profile"))
    post("close account refused", reverse("account_close"), {"password": "not-my-password"})
    post(
        "sign-up refused",
        reverse("account_signup"),
        {"email": "x", "username": "bob", "password1": PASSWORD, "password2": "other"},
        via=visitor,
        status=200,
    )
    get("home, signed out", reverse("home"), via=visitor)
    get("closed account's sign-in", reverse("account_inactive"), via=Client())
    user_close_own(user=make_user("erin"))
    signing_in = visitor.post(reverse("account_login"), {"login": "erin", "password": PASSWORD}, follow=True)
    got["own closed account's sign-in"] = signing_in.content.decode()
    return got


def test_no_page_has_html_a_browser_would_repair(pages):
    for refused in ("mancala new match refused", "profile refused", "close account refused", "sign-up refused"):
        assert "errorlist" in pages[refused], f"{refused}: its errors are checked"
    assert 'class="messages"' in pages["profile saved (a message)"], "and a message"
    assert "(message removed by staff)" in pages["mancala match"], "and messages between the players"
    assert "Write something first." in pages["mancala message refused"]
    assert pages["mancala match"].count('class="report-form"') == 2, "and the Report beside each message shown"
    assert "A reason may be at most 200" in pages["part: mancala report refused"]
    assert "Reported. Staff will look at it." in pages["part: mancala reported"]
    assert "You closed this account" in pages["own closed account's sign-in"], "and its owner's words"
    problems = {
        name: found
        for name, html in pages.items()
        if (found := html_problems(html, whole_page=not name.startswith("part: ")))
    }
    assert problems == {}
