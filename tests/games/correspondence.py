"""The cast and the records of a week of correspondence (tests/games/test_correspondence_week.py):
the people and how each of them wants to be told, what a scenario plans, and each turn, email,
webhook post and message as it happened; the week's dates, and the digest hours and the relay's
runs on the clock."""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from accounts.models import User
from games.services import ClockSpec
from tests.conftest import make_user
from tests.local_servers import WebhookServer

# A Monday; Europe's clocks go forward on Sunday the 29th.
START = datetime(2026, 3, 23, 7, 0, tzinfo=UTC)
MODERATORS = ["mods@example.org"]  # where a reported message is emailed
MAIL_DOWN_FOR = timedelta(minutes=20)
# The mail server is also down over the digest hours of New York (11:00 UTC) and Kolkata (15:30 UTC) one day.
MAIL_DOWN = [
    (START + timedelta(days=1, hours=3, minutes=55), START + timedelta(days=1, hours=4, minutes=15)),
    (START + timedelta(days=2, hours=8, minutes=25), START + timedelta(days=2, hours=8, minutes=45)),
]


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
