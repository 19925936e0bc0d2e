"""Data migrations, run on rows as an older version of the site left them."""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from importlib import import_module

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import StateApps
from django.utils import timezone

from accounts.models import User
from chat.models import Message, MessageReport
from games import services
from games.models import Match, MatchEvent, MoveRecord, Seat, Status
from games.services import SeatSpec
from notifications.models import Notification
from tests.conftest import make_user
from tests.games.conftest import start_timed_match

ENDED_AT = import_module("games.migrations.0014_ended_at_for_declined_and_withdrawn_matches")


def test_declined_and_withdrawn_matches_of_before_get_the_time_they_ended(alice, bob, carol):
    declined = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_decline(match_id=declined.pk, user=bob)
    withdrawn = services.match_create(
        creator=carol, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    services.match_cancel(match_id=withdrawn.pk, user=carol)
    waiting = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("open")]
    )
    Match.objects.update(finished_at=None)  # as the site wrote them before

    ENDED_AT.fill_in(apps, None)

    for match in (declined, withdrawn):
        match.refresh_from_db()
        event = MatchEvent.objects.get(match=match, to_status=Status.ABORTED)
        assert match.finished_at == event.created_at
    waiting.refresh_from_db()
    assert waiting.finished_at is None, "a match still open has not ended"


TAKEN_OVER_AT = import_module("games.migrations.0015_seat_taken_over_at")


def test_seats_the_ai_took_in_play_before_get_the_time_the_move_log_gives(alice, bob, carol, staff):
    """Seats taken over before the time was kept: their players, who took part, hear how the match ends."""
    dave, erin = make_user("dave", display_name="Dave"), make_user("erin")
    resigned = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=resigned.pk, user=carol)
    replaced = start_timed_match(alice, bob, dave, game="jeexa")
    services.seat_replace_by_ai(match_id=replaced.pk, seat_number=2, level=1, actor=staff, reason="Left")
    withdrawn = services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="erin")]
    )
    services.seat_replace_by_ai(match_id=withdrawn.pk, seat_number=1, level=1, actor=staff, reason="No answer")
    renamed = start_timed_match(alice, bob, erin, game="jeexa")
    services.match_resign(match_id=renamed.pk, user=erin)
    erin.display_name = "Erin"  # "erin resigned; the AI plays on." names her as she was
    erin.save()
    Seat.objects.update(taken_over_at=None)  # as the site left them

    TAKEN_OVER_AT.fill_in(apps, None)

    for match, reason in (
        (resigned, "Carol resigned; the AI plays on."),
        (replaced, "Staff gave Dave's seat to the AI: Left."),
    ):
        event = MatchEvent.objects.get(match=match, reason=reason)
        assert Seat.objects.get(match=match, number=2).taken_over_at == event.created_at
    assert Seat.objects.get(match=withdrawn, number=1).taken_over_at is None, "an invitation withdrawn: no part"
    assert Seat.objects.get(match=renamed, number=2).taken_over_at is None, "not found by name: left as it was"


def test_seats_taken_over_are_filled_in_with_a_few_queries_however_many(alice, django_assert_max_num_queries):
    """The new column keeps the seat table locked until the fill-in ends: not one query per seat."""
    for number in range(30):
        match = Match.objects.create(game="mancala", status=Status.ACTIVE, state={}, seed=number)
        Seat.objects.create(match=match, number=0, ai_level=1, former_user=alice)
        MatchEvent.objects.create(
            match=match,
            from_status=Status.ACTIVE,
            to_status=Status.ACTIVE,
            ply=2,
            reason="Alice resigned; the AI plays on.",
        )

    with django_assert_max_num_queries(4):
        TAKEN_OVER_AT.fill_in(apps, None)

    assert not Seat.objects.filter(taken_over_at=None).exists()


# --- the upgrade itself: `migrate` from an earlier state, with rows written as the site then wrote them ---------


def migrate(*targets) -> StateApps:
    """Migrate the test database to ``targets`` (app, migration), the other apps to their latest that
    needs nothing after those (chat and notifications came out of games 0024: none, before it), and
    return the models of that state."""
    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    wanted = {node for target in targets for node in graph.forwards_plan(target)}
    named = {app for app, _ in targets}

    def fits(node) -> bool:
        return all(app not in named or (app, name) in wanted for app, name in graph.forwards_plan(node))

    others = []
    for app in sorted({app for app, _ in graph.nodes} - named):
        fitting = [node for node in graph.nodes if node[0] == app and fits(node)]
        latest = max(fitting, key=lambda node: len(graph.forwards_plan(node)), default=(app, None))
        others.append(latest)
    targets = [*targets, *others]
    executor.migrate(targets)
    return executor.loader.project_state([node for node in targets if node[1] is not None]).apps


@pytest.fixture
def migrator(transactional_db):
    """``migrate``; the test database is at the latest migrations again afterwards, also after a failure."""
    yield migrate
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def at(when: datetime, model, **filters) -> None:
    """Back-date rows whose ``created_at`` the model sets itself."""
    model.objects.filter(**filters).update(created_at=when)


class OldSite:
    """Writes rows with the models of an earlier state, as the site of then wrote them."""

    def __init__(self, state: StateApps):
        self.User = state.get_model("accounts", "User")
        self.Match = state.get_model("games", "Match")
        self.Seat = state.get_model("games", "Seat")
        self.MatchEvent = state.get_model("games", "MatchEvent")

    def user(self, username: str, display_name: str = ""):
        return self.User.objects.create(username=username, email=f"{username}@example.com", display_name=display_name)

    def match(self, status: str, *seats, finished_at=None):
        """``seats``: a user, ("invited", user), an AI level, None (a free seat) or ("former", user, level)."""
        match = self.Match.objects.create(game="mancala", status=status, state={}, seed=1, finished_at=finished_at)
        for number, seat in enumerate(seats):
            if isinstance(seat, tuple) and seat[0] == "former":
                self.Seat.objects.create(match=match, number=number, ai_level=seat[2], former_user=seat[1])
            elif isinstance(seat, tuple):
                self.Seat.objects.create(match=match, number=number, user=seat[1], accepted=False)
            elif isinstance(seat, int):
                self.Seat.objects.create(match=match, number=number, ai_level=seat)
            else:
                self.Seat.objects.create(match=match, number=number, user=seat)
        return match

    def event(self, match, reason: str, *, when: datetime | None = None, to: str = "", ply: int | None = None):
        event = self.MatchEvent.objects.create(
            match=match, from_status=match.status, to_status=to or match.status, reason=reason, ply=ply
        )
        if when is not None:
            at(when, self.MatchEvent, pk=event.pk)
        return event


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_marks_the_matches_created_with_a_seat_for_anyone(migrator):
    old = OldSite(migrator(("games", "0010_seat_clock_started_at")))
    alice, bob, carol = old.user("alice", "Alice"), old.user("bob"), old.user("carol", "Carol")
    waiting = old.match("open", alice, None)
    joined = old.match("active", alice, bob)
    old.event(joined, "bob took seat 2.")
    over = old.match("finished", carol, alice)
    old.event(over, "Alice took seat 2.")
    withdrawn = old.match("aborted", bob, None, finished_at=timezone.now())
    invited = old.match("open", alice, ("invited", bob))
    among_invited = old.match("active", alice, bob, ("former", carol, 2))
    old.event(among_invited, "Carol resigned; the AI plays on.", ply=4)
    declined = old.match("aborted", alice, ("invited", carol))
    against_ai = old.match("active", bob, 1)

    Match = migrator(("games", "0011_match_open_to_all")).get_model("games", "Match")

    assert set(Match.objects.filter(open_to_all=True).values_list("pk", flat=True)) == {
        waiting.pk,
        joined.pk,
        over.pk,
        withdrawn.pk,
    }
    assert not Match.objects.filter(
        pk__in=[invited.pk, among_invited.pk, declined.pk, against_ai.pk], open_to_all=True
    ).exists()


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_gives_matches_declined_or_withdrawn_the_time_they_ended(migrator):
    old = OldSite(migrator(("games", "0013_matchevent_ai_level_change")))
    alice, bob = old.user("alice", "Alice"), old.user("bob", "Bob")
    start = timezone.now() - timedelta(days=10)
    declined = old.match("aborted", alice, ("invited", bob))
    old.event(declined, "Match created.", when=start, to="open")
    old.event(declined, "Bob declined the invitation.", when=start + timedelta(hours=5), to="aborted")
    aborted_by_staff = old.match("aborted", alice, bob, finished_at=start + timedelta(days=2))
    old.event(aborted_by_staff, "Staff aborted the match.", when=start + timedelta(days=1), to="aborted")
    finished = old.match("finished", alice, bob, finished_at=start + timedelta(days=3))
    waiting = old.match("open", bob, None)
    no_event = old.match("aborted", bob, None)

    Match = migrator(("games", "0014_ended_at_for_declined_and_withdrawn_matches")).get_model("games", "Match")

    ended = dict(Match.objects.values_list("pk", "finished_at"))
    assert ended[declined.pk] == start + timedelta(hours=5)
    assert ended[aborted_by_staff.pk] == start + timedelta(days=2), "a time already kept stays"
    assert ended[finished.pk] == start + timedelta(days=3)
    assert ended[waiting.pk] is None
    assert ended[no_event.pk] is None, "no event says when: left empty"


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_gives_seats_the_ai_took_in_play_the_time_of_their_log_line(migrator):
    old = OldSite(migrator(("games", "0014_ended_at_for_declined_and_withdrawn_matches")))
    al, alan, dave = old.user("al", "Al"), old.user("alan", "Alan"), old.user("dave")
    odd, renamed, bob = old.user("odd", "100%_sure"), old.user("erin", "Erin"), old.user("bob", "Bob")
    t = timezone.now() - timedelta(days=5)
    # Al resigned, then Alan (a name Al's begins) ran out of time, then dave (no display name) was replaced.
    three = old.match("active", ("former", al, 2), ("former", alan, 2), ("former", dave, 2), bob)
    old.event(three, "Al took seat 1.", when=t - timedelta(days=1))
    old.event(three, "Al resigned; the AI plays on.", when=t, ply=3)
    old.event(three, "Alan ran out of time; the AI plays on.", when=t + timedelta(hours=1), ply=5)
    old.event(three, "Staff gave dave's seat to the AI: Left.", when=t + timedelta(hours=2), ply=7)
    old.event(three, "Staff gave Bob 24 more hours: Travelling.", when=t + timedelta(hours=3), ply=7)
    wildcard = old.match("active", ("former", odd, 1), bob)
    old.event(wildcard, "100%_sure resigned; the AI plays on.", when=t, ply=2)
    lookalike = old.match("active", ("former", odd, 1), bob)
    old.event(lookalike, "100 sure resigned; the AI plays on.", when=t, ply=2)
    name_changed = old.match("active", ("former", renamed, 1), bob)
    old.event(name_changed, "erin resigned; the AI plays on.", when=t, ply=2)
    withdrawn = old.match("open", alice := old.user("alice", "Alice"), ("former", bob, 1))
    old.event(withdrawn, "Staff gave Bob's seat to the AI.", when=t, ply=0)
    finished = old.match("finished", alice, ("former", bob, 1), finished_at=t + timedelta(days=1))
    old.event(finished, "Bob resigned; the AI plays on.", when=t, ply=4, to="active")
    finished.status = "finished"
    finished.save()

    Seat = migrator(("games", "0015_seat_taken_over_at")).get_model("games", "Seat")

    def taken_over_at(match, number):
        return Seat.objects.get(match_id=match.pk, number=number).taken_over_at

    assert [taken_over_at(three, n) for n in range(4)] == [t, t + timedelta(hours=1), t + timedelta(hours=2), None]
    assert taken_over_at(wildcard, 0) == t
    assert taken_over_at(lookalike, 0) is None, "% and _ in a name are letters, not patterns"
    assert taken_over_at(name_changed, 0) is None, "not found by name: left as it was"
    assert taken_over_at(withdrawn, 1) is None, "taken before the start: no part in the match"
    assert taken_over_at(finished, 1) is None, "over already: nothing more to tell"


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_keeps_emails_switched_off_off(migrator):
    User = migrator(("accounts", "0001_initial")).get_model("accounts", "User")
    User.objects.create(username="quiet", email="quiet@example.com", email_on_turn=False)
    User.objects.create(username="keen", email="keen@example.com")

    User = migrator(("accounts", "0002_notification_preferences_and_vacation")).get_model("accounts", "User")

    assert dict(User.objects.values_list("username", "turn_notice")) == {"quiet": "none", "keen": "instant"}


def snapshot():
    """What the players did, as the models of today read it."""
    matches = {
        match.pk: ((match.status, match.state), match.version, match.finished_at, match.open_to_all)
        for match in Match.objects.all()
    }
    seats = {
        (seat.match_id, seat.number): (seat.user_id, seat.ai_level, seat.former_user_id) for seat in Seat.objects.all()
    }
    counts = [model.objects.count() for model in (User, Match, Seat, MatchEvent, MoveRecord, Notification)]
    return matches, seats, counts, dict(User.objects.values_list("username", "turn_notice"))


@pytest.mark.django_db(transaction=True)
def test_rolling_back_and_upgrading_again_keeps_what_the_players_did(migrator, settings, tmp_path):
    """An operator goes back a few releases (to before every fill-in), or to the first, and then up again."""
    settings.VAR_DIR = tmp_path
    call_command("seed_demo", stdout=io.StringIO())
    alice, bob = User.objects.get(username="alice"), User.objects.get(username="bob")
    carol, quiet = make_user("carol", display_name="Carol"), make_user("quiet", turn_notice="none")
    resigned = start_timed_match(alice, bob, carol, game="jeexa")
    services.match_resign(match_id=resigned.pk, user=carol)
    declined = services.match_create(
        creator=quiet, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    services.match_decline(match_id=declined.pk, user=bob)
    taken_over_at = Seat.objects.get(match=resigned, number=2).taken_over_at
    before = snapshot()

    migrator(("games", "0010_seat_clock_started_at"), ("accounts", "0001_initial"))
    migrator(*MigrationExecutor(connection).loader.graph.leaf_nodes())

    assert snapshot() == before
    refilled = Seat.objects.get(match=resigned, number=2).taken_over_at
    assert refilled == MatchEvent.objects.get(match=resigned, reason="Carol resigned; the AI plays on.").created_at
    assert abs(refilled - taken_over_at) < timedelta(seconds=1)

    migrator(("games", "0001_initial"), ("accounts", "0001_initial"))
    migrator(*MigrationExecutor(connection).loader.graph.leaf_nodes())

    # The first release kept no former players nor clocks: matches, seats, moves and settings stay.
    after = snapshot()
    assert after[2:] == before[2:]
    for now, then in zip(after[:2], before[:2], strict=True):
        assert {key: row[:2] for key, row in now.items()} == {key: row[:2] for key, row in then.items()}


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_moves_messages_and_notifications_to_their_apps_and_keeps_every_row(migrator):
    """A database of the site before chat and notifications were apps of their own (games 0023): its
    matches, moves, messages, reports and notifications are all there after ``migrate``, in the same
    tables, and staff keep the permissions they were given on messages and notifications."""
    state = migrator(("games", "0023_message_reports"))
    old = OldSite(state)
    OldMessage, OldReport = state.get_model("games", "Message"), state.get_model("games", "MessageReport")
    OldNotification, OldMove = state.get_model("games", "Notification"), state.get_model("games", "MoveRecord")
    ContentType, Permission = state.get_model("contenttypes", "ContentType"), state.get_model("auth", "Permission")
    alice, bob, moderator = old.user("alice", "Alice"), old.user("bob", "Bob"), old.user("moderator")
    match = old.match("active", alice, bob)
    OldMove.objects.create(match=match, ply=0, seat=0, notation="2", description="Alice sows tile 2.")
    message = OldMessage.objects.create(match=match, author=bob, text="good luck", after_move=1)
    report = OldReport.objects.create(message=message, reporter=alice, reason="rude")
    notice = OldNotification.objects.create(
        user=alice, match=match, kind="message", subject="Bob wrote", body="good luck", first_message=message
    )
    copy = OldNotification.objects.create(user=alice, match=match, kind="message", subject="again", resent_from=notice)
    for codename, model in (("change_message", "message"), ("change_notification", "notification")):
        content_type = ContentType.objects.get_or_create(app_label="games", model=model)[0]
        permission = Permission.objects.get_or_create(content_type=content_type, codename=codename)[0]
        moderator.user_permissions.add(permission)

    migrator(("games", "0024_messages_and_notifications_to_their_apps"))

    moved = Message.objects.get(pk=message.pk)
    assert (moved.match_id, moved.author_id, moved.text, moved.after_move) == (match.pk, bob.pk, "good luck", 1)
    assert MessageReport.objects.get(pk=report.pk).message_id == message.pk
    kept = Notification.objects.get(pk=notice.pk)
    assert (kept.user_id, kept.match_id, kept.first_message_id, kept.body) == (
        alice.pk,
        match.pk,
        message.pk,
        "good luck",
    )
    assert Notification.objects.get(pk=copy.pk).resent_from_id == notice.pk
    assert MoveRecord.objects.get(match_id=match.pk).description == "Alice sows tile 2."
    staff_member = User.objects.get(pk=moderator.pk)
    assert staff_member.has_perm("chat.change_message") and staff_member.has_perm("notifications.change_notification")
    assert not ContentType.objects.filter(app_label="games", model__in=["message", "notification"]).exists()
