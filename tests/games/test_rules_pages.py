"""The "How to play" pages: public, in the site's layout, saying what our engines decided, and
linked from wherever a game is chosen."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games.engine import all_games

SLUGS = [game.slug for game in all_games()]

# Per game, sentences that only hold for our engine's rule decisions (games/rules/<slug>/__init__.py).
ENGINE_DECISIONS = {
    "mancala": [
        "You capture even when the tile across is empty, banking just your one coin.",
        "A sowing of exactly 13 coins goes once round and ends in the tile it started from, emptied by the sowing: "
        "that counts as ending in an empty tile (after two rounds, 26 coins, the tile holds two and there is no "
        "capture).",
        "your turn passes, even if you had just earned an extra turn.",
        "The 4 coins every tile holds at the start are not banked",
        "Coins left on the other row stay there and score nothing.",
        "a capture needs at least one coin in the tile across.",
    ],
    "mecca": [
        "a pair or a larger group cut off from the rest stays.",
        "Pilgrims on entrances can never be removed.",
        "with two colours, a yellow pilgrim on a green crescent still counts once.",
        "even if a removal hands him a pilgrim back in that round.",
        "Yellow plays first; then each colour whose entrance comes next going counter-clockwise",
        "Ghosts stay for a round, until the colour that removed them plays again",
    ],
    "jeexa": [
        "with a trio to build, a joined group of five still counts three pieces",
        "the player who could not draw starts the next hand.",
        "Jokers are used one at a time (steal, place, steal, place), stealing is not optional",
        "Nobody is forced to complete the goal while the piece fits somewhere else.",
        "a separate joined trio of one colour (any colour, even the same); the two share no piece.",
    ],
    "mesopotamia": [
        "the game also ends after 60 rounds, or when 15 rounds in a row pass without an offering delivered.",
        "All 18 cards are used, also with 2 players",
        "on a tile with one of your own huts and 2 of your tribes",
        "Without enough mana you cannot enter with it.",
        "Yes: every player starts with one card, playable from the first turn on.",
        "Remove: played cards leave the game",
    ],
}


def page_text(response) -> str:
    """The page's words, with the template's line breaks folded into single spaces."""
    return " ".join(strip_tags(response.content.decode()).split())


@pytest.mark.parametrize("slug", SLUGS)
def test_each_rules_page_is_public_and_in_the_sites_layout(client, slug):
    response = client.get(reverse("game_rules", args=[slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert f"How to play {response.context['game'].name}" in html
    assert reverse("account_login") in html  # the site's top bar, signed out
    for other in SLUGS:
        if other != slug:
            assert reverse("game_rules", args=[other]) in html


@pytest.mark.parametrize("slug", SLUGS)
def test_each_rules_page_explains_a_turn_the_end_options_and_the_board(client, slug):
    html = client.get(reverse("game_rules", args=[slug])).content.decode()
    for section in ['id="goal"', 'id="turn"', 'id="options"', 'id="on-this-site"']:
        assert section in html


@pytest.mark.parametrize("slug", SLUGS)
def test_each_rules_page_states_our_engines_rule_decisions(client, slug):
    text = page_text(client.get(reverse("game_rules", args=[slug])))
    for sentence in ENGINE_DECISIONS[slug]:
        assert sentence in text


def test_the_mancala_page_has_a_section_per_variant(client):
    html = client.get(reverse("game_rules", args=["mancala"])).content.decode()
    for variant in ["Egyptian (the default)", "Ethiopian", "Nigerian", "Kalah"]:
        assert f'<h2 id="{variant.split()[0].lower()}">{variant}</h2>' in html


def test_an_unknown_game_has_no_rules_page(client, db):
    response = client.get(reverse("game_rules", args=["chess"]))
    assert response.status_code == 404
    assert "There is no such game." in response.content.decode()


@pytest.mark.parametrize("slug", SLUGS)
def test_the_new_match_page_links_to_its_games_rules(client, alice, slug):
    client.force_login(alice)
    html = client.get(reverse("match_new", args=[slug])).content.decode()
    assert re.search(f'<a [^>]*href="{reverse("game_rules", args=[slug])}"[^>]*>How to play ', html)


def test_option_fields_are_described_and_point_to_the_options_section(client, alice):
    client.force_login(alice)
    html = client.get(reverse("match_new", args=["mesopotamia"])).content.decode()
    for name in ["start_card", "discard"]:
        assert f'aria-describedby="id_option_{name}_helptext"' in html
        assert f'<small id="id_option_{name}_helptext">' in html
    assert "Remove: each card is played once at most." in html
    assert f'href="{reverse("game_rules", args=["mesopotamia"])}#options"' in html


def test_the_home_page_and_the_lobby_link_to_every_rules_page(client, alice):
    home = client.get(reverse("home")).content.decode()
    client.force_login(alice)
    lobby = client.get(reverse("lobby")).content.decode()
    for slug in SLUGS:
        assert reverse("game_rules", args=[slug]) in home
        assert reverse("game_rules", args=[slug]) in lobby


def test_the_match_page_links_to_its_games_rules(client, alice, match):
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert f'href="{reverse("game_rules", args=["mancala"])}"' in page


def test_the_jeexa_page_says_how_a_piece_that_fits_several_ways_is_placed(client):
    text = page_text(client.get(reverse("game_rules", args=["jeexa"])))
    assert (
        "Where it fits turned more than one way, the cell shows how many; a click on it opens those ways side by "
        "side to choose from, and Escape or Choose another spot closes them without playing."
    ) in text
