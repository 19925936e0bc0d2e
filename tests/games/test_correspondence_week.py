"""A week in the life of correspondence players: whole matches of each game played over
simulated days by people who want to be told in different ways, checked over everything
each of them received.

The cast: Ann wants an email at once (Berlin, whose clocks go forward on the 29th), Ben and
Cat a daily digest (New York at 7, Kolkata at 21; Cat also a webhook), Dan no email but a
webhook (Chatham); an AI (Easy) takes a seat where the game has room. In each match one of
them lets a turn run through all their reminders, one goes on vacation in the middle of a
turn, another leaves between turns and comes back early, staff give one more time, a digest
player waits for the digest before moving (they also left a match against the AI waiting
since Sunday), one flies to another time zone, one switches from the digest to emails at
once, the mail server is down for 20 minutes, two players answer each other within seconds,
and one lets the clock run out: the AI takes the seat (or, with two players and the
creator's choice, the late player loses); then the match is played to its end. On some days
they write to each other in the match: bursts of several messages, single ones, one while its
reader has the page open, one that staff remove, one reported to staff; one turns these
emails off for a while, and "gg" comes after the end, when a seat may be the AI's or an
account closed.

The site's processes are played by the test: a worker runs each task as soon as its
transaction commits (the emails, the AI's moves), and beat runs each sweep on its own
period (the relay every 30 s, timeouts every minute, vacations every 5 minutes) as the
clock moves on, jumping over the minutes when nothing is due. Every email and webhook post
is recorded with what was true when it went out, and the whole sequence is then checked:
nothing twice, nothing after it stopped being true, each deadline the one in force on the
reader's clock, the digest listing exactly the matches waiting and those with messages not
read yet, each message told of once, in one notice per burst, to whom the README says, the
result told right to everyone who took part.
"""

from __future__ import annotations

import contextlib
import html
import re
import zoneinfo
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.db.models import Min
from django.urls import reverse
from django.utils import dateformat, timezone

from accounts.models import User
from accounts.services import user_deactivate
from chat import services as chat_services
from chat import tasks as chat_tasks
from games import services, tasks
from games.models import Match, MatchEvent, OnTimeout, Seat, Status, TimeControl
from games.services import ClockSpec, SeatSpec, clocks, creating
from games.templatetags.clocks import local_time, local_time_named
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from notifications.services import delivery
from tests.conftest import make_user
from tests.local_servers import WebhookServer

# A Monday; Europe's clocks go forward on Sunday the 29th.
START = datetime(2026, 3, 23, 7, 0, tzinfo=UTC)
MODERATORS = ["mods@example.org"]  # where a reported message is emailed
SEED = 20260323  # every match deals, rolls and plays the same way on every run
MAIL_DOWN_FOR = timedelta(minutes=20)
# The mail server is also down over the digest hours of New York (11:00 UTC) and Kolkata (15:30 UTC) one day.
MAIL_DOWN = [
    (START + timedelta(days=1, hours=3, minutes=55), START + timedelta(days=1, hours=4, minutes=15)),
    (START + timedelta(days=2, hours=8, minutes=25), START + timedelta(days=2, hours=8, minutes=45)),
]
BEAT_LAG = timedelta(seconds=31)  # the relay comes every 30 s
PRESENCE = timedelta(seconds=notification_services.PRESENCE_SECONDS)
LATE_AFTER_MAIL_DOWN = timedelta(hours=1)  # the retries back off: 30 s, 1 min, 2 min ... 16 min


@dataclass(frozen=True)
class Persona:
    name: str
    turn_notice: str
    zone: str
    reminders: str
    webhook: bool
    usual_delay: timedelta  # how long they take to answer on an ordinary turn
    digest_hour: int = 8
    message_emails: bool = True  # the profile's "Email me when another player writes in my matches"

    @property
    def shares(self) -> list[int]:
        return [int(part) for part in self.reminders.split(",") if part]


CAST = {
    "ann": Persona("Ann", "instant", "Europe/Berlin", "50,80", False, timedelta(minutes=40)),
    "ben": Persona("Ben", "digest", "America/New_York", "50,80,95", False, timedelta(hours=3), digest_hour=7),
    "cat": Persona("Cat", "digest", "Asia/Kolkata", "80", True, timedelta(hours=5), digest_hour=21),
    "dan": Persona("Dan", "none", "Pacific/Chatham", "", True, timedelta(hours=2)),
}
TRAVELS_TO = {"ann": "America/Los_Angeles", "cat": "Pacific/Auckland"}  # Auckland's clocks go back on 5 April


def wants_email(kind: str, turn_notice: str, reminders: str, message_emails: bool) -> bool:
    """What the README promises each choice of the profile."""
    if kind == Notification.Kind.REMINDER:
        return bool(reminders)
    if kind == Notification.Kind.MESSAGE:  # digest players read of them in the digest
        return turn_notice == "instant" and message_emails
    if kind in (Notification.Kind.YOUR_TURN, Notification.Kind.DIGEST):
        return turn_notice == {Notification.Kind.YOUR_TURN: "instant"}.get(kind, "digest")
    return turn_notice != "none"


@dataclass(frozen=True)
class Scenario:
    game: str
    seats: tuple[str, ...]  # usernames in seat order (the first creates the match); "ai": AI (Easy)
    clock: ClockSpec
    # (player, their nth turn) -> what they do then; any other turn: answer after their usual delay.
    plan: dict[tuple[str, int], str]
    level: int = 1  # the AI level whose choice the people play (Mesopotamia's Strong keeps the game short)
    # (player, their nth turn) -> what is said in the match in that turn (Site.talk), and after the end.
    talk: dict[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)
    after_the_end: tuple[str, ...] = ()


TWO_DAYS = {"time_control": TimeControl.PER_MOVE, "days_per_move": 2}
# A plan is what they do in the turn, then what happens after their move: they leave for two days, or
# the mail server goes down for 20 minutes (the next player's "your turn" waits for it).
MANCALA_WEEK = {
    ("ann", 1): "move+leaves",
    ("ben", 1): "digest",
    ("ann", 2): "series",
    ("ben", 2): "vacation",
    ("ann", 3): "extension",
    ("ben", 3): "switches+outage",
    ("ann", 4): "travels",
    ("ben", 4): "timeout",
}
# What is said (Site.talk): "<writer> <what>", five minutes into the turn (the one who moved last has left the
# page); who leaves after their move says so too.
MANCALA_TALK = {
    ("ben", 1): ("ann burst", "ben hello"),  # Ann is on vacation
    ("ann", 2): ("ben hello",),
    ("ben", 2): ("ann hidden",),
    ("ann", 3): ("ben looked",),
    ("ann", 4): ("ben rude",),
}
SCENARIOS = {
    "mancala, the AI takes the late seat": Scenario(
        "mancala",
        ("ann", "ben"),
        ClockSpec(**TWO_DAYS, on_timeout=OnTimeout.AI),
        MANCALA_WEEK,
        talk=MANCALA_TALK,
        after_the_end=("ann hello",),
    ),  # the AI has Ben's seat: nobody reads it
    "mancala, the late player loses": Scenario(
        "mancala",
        ("ann", "ben"),
        ClockSpec(**TWO_DAYS, on_timeout=OnTimeout.LOSE),
        MANCALA_WEEK,
        talk=MANCALA_TALK,
        after_the_end=("ben hello", "ann closed"),
    ),  # before the notice is due
    "mecca": Scenario(
        "mecca",
        ("ann", "ben", "ai"),
        ClockSpec(**TWO_DAYS),
        {
            ("ben", 1): "digest",
            ("ann", 2): "vacation",
            ("ben", 2): "extension",
            ("ann", 3): "series",
            ("ben", 3): "move+outage",
            ("ann", 4): "travels",
            ("ben", 4): "move+leaves",
            ("ann", 5): "timeout",
        },
        talk={
            ("ben", 1): ("ann hello",),
            ("ann", 2): ("ben burst",),
            ("ann", 3): ("ben reported",),
            ("ben", 3): ("ann quiet",),
            ("ann", 4): ("ben hello",),
            ("ann", 5): ("ann chatty", "ben burst"),
        },
        after_the_end=("ben hello",),
    ),  # the AI has Ann's seat
    "jeexa": Scenario(
        "jeexa",
        ("ann", "cat", "dan", "ai"),
        ClockSpec(**TWO_DAYS),
        {
            ("cat", 1): "digest",
            ("dan", 2): "vacation",
            ("ann", 2): "extension",
            ("cat", 3): "series",
            ("ann", 3): "move+leaves",
            ("dan", 4): "timeout",
            ("cat", 5): "move+outage",
            ("ann", 6): "away",
            # A quick exchange: Ann's "your turn" is held back (she left the page a moment before) into her next turn.
            ("ann", 7): "blitz",
            ("cat", 7): "blitz",
            ("ann", 8): "blitz",
            ("cat", 8): "blitz",
        },
        talk={
            ("cat", 1): ("dan burst",),
            ("dan", 2): ("ann looked",),
            ("ann", 2): ("cat hidden",),
            ("cat", 3): ("ann rude",),
            ("ann", 4): ("cat glanced",),
            ("dan", 4): ("cat hello",),
            ("cat", 5): ("ann hello",),
            ("cat", 6): ("ann reported",),
        },
        after_the_end=("ann hello",),
    ),  # Cat's digest tells of it, with no turn of hers waiting; Dan has no seat
    "mesopotamia": Scenario(
        "mesopotamia",
        ("ben", "cat", "ai"),
        ClockSpec(time_control=TimeControl.BANK, bank_initial_days=3, bank_increment_days=1, bank_cap_days=5),
        {
            ("cat", 1): "digest",
            ("ben", 2): "vacation",
            ("cat", 2): "extension",
            ("ben", 3): "series",
            ("cat", 3): "travels",
            ("ben", 4): "switches",
            ("cat", 4): "timeout",
            ("ben", 5): "move+leaves",
        },
        level=2,
        talk={
            ("cat", 1): ("ben burst",),
            ("ben", 2): ("cat hello",),
            ("cat", 2): ("cat quiet", "ben hello"),
            ("ben", 3): ("cat looked",),
            ("cat", 3): ("ben hidden",),
            # Ben reads it in no digest (an hour later he chooses emails at once) and gets no email of it.
            ("ben", 4): ("cat hello",),
            ("cat", 4): ("cat chatty", "ben hello"),
        },
        after_the_end=("ben hello",),
    ),  # the AI has Cat's seat
}


@dataclass
class Turn:
    player: str
    match_id: int
    seat: int
    start: datetime
    plan: str
    turn_notice: str  # the player's choice when the turn began
    seen: datetime | None  # when the site last saw them on the match page (it writes that at most every 30 s)
    end: datetime | None = None
    # Each stretch the clock ran: (from, the deadline it had, until it stopped or the turn ended).
    runs: list[tuple[datetime, datetime, datetime]] = field(default_factory=list)


@dataclass
class Received:
    """One email or webhook post as its reader got it, with what was true when it went out."""

    at: datetime
    player: str
    kind: str
    channel: str
    match_id: int | None
    subject: str
    text: str
    to_act: bool  # the reader's seat in that match was to act in a match in play
    deadline: datetime | None  # that seat's deadline
    paused: int | None  # that seat's time left while a vacation stops the clock
    on_vacation: bool
    waiting: dict[int, datetime | None]  # the matches in play waiting for the reader: their deadline there
    zone: str  # the reader's settings then
    turn_notice: str
    reminders: str
    message_emails: bool
    log_tail: str | None  # the match log's latest line

    def __repr__(self) -> str:
        return f"<{self.kind} {self.channel} to {self.player} at {self.at:%a %d %H:%M:%S}: {self.subject!r}>"


@dataclass(frozen=True)
class Said:
    """A message one of them wrote in the match."""

    at: datetime
    match_id: int
    author: str
    pk: int
    text: str
    readers: frozenset[str]  # the other people seated in the match then, with an open account

    def __repr__(self) -> str:
        return f"<{self.text!r} by {self.author} at {self.at:%a %d %H:%M:%S}>"


def on_their_clock(moment: datetime, zone: str, date_part: str = "l j F Y") -> str:
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        return local_time_named(moment, date_part)


def next_local_hour(persona: Persona, after: datetime) -> datetime:
    """The next time the persona's clock shows their digest hour (none of the days here skips it)."""
    zone = zoneinfo.ZoneInfo(persona.zone)
    local = after.astimezone(zone)
    at = datetime.combine(local.date(), datetime.min.time().replace(hour=persona.digest_hour), tzinfo=zone)
    if at <= local:
        at = datetime.combine(local.date() + timedelta(days=1), at.timetz())
    return at.astimezone(UTC)


def on_the_grid(moment: datetime, seconds: int) -> datetime:
    """The first run of a sweep with this period at or after ``moment``."""
    stamp = moment.timestamp()
    return datetime.fromtimestamp(-(-stamp // seconds) * seconds, tz=UTC)


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


@pytest.fixture
def webhook(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # the test server listens on 127.0.0.1
    with WebhookServer() as server:
        yield server


def person(name: str, webhook: WebhookServer) -> User:
    persona = CAST[name]
    return make_user(
        name,
        display_name=persona.name,
        time_zone=persona.zone,
        turn_notice=persona.turn_notice,
        digest_hour=persona.digest_hour,
        reminders=persona.reminders,
        message_emails=persona.message_emails,
        webhook_url=webhook.url if persona.webhook else "",
    )


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_a_week_of_correspondence_tells_each_player_what_is_true_once(
    scenario, db, clock, webhook, monkeypatch, django_capture_on_commit_callbacks, client, settings
):
    clock.now = START - timedelta(days=1)  # Sunday
    settings.MANAGERS = MODERATORS
    monkeypatch.setattr(creating, "new_seed", lambda: SEED)
    humans = [name for name in scenario.seats if name != "ai"]
    people = {name: person(name, webhook) for name in humans}
    site = Site(clock, django_capture_on_commit_callbacks, client, webhook, people, make_user("sam", is_staff=True))
    monkeypatch.setattr(
        tasks, "enqueue_ai_move", lambda match_id, version: site.queue.append(("ai", match_id, version))
    )
    monkeypatch.setattr(notification_tasks, "enqueue_notification", lambda pk: site.queue.append(("send", pk)))
    monkeypatch.setattr(chat_tasks, "enqueue_report", lambda pk: site.queue.append(("report", pk)))
    real_deliver = delivery._deliver
    monkeypatch.setattr(delivery, "_deliver", lambda notification: site.deliver(real_deliver, notification))

    # Who waits for the digest started a match against the AI on Sunday, and leaves it waiting until they resign it.
    for (name, _nth), plan in scenario.plan.items():
        if plan == "digest":
            site.side_matches[name] = site.do(
                lambda name=name: services.match_create(
                    creator=people[name],
                    game_slug="mancala",
                    options={},
                    seats=[SeatSpec("creator"), SeatSpec("ai", ai_level=1)],
                )
            )
    site.run_until(START)
    creator, *others = scenario.seats
    seats = [SeatSpec("creator")] + [
        SeatSpec("ai", ai_level=1) if name == "ai" else SeatSpec("user", username=name) for name in others
    ]
    match = site.do(
        lambda: services.match_create(
            creator=people[creator], game_slug=scenario.game, options={}, seats=seats, clock=scenario.clock
        )
    )
    site.talk(match, None, f"{creator} hello")  # the invited are told too
    for name in others:
        if name != "ai":
            site.run_until(clock.now + timedelta(hours=1))
            site.do(lambda name=name: services.match_accept(match_id=match.pk, user=people[name]))
            site.look(match.pk, name)  # accepting leads to the match page

    site.play(match, scenario)
    ended = clock.now
    site.run_until(ended + timedelta(hours=1))
    for line in scenario.after_the_end:  # a minute apart
        site.talk(match, None, line)
        site.run_until(clock.now + timedelta(minutes=1))
    site.run_until(ended + timedelta(days=3))  # what is still due comes, or must not

    match.refresh_from_db()
    check_the_week(site, scenario, match, ended, client)


# --- what every player received ---------------------------------------------------------

DEADLINE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]* \d{1,2} [A-Z][a-z]+(?: \d{4})?, \d\d:\d\d "
    r"[A-Z][\w+:-]*(?: \([^)]*\))?"
)
DIGEST_LINE = re.compile(r"^- (?P<name>.+?)(?:: time runs out (?P<deadline>.+))?\n  \S+/matches/(?P<pk>\d+)/$", re.M)
NEWS_LINE = re.compile(r"^New messages in (?P<name>.+) \((?P<count>\d+)\): \S+/matches/(?P<pk>\d+)/#messages$", re.M)
TURN_NOTICES = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER, Notification.Kind.EXTENSION)


def check_the_week(site: Site, scenario: Scenario, match: Match, ended: datetime, client) -> None:
    got = site.received
    assert len([r for r in got if r.channel == "email"]) + len(site.staff_mail) == len(mail.outbox), (
        "every email went through the outbox"
    )
    assert len([r for r in got if r.channel == "webhook"]) == len(site.webhook.bodies)
    left = Notification.objects.filter(sent_at__isnull=True)
    assert not left.exists(), [(notice, notice.due_at) for notice in left]
    assert not Notification.objects.filter(outcome=Notification.Outcome.FAILED).exists(), "the retries got through"
    planned = {(player, plan) for (player, _nth), plan in scenario.plan.items()}
    assert {(turn.player, turn.plan) for turn in site.turns if turn.plan != "move"} == planned, "the plan was played"

    assert not [
        r for r in got if r.channel == "email" and not wants_email(r.kind, r.turn_notice, r.reminders, r.message_emails)
    ], "no email the player did not ask for (as the profile said when it went out)"
    assert not [r for r in got if r.channel == "webhook" and not CAST[r.player].webhook]
    check_turn_notices(site, got)
    check_digests(site, got)
    check_message_notices(site, scenario, got)
    check_the_end(site, scenario, match, ended, got, client)


def turn_of(site: Site, received: Received) -> Turn | None:
    return next(
        (
            turn
            for turn in site.turns
            if turn.player == received.player
            and turn.match_id == received.match_id
            and turn.start <= received.at <= turn.end
        ),
        None,
    )


def on_time(site: Site, at: datetime, moment: datetime) -> bool:
    """Sent when due, within a run of the relay, or later when the mail server was down then."""
    down = site.while_mail_was_down(moment) or site.while_mail_was_down(at - BEAT_LAG)
    return moment <= at <= moment + (LATE_AFTER_MAIL_DOWN if down else BEAT_LAG)


def check_turn_notices(site: Site, got: list[Received]) -> None:
    """A "your turn", a reminder or more time from staff: only during that player's turn, each
    deadline the one in force on the player's clock, no reminder while the clock is stopped;
    one "your turn" a turn, the reminders the player asked for, each once."""
    for r in got:
        if r.kind not in TURN_NOTICES:
            continue
        assert r.to_act and turn_of(site, r) is not None, f"{r} came when it was not their turn"
        if r.kind == Notification.Kind.REMINDER:
            assert not r.on_vacation and r.deadline is not None, f"{r} came during a vacation"
        if r.channel == "email":
            named = DEADLINE.findall(r.text)
            if r.deadline is not None:
                assert named == [on_their_clock(r.deadline, r.zone)], (r, named, r.text)
            else:
                assert named == [] and "Your clock is stopped while you are on vacation" in r.text, (r, r.text)

    for turn in site.turns:
        persona = CAST[turn.player]
        during = [
            r for r in got if r.match_id == turn.match_id and r.player == turn.player and turn.start <= r.at <= turn.end
        ]
        for channel, wanted in (("email", turn.turn_notice == "instant"), ("webhook", persona.webhook)):
            told = [r for r in during if r.channel == channel and r.kind == Notification.Kind.YOUR_TURN]
            when = your_turn_due(turn)
            assert len(told) == (1 if wanted and when is not None else 0), (turn, when, told)
            assert all(on_time(site, r.at, when) for r in told), ("told at once", turn, told)
            reminded = sorted(r.at for r in during if r.channel == channel and r.kind == Notification.Kind.REMINDER)
            moments = expected_reminders(turn, persona) if channel == "email" or persona.webhook else []
            assert len(reminded) == len(moments), (turn, reminded, moments)
            assert all(on_time(site, at, moment) for at, moment in zip(reminded, moments, strict=True)), (
                turn,
                reminded,
                moments,
            )
        extensions = [r for r in during if r.kind == Notification.Kind.EXTENSION]
        expected = [
            channel
            for channel, wanted in (("email", turn.turn_notice != "none"), ("webhook", persona.webhook))
            if wanted
        ]
        assert sorted(r.channel for r in extensions) == (expected if turn.plan == "extension" else []), turn


def your_turn_due(turn: Turn) -> datetime | None:
    """When the "your turn" is due, as the README says: at once; not at all to a player who has
    the match open (seen since the turn began); once the page has been quiet for 90 s for one who
    closed it just before (and not if the turn is over by then)."""
    if turn.seen is None or turn.seen < turn.start - PRESENCE:
        return turn.start
    if turn.seen >= turn.start:
        return None
    # Handed back to the relay, which takes a row no task was sent for a minute after it was written.
    due = max(turn.seen + PRESENCE, turn.start + timedelta(seconds=notification_tasks.NOTIFICATION_SWEEP_AFTER_SECONDS))
    return due if on_the_grid(due, 30) <= turn.end else None


def expected_reminders(turn: Turn, persona: Persona) -> list[datetime]:
    """When the player's reminders of this turn are due, as the README says: each share at most
    once a turn, counted from each restart of the clock to the deadline it then has; a share
    whose moment came before the clock stopped or moved is not reminded of again, unless its
    reminder was still waiting for the relay (it then comes after the restart)."""
    moments, come = [], 0
    for since, deadline, until in turn.runs:
        at = {share: since + (deadline - since) * share / 100 for share in clocks.REMINDER_SHARES}
        mine = [share for share in persona.shares if share > come]
        sent = [share for share in mine if on_the_grid(at[share], 30) <= until]
        moments += [at[share] for share in sent]
        first_unsent = min((at[share] for share in mine if share not in sent), default=None)
        come = max(
            [come]
            + [
                share
                for share in clocks.REMINDER_SHARES
                if at[share] <= until and (first_unsent is None or at[share] < first_unsent)
            ]
        )
    return sorted(moments)


def check_digests(site: Site, got: list[Received]) -> None:
    """At each digest player's hour, a digest if and only if a match waits, listing exactly those,
    each deadline the one in force on their clock; never two a day."""
    digests = [r for r in got if r.kind == Notification.Kind.DIGEST]
    assert all(r.channel == "email" and r.turn_notice == "digest" for r in digests)
    for name, hour, turn_notice, waiting, news in site.probes:
        sent = [r for r in digests if r.player == name and on_time(site, r.at, hour)]
        zone = zoneinfo.ZoneInfo(site.persona_at(name, hour).zone)
        earlier_today = [
            r
            for r in digests
            if r.player == name and r.at < hour and r.at.astimezone(zone).date() == hour.astimezone(zone).date()
        ]
        expected = (waiting or news) and turn_notice == "digest" and not earlier_today
        assert len(sent) == (1 if expected else 0), (name, hour, waiting, news, sent, earlier_today)
        for r in sent:
            told = {int(line["pk"]): int(line["count"]) for line in NEWS_LINE.finditer(r.text)}
            assert told == news, ("the digest tells of the messages not read yet", r, r.text, news)
    for r in digests:
        assert any(name == r.player and on_time(site, r.at, hour) for name, hour, *_ in site.probes), (
            f"{r} came at another time than the player's hour"
        )
        lines = list(DIGEST_LINE.finditer(r.text))
        assert {int(line["pk"]) for line in lines} == set(r.waiting), (r, r.text, r.waiting)
        for line in lines:
            deadline = r.waiting[int(line["pk"])]
            assert line["deadline"] == (on_their_clock(deadline, r.zone, "D j M") if deadline else None), (r, line[0])
    per_day = Counter((r.player, r.at.astimezone(zoneinfo.ZoneInfo(r.zone)).date()) for r in digests)
    assert max(per_day.values(), default=1) == 1
    for turn in site.turns:
        if turn.plan == "digest":
            assert any(
                r.player == turn.player and turn.start <= r.at <= turn.end and turn.match_id in r.waiting
                for r in digests
            ), f"{turn}: the digest named the match waiting"


def check_message_notices(site: Site, scenario: Scenario, got: list[Received]) -> None:
    """Each player is told of the messages the others wrote in their match as predicted
    (``expected_message_notices``): when, and of which, by email and on the webhook; and staff
    hear of each message reported, once."""
    kinds = [line.split()[1] for lines in [*scenario.talk.values(), scenario.after_the_end] for line in lines]
    assert len(site.reports) == kinds.count("reported") and len(site.hidden) == kinds.count("hidden") + kinds.count(
        "rude"
    ), "the talk was held"
    notices = [r for r in got if r.kind == Notification.Kind.MESSAGE]
    matches = {said.match_id for said in site.said}
    assert {r.match_id for r in notices} <= matches
    for name in site.people:
        for match_id in matches:
            match_name = str(Match.objects.get(pk=match_id))
            for channel in ("email", "webhook"):
                expected = expected_message_notices(site, name, match_id, channel)
                told = [r for r in notices if (r.player, r.match_id, r.channel) == (name, match_id, channel)]
                assert len(told) == len(expected), (name, channel, told, expected)
                for r, (due, unseen) in zip(told, expected, strict=True):
                    assert on_time(site, r.at, due), (r, due, unseen)
                    authors = " and ".join(dict.fromkeys(CAST[said.author].name for said in unseen))
                    assert r.subject == (
                        f"{authors} wrote in {match_name}: {unseen[0].text}"
                        if len(unseen) == 1
                        else f"{authors} wrote {len(unseen)} messages in {match_name}"
                    ), (r, unseen)
                    if channel == "webhook":
                        assert r.text.startswith(f"{r.subject}\n") and r.text.endswith(f"/matches/{match_id}/#messages")
                        continue
                    with timezone.override(zoneinfo.ZoneInfo(r.zone)):
                        listed = [f"{CAST[said.author].name}, {local_time(said.at)}:\n  {said.text}" for said in unseen]
                    assert re.findall(r"^\S[^\n]*:\n  .*$", r.text, re.M) == listed, (r, r.text, unseen)

    reported = [said for said in site.said if said.pk in {pk for pk, _ in site.reports}]
    assert len(site.staff_mail) == len(reported), "one email to staff per message reported"
    for email, said in zip(site.staff_mail, reported, strict=True):
        assert email.to == MODERATORS and said.text in email.body, (email.to, email.body)


def expected_message_notices(site: Site, name: str, match_id: int, channel: str) -> list[tuple[datetime, list[Said]]]:
    """When the player is told of the messages in the match on this channel, and of which, as the
    README says: MESSAGE_NOTICE_DELAY_SECONDS after a message another player wrote while they
    were seated (with an open account), by email if they want messages by email at once then
    and when it goes out, on the webhook if they have one; the messages written meanwhile come in
    the same notice. It tells of those they have not read on the match page and staff have not
    removed, and none comes when nothing is left; while they have the page open (seen in the
    last 90 s) it waits until the page has been quiet for 90 s. None after they closed their account."""
    delay = timedelta(seconds=settings.MESSAGE_NOTICE_DELAY_SECONDS)
    said = sorted((said for said in site.said if said.match_id == match_id), key=lambda said: said.at)
    notices: list[tuple[datetime, list[Said]]] = []
    told_until = None
    for first in said:
        if (
            name not in first.readers
            or (told_until is not None and first.at <= told_until)
            or not site.wants_message_notice(name, channel, first.at)
        ):
            continue
        due = first.at + delay
        while (seen := site.last_look(name, match_id, due)) is not None and seen + PRESENCE > due:
            due = seen + PRESENCE
        told_until = due
        if (name in site.closed and site.closed[name] <= due) or not site.wants_message_notice(name, channel, due):
            continue
        unseen = [
            later
            for later in said
            if first.at <= later.at <= due
            and later.author != name
            and not site.removed(later, due)
            and (seen is None or later.at > seen)
        ]
        if unseen:
            notices.append((due, unseen))
    return notices


def page_of(client, user: User, match: Match) -> str:
    client.force_login(user)
    return html.unescape(client.get(reverse("match_detail", args=[match.pk])).content.decode())


def check_the_end(site: Site, scenario: Scenario, match: Match, ended: datetime, got: list[Received], client):
    """Who was told of the timeout and of the result, and that what they read is what the page says."""
    people, names = site.people, {user.username: user.public_name for user in site.people.values()}
    late = next(turn for turn in site.turns if turn.plan == "timeout")
    timeouts = [r for r in got if r.kind == Notification.Kind.TIMEOUT]
    assert sorted((r.player, r.channel) for r in timeouts) == told_at_once(site, people, late.end), (
        "every player hears of the timeout, once"
    )
    for r in timeouts:
        if r.channel == "email":
            assert (
                "You ran out of time" if r.player == late.player else f"{names[late.player]} ran out of time"
            ) in r.text, r.text

    assert match.status == Status.FINISHED
    game = match.game_obj
    if match.result["reason"] == "played out":
        assert match.result["winners"] == list(game.outcome(game.load(match.state)).winners)
    last = match.moves.order_by("ply").last()
    ended_by_move = last is not None and last.created_at == match.finished_at
    mover = match.seats.get(number=last.seat).user if ended_by_move else None
    seats = list(match.seats.select_related("user", "former_user"))
    readers = {seat.user.username: seat for seat in seats if seat.user_id and seat.user != mover}
    readers |= {seat.former_user.username: seat for seat in seats if seat.taken_over_at}
    results = [r for r in got if r.kind == Notification.Kind.MATCH_OVER and r.match_id == match.pk]
    if match.result["reason"].endswith("ran out of time"):
        readers = {}  # the timeout notice told both how it ended
    assert sorted((r.player, r.channel) for r in results) == told_at_once(site, readers, ended), (
        "everyone who took part hears the end, once"
    )
    assert all(r.at == ended for r in results), "at once"

    log_lines = None
    for name, seat in readers.items():
        page = page_of(client, people[name], match)
        log_lines = log_lines or set(re.findall(r"<li[^>]*>(?:<em>)?(.*?)(?:</em>)?</li>", page))
        winners = re.findall(r'<span class="winner">(.*?)</span>', page)
        seat_name = re.findall(r'<span class="seat-name">(.*?)</span>', page)[seat.number]
        won = seat.number in match.result["winners"]
        you = "You" if seat.user_id else f"{seat_name}, in your former seat,"
        outcome = f"{you} won" if won else f"{you} lost: {' and '.join(winners)} won"
        for r in results:
            if r.player != name:
                continue
            whose = "you " if seat.user_id else "your former seat "
            assert r.subject.endswith(whose + ("won" if won else "lost")), r
            if r.channel == "email":
                assert f"is over. {outcome}" in r.text, (outcome, r.text)
                if seat.taken_over_at:
                    day = dateformat.format(seat.taken_over_at.astimezone(zoneinfo.ZoneInfo(r.zone)), "l j F Y")
                    assert f"The AI took your seat on {day} and played it from then on." in r.text
    for r in got:
        if r.kind == Notification.Kind.YOUR_TURN and r.channel == "email" and log_lines is not None:
            listed = re.findall(r"^- (.+)$", r.text, re.M)
            assert set(listed) <= log_lines, "the moves are named as the match page's log names them"
            assert (listed or [None])[-1] == r.log_tail, ("it tells what happened up to when it went out", r, r.text)


def told_at_once(site: Site, names, moment: datetime) -> list[tuple[str, str]]:
    """The channels of a notice that comes at once: email unless they chose none, and the webhook."""
    personas = {name: site.persona_at(name, moment) for name in names}
    return sorted(
        (name, channel)
        for name, persona in personas.items()
        for channel, wanted in (("email", persona.turn_notice != "none"), ("webhook", persona.webhook))
        if wanted
    )
