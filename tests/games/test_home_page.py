"""The home page: each game with a picture of its board in a real position, its player count, what
it is and the way to play it; for a player, first the matches that wait for their move; and the top
bar every page shares, with its menu."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from games import selectors, services, showcase
from games.engine import all_games, get_game
from games.models import Match
from tests.conftest import signed_in, start_match

SLUGS = [game.slug for game in all_games()]


def cards(page: str) -> dict[str, str]:
    """Each game's card on the page, by the slug of the game page its name links to."""
    found = re.findall(r'<li class="game-card">(.*?)</li>', page, re.S)
    return {re.search(r'href="/games/([^/]+)/"', card).group(1): card for card in found}


def picture(card: str) -> str:
    return re.search(r'<a class="game-card-picture"[^>]*>(.*)</a>\s*<h3>', card, re.S).group(1)


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def play_first_move(match: Match) -> None:
    """The creator's move (seat 0): the opponent's turn then."""
    services.move_submit(match_id=match.pk, user=match.created_by, move="1", expected_version=match.version)


# --- the games ----------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_each_game_has_a_card_with_its_board_its_players_what_it_is_and_a_way_to_play(client, alice, slug):
    game = get_game(slug)
    card = cards(client.get(reverse("home")).content.decode())[slug]
    players = "2 players" if slug == "mancala" else f"{game.min_players}–{game.max_players} players"
    assert f'<p class="game-card-players">{players}</p>' in card
    assert escape(showcase.PITCHES[slug]) in card
    assert f'href="{reverse("game", args=[slug])}"' in card and f'href="{reverse("game_rules", args=[slug])}"' in card
    new_match = reverse("match_new", args=[slug])
    assert f'href="{reverse("account_login")}?next={new_match}"' in card, "a visitor signs in first"
    assert 'role="img"' in picture(card)
    signed_in_card = cards(signed_in(alice).get(reverse("home")).content.decode())[slug]
    assert f'class="button" href="{new_match}">Play<span class="visually-hidden"> {game.name}</span>' in signed_in_card


@pytest.mark.parametrize("slug", SLUGS)
def test_a_picture_is_a_drawing_with_nothing_to_press_or_to_find(slug):
    drawing = showcase.board_picture(slug)
    for control in (
        "<form",
        "<button",
        "<input",
        "<a ",
        " id=",
        "data-last-move",
        "tabindex",
        "popover",
        "data-testid",
    ):
        assert control not in drawing, control
    assert 'role="img" aria-label="' in drawing


@pytest.mark.parametrize("slug", SLUGS)
def test_a_picture_shows_a_position_a_few_moves_in_the_same_in_every_process(slug):
    game = get_game(slug)
    state = showcase.sample_state(slug)
    position = showcase.POSITIONS[slug]
    start = game.initial_state(position.players, None, showcase.SEED)
    assert game.dump(state) != game.dump(start) and not game.is_over(state)
    assert game.dump(showcase.sample_state(slug)) == game.dump(state), "seeded: the same moves every time"
    assert showcase.board_picture(slug) is showcase.board_picture(slug), "drawn once per process"


def test_the_pictures_are_drawn_by_the_boards_own_templates():
    drawings = {slug: showcase.board_picture(slug) for slug in SLUGS}
    assert 'class="mancala picture"' in drawings["mancala"] and 'class="coins' in drawings["mancala"]
    assert 'class="mecca-board picture"' in drawings["mecca"] and "mecca-cell" in drawings["mecca"]
    assert "jx-picture" in drawings["jeexa"] and "jx-piece" in drawings["jeexa"]
    assert "meso-picture" in drawings["mesopotamia"] and "meso-hex" in drawings["mesopotamia"]


# --- a player's matches first -------------------------------------------------------------


def test_a_player_sees_the_matches_waiting_for_their_move_above_the_games(alice, bob, carol):
    waiting = start_match(bob, alice)
    play_first_move(waiting)  # Alice's turn
    not_hers = start_match(alice, carol)  # her move made below: Carol's turn
    play_first_move(not_hers)
    others = start_match(bob, carol)

    page = signed_in(alice).get(reverse("home")).content.decode()

    turns, games = page.split('id="games-heading"')[0], page.split('id="games-heading"')[1]
    assert "Your matches waiting" in turns and "Your turn" in turns
    assert f'href="{reverse("match_detail", args=[waiting.pk])}"' in turns
    for match in (not_hers, others):
        assert f'href="{reverse("match_detail", args=[match.pk])}"' not in turns
    assert 'class="game-cards"' in games and "Sign up" not in turns


def test_a_player_with_no_match_waiting_is_told_so_and_a_visitor_sees_the_welcome(client, alice):
    page = signed_in(alice).get(reverse("home")).content.decode()
    assert "No match waits for your move just now." in page and "Board games by correspondence" not in page
    visitor = client.get(reverse("home")).content.decode()
    assert "Board games by correspondence" in visitor and "Your matches waiting" not in visitor


def test_the_waiting_list_is_the_most_urgent_few(alice, bob):
    matches = [start_match(bob, alice) for _ in range(selectors.TURNS_SHOWN + 2)]
    for match in matches:
        play_first_move(match)
    assert len(selectors.turns_waiting(alice)) == selectors.TURNS_SHOWN
    assert selectors.turns_waiting(bob) == []


# --- query counts -------------------------------------------------------------------------


def test_the_home_page_reads_the_same_few_queries_however_many_matches_wait(client, alice, bob):
    alices = signed_in(alice)
    play_first_move(start_match(bob, alice))
    one = queries(alices, reverse("home"))
    visitor = queries(client, reverse("home"))
    for _ in range(6):
        play_first_move(start_match(bob, alice))
    assert queries(alices, reverse("home")) == one <= 8
    assert queries(client, reverse("home")) == visitor == 2, "the two lists of public matches, and no picture's"


# --- the top bar --------------------------------------------------------------------------


def test_the_top_bar_links_the_leaderboards_and_keeps_the_rest_behind_a_menu(client, alice):
    for page in (client.get(reverse("home")), signed_in(alice).get(reverse("home"))):
        bar = page.content.decode().split('<header class="topbar">')[1].split("</header>")[0]
        assert f'href="{reverse("leaderboards")}">Leaderboards</a>' in bar
        assert (
            'popovertarget="site-menu">Menu</button>' in bar and '<div id="site-menu" class="site-menu" popover>' in bar
        )
    menu = bar.split('id="site-menu"')[1]
    assert "Lobby" in menu and "Sign out" in menu and 'id="my-matches"' in bar.split('id="site-menu"')[0]
