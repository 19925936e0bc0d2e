"""The email that ends a match says who won by the names the match page shows, whether the
reader won, lost or shared the win, and the score; a cancelled match is called cancelled."""

from __future__ import annotations

import re

from django.urls import reverse

from games import services
from games.engine import get_game
from games.engine.base import Outcome
from games.models import Match, Notification
from tests.conftest import start_match
from tests.games.conftest import start_timed_match

MANCALA = get_game("mancala")


def told(match: Match, user) -> Notification:
    return Notification.objects.get(match=match, user=user, kind=Notification.Kind.MATCH_OVER)


def one_sowing_from_the_end(match: Match, *, alice_store: int, bob_tiles: list[int], bob_store: int) -> None:
    """Alice (seat 0) to move with one coin on her last tile: sowing it ends the game."""
    state = MANCALA.dump(MANCALA.load(match.state))
    state.update(tiles=[[0, 0, 0, 0, 0, 1], bob_tiles], mancalas=[alice_store, bob_store], to_move=0)
    Match.objects.filter(pk=match.pk).update(state=state)


def test_the_loser_is_told_that_they_lost_who_won_and_the_score(alice, bob):
    match = start_match(alice, bob)
    one_sowing_from_the_end(match, alice_store=34, bob_tiles=[1, 2, 0, 0, 0, 0], bob_store=10)
    services.move_submit(match_id=match.pk, user=alice, move="6", expected_version=0)

    notice = told(match, bob)
    assert notice.subject == f"Mancala #{match.pk} is over: you lost"
    assert f"Mancala #{match.pk} (Egyptian) is over. You lost: Alice won.\nScore: Alice 35, Bob 13.\n" in notice.body
    assert "Last move: Alice sows" in notice.body


def test_a_draw_is_called_a_draw(alice, bob):
    match = start_match(alice, bob)
    one_sowing_from_the_end(match, alice_store=23, bob_tiles=[4, 0, 0, 0, 0, 0], bob_store=20)
    services.move_submit(match_id=match.pk, user=alice, move="6", expected_version=0)

    notice = told(match, bob)
    assert notice.subject == f"Mancala #{match.pk} is over: a draw"
    assert "is over. It is a draw: Alice and Bob share the win.\nScore: Alice 24, Bob 24.\n" in notice.body


def test_the_winner_by_resignation_is_told_they_won_and_why(alice, bob):
    match = start_match(alice, bob)
    services.match_resign(match_id=match.pk, user=bob)

    notice = told(match, alice)
    assert notice.subject == f"Mancala #{match.pk} is over: you won"
    assert "is over. You won (Bob resigned).\n" in notice.body
    assert "Score" not in notice.body, "a resignation has no score"


def test_players_are_told_by_name_who_shares_the_win(alice, bob, carol, monkeypatch):
    match = start_timed_match(alice, bob, carol, game="mesopotamia")
    game = get_game("mesopotamia")
    state = game.load(match.state)
    assert game.to_act(state) == (0,), "Alice plays first"
    # Rules that end the game after Alice's next step, Alice and Carol sharing the win.
    ending = Outcome(scores=(9, 4, 9), winners=(0, 2))
    monkeypatch.setattr(type(game), "outcome", lambda self, after: None if after == state else ending)
    services.move_submit(match_id=match.pk, user=alice, move=game.legal_moves(state, 0)[0], expected_version=0)

    score = "Score: Alice 9, Bob 4, Carol 9.\n"
    notice = told(match, bob)
    assert notice.subject == f"Mesopotamia #{match.pk} is over: you lost"
    assert f"is over. You lost: Alice and Carol share the win.\n{score}" in notice.body
    notice = told(match, carol)
    assert notice.subject == f"Mesopotamia #{match.pk} is over: you share the win"
    assert f"is over. You share the win with Alice.\n{score}" in notice.body


def test_a_win_on_the_tie_break_says_so_by_mail_and_on_the_page(alice, bob, client, monkeypatch):
    """ "Bob wins. Score: Alice 19, Bob 19." read as a mistake (Mecca: the Kaaba tie-break decided)."""
    match = start_timed_match(alice, bob, game="mecca")
    game = get_game("mecca")
    state = game.load(match.state)
    ending = Outcome(scores=(19, 19), winners=(0,))  # Alice's move ends it: Bob is the one told
    monkeypatch.setattr(type(game), "outcome", lambda self, after: None if after == state else ending)
    services.move_submit(match_id=match.pk, user=alice, move=game.legal_moves(state, 0)[0], expected_version=0)

    assert "is over. You lost: Alice won on the tie-break.\nScore: Alice 19, Bob 19.\n" in told(match, bob).body
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert re.search(r"Alice</span>\s*wins on the tie-break\.", page)


def test_a_mecca_win_by_placing_every_pilgrim_says_why_and_is_no_tie_break(alice, bob, client):
    """The one player with an empty hand wins whatever the totals: "Alice won on the
    tie-break. Score: Alice 3, Bob 3." was false, and a lower winning score unexplained."""
    match = start_timed_match(alice, bob, game="mecca")
    game = get_game("mecca")
    # Alice's green, last in the order, places its last pilgrim (her yellow hand is empty too).
    last_turn = {
        "players": 2, "seed": 0, "board": {"f1": "yellow", "k7": "green", "a5": "red", "a7": "blue", "c3": "red"},
        "hand": {"yellow": 0, "red": 16, "green": 1, "blue": 17},
        "entrances": {"yellow": "f1", "red": "a5", "green": "k7", "blue": "a7"}, "step": "place",
        "colour": "green", "placed": 0, "round": 3, "final_round": False, "last_removal": None, "passed": [],
        "reason": "", "moves_played": 40, "recent_removals": [],
    }
    Match.objects.filter(pk=match.pk).update(state=game.dump(game.load(last_turn)))
    services.move_submit(match_id=match.pk, user=alice, move="b5", expected_version=0)

    body = told(match, bob).body
    assert "is over. You lost: Alice won (Alice placed all their pilgrims).\nScore: Alice 3, Bob 3.\n" in body
    assert "a player has placed all his pilgrims; the round is complete, so the game ends." in body
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert "tie-break" not in page and "(Alice placed all their pilgrims)" in page


def test_a_match_staff_abort_is_called_cancelled_not_over(match, staff):
    services.match_abort(match_id=match.pk, actor=staff, reason="Cheating reported")

    for notice in Notification.objects.filter(match=match, kind=Notification.Kind.MATCH_OVER):
        assert notice.subject == f"Mancala #{match.pk} was cancelled"
        assert f"Mancala #{match.pk} (Egyptian) was cancelled: nobody wins or loses it." in notice.body
        assert "Staff aborted the match: Cheating reported" in notice.body
        assert "is over" not in notice.body


def test_a_staff_reason_that_ends_its_own_sentence_gets_no_second_mark(match, staff):
    """'Staff aborted the match: Cheating, again!.' ended in two marks."""
    services.match_abort(match_id=match.pk, actor=staff, reason="Cheating, again!")

    told = Notification.objects.filter(match=match, kind=Notification.Kind.MATCH_OVER)
    assert told.exists()
    for notice in told:
        assert "Staff aborted the match: Cheating, again!" in notice.body
        assert "again!." not in notice.body


def test_a_declined_invitation_is_called_cancelled_not_over(alice, bob):
    match = services.match_create(creator=alice, game_slug="mancala", options={},
                                  seats=[services.SeatSpec("creator"), services.SeatSpec("user", username="bob")])
    services.match_decline(match_id=match.pk, user=bob)

    notice = told(match, alice)
    assert notice.subject == f"Mancala #{match.pk} was cancelled"
    assert "Bob declined the invitation" in notice.body and "is over" not in notice.body


def test_the_invited_hear_when_the_creator_withdraws_the_match(alice, bob, carol):
    match = services.match_create(creator=alice, game_slug="mecca", options={}, seats=[
        services.SeatSpec("creator"), services.SeatSpec("user", username="bob"), services.SeatSpec("open")])
    services.match_join(match_id=match.pk, user=carol)
    services.match_cancel(match_id=match.pk, user=alice)

    for user in (bob, carol):
        notice = told(match, user)
        assert notice.subject == f"Mecca #{match.pk} was cancelled"
        assert "Alice withdrew the match before it started." in notice.body
    assert not Notification.objects.filter(match=match, user=alice).exists(), "she knows"
    match.refresh_from_db()
    assert match.events.filter(reason="Alice withdrew the match before it started.", ply=0).exists(), "in the log"
