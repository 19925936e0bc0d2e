"""Services: creating, joining, moving, resigning and aborting matches."""

from __future__ import annotations

import random

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.utils import timezone

from accounts.models import User
from games import naming, selectors, services
from games.engine import get_game
from games.engine.words import Who, plain, sentence
from games.models import Match, MatchEvent, MoveRecord, Seat, Status
from games.replay import replay_state
from games.services import SeatSpec, creating
from notifications import services as notification_services
from notifications.models import Notification
from tests.conftest import make_user, start_match
from tests.games.conftest import start_timed_match

MANCALA = get_game("mancala")


def stored(match):
    match.refresh_from_db()
    return match.state, match.version, match.status, MoveRecord.objects.filter(match=match).count()


def test_an_invitation_names_the_options_in_the_order_the_match_page_does(alice, bob):
    """PostgreSQL's jsonb stores option names shortest first: the match read back must not
    name them in another order than the one just made (its invitation)."""
    match = services.match_create(
        creator=alice,
        game_slug="mesopotamia",
        options={"start_card": "no", "discard": "reshuffle"},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("ai", ai_level=1)],
    )
    invitation = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION)
    read_back = Match.objects.get(pk=match.pk)
    assert read_back.options_label == "No starting card, played cards reshuffled"
    assert read_back.full_name in invitation.body


def test_match_with_an_invited_player_waits_for_acceptance(alice, bob):
    match = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob")],
    )
    assert match.status == Status.OPEN
    assert match.options == {"variant": "egyptian"}
    assert Notification.objects.get(user=bob).kind == Notification.Kind.INVITATION
    services.match_accept(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    assert list(match.seats.values_list("to_act", flat=True)) == [True, False]
    assert [e.to_status for e in MatchEvent.objects.filter(match=match)][-1] == Status.ACTIVE


def test_declining_an_invitation_aborts_the_match(alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_decline(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Status.ABORTED
    why = "Bob declined the invitation, so the match is cancelled."
    assert MatchEvent.objects.get(match=match, to_status=Status.ABORTED).ply == 0  # so the page's log says why
    told = Notification.objects.get(match=match, kind=Notification.Kind.MATCH_OVER)
    assert told.user == alice and why in told.body and "Last move" not in told.body


def test_an_open_challenge_starts_when_someone_joins(alice, bob, carol):
    match = services.match_create(
        creator=alice,
        game_slug="mancala",
        options={"variant": "nigerian"},
        seats=[SeatSpec("creator"), SeatSpec("open")],
    )
    with pytest.raises(services.ServiceError, match="already have a seat"):
        services.match_join(match_id=match.pk, user=alice)
    services.match_join(match_id=match.pk, user=bob)
    with pytest.raises(services.ServiceError, match="Another player took the last seat just before you"):
        services.match_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    assert match.status == Status.ACTIVE
    assert [seat.user for seat in match.seats.all()] == [alice, bob]


def test_join_pressed_again_after_the_match_started_says_you_have_a_seat(alice, bob):
    """A second tab's Join: the first took the last seat and started the match; nobody was invited."""
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    services.match_join(match_id=match.pk, user=bob)
    with pytest.raises(services.ServiceError, match=r"^You already have a seat in this match\. This match has already"):
        services.match_join(match_id=match.pk, user=bob)


def test_a_second_answer_to_an_invitation_says_what_the_first_did(alice, bob, carol):
    """Accept (or Decline) pressed again in a second tab, or racing the creator's withdrawal."""
    seats = [SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("user", username="carol")]
    match = services.match_create(creator=alice, game_slug="jeexa", options={}, seats=seats)
    services.match_accept(match_id=match.pk, user=bob)
    for answer in (services.match_accept, services.match_decline):
        with pytest.raises(services.ServiceError, match=r"^You have already accepted this invitation\.$"):
            answer(match_id=match.pk, user=bob)
    services.match_accept(match_id=match.pk, user=carol)  # the match starts
    with pytest.raises(services.ServiceError, match=r"already accepted this invitation\. This match has already"):
        services.match_accept(match_id=match.pk, user=bob)
    with pytest.raises(services.ServiceError, match=r"^This match has already started\.$"):
        services.match_cancel(match_id=match.pk, user=alice)


def test_answers_pressed_by_the_wrong_person_say_what_to_do_instead(alice, bob, carol):
    seats = [SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("open")]
    match = services.match_create(creator=alice, game_slug="jeexa", options={}, seats=seats)
    for answer in (services.match_accept, services.match_decline):
        with pytest.raises(services.ServiceError, match=r"^You created this match, so there is no invitation"):
            answer(match_id=match.pk, user=alice)
    with pytest.raises(services.ServiceError, match=r"^You are invited to this match: accept the invitation"):
        services.match_join(match_id=match.pk, user=bob)
    with pytest.raises(services.MoveRejected, match=r"^This match has not started yet"):
        services.move_submit(match_id=match.pk, user=alice, move="roll", expected_version=0)
    with pytest.raises(services.ServiceError, match=r"^This match has not started yet, so there is nothing to resign"):
        services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Status.OPEN and [seat.user for seat in match.seats.all()] == [alice, bob, None]

    withdrawn = services.match_create(creator=alice, game_slug="mancala", options={}, seats=seats[:2])
    services.match_cancel(match_id=withdrawn.pk, user=alice)
    # Said with what happened, not only "This match was cancelled."
    with pytest.raises(services.ServiceError, match=r"^Alice withdrew the match before it started\.$"):
        services.match_accept(match_id=withdrawn.pk, user=bob)

    declined = services.match_create(
        creator=alice,
        game_slug="mecca",
        options={},
        seats=[SeatSpec("creator"), SeatSpec("user", username="bob"), SeatSpec("user", username="carol")],
    )
    services.match_decline(match_id=declined.pk, user=carol)
    with pytest.raises(services.ServiceError, match=r"^Carol declined the invitation, so the match is cancelled\.$"):
        services.match_accept(match_id=declined.pk, user=bob)


def test_create_refuses_unknown_players_and_ai_levels(alice):
    with pytest.raises(services.ServiceError, match="no player called"):
        services.match_create(
            creator=alice,
            game_slug="mancala",
            options={},
            seats=[SeatSpec("creator"), SeatSpec("user", username="nobody")],
        )
    with pytest.raises(services.ServiceError, match="no AI level"):
        services.match_create(
            creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("ai", ai_level=99)]
        )
    with pytest.raises(ValueError, match="not a variant"):
        services.match_create(
            creator=alice,
            game_slug="mancala",
            options={"variant": "martian"},
            seats=[SeatSpec("creator"), SeatSpec("open")],
        )


def test_two_matches_created_at_once_get_different_seeds(alice, bob):
    first, second = start_match(alice, bob), start_match(bob, alice)
    assert first.seed != second.seed


def test_creator_position_places_the_creator(alice):
    seats = [SeatSpec("ai", ai_level=1)]
    assert services.creator_seats(seats=seats, position="first")[0].kind == "creator"
    assert services.creator_seats(seats=seats, position="last")[1].kind == "creator"


def test_a_move_is_applied_recorded_and_the_turn_passes(match, alice, bob, django_capture_on_commit_callbacks):
    emails_before = Notification.objects.count()
    with django_capture_on_commit_callbacks() as callbacks:
        record = services.move_submit(match_id=match.pk, user=alice, move="3", expected_version=0)
    match.refresh_from_db()
    assert match.version == 1
    assert record.ply == 0 and record.seat == 0 and record.notation == "3"
    assert "tile 3" in record.description
    view = MANCALA.view(MANCALA.load(match.state), 0)
    assert view["tiles"][0] == [4, 4, 0, 5, 5, 5] and view["mancalas"] == [1, 0]
    # Last coin in her own mancala: Alice moves again, so nobody is emailed and she stays to act.
    assert list(match.seats.values_list("to_act", flat=True)) == [True, False]
    assert Notification.objects.count() == emails_before
    assert callbacks == []


def test_the_log_names_players_as_they_were_when_they_moved(match, alice, bob, staff):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.seat_replace_by_ai(match_id=match.pk, seat_number=0, level=1, actor=staff, reason="Alice left")
    services.move_submit(match_id=match.pk, user=bob, move="2", expected_version=1)
    first, second = MoveRecord.objects.filter(match=match).order_by("ply")
    assert first.description == "Alice sows tile 1: 4 coins."
    assert second.description.startswith("Bob sows tile 2")
    assert "Player" not in second.description


def test_engine_sentences_name_every_player_they_mention():
    names = {0: "Alice", 1: "Bob", 2: "AI (Strong, player 3)"}
    line = sentence("{} uses a joker: steals the purple 3 at 1,2 from {}. {} rolled 5.", Who(0), Who(2), Who(1))
    assert naming.in_names(line, names) == (
        "Alice uses a joker: steals the purple 3 at 1,2 from AI (Strong, player 3). Bob rolled 5."
    )
    assert naming.in_names(sentence("{} rolled 2 (Player 12).", Who(3)), names) == "Player 4 rolled 2 (Player 12).", (
        "a seat without a name keeps the engine's word, and words that only look like a seat stay"
    )
    red, green = Who(1, "red"), Who(2, "green")
    assert naming.in_names(
        sentence("{} places a pilgrim on f3; {} turn.", red, green._replace(possessive=True)), names
    ) == ("Bob (red) places a pilgrim on f3; AI (Strong, green)'s turn.")
    assert naming.in_names(sentence("{} places a pilgrim on f4.", green), names) == (
        "AI (Strong, green) places a pilgrim on f4."
    ), 'one pair of brackets, not "AI (Strong) (green)"'
    assert naming.in_names(sentence("{} b2 moves", Who(1, "blue", possessive=True)), names) == "Bob's b2 moves"
    assert plain(sentence("{} places a pilgrim on f4.", green)) == "Green places a pilgrim on f4."


def test_a_move_that_passes_the_turn_emails_the_next_player_after_commit(
    match, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    notification = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN)
    assert f"/matches/{match.pk}/" in notification.body
    assert "Alice sows tile 1" in notification.body
    assert len(callbacks) == 1, "the email task is enqueued only once the move is committed"
    assert notification.sent_at is None
    assert notification_services.notification_send(notification_id=notification.pk) is True
    assert notification_services.notification_send(notification_id=notification.pk) is False, "sent once"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["bob@example.com"]


def test_the_your_turn_email_lists_every_move_since_the_players_own(match, alice, bob):
    """Alice's first sowing ends in her mancala, so she moves again: Bob hears of both."""
    services.move_submit(match_id=match.pk, user=alice, move="3", expected_version=0)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=1)
    body = Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN).body
    assert (
        "What happened so far:\n- Alice sows tile 3: 4 coins and moves again.\n"  # Bob has not moved yet
        "- Alice sows tile 1"
    ) in body
    Notification.objects.update(sent_at=timezone.now())  # an unsent notice of the same kind would stand for the next
    match.refresh_from_db()
    state = MANCALA.load(match.state)
    passes = next(
        move for move in MANCALA.legal_moves(state, 1) if MANCALA.to_act(MANCALA.apply(state, 1, move)) == (0,)
    )
    services.move_submit(match_id=match.pk, user=bob, move=passes, expected_version=2)
    latest = Notification.objects.filter(user=alice, kind=Notification.Kind.YOUR_TURN).latest("pk").body
    assert f"- Bob sows tile {passes}" in latest and "Alice sows" not in latest, "only what came after her own move"


def test_the_your_turn_email_also_lists_what_the_log_shows_between_moves(alice, bob, staff):
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    services.seat_deadline_extend(match_id=match.pk, seat_number=1, hours=5, actor=staff, reason="Travelling")
    Notification.objects.update(sent_at=timezone.now())  # Alice read her first "your turn"
    services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=1)

    body = Notification.objects.filter(user=alice, kind=Notification.Kind.YOUR_TURN).latest("pk").body

    assert "What happened since your last move:\n- Bob was given 5 more hours: Travelling.\n- Bob sows tile 1" in body


def test_no_email_when_the_player_switched_it_off(match, alice, bob):
    bob.turn_notice = "none"
    bob.save()
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert not Notification.objects.filter(user=bob).exclude(kind=Notification.Kind.INVITATION).exists()


def test_a_stale_move_is_refused_and_changes_nothing(match, alice, bob):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    before = stored(match)
    with pytest.raises(services.StaleMove, match="changed since you loaded it"):
        services.move_submit(match_id=match.pk, user=bob, move="1", expected_version=0)
    assert stored(match) == before


@pytest.mark.parametrize("again", ["1", " 1 "])
def test_the_same_move_sent_twice_is_the_move_already_played(match, alice, again):
    """A double click or a resent form: the player is not told that their move was not played."""
    first = services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    after = stored(match)
    assert services.move_submit(match_id=match.pk, user=alice, move=again, expected_version=0) == first
    assert stored(match) == after and MoveRecord.objects.filter(match=match).count() == 1


def test_another_move_sent_on_the_old_position_is_still_stale(match, alice):
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    after = stored(match)
    with pytest.raises(services.StaleMove, match="so yours was not played"):
        services.move_submit(match_id=match.pk, user=alice, move="2", expected_version=0)
    assert stored(match) == after


@pytest.mark.parametrize(
    ("who", "move", "error", "message"),
    [
        ("alice", "9", services.MoveRejected, "1 to 6"),
        ("alice", "drop table", services.MoveRejected, "name a tile by its number"),
        ("bob", "1", services.MoveRejected, "not your turn"),
        ("carol", "1", services.NotAllowed, "not playing in this match"),
    ],
)
def test_bad_moves_are_refused_in_plain_words_and_change_nothing(match, alice, bob, carol, who, move, error, message):
    before = stored(match)
    user = {"alice": alice, "bob": bob, "carol": carol}[who]
    with pytest.raises(error, match=f"(?i){message}"):
        services.move_submit(match_id=match.pk, user=user, move=move, expected_version=0)
    assert stored(match) == before


def test_moves_to_a_finished_match_are_refused(match, alice, bob):
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Status.FINISHED and match.result["winners"] == [0]
    with pytest.raises(services.MoveRejected, match="not in play"):
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert not match.seats.filter(to_act=True).exists()


def test_a_played_out_match_finishes_with_the_engine_outcome(alice, bob):
    match = start_match(alice, bob)
    state = MANCALA.load(match.state)
    users = {0: alice, 1: bob}
    while not MANCALA.is_over(state):
        seat = MANCALA.to_act(state)[0]
        move = MANCALA.ai_move(state, seat, 1, seed=match.version)
        services.move_submit(match_id=match.pk, user=users[seat], move=move, expected_version=match.version)
        match.refresh_from_db()
        state = MANCALA.load(match.state)
    outcome = MANCALA.outcome(state)
    assert match.status == Status.FINISHED
    assert match.result["scores"] == list(outcome.scores)
    assert match.result["winners"] == list(outcome.winners)
    assert sum(outcome.scores) == 48
    assert Notification.objects.filter(kind=Notification.Kind.MATCH_OVER).count() == 1


def test_replaying_seed_and_move_records_reproduces_the_stored_state(alice, bob):
    match = start_match(alice, bob, variant="ethiopian")
    users = {0: alice, 1: bob}
    for _ in range(25):
        state = MANCALA.load(match.state)
        if MANCALA.is_over(state):
            break
        seat = MANCALA.to_act(state)[0]
        move = MANCALA.ai_move(state, seat, 1, seed=match.version)
        services.move_submit(match_id=match.pk, user=users[seat], move=move, expected_version=match.version)
        match.refresh_from_db()
    records = list(MoveRecord.objects.filter(match=match))
    assert len(records) == match.version
    assert MANCALA.dump(replay_state(match, records)) == match.state


def test_a_jeexa_roll_that_passes_round_the_table_is_recorded_with_its_whole_description(
    monkeypatch, alice, bob, carol
):
    """Seed 26, four players, random legal moves: the 60th move's roll finds its colour gone
    and the turn passes on and on (410 characters in the log; 94–99% of random Jeexa games
    have such a move, at every table size)."""
    jeexa = get_game("jeexa")
    monkeypatch.setattr(creating, "new_seed", lambda: 26)
    players = [alice, bob, carol, make_user("dave")]
    match = start_timed_match(*players, clock=services.ClockSpec(), game="jeexa")
    rng = random.Random(26)
    for _ in range(60):
        state = jeexa.load(match.state)
        seat = jeexa.to_act(state)[0]
        services.move_submit(
            match_id=match.pk,
            user=players[seat],
            move=rng.choice(jeexa.legal_moves(state, seat)),
            expected_version=match.version,
        )
        match.refresh_from_db()
    longest = max(MoveRecord.objects.filter(match=match), key=lambda record: len(record.description))
    assert len(longest.description) > 300 and longest.description.count("turn lost") > 5
    assert match.version == 60


def test_move_records_are_append_only(match, alice):
    record = services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    record.notation = "2"
    with pytest.raises(ValueError, match="append-only"):
        record.save()


def test_an_ai_seat_gets_a_task_and_its_move_goes_through_the_same_service(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        match = start_match(alice, ai_level=2)
        services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    assert len(callbacks) == 1
    record = services.ai_turn_play(match_id=match.pk, expected_version=1)
    assert record is not None and record.by_ai and record.seat == 1
    # The same task again finds the match moved on and does nothing.
    assert services.ai_turn_play(match_id=match.pk, expected_version=1) is None


@pytest.mark.parametrize("ending", ["resign", "abort"])
def test_an_ai_move_for_a_match_that_ended_while_the_ai_thought_is_dropped_quietly(ending, alice, staff, monkeypatch):
    """A resignation or an abort does not change the version: the AI's move then met "not in
    play any more", and the task failed with a traceback in the worker's log."""
    match = start_match(alice, ai_level=1)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    game = match.game_obj
    thinking = type(game).ai_move

    def think_while_the_match_ends(self, *args, **kwargs):
        if ending == "resign":
            services.match_resign(match_id=match.pk, user=alice)
        else:
            services.match_abort(match_id=match.pk, actor=staff, reason="")
        return thinking(self, *args, **kwargs)

    monkeypatch.setattr(type(game), "ai_move", think_while_the_match_ends)
    assert services.ai_turn_play(match_id=match.pk, expected_version=1) is None
    assert not MoveRecord.objects.filter(match=match, by_ai=True).exists()


def test_resigning_and_aborting_write_status_events(match, alice, staff):
    services.match_abort(match_id=match.pk, actor=staff, reason="Test abort")
    match.refresh_from_db()
    assert match.status == Status.ABORTED
    event = MatchEvent.objects.filter(match=match).last()
    assert (event.from_status, event.to_status, event.reason, event.actor) == (
        Status.ACTIVE,
        Status.ABORTED,
        "Staff aborted the match: Test abort.",
        staff,
    )
    told = Notification.objects.filter(match=match, kind=Notification.Kind.MATCH_OVER)
    assert sorted(told.values_list("user__username", flat=True)) == ["alice", "bob"]
    assert all("Staff aborted the match: Test abort" in notice.body for notice in told)
    with pytest.raises(services.ServiceError, match=r"^This match is already cancelled\.$"):
        services.match_abort(match_id=match.pk, actor=staff, reason="again")


def test_staff_can_hand_a_seat_to_the_ai(match, bob, staff, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.seat_replace_by_ai(match_id=match.pk, seat_number=0, level=1, actor=staff, reason="Alice left")
    seat = Seat.objects.get(match=match, number=0)
    assert seat.user is None and seat.ai_level == 1 and seat.former_user.username == "alice"
    assert [c.func.__name__ for c in callbacks] == ["enqueue_ai_move_alone", "enqueue_notification"], (
        "the AI is asked to move since the seat is to act (Bob plays the AI alone now), and Alice is told"
    )
    told = Notification.objects.get(user__username="alice", kind=Notification.Kind.SEAT_TAKEN)
    assert "Staff gave your seat to the AI: Alice left." in told.body and told.subject.startswith("The AI now plays")
    assert services.ai_turn_play(match_id=match.pk, expected_version=0) is not None


def test_staff_change_the_level_of_an_ai_seat_but_not_to_the_same_level(alice, staff):
    match = start_match(alice, ai_level=1)
    ai_seat = next(seat.number for seat in match.seats.all() if seat.is_ai)
    with pytest.raises(services.ServiceError, match=r"^The AI already plays seat \d at that level\.$"):
        services.seat_replace_by_ai(match_id=match.pk, seat_number=ai_seat, level=1, actor=staff, reason="")

    services.seat_replace_by_ai(match_id=match.pk, seat_number=ai_seat, level=2, actor=staff, reason="Too easy")

    seat = Seat.objects.get(match=match, number=ai_seat)
    assert seat.ai_level == 2 and seat.former_user is None
    event = MatchEvent.objects.filter(match=match).last()
    assert event.reason == f"Staff gave seat {ai_seat + 1} to AI (Strong) instead of AI (Easy): Too easy."
    assert (event.seat, event.former_ai_level) == (ai_seat, 1), "the replay names the AI as it played before"


def test_an_invited_player_whose_seat_staff_give_the_ai_is_told_the_invitation_is_withdrawn(alice, bob, staff):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )

    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="")

    told = Notification.objects.get(user=bob, kind=Notification.Kind.SEAT_TAKEN)
    assert "Staff gave your invited seat to the AI." in told.body
    assert "Your invitation is withdrawn" in told.body and "goes on without you" not in told.body
    match.refresh_from_db()
    assert match.status == Status.ACTIVE, "every seat is taken now"
    assert MatchEvent.objects.filter(match=match, reason="Staff gave Bob's invited seat to the AI.").exists()
    assert selectors.match_for_viewer(match.pk, bob) is not None, "the email says he can still watch it"


def test_staff_giving_an_open_seat_to_the_ai_say_so_in_plain_words(alice, staff):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    services.seat_replace_by_ai(match_id=match.pk, seat_number=1, level=1, actor=staff, reason="Nobody came")
    reasons = list(MatchEvent.objects.filter(match=match).values_list("reason", flat=True))
    assert "Staff gave the open seat (player 2) to the AI: Nobody came." in reasons, reasons
    assert not any("Open seat's" in reason for reason in reasons)


def test_a_player_who_never_confirmed_their_address_cannot_be_invited(alice):
    """Anyone may sign up with someone else's address: the invitation would go to a stranger,
    and the match would wait for a player who cannot sign in."""
    aidan = User.objects.create_user(username="aidan", email="aidan@example.com", password="x")
    EmailAddress.objects.create(user=aidan, email=aidan.email, verified=False, primary=True)
    matches, notices = Match.objects.count(), Notification.objects.count()
    with pytest.raises(services.ServiceError, match="“Aidan” has not confirmed their email address yet"):
        services.match_create(
            creator=alice,
            game_slug="mancala",
            options={},
            seats=[SeatSpec("creator"), SeatSpec("user", username="Aidan")],
        )
    assert (Match.objects.count(), Notification.objects.count()) == (matches, notices)
    EmailAddress.objects.filter(user=aidan).update(verified=True)
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="aidan")]
    )
    assert Notification.objects.filter(match=match, user=aidan, kind=Notification.Kind.INVITATION).exists()


def test_only_the_creator_cancels_an_open_match(alice, bob):
    match = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    with pytest.raises(services.NotAllowed):
        services.match_cancel(match_id=match.pk, user=bob)
    services.match_cancel(match_id=match.pk, user=alice)
    match.refresh_from_db()
    assert match.status == Status.ABORTED


def test_resigning_a_match_you_are_not_in_says_so_whatever_its_state(alice, bob, carol):
    """An open challenge answered "decline the invitation, or withdraw the match" to someone
    neither invited nor its creator."""
    challenge = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    invited = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    with pytest.raises(services.NotAllowed, match=r"^You are not playing in this match\.$"):
        services.match_resign(match_id=challenge.pk, user=carol)
    with pytest.raises(services.ServiceError, match="decline the invitation"):
        services.match_resign(match_id=invited.pk, user=bob)
