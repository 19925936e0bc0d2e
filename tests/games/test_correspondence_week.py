"""A week in the life of correspondence players: whole matches of each game played over
simulated days by people who want to be told in different ways, checked over everything each of
them received.

The cast: Ann wants an email at once (Berlin, whose clocks go forward on the 29th), Ben and Cat
a daily digest (New York at 7, Kolkata at 21; Cat also a webhook), Dan no email but a webhook
(Chatham); an AI (Easy) takes a seat where the game has room. In each match one of them lets a
turn run through all their reminders, one goes on vacation in the middle of a turn, another
leaves between turns and comes back early, staff give one more time, a digest player waits for
the digest before moving (they also left a match against the AI waiting since Sunday), one flies
to another time zone, one switches from the digest to emails at once, the mail server is down
for 20 minutes, two players answer each other within seconds, and one lets the clock run out:
the AI takes the seat (or, with two players and the creator's choice, the late player loses);
then the match is played to its end. On some days they write to each other in the match: bursts
of several messages, single ones, one while its reader has the page open, one that staff remove,
one reported to staff; one turns these emails off for a while, and "gg" comes after the end,
when a seat may be the AI's or an account closed.

The site's processes are played by the test (tests/games/correspondence_site.py: a worker and
beat on a clock the test moves), and the whole sequence of what each player received is then
checked (tests/games/correspondence_checks.py); the cast and what is recorded are in
tests/games/correspondence.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chat import tasks as chat_tasks
from games import services, tasks
from games.models import OnTimeout, TimeControl
from games.services import ClockSpec, SeatSpec, creating
from notifications import tasks as notification_tasks
from notifications.services import delivery
from tests.conftest import make_user
from tests.games.correspondence import MODERATORS, START, Scenario, person
from tests.games.correspondence_checks import check_the_week
from tests.games.correspondence_site import Site
from tests.local_servers import WebhookServer

SEED = 20260323  # every match deals, rolls and plays the same way on every run

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


@pytest.fixture
def webhook(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # the test server listens on 127.0.0.1
    with WebhookServer() as server:
        yield server


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
    for enqueue in ("enqueue_ai_move", "enqueue_ai_move_alone"):
        monkeypatch.setattr(tasks, enqueue, lambda match_id, version: site.queue.append(("ai", match_id, version)))
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
