"""What every player received in a week of correspondence, checked over the whole sequence:
nothing twice, nothing after it stopped being true, each deadline the one in force on the
reader's clock, the digest listing exactly the matches waiting and those with messages not read
yet, each message told of once, in one notice per burst, to whom the README says, the result
told right to everyone who took part."""

from __future__ import annotations

import html
import re
import zoneinfo
from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import dateformat, timezone

from accounts.models import User
from games.models import Match, Status
from games.services import clocks
from games.templatetags.clocks import local_time, local_time_named
from notifications import services as notification_services
from notifications import tasks as notification_tasks
from notifications.models import Notification
from tests.games.correspondence import CAST, MODERATORS, Persona, Received, Said, Scenario, Turn, on_the_grid
from tests.games.correspondence_site import Site

BEAT_LAG = timedelta(seconds=31)  # the relay comes every 30 s
PRESENCE = timedelta(seconds=notification_services.PRESENCE_SECONDS)
LATE_AFTER_MAIL_DOWN = timedelta(hours=1)  # the retries back off: 30 s, 1 min, 2 min ... 16 min


def wants_email(kind: str, turn_notice: str, reminders: str, message_emails: bool) -> bool:
    """What the README promises each choice of the profile."""
    if kind == Notification.Kind.REMINDER:
        return bool(reminders)
    if kind == Notification.Kind.MESSAGE:  # digest players read of them in the digest
        return turn_notice == "instant" and message_emails
    if kind in (Notification.Kind.YOUR_TURN, Notification.Kind.DIGEST):
        return turn_notice == {Notification.Kind.YOUR_TURN: "instant"}.get(kind, "digest")
    return turn_notice != "none"


def on_their_clock(moment: datetime, zone: str, date_part: str = "l j F Y") -> str:
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        return local_time_named(moment, date_part)


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
