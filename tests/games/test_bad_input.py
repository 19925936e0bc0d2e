"""Bad input at every address of a match: "Bad input gets a clear error and loses nothing".

Every request here is refused or changes nothing by design: an illegal or stale move, a
forged form, someone else's match, a malformed request. Each must get a sensible status
(never a 500), leave every stored match as it was, and say why in words a player reads:
no Python or Django wording, and for htmx a fragment the page can swap in."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from accounts.middleware import SIGNED_OUT_NOTHING_SENT
from accounts.views import OUT_OF_DATE
from games import services
from games.models import Match, MoveRecord, Seat
from games.services import SeatSpec
from games.services.creating import NOT_FINISHED
from games.services.errors import NOT_STARTED
from games.services.joining import ALREADY_ACCEPTED, ALREADY_SEATED, ONLY_CREATOR_CANCELS, YOUR_OWN_MATCH
from games.services.turns import NOT_YOUR_TURN, STALE_MOVE
from games.views import MALFORMED, NOT_FOUND, OPENED_NOT_SENT
from tests.conftest import signed_in

HTMX = {"HTTP_HX_REQUEST": "true"}
LONG = "x" * 100_000
FORM = "application/x-www-form-urlencoded"
MATCH_POSTS = [
    "match_move",
    "match_join",
    "match_accept",
    "match_decline",
    "match_cancel",
    "match_resign",
    "match_rematch",
    "match_watch",
    "match_unwatch",
]
MATCH_GETS = ["match_detail", "match_poll", "match_replay"]
MISSING = 999_999
# Python's and Django's own words: a player must never read them.
NOT_PLAIN = re.compile(
    r"Traceback|Exception|Error\b|object at 0x|<class |\(\d{3}\)|Forbidden|Bad Request"
    r"|invalid literal|NoneType|\{'|\['"
)


def stored() -> tuple:
    """All that a request could change about the matches."""
    return (
        list(Match.objects.order_by("pk").values_list("pk", "state", "version", "status", "revision", "result")),
        list(MoveRecord.objects.order_by("pk").values_list("pk", "ply", "notation")),
        list(Seat.objects.order_by("pk").values_list("pk", "user_id", "accepted", "ai_level", "former_user_id")),
    )


def said(response) -> str:
    return " ".join(strip_tags(response.content.decode()).split())


def assert_told(response, message: str, *, htmx: bool) -> None:
    """Refused with a 4xx in words: as a fragment of the match page for htmx, in the site's layout otherwise."""
    html = response.content.decode()
    assert 400 <= response.status_code < 500, response.status_code
    assert message in html
    assert not NOT_PLAIN.search(said(response)), said(response)[:300]
    if htmx:
        assert "<html" not in html and '<div id="live"' in html, html[:200]  # after the top bar's count, out of band
    else:
        assert "site.css" in html


@pytest.fixture
def invited(alice, bob):
    """Open: alice invited bob, who has not answered."""
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    return services.match_create(creator=alice, game_slug="mancala", options={"variant": "egyptian"}, seats=seats)


# --- someone else's match, a match that does not exist ----------------------------------


@pytest.mark.parametrize("name", MATCH_POSTS + MATCH_GETS)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_someone_elses_or_a_missing_match_is_not_found_in_words_and_left_alone(match, invited, carol, name, headers):
    Match.objects.filter(pk__in=[match.pk, invited.pk]).update(public=False)  # anyone may open a public one
    carol_client = signed_in(carol)
    before = stored()
    for pk in (match.pk, invited.pk, MISSING):
        data = {"move": "1", "version": "0", "accepting": str(match.pk)}
        if name in MATCH_GETS:
            response = carol_client.get(reverse(name, args=[pk]), {"token": match.poll_token, "ply": "1"}, **headers)
        else:
            response = carol_client.post(reverse(name, args=[pk]), data, **headers)
        assert response.status_code == 404, (pk, response.status_code)
        assert_told(response, NOT_FOUND, htmx=bool(headers))
    assert stored() == before


@pytest.mark.parametrize("name", MATCH_POSTS)
def test_a_huge_match_number_is_not_found_in_words(alice, name):
    url = reverse(name, args=[1]).replace("/1/", f"/{'9' * 30}/")
    response = signed_in(alice).post(url, {"move": "1", "version": "0"})
    assert response.status_code == 404 and NOT_FOUND in response.content.decode()


def test_a_huge_match_number_polled_is_not_found_in_words(alice):
    url = reverse("match_poll", args=[1]).replace("/1/", f"/{'9' * 30}/")
    response = signed_in(alice).get(url, {"token": "0-active-0"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 404 and NOT_FOUND in response.content.decode()


# --- signed out --------------------------------------------------------------------------


@pytest.mark.parametrize("name", MATCH_POSTS)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_signed_out_action_is_not_made_and_the_sign_in_page_says_so(client, match, name, headers):
    before = stored()
    response = client.post(reverse(name, args=[match.pk]), {"move": "1", "version": "0"}, **headers)
    sign_in = response["HX-Redirect"] if headers else response["Location"]
    assert sign_in.startswith(reverse("account_login"))
    assert SIGNED_OUT_NOTHING_SENT in client.get(sign_in).content.decode()
    assert stored() == before


# --- moves: forged, stale, illegal, malformed ---------------------------------------------

BAD_MOVES = {
    "no fields": ({}, 400, MALFORMED),
    "no version": ({"move": "1"}, 400, MALFORMED),
    "empty strings": ({"move": "", "version": ""}, 400, MALFORMED),
    "a version in words": ({"move": "1", "version": "zero"}, 400, MALFORMED),
    "a fraction for a version": ({"move": "1", "version": "0.5"}, 400, MALFORMED),
    "a 100k version": ({"move": "1", "version": "9" * 100_000}, 400, MALFORMED),
    "a 100k move": ({"move": LONG, "version": "0"}, 400, MALFORMED),
    "a negative version": ({"move": "1", "version": "-1"}, 409, STALE_MOVE),
    "a huge version": ({"move": "1", "version": "9" * 30}, 409, STALE_MOVE),
    "a version from the future": ({"move": "1", "version": "1"}, 409, STALE_MOVE),
    "an unknown notation": ({"move": "zz9", "version": "0"}, 422, "1 to 6"),
    "another game's move": ({"move": "h8", "version": "0"}, 422, "1 to 6"),
    "a tile of the other side": ({"move": "7", "version": "0"}, 422, "1 to 6"),
    "a negative tile": ({"move": "-1", "version": "0"}, 422, "1 to 6"),
}


@pytest.mark.parametrize(("data", "status", "message"), BAD_MOVES.values(), ids=BAD_MOVES.keys())
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_bad_move_is_refused_in_words_and_changes_nothing(alice, match, data, status, message, headers):
    before = stored()
    response = signed_in(alice).post(reverse("match_move", args=[match.pk]), data, **headers)
    assert response.status_code == status
    assert_told(response, message, htmx=bool(headers))
    assert stored() == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"move=\xff\xfe&version=0", "1 to 6"),
        (b"move=1&version=\xff", MALFORMED),
        (b"move=%ff&version=0", "1 to 6"),
        (b"\xff\xfe\xfd", MALFORMED),
    ],
    ids=["move", "version", "escaped", "no fields"],
)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_move_form_that_is_not_utf8_is_refused_in_words(alice, match, body, message, headers):
    before = stored()
    response = signed_in(alice).post(reverse("match_move", args=[match.pk]), body, content_type=FORM, **headers)
    assert_told(response, message, htmx=bool(headers))
    assert stored() == before


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_move_for_the_other_seat_or_an_earlier_position_is_refused_in_words(alice, bob, match, headers):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    before = stored()
    # Bob's move sent from Alice's page: her seat, her turn is over.
    assert_told(
        signed_in(alice).post(reverse("match_move", args=[match.pk]), {"move": "8", "version": "1"}, **headers),
        NOT_YOUR_TURN,
        htmx=bool(headers),
    )
    # Another move than the one played, from the page before it: stale, not played.
    assert_told(
        signed_in(alice).post(reverse("match_move", args=[match.pk]), {"move": "2", "version": "0"}, **headers),
        STALE_MOVE,
        htmx=bool(headers),
    )
    assert stored() == before


@pytest.mark.parametrize("slug", ["mecca", "jeexa", "mesopotamia"])
def test_every_game_refuses_a_notation_it_does_not_know_in_words(alice, bob, slug):
    seats = [SeatSpec("creator"), SeatSpec("user", username=bob.username)]
    match = services.match_create(creator=alice, game_slug=slug, options={}, seats=seats)
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    mover = alice if match.seats.get(number=0).to_act else bob
    before = stored()
    for move in ("zz9", "1", "-1", "h8:99", "9" * 60, "²", "place", "end end", " "):
        response = signed_in(mover).post(reverse("match_move", args=[match.pk]), {"move": move, "version": "0"}, **HTMX)
        assert response.status_code in (400, 422), (move, response.status_code)
        assert_told(response, '<p class="error" role="alert">', htmx=True)
    assert stored() == before


def test_a_move_before_the_match_started_is_refused_in_words(alice, invited):
    before = stored()
    response = signed_in(alice).post(reverse("match_move", args=[invited.pk]), {"move": "1", "version": "0"}, **HTMX)
    assert response.status_code == 422
    assert_told(response, NOT_STARTED, htmx=True)
    assert stored() == before


# --- actions the match's state does not allow ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "who", "message"),
    [
        ("match_accept", "alice", YOUR_OWN_MATCH),
        ("match_cancel", "bob", ONLY_CREATOR_CANCELS),
        ("match_rematch", "alice", NOT_FINISHED),
    ],
)
def test_an_action_the_match_does_not_allow_is_refused_in_words(alice, bob, invited, name, who, message):
    before = stored()
    response = signed_in({"alice": alice, "bob": bob}[who]).post(reverse(name, args=[invited.pk]), {"accepting": "abc"})
    assert 400 <= response.status_code < 500
    assert message in response.content.decode() and "site.css" in response.content.decode()
    assert not NOT_PLAIN.search(said(response))
    assert stored() == before


@pytest.mark.parametrize("starts", [False, True], ids=["still-open", "started"])
def test_join_or_accept_pressed_twice_shows_the_match_with_words_not_a_refusal(alice, bob, carol, starts):
    """A double click or a second tab: the first press did what was asked, so the second
    (whose answer is the page the browser shows) lands on the match, not on an error page."""
    seats = [
        SeatSpec("creator"),
        SeatSpec("user", username=bob.username),
        SeatSpec("open"),
        *([] if starts else [SeatSpec("open")]),
    ]
    match = services.match_create(creator=alice, game_slug="jeexa", options={}, seats=seats)
    services.match_accept(match_id=match.pk, user=bob)
    services.match_join(match_id=match.pk, user=carol)
    before = stored()
    for who, name, message in (
        (bob, "match_accept", ALREADY_ACCEPTED),
        (carol, "match_join", ALREADY_SEATED),
        (alice, "match_join", ALREADY_SEATED),
    ):
        response = signed_in(who).post(reverse(name, args=[match.pk]), follow=True)
        assert response.redirect_chain == [(reverse("match_detail", args=[match.pk]), 302)], name
        assert message in said(response) and "site.css" in response.content.decode()
    assert stored() == before
    # A Decline after the Accept is no repeat: it is refused.
    response = signed_in(bob).post(reverse("match_decline", args=[match.pk]))
    assert 400 <= response.status_code < 500 and ALREADY_ACCEPTED in said(response)


@pytest.mark.parametrize("accepting", ["abc", "", LONG, "9" * 30, "-1", "²", str(MISSING)])
def test_a_forged_rematch_to_accept_is_ignored_or_refused_in_words(alice, bob, match, accepting):
    services.match_resign(match_id=match.pk, user=bob)
    response = signed_in(alice).post(reverse("match_rematch", args=[match.pk]), {"accepting": accepting}, follow=True)
    assert response.status_code < 500
    assert not NOT_PLAIN.search(said(response))
    assert Match.objects.filter(rematch_of=match).count() <= 1


# --- the CSRF token -----------------------------------------------------------------------


@pytest.mark.parametrize("name", MATCH_POSTS)
@pytest.mark.parametrize("token", ["", "stale", "x" * 64])
def test_a_bad_csrf_token_sends_nothing_and_says_so(alice, match, name, token):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get(reverse("match_detail", args=[match.pk]))
    before = stored()

    page = client.post(reverse(name, args=[match.pk]), {"move": "1", "version": "0", "csrfmiddlewaretoken": token})
    fragment = client.post(
        reverse(name, args=[match.pk]), {"move": "1", "version": "0"}, HTTP_X_CSRFTOKEN=token, **HTMX
    )

    assert page.status_code == 403 and "Nothing was sent" in page.content.decode()
    assert "site.css" in page.content.decode() and not NOT_PLAIN.search(said(page))
    assert fragment["HX-Refresh"] == "true"  # the page reloads and says why
    assert OUT_OF_DATE in client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert stored() == before


# --- addresses opened with the wrong method, queries with bad values ----------------------


@pytest.mark.parametrize("name", MATCH_POSTS + MATCH_GETS)
@pytest.mark.parametrize("method", ["put", "delete", "patch", "options"])
def test_an_unexpected_method_changes_nothing_and_is_answered_in_words(alice, match, name, method):
    before = stored()
    response = getattr(signed_in(alice), method)(reverse(name, args=[match.pk]), follow=True)
    assert stored() == before
    text = response.content.decode()
    if name in MATCH_GETS:
        assert response.status_code == 405 and "does not take that kind of request" in text and "site.css" in text
    else:  # a button's address: back to the match page, which says nothing was done
        assert response.redirect_chain[-1][0] == reverse("match_detail", args=[match.pk])
        assert OPENED_NOT_SENT in text


PAGES = ["home", "lobby", "dashboard", "finished_matches", "match_detail", "match_replay", "game", "game_rules"]


@pytest.mark.parametrize("url", [*PAGES, "match_new"])
def test_a_head_request_to_a_page_is_answered_like_a_get(alice, match, url):
    """HEAD (link checkers, monitors, curl -I) was refused with a 405 wherever GET was required."""
    args = {
        "match_detail": [match.pk],
        "match_replay": [match.pk],
        "game": ["mancala"],
        "game_rules": ["mancala"],
        "match_new": ["mancala"],
    }
    client = signed_in(alice) if url != "home" else Client()
    assert client.head(reverse(url, args=args.get(url, []))).status_code == 200


@pytest.mark.parametrize("url", ["home", "match_new"])
def test_a_page_refuses_a_method_it_has_no_use_for(alice, url):
    """A DELETE to the home page or the new-match form drew them as if it were a GET."""
    args = {"match_new": ["mancala"]}.get(url, [])
    response = (
        Client().delete(reverse(url, args=args)) if url == "home" else signed_in(alice).delete(reverse(url, args=args))
    )
    assert response.status_code == 405 and "does not take that kind of request" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        {"token": LONG},
        {"token": ""},
        {"token": "%ff"},
        {"ply": "-5"},
        {"ply": LONG},
        {"ply": "9" * 30},
        {"ply": "abc"},
        {"ply": "²"},
        {"page": "0"},
        {"page": "-1"},
        {"page": "9" * 30},
        {"page": "abc"},
    ],
    ids=lambda query: f"{next(iter(query))}={next(iter(query.values()))[:8]}",
)
@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_a_page_with_a_bad_query_is_drawn_anyway(alice, match, query, headers):
    client = signed_in(alice)
    before = stored()
    for url in (
        reverse("match_poll", args=[match.pk]),
        reverse("match_replay", args=[match.pk]),
        reverse("finished_matches"),
        reverse("match_detail", args=[match.pk]),
    ):
        response = client.get(url, query, **headers)
        assert response.status_code == 200, (url, response.status_code)
        assert not NOT_PLAIN.search(said(response))
        if headers and url != reverse("finished_matches"):
            assert "<html" not in response.content.decode()
    assert stored() == before


# --- the new-match form -------------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["form", "htmx"])
def test_a_new_match_form_sent_with_no_fields_says_which_are_missing(alice, headers):
    """An empty form was taken for no form at all: a 400 with the form drawn again and not a word of why."""
    response = signed_in(alice).post(reverse("match_new", args=["mancala"]), {}, **headers)
    assert response.status_code == 400
    assert said(response).count("This field is required.") >= 2
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    "data",
    [
        {"position": "first", "seat_1": "ai:1", "seat_2": "ai:1", "seat_5": "open"},  # Mecca's form
        {
            "option_variant": LONG,
            "position": LONG,
            "seat_1": LONG,
            "invite_1": LONG,
            "form_token": LONG,
            "time_control": LONG,
            "days_per_move": LONG,
            "bank_initial_days": LONG,
        },
        {"option_variant": "egyptian", "position": "first", "seat_1": "ai:" + "9" * 30},
        {"option_variant": "egyptian", "position": "first", "seat_1": "ai:"},
        {
            "option_variant": "egyptian",
            "position": "first",
            "seat_1": "ai:1",
            "time_control": "bank",
            "bank_initial_days": "9" * 30,
            "bank_increment_days": "-1",
            "bank_cap_days": "abc",
        },
    ],
    ids=["another game's form", "100k values", "a huge AI level", "no AI level", "bad numbers"],
)
def test_a_forged_new_match_form_is_refused_in_words(alice, data):
    response = signed_in(alice).post(reverse("match_new", args=["mancala"]), data)
    assert response.status_code == 400
    assert re.search(r'class="errorlist[^"]*"', response.content.decode())
    assert not re.search(r"Traceback|object at 0x|<class ", said(response))
    assert not Match.objects.exists()


def test_a_new_match_form_that_is_not_utf8_is_refused_in_words(alice):
    response = signed_in(alice).post(
        reverse("match_new", args=["mancala"]), b"position=\xff&seat_1=\xfe", content_type=FORM
    )
    assert response.status_code == 400 and "Select a valid choice" in response.content.decode()
    assert not Match.objects.exists()
