"""At the end of a match the board, the result above it and the match-over email name the same
winners by the same names (a Mesopotamia board said "Yellow wins" above "Bob wins"); a match that
ended before its game did (a resignation) has no board saying whose turn it is."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from games import services
from games.models import Match, MoveRecord
from games.naming import names_in_words, seat_names
from games.services import ClockSpec, SeatSpec, creating
from notifications.models import Notification
from tests.games.conftest import play_random_moves

# Where each board names the winners: a sentence, or Mecca's score rows marked "wins".
BOARD_WINNERS = {
    "mesopotamia": r"Game over: (.+?) (?:wins|share the win)",
    "jeexa": r"The game is over after 6 hands: (.+?) (?:wins|share the win)",
}


def new_match(slug: str, creator, *others, seed: int, monkeypatch) -> Match:
    """Started, no clock, a known seed: ``others`` are users (invited, accepted) or "ai"."""
    monkeypatch.setattr(creating, "new_seed", lambda: seed)
    seats = [
        SeatSpec("creator"),
        *(
            SeatSpec("ai", ai_level=1) if other == "ai" else SeatSpec("user", username=other.username)
            for other in others
        ),
    ]
    match = services.match_create(creator=creator, game_slug=slug, options={}, seats=seats, clock=ClockSpec())
    for other in others:
        if other != "ai":
            services.match_accept(match_id=match.pk, user=other)
    match.refresh_from_db()
    return match


def played_to_the_end(match: Match, *, ai: bool = False) -> Match:
    """The game played on from the match's position (random legal moves, or the easy AI's) to one move
    before its end, that position stored, and the last move made through the services as its
    player or its AI would: the result, the emails and the page come from the real ending."""
    match.refresh_from_db()
    game = match.game_obj
    state, ply, rng = game.load(match.state), 0, random.Random(match.seed)
    while True:
        seat = game.to_act(state)[0]
        move = game.ai_move(state, seat, 1, seed=ply) if ai else rng.choice(game.legal_moves(state, seat))
        after = game.apply(state, seat, move)
        if game.is_over(after):
            break
        state, ply = after, ply + 1
    Match.objects.filter(pk=match.pk).update(state=game.dump(state))
    player = match.seats.get(number=seat)
    services.move_submit(
        match_id=match.pk,
        move=move,
        expected_version=match.version,
        user=player.user,
        ai_seat=None if player.user else seat,
    )
    match.refresh_from_db()
    assert match.status == "finished" and match.result["reason"] == "played out"
    return match


def page_text(html: str) -> str:
    return " ".join(strip_tags(html).split())


def result_and_board(client, match: Match, viewer) -> tuple[str, str]:
    client.force_login(viewer)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    result = page_text(re.search(r'<p class="turn"[^>]*>(.*?)</p>', page, re.S)[1])
    board = re.search(
        r'<section id="board" class="board"[^>]*>\s*<h2 class="visually-hidden">Board</h2>(.*?)</section>\s*'
        r'<section id="log"',
        page,
        re.S,
    )[1]
    return result, board


def board_winners(slug: str, board: str) -> str:
    if slug == "mecca":
        rows = re.findall(r'<tr class="winner">\s*<td>(.*?)</td>', board, re.S)
        rows = [re.sub(r'<span class="pilgrim[^>]*>.*?</span>', "", row) for row in rows]  # colour letters
        return names_in_words([re.sub(r" \(you\)| \(placed all\)| wins$", "", page_text(row)).strip() for row in rows])
    found = re.search(BOARD_WINNERS[slug], page_text(board))
    assert found, page_text(board)[:300]
    return found[1]


def emailed_winners(match: Match, reader) -> str:
    body = Notification.objects.get(match=match, user=reader, kind=Notification.Kind.MATCH_OVER).body
    return re.search(r"(?:You lost|It is a draw): (.+?) (?:won|share the win)", body)[1]


def assert_the_same_winners(client, match: Match, viewer, loser) -> str:
    """The board, the result above it and a losing player's email name the same winners, by
    the names the seat list shows; returns them."""
    expected = names_in_words([seat_names(list(match.seats.all()))[n] for n in match.result["winners"]])
    result, board = result_and_board(client, match, viewer)
    assert re.match(rf"The match is over\. {re.escape(expected)} (wins|share the win)", result), result
    assert board_winners(match.game, board) == expected
    assert emailed_winners(match, loser) == expected
    return expected


def test_mesopotamia_names_its_winner_as_the_result_and_the_email_do(client, alice, bob, monkeypatch):
    match = played_to_the_end(new_match("mesopotamia", alice, bob, seed=0, monkeypatch=monkeypatch), ai=True)
    assert match.result["winners"] == [1]

    assert assert_the_same_winners(client, match, alice, alice) == "Bob"
    _result, board = result_and_board(client, match, alice)
    assert "Game over: Bob wins (the offerings delivered add up to Alice 12, Bob 19)." in page_text(board)
    assert not re.search(r"\b(Yellow|Blue) wins", page_text(board))


def test_mesopotamia_names_everyone_sharing_the_win_an_ai_too(client, alice, bob, monkeypatch):
    match = played_to_the_end(new_match("mesopotamia", alice, bob, "ai", seed=1, monkeypatch=monkeypatch))
    assert match.result["winners"] == [0, 1, 2], "no offering delivered: a draw"

    assert assert_the_same_winners(client, match, bob, alice) == "Alice, Bob and AI (Easy)"


def test_mecca_with_two_colours_each_names_the_winner_once(client, alice, bob, monkeypatch):
    match = played_to_the_end(new_match("mecca", alice, bob, seed=2, monkeypatch=monkeypatch))
    assert match.result["winners"] == [1]

    assert assert_the_same_winners(client, match, alice, alice) == "Bob"


def test_mecca_names_a_shared_win_by_the_player_who_left_and_the_ai_that_took_the_seat(
    client, alice, bob, carol, monkeypatch
):
    match = new_match("mecca", alice, bob, carol, seed=0, monkeypatch=monkeypatch)
    services.match_resign(match_id=match.pk, user=bob)  # three players: the AI takes Bob's seat and plays on
    match = played_to_the_end(match)
    assert match.result["winners"] == [0, 1]

    assert assert_the_same_winners(client, match, carol, carol) == "Alice and AI (Strong)"


def test_jeexa_names_its_winner_among_ai_seats(client, alice, bob, monkeypatch):
    match = played_to_the_end(new_match("jeexa", alice, bob, "ai", "ai", seed=3, monkeypatch=monkeypatch))
    assert match.result["winners"] == [3]

    assert assert_the_same_winners(client, match, bob, alice) == "AI (Easy, player 4)"  # Bob made the last move


def test_the_mesopotamia_board_says_whose_turn_it_is_by_the_name_the_log_uses(client, alice, bob, monkeypatch):
    """It said "Yellow · round 1" below "Waiting for Bob", and headed the players' panels by colour."""
    match = new_match("mesopotamia", alice, bob, "ai", seed=1, monkeypatch=monkeypatch)
    assert match.seats.get(to_act=True).number == 0

    result, board = result_and_board(client, match, bob)

    assert result == "Waiting for Alice."
    assert page_text(board).startswith("Alice (blue) · round 1 · Movement")
    panels = [page_text(h3) for h3 in re.findall(r'<section class="meso-player.*?<h3>(.*?)</h3>', board, re.S)]
    assert panels == ["B Alice (blue) · Player 1", "Y Bob (yellow) · Player 2 (you)", "G AI (Easy, green) · Player 3"]


# What a board says while someone is to act: none of it may stay once the match is over.
TO_ACT = {
    "mesopotamia": ["</strong> · round", "movement point", "meso-acting"],
    "jeexa": ["and takes the", 'class="jx-turn"', "jx-acting"],
    "mecca": ["mecca-prompt", "◀ to act", 'class="to-act'],
}


@pytest.mark.parametrize("slug", TO_ACT)
def test_a_board_says_nobody_is_to_act_once_a_resignation_ended_the_match(client, alice, bob, monkeypatch, slug):
    """It went on saying "Red: place its one pilgrim" below "The match is over. Alice wins (Bob resigned)"."""
    match = new_match(slug, alice, bob, seed=1, monkeypatch=monkeypatch)
    game, users = match.game_obj, {0: alice, 1: bob}
    for _ in range(3):
        match.refresh_from_db()
        state = game.load(match.state)
        seat = game.to_act(state)[0]
        services.move_submit(
            match_id=match.pk, move=game.legal_moves(state, seat)[0], expected_version=match.version, user=users[seat]
        )
    services.match_resign(match_id=match.pk, user=bob)

    result, board = result_and_board(client, match, alice)

    assert result == "The match is over. Alice wins. (Bob resigned)"
    assert not [said for said in TO_ACT[slug] if re.search(said, board)], page_text(board)[:300]
    replay = client.get(reverse("match_replay", args=[match.pk])).content.decode()
    assert all(re.search(said, replay) for said in TO_ACT[slug]), "the replay still shows whose turn it was"


def test_every_jeexa_puzzle_numbers_its_columns_and_rows_as_the_log_names_places(client, alice, bob, monkeypatch):
    """The log says "steals the red 1 at -1,0 from Alice", but no puzzle showed where -1,0 was."""
    match = new_match("jeexa", alice, bob, seed=1, monkeypatch=monkeypatch)
    play_random_moves(
        match,
        [alice, bob],
        random.Random(1),
        until=lambda: MoveRecord.objects.filter(match=match, notation__startswith="steal").count() >= 2,
    )

    _result, board = result_and_board(client, match, alice)

    tables = re.findall(r'<table class="jx-grid">(.*?)</table>', board, re.S)
    assert len(tables) >= 3, "Alice's, Bob's and the last hand's puzzles"
    shown = set()
    for table in tables:
        columns = re.findall(r'<th scope="col"[^>]*>(-?\d+)</th>', table)
        assert columns, "numbered columns"
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S):
            number = re.search(r'<th scope="row"[^>]*>(-?\d+)</th>', row)[1]
            places = re.findall(r'data-cell="(-?\d+,-?\d+)"', row)
            assert places == [f"{column},{number}" for column in columns], "each cell under its column and row"
            shown |= set(re.findall(r"<span class=\"visually-hidden\">\w+ \d at (-?\d+,-?\d+)", row))
    assert "Places are written column,row" in page_text(board)
    log = " ".join(MoveRecord.objects.filter(match=match).values_list("description", flat=True))
    assert shown & set(re.findall(r" at (-?\d+,-?\d+)", log)), "pieces the log names stand in numbered cells"
