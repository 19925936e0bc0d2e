"""The email that ends a match says who won by the names the match page shows, whether the
reader won, lost or shared the win, and the score; a cancelled match is called cancelled."""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime

from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from accounts.models import TurnNotice
from accounts.services import user_deactivate
from games import services
from games.engine import get_game
from games.engine.base import Outcome
from games.models import Match, Status
from notifications.models import Notification
from tests.conftest import make_user, start_match
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
        "players": 2,
        "seed": 0,
        "board": {"f1": "yellow", "k7": "green", "a5": "red", "a7": "blue", "c3": "red"},
        "hand": {"yellow": 0, "red": 16, "green": 1, "blue": 17},
        "entrances": {"yellow": "f1", "red": "a5", "green": "k7", "blue": "a7"},
        "step": "place",
        "colour": "green",
        "placed": 0,
        "round": 3,
        "final_round": False,
        "last_removal": None,
        "passed": [],
        "reason": "",
        "moves_played": 40,
        "recent_removals": [],
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
    match = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={},
        seats=[services.SeatSpec("creator"), services.SeatSpec("user", username="bob")],
    )
    services.match_decline(match_id=match.pk, user=bob)

    notice = told(match, alice)
    assert notice.subject == f"Mancala #{match.pk} was cancelled"
    assert "Bob declined the invitation" in notice.body and "is over" not in notice.body


def test_the_invited_hear_when_the_creator_withdraws_the_match(alice, bob, carol):
    match = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[services.SeatSpec("creator"), services.SeatSpec("user", username="bob"), services.SeatSpec("open")],
    )
    services.match_join(match_id=match.pk, user=carol)
    services.match_cancel(match_id=match.pk, user=alice)

    for user in (bob, carol):
        notice = told(match, user)
        assert notice.subject == f"Mecca #{match.pk} was cancelled"
        assert "Alice withdrew the match before it started." in notice.body
    assert not Notification.objects.filter(match=match, user=alice).exists(), "she knows"
    match.refresh_from_db()
    assert match.events.filter(reason="Alice withdrew the match before it started.", ply=0).exists(), "in the log"


# --- a player whose seat the AI took over -----------------------------------------------------------------------


def end_after_alices_next_move(match: Match, ending: Outcome, monkeypatch) -> None:
    """Rules under which Alice's next step ends the game with ``ending``; the step is made."""
    game = match.game_obj
    state = game.load(match.state)
    assert game.to_act(state) == (0,), "Alice plays first"
    monkeypatch.setattr(type(game), "outcome", lambda self, after: None if after == state else ending)
    services.move_submit(
        match_id=match.pk,
        user=Match.objects.get(pk=match.pk).seats.get(number=0).user,
        move=game.legal_moves(state, 0)[0],
        expected_version=match.version,
    )


def on_the_day(moment, user) -> str:
    return date_format(moment.astimezone(zoneinfo.ZoneInfo(user.time_zone)), "l j F Y")


def test_a_player_whose_seat_the_ai_took_hears_how_the_match_ended_and_since_when_the_ai_played(
    alice, bob, carol, clock, monkeypatch
):
    """Carol resigned and the AI played on in her seat: she could watch the match, but its end
    came by no email."""
    carol.time_zone = "Pacific/Auckland"  # the day she reads is hers: 3 March at 20:00 in London is 4 March there
    carol.save()
    clock.now = datetime(2026, 3, 3, 20, 0, tzinfo=UTC)
    match = start_timed_match(alice, bob, carol, game="mesopotamia")
    services.match_resign(match_id=match.pk, user=carol)
    clock.advance(days=1)

    end_after_alices_next_move(match, Outcome(scores=(9, 4, 6), winners=(0,)), monkeypatch)

    notice = told(match, carol)
    assert notice.subject == f"Mesopotamia #{match.pk} is over: your former seat lost"
    assert (
        "is over. AI (Strong), in your former seat, lost: Alice won.\nScore: Alice 9, Bob 4, AI (Strong) 6.\n"
        in notice.body
    )
    assert "The AI took your seat on Wednesday 4 March 2026 and played it from then on.\n" in notice.body
    assert told(match, bob).subject.endswith("you lost"), "the others are told as before"
    assert "The AI took your seat" not in told(match, bob).body


def test_a_player_whose_seat_the_ai_won_with_after_a_timeout_hears_that_their_former_seat_won(alice, bob, clock):
    """Two players, the AI taking the late seat: Alice's clock ran out, then Bob resigned."""
    match = start_timed_match(
        alice, bob, clock=services.ClockSpec(time_control="per_move", days_per_move=1, on_timeout="ai")
    )
    clock.advance(days=1, seconds=1)
    assert services.match_timeout(match_id=match.pk, expected_version=0) == [0]
    services.match_resign(match_id=match.pk, user=bob)

    notice = told(match, alice)
    assert notice.subject == f"Mancala #{match.pk} is over: your former seat won"
    assert "is over. AI (Strong), in your former seat, won (Bob resigned).\n" in notice.body
    assert f"The AI took your seat on {on_the_day(clock.now, alice)}" in notice.body
    assert not Notification.objects.filter(match=match, user=bob, kind=Notification.Kind.MATCH_OVER).exists(), (
        "Bob resigned: he knows"
    )


def test_a_player_whose_seat_staff_gave_to_the_ai_hears_when_the_opponent_runs_out_of_time(alice, bob, staff, clock):
    match = start_timed_match(alice, bob)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=0, level=1, actor=staff, reason="Alice asked")
    services.move_submit(match_id=match.pk, ai_seat=0, move="1", expected_version=0)
    clock.advance(days=2, seconds=1)
    assert services.match_timeout(match_id=match.pk, expected_version=1) == [1]

    notice = told(match, alice)
    assert notice.subject == f"Mancala #{match.pk} is over: your former seat won"
    assert "is over. AI (Easy), in your former seat, won (Bob ran out of time).\n" in notice.body
    assert not Notification.objects.filter(match=match, user=bob, kind=Notification.Kind.MATCH_OVER).exists(), (
        "Bob hears of his timeout in the timeout email"
    )


def test_a_player_whose_seat_the_ai_took_hears_when_staff_cancel_the_match(alice, bob, carol, staff):
    match = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=match.pk, user=carol)
    services.match_abort(match_id=match.pk, actor=staff, reason="Cheating reported")

    notice = told(match, carol)
    assert notice.subject == f"Jeexa #{match.pk} was cancelled"
    assert (
        f"was cancelled: nobody wins or loses it.\nThe AI took your seat on {on_the_day(timezone.now(), carol)} "
        "and played it until then.\n" in notice.body
    )
    assert "Staff aborted the match: Cheating reported." in notice.body
    assert "The AI took your seat" not in told(match, bob).body


def test_a_former_player_gets_the_result_only_as_they_chose_and_nothing_once_their_account_is_closed(
    alice, bob, carol, monkeypatch
):
    """No email for one who chose none (their webhook still hears it); a closed account, none at all."""
    dave = make_user("dave", display_name="Dave")
    match = start_timed_match(alice, bob, carol, dave, game="mesopotamia")
    for quitter in (bob, carol):
        services.match_resign(match_id=match.pk, user=quitter)
    bob.turn_notice, bob.webhook_url = TurnNotice.NONE, "https://hooks.example.com/bob"
    bob.save()
    user_deactivate(user_id=dave.pk, actor=None)  # the AI takes his seat too
    Notification.objects.all().delete()

    end_after_alices_next_move(match, Outcome(scores=(9, 4, 6, 5), winners=(0,)), monkeypatch)

    told_whom = Notification.objects.filter(match=match, kind=Notification.Kind.MATCH_OVER)
    assert sorted(told_whom.values_list("user__username", "channel")) == [("bob", "webhook"), ("carol", "email")]


def test_an_invited_player_whose_seat_went_to_the_ai_before_the_start_hears_no_result(
    alice, bob, carol, staff, monkeypatch
):
    """Their invitation was withdrawn ("the match is played without you"): they took no part."""
    match = services.match_create(
        creator=alice,
        game_slug="mesopotamia",
        options={},
        seats=[
            services.SeatSpec("creator"),
            services.SeatSpec("user", username="bob"),
            services.SeatSpec("user", username="carol"),
        ],
    )
    services.match_accept(match_id=match.pk, user=bob)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=2, level=1, actor=staff, reason="No answer")
    match.refresh_from_db()
    assert match.status == Status.ACTIVE

    end_after_alices_next_move(match, Outcome(scores=(9, 4, 6), winners=(0,)), monkeypatch)

    assert not Notification.objects.filter(match=match, user=carol, kind=Notification.Kind.MATCH_OVER).exists()
    assert told(match, bob).subject.endswith("you lost")
