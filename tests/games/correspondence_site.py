"""The site's processes in a week of correspondence, played by the test: a worker runs each task
as soon as its transaction commits (the emails, the AI's moves), and beat runs each sweep on its
own period (the relay every 30 s, timeouts every minute, vacations every 5 minutes) as the clock
moves on, jumping over the minutes when nothing is due. The players act through the site's pages
where they have one, and every email and webhook post is recorded with what was true when it
went out."""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta

from django.core import mail
from django.db.models import Min
from django.urls import reverse

from accounts.models import User
from accounts.services import user_deactivate
from chat import services as chat_services
from games import services, tasks
from games.models import Match, MatchEvent, Seat, Status
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.correspondence import (
    CAST,
    MAIL_DOWN,
    MAIL_DOWN_FOR,
    TRAVELS_TO,
    Persona,
    Received,
    Said,
    Scenario,
    Turn,
    next_local_hour,
    on_the_grid,
)
from tests.local_servers import WebhookServer


class Site:
    """The worker and beat, for one scenario (see the module docstring)."""

    SWEEP_PERIODS = (
        (tasks.sweep_vacations, 300),
        (tasks.sweep_deadlines, 60),
        (notification_tasks.sweep_notifications, 30),
    )

    def __init__(self, clock, capture, client, webhook: WebhookServer, people: dict[str, User], staff: User):
        self.clock, self.capture, self.client, self.webhook = clock, capture, client, webhook
        self.people, self.staff = people, staff
        self.cast = {name: CAST[name] for name in people}  # their settings now
        self.history = {name: [(clock.now, CAST[name])] for name in people}
        self.queue: list[tuple] = []
        self.received: list[Received] = []
        self.turns: list[Turn] = []
        # (player, their hour, their choice, the matches waiting, the matches with news: how many messages)
        self.probes: list[tuple[str, datetime, str, set[int], dict[int, int]]] = []
        self.next_probe = {
            name: next_local_hour(persona, clock.now)
            for name, persona in self.cast.items()
            if persona.turn_notice == "digest"
        }
        self.last_run: dict = {}
        self.side_matches: dict[str, Match] = {}
        self.mail_down = list(MAIL_DOWN)
        self.said: list[Said] = []
        self.hidden: dict[int, datetime] = {}  # message id -> when staff removed it
        self.looks: list[tuple[str, int, datetime]] = []  # (player, match id, when they had its page open)
        self.reports: list[tuple[int, str]] = []  # (message id, who reported it)
        self.staff_mail: list = []  # the emails to the MANAGERS addresses
        self.closed: dict[str, datetime] = {}  # who closed their account, when

    def while_mail_was_down(self, moment: datetime) -> bool:
        return any(since <= moment < until for since, until in self.mail_down)

    def persona_at(self, name: str, moment: datetime) -> Persona:
        return [persona for since, persona in self.history[name] if since <= moment][-1]

    # --- the worker -------------------------------------------------------------------

    def do(self, action):
        with self.capture(execute=True):
            result = action()
        self.work()
        return result

    def work(self) -> None:
        while self.queue:
            task, *args = self.queue.pop(0)
            with self.capture(execute=True):
                if task == "ai":
                    services.ai_turn_play(match_id=args[0], expected_version=args[1])
                    continue
                if task == "report":
                    emails = len(mail.outbox)
                    chat_services.report_staff_tell(report_id=args[0])
                    self.staff_mail += mail.outbox[emails:]
                    continue
                with contextlib.suppress(OSError):  # the task's retries and the relay try again
                    notification_services.notification_send(notification_id=args[0])

    def deliver(self, real_deliver, notification: Notification) -> None:
        if notification.channel == Notification.Channel.EMAIL and self.while_mail_was_down(self.clock.now):
            raise OSError("Connection refused")
        facts = self.facts(notification)
        emails, posts = len(mail.outbox), len(self.webhook.bodies)
        real_deliver(notification)
        if notification.channel == Notification.Channel.EMAIL:
            [message] = mail.outbox[emails:]
            assert message.to == [notification.user.email]
            subject, text = message.subject, message.body
        else:
            [post] = self.webhook.bodies[posts:]
            subject, text = notification.subject, post["content"]
        self.received.append(
            Received(
                self.clock.now,
                notification.user.username,
                notification.kind,
                notification.channel,
                notification.match_id,
                subject,
                text,
                **facts,
            )
        )

    def facts(self, notification: Notification) -> dict:
        user = User.objects.get(pk=notification.user_id)
        seat = (
            Seat.objects.filter(match_id=notification.match_id, user=user).select_related("match").first()
            if notification.match_id
            else None
        )
        waiting = dict(
            Seat.objects.filter(user=user, to_act=True, match__status=Status.ACTIVE).values_list("match_id", "deadline")
        )
        match = seat.match if seat else None
        after_moves = match and MatchEvent.objects.filter(match=match, ply=match.version).order_by("pk").last()
        latest_move = match and match.moves.order_by("ply").last()
        return {
            "log_tail": after_moves.reason if after_moves else latest_move and latest_move.description,
            "to_act": bool(seat and seat.to_act and seat.match.status == Status.ACTIVE),
            "deadline": seat and seat.deadline,
            "paused": seat and seat.paused_seconds,
            "on_vacation": bool(user.vacation_until and user.vacation_until > self.clock.now),
            "waiting": waiting,
            "zone": user.time_zone,
            "turn_notice": user.turn_notice,
            "reminders": user.reminders,
            "message_emails": user.message_emails,
        }

    # --- beat -------------------------------------------------------------------------

    def run_until(self, moment: datetime) -> None:
        """Move the clock to ``moment``, running each sweep whenever beat would find work."""
        for _ in range(10_000):
            due = self.next_runs()
            if not due or due[0][0] > moment:
                break
            at, _order, what = due[0]
            self.clock.now = max(self.clock.now, at)
            if isinstance(what, str):
                self.probe(what, at)
            else:
                self.last_run[what] = at
                self.do(what)
        else:
            raise AssertionError("beat found work forever")
        self.clock.now = max(self.clock.now, moment)

    def next_runs(self) -> list[tuple[datetime, int, object]]:
        pending = Notification.objects.filter(sent_at__isnull=True)
        relay = [
            notice.due_at
            if notice.kind in notification_tasks.SCHEDULED_KINDS or notice.attempts
            else max(
                notice.due_at,
                notice.created_at
                + timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS, microseconds=1),
            )
            for notice in pending
        ]
        work = {
            tasks.sweep_vacations: User.objects.aggregate(first=Min("vacation_until"))["first"],
            tasks.sweep_deadlines: Seat.objects.filter(to_act=True, match__status=Status.ACTIVE).aggregate(
                first=Min("deadline")
            )["first"],
            notification_tasks.sweep_notifications: min(relay, default=None),
        }
        runs = [(at, 0, name) for name, at in self.next_probe.items()]
        for order, (sweep, period) in enumerate(self.SWEEP_PERIODS, start=1):
            if work[sweep] is not None:
                at = on_the_grid(max(work[sweep], self.clock.now), period)
                if sweep in self.last_run and at <= self.last_run[sweep]:
                    at = self.last_run[sweep] + timedelta(seconds=period)
                runs.append((at, order, sweep))
        return sorted(runs, key=lambda run: (run[0], run[1]))

    def probe(self, name: str, at: datetime) -> None:
        """At a digest player's hour: which matches wait for them (the digest must list exactly these)."""
        user = User.objects.get(username=name)
        waiting = set(
            Seat.objects.filter(user=user, to_act=True, match__status=Status.ACTIVE).values_list("match_id", flat=True)
        )
        self.probes.append((name, at, user.turn_notice, waiting, self.news(name, at)))
        self.next_probe[name] = next_local_hour(self.cast[name], at)

    def news(self, name: str, at: datetime) -> dict[int, int]:
        """The matches a digest at ``at`` tells of messages in, as the README says, with how many:
        the matches the player is seated in where others wrote since their last digest, what
        they have not read on the match page since, and staff did not remove; none if they turned
        these emails off."""
        if not self.persona_at(name, at).message_emails or name in self.closed:
            return {}
        last = max(
            (r.at for r in self.received if r.player == name and r.kind == Notification.Kind.DIGEST), default=None
        )
        seated = set(Seat.objects.filter(user=self.people[name]).values_list("match_id", flat=True))
        return dict(
            Counter(
                said.match_id
                for said in self.said
                if said.match_id in seated
                and said.author != name
                and said.at <= at
                and (last is None or said.at > last)
                and not self.removed(said, at)
                and not self.read(name, said, at)
            )
        )

    def removed(self, said: Said, at: datetime) -> bool:
        return said.pk in self.hidden and self.hidden[said.pk] <= at

    def last_look(self, name: str, match_id: int, at: datetime) -> datetime | None:
        return max(
            (when for who, match, when in self.looks if (who, match) == (name, match_id) and when <= at), default=None
        )

    def read(self, name: str, said: Said, at: datetime) -> bool:
        """Whether they had the page open after the message came, by ``at``."""
        seen = self.last_look(name, said.match_id, at)
        return seen is not None and seen >= said.at

    def wants_message_notice(self, name: str, channel: str, at: datetime) -> bool:
        persona = self.persona_at(name, at)
        if channel == "email":
            return persona.turn_notice == "instant" and persona.message_emails
        return persona.webhook  # whatever they chose for emails

    # --- the players, through the site's pages where they have one ------------------------

    def look(self, match_id: int, name: str) -> None:
        """They open the match page: it records that they saw it (and the messages on it), as its view does."""
        self.do(lambda: services.seat_seen(match_id=match_id, user=self.people[name]))
        self.looks.append((name, match_id, self.clock.now))

    def say(self, match: Match, name: str, words: str) -> Said:
        text = f"{self.cast[name].name}: {words} ({len(self.said) + 1})"
        message = self.do(lambda: chat_services.message_post(match_id=match.pk, user=self.people[name], text=text))
        readers = frozenset(
            Seat.objects.filter(match=match, user__is_active=True)
            .exclude(user=self.people[name])
            .values_list("user__username", flat=True)
        )
        said = Said(self.clock.now, match.pk, name, message.pk, text, readers)
        self.said.append(said)
        return said

    def hide(self, said: Said) -> None:
        self.do(lambda: chat_services.message_hide(message_id=said.pk, hidden=True))
        self.hidden[said.pk] = self.clock.now

    def talk(self, match: Match, turn: Turn | None, line: str) -> None:
        """What ``line`` says someone does with messages. "ben hello": Ben writes one; "ben burst":
        three, 40 s apart (within the notice's delay); "ben glanced": the same, and the player whose
        turn it is opens the page 10 s after the second (still open, as far as the site knows, when
        the notice is due); "ben looked": one, and the player whose turn it is opens the page 10 s
        later; "ben hidden": one, that staff remove a minute later; "ben rude": two, staff remove the
        second half a minute after it; "ben reported": one, that the player whose turn it is reports to
        staff 10 minutes later; "ben quiet" / "ben chatty": a minute later Ben turns the emails of
        messages off / on in his profile; "ben closed": staff close Ben's account."""
        writer, what = line.split()
        if what in ("quiet", "chatty"):  # not in the same instant as a message: the settings' history is by the clock
            self.run_until(self.clock.now + timedelta(seconds=60))
            self.profile_change(writer, message_emails=what == "chatty")
        elif what == "closed":  # staff keep the address of an account they close
            self.do(lambda: user_deactivate(user_id=self.people[writer].pk, actor=self.staff))
            self.closed[writer] = self.clock.now
        elif what in ("burst", "glanced"):
            for number, words in enumerate(("good luck", "may the dice be kind", "and the tiles")):
                self.say(match, writer, words)
                if what == "glanced" and number == 1:
                    self.run_until(self.clock.now + timedelta(seconds=10))
                    self.look(match.pk, turn.player)
                    self.run_until(self.clock.now + timedelta(seconds=30))
                else:
                    self.run_until(self.clock.now + timedelta(seconds=40))
        elif what == "looked":
            self.say(match, writer, "are you there?")
            self.run_until(self.clock.now + timedelta(seconds=10))
            self.look(match.pk, turn.player)
        elif what == "hidden":
            said = self.say(match, writer, "something staff remove")
            self.run_until(self.clock.now + timedelta(seconds=60))
            self.hide(said)
        elif what == "rude":
            self.say(match, writer, "nice move")
            self.run_until(self.clock.now + timedelta(seconds=20))
            said = self.say(match, writer, "something rude")
            self.run_until(self.clock.now + timedelta(seconds=30))
            self.hide(said)
        elif what == "reported":
            said = self.say(match, writer, "something to report")
            self.run_until(self.clock.now + timedelta(seconds=600))
            self.do(
                lambda: chat_services.message_report(
                    match_id=match.pk, message_id=said.pk, user=self.people[turn.player], reason="Not nice"
                )
            )
            self.reports.append((said.pk, turn.player))
        else:
            assert what == "hello", line
            self.say(match, writer, "hello")

    def profile_change(self, name: str, **changes) -> None:
        self.cast[name] = persona = replace(self.cast[name], **changes)
        self.history[name].append((self.clock.now, persona))
        self.client.force_login(self.people[name])
        form = {
            "display_name": persona.name,
            "time_zone": persona.zone,
            "turn_notice": persona.turn_notice,
            "digest_hour": persona.digest_hour,
            "reminders": persona.reminders,
            "webhook_url": self.webhook.url if persona.webhook else "",
        }
        if persona.message_emails:
            form["message_emails"] = "on"  # the box is ticked: a browser sends it
        assert self.do(lambda: self.client.post(reverse("profile"), form)).status_code == 302

    def vacation(self, name: str, form: dict) -> None:
        self.client.force_login(self.people[name])
        assert self.do(lambda: self.client.post(reverse("vacation"), form)).status_code == 302

    def play(self, match: Match, scenario: Scenario) -> None:
        count: Counter[str] = Counter()
        for _ in range(2000):
            match.refresh_from_db()
            if match.status != Status.ACTIVE:
                return
            seat = match.seats.filter(to_act=True, user__isnull=False).select_related("user").first()
            assert seat is not None, "the match waits on an AI seat that has no task"
            name = seat.user.username
            count[name] += 1
            start = seat.clock_started_at or self.clock.now
            turn = Turn(
                name,
                match.pk,
                seat.number,
                start,
                scenario.plan.get((name, count[name]), "move"),
                turn_notice=seat.user.turn_notice,
                seen=seat.last_seen_at,
            )
            self.turns.append(turn)
            if (name, count[name]) in scenario.talk:
                self.run_until(self.clock.now + timedelta(minutes=5))
                for line in scenario.talk[name, count[name]]:
                    self.talk(match, turn, line)
            if seat.deadline is None:  # the turn began during their vacation: they come back a day early
                self.run_until(seat.user.vacation_until - timedelta(days=1))
                self.vacation(name, {"end": "1"})
                seat.refresh_from_db()
            action, *after = turn.plan.split("+")
            getattr(self, f"turn_{action}")(match, seat, turn, scenario.level)
            if "leaves" in after:  # right after their move: two days away, and they say so
                self.vacation(name, {"days": "2"})
                self.say(match, name, "away for two days")
        raise AssertionError("the match did not end")

    def finish(self, match: Match, seat: Seat, turn: Turn, level: int) -> None:
        """The player opens the match and plays their whole turn."""
        turn.runs.append((seat.clock_started_at, seat.deadline, self.clock.now))
        if "+outage" in turn.plan:  # the mail server is down from their move on
            self.mail_down.append((self.clock.now, self.clock.now + MAIL_DOWN_FOR))
        self.look(match.pk, turn.player)
        game, last = match.game_obj, None
        while True:
            match.refresh_from_db()
            state = game.load(match.state)
            if match.status != Status.ACTIVE or seat.number not in game.to_act(state):
                break
            if last is not None and match.version != last + 1:
                break  # the others played and it is this seat's turn again: a new turn
            last = match.version
            move = game.ai_move(state, seat.number, level, seed=match.seed ^ match.version)
            self.do(
                lambda move=move, version=last: services.move_submit(
                    match_id=match.pk, move=move, expected_version=version, user=seat.user
                )
            )
        turn.end = self.clock.now

    def turn_move(self, match, seat, turn, level):
        self.run_until(self.clock.now + self.cast[turn.player].usual_delay)
        self.finish(match, seat, turn, level)

    def turn_blitz(self, match, seat, turn, level):
        """They are on the site and answer within 20 seconds."""
        self.run_until(self.clock.now + timedelta(seconds=20))
        self.finish(match, seat, turn, level)

    def turn_switches(self, match, seat, turn, level):
        """An hour into the turn they choose emails at once instead of the digest."""
        self.run_until(self.clock.now + timedelta(hours=1))
        self.profile_change(turn.player, turn_notice="instant")
        self.turn_move(match, seat, turn, level)

    def turn_digest(self, match, seat, turn, level):
        """They wait for the digest, answer an hour later, and resign the match on the side."""
        self.run_until(next_local_hour(self.cast[turn.player], self.clock.now) + timedelta(hours=1))
        self.finish(match, seat, turn, level)
        side = self.side_matches.pop(turn.player)
        self.do(lambda: services.match_resign(match_id=side.pk, user=seat.user))

    def turn_series(self, match, seat, turn, level):
        """They let every reminder come and move an hour before the deadline."""
        self.run_until(seat.deadline - timedelta(hours=1))
        self.finish(match, seat, turn, level)

    def turn_travels(self, match, seat, turn, level):
        """Ten minutes into the turn they fly away (and set the profile so), then as ``series``."""
        self.run_until(self.clock.now + timedelta(minutes=10))
        self.profile_change(turn.player, zone=TRAVELS_TO[turn.player])
        if turn.player in self.next_probe:
            self.next_probe[turn.player] = next_local_hour(self.cast[turn.player], self.clock.now)
        self.turn_series(match, seat, turn, level)

    def turn_away(self, match, seat, turn, level):
        """Ten minutes into the turn they leave for a day; back, they answer after their usual delay."""
        since, deadline = seat.clock_started_at, seat.deadline
        self.run_until(self.clock.now + timedelta(minutes=10))
        self.vacation(turn.player, {"days": "1"})
        turn.runs.append((since, deadline, self.clock.now))
        self.run_until(self.clock.now + timedelta(days=1, minutes=10))
        seat.refresh_from_db()
        self.turn_move(match, seat, turn, level)

    def turn_vacation(self, match, seat, turn, level):
        """At 60 % of the turn they go away for two days; back, they use 90 % of what was left."""
        since, deadline = seat.clock_started_at, seat.deadline
        away = since + (deadline - since) * 0.6
        self.run_until(away)
        self.vacation(turn.player, {"days": "2"})
        turn.runs.append((since, deadline, away))
        self.run_until(away + timedelta(days=2, minutes=10))
        seat.refresh_from_db()
        assert seat.deadline is not None, "the vacation sweep ran the clock again"
        # With the time it had left (in whole seconds: the stopped clock keeps no fraction of one).
        assert timedelta(0) <= (deadline - away) - (seat.deadline - seat.clock_started_at) < timedelta(seconds=1)
        self.run_until(seat.clock_started_at + (seat.deadline - seat.clock_started_at) * 0.9)
        self.finish(match, seat, turn, level)

    def turn_extension(self, match, seat, turn, level):
        """At 60 % of the turn staff give 24 hours; they use 90 % of the time from then."""
        since, deadline = seat.clock_started_at, seat.deadline
        given = since + (deadline - since) * 0.6
        self.run_until(given)
        self.do(
            lambda: services.seat_deadline_extend(
                match_id=match.pk, seat_number=seat.number, hours=24, actor=self.staff, reason="Moving house"
            )
        )
        turn.runs.append((since, deadline, given))
        seat.refresh_from_db()
        assert seat.deadline == deadline + timedelta(hours=24)
        self.run_until(given + (seat.deadline - given) * 0.9)
        self.finish(match, seat, turn, level)

    def turn_timeout(self, match, seat, turn, level):
        """They never answer: the timeout sweep comes within a minute of the deadline."""
        deadline = seat.deadline
        self.run_until(deadline + timedelta(seconds=61))
        assert not Seat.objects.filter(pk=seat.pk, user=seat.user, to_act=True).exists(), "the timeout was applied"
        turn.runs.append((seat.clock_started_at, deadline, deadline))
        turn.end = deadline
