"""Thin, idempotent Celery tasks for matches. They take ids (and the version they were made for)
and call services; the periodic sweeps (Celery beat) redo what a lost task left and apply what is
due: deadlines, vacations that end, open matches that waited too long, AI seats to wake.

Services import this module to publish; a task imports the services inside its body.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import Count, OuterRef, Subquery
from django.utils import timezone

from accounts.models import User
from config.publish import SWEEP_BATCH, publish
from games.models import Match, Seat, Status

log = logging.getLogger(__name__)

# A move older than this with an AI still to act means its task was lost.
AI_STALL_SECONDS = 30
# The broker's lowest priority (Redis: 0 first, then 3, 6, 9) for the AI moves of a match against the AI
# alone: one player's matches against the AI must not keep it from answering the people waiting in
# matches of several people. The filesystem broker of a single machine ignores it.
AI_ALONE_PRIORITY = 9


@shared_task(ignore_result=True)
def ai_move(match_id: int, expected_version: int) -> None:
    from games.services import ai_turn_play

    ai_turn_play(match_id=match_id, expected_version=expected_version)


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    """Apply every timeout that is due. Each goes through ``match_timeout``, which locks the
    match and re-checks, so two sweeps at once (or a late one) apply it once."""
    from games.services import match_timeout

    now = timezone.now()
    due = (
        Seat.objects.filter(deadline__lte=now, to_act=True, match__status=Status.ACTIVE)
        .order_by("deadline")
        .values_list("match_id", "match__version")[:SWEEP_BATCH]
    )
    applied = 0
    for match_id, version in dict(due).items():
        try:
            applied += bool(match_timeout(match_id=match_id, expected_version=version))
        except Exception:
            log.exception("The timeout of match %s failed; the next sweep tries again.", match_id)
    return applied


@shared_task(ignore_result=True)
def sweep_vacations() -> int:
    """End the vacations that are over, so the clocks run again."""
    from games.services import vacation_end

    over = User.objects.filter(vacation_until__lte=timezone.now()).values_list("pk", flat=True)[:SWEEP_BATCH]
    ended = 0
    for user_id in over:
        try:
            vacation_end(user_id=user_id)
        except Exception:
            log.exception("Ending the vacation of user %s failed; the next sweep tries again.", user_id)
        else:
            ended += 1
    return ended


@shared_task(ignore_result=True)
def sweep_open_matches() -> dict[str, int]:
    """Cancel the matches still waiting for players at their ``open_until``, and tell the invited
    players who have not answered ``OPEN_MATCH_WARN_DAYS`` before. Each match goes through a
    service that locks it and re-checks, so a join that got in first wins and two sweeps at once
    act once; a batch a run, oldest first, the next run takes the rest."""
    from games.services import invitation_expiry_tell, match_expire

    now = timezone.now()
    waiting = Match.objects.filter(status=Status.OPEN).order_by("open_until")
    expired = list(waiting.filter(open_until__lte=now).values_list("pk", flat=True)[:SWEEP_BATCH])
    to_tell = list(
        waiting.filter(
            open_until__gt=now,
            open_until_told=False,
            open_until__lte=now + timedelta(days=settings.OPEN_MATCH_WARN_DAYS),
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    done = {"cancelled": 0, "told": 0}
    for name, service, match_ids in (
        ("cancelled", match_expire, expired),
        ("told", invitation_expiry_tell, to_tell),
    ):
        for match_id in match_ids:
            try:
                done[name] += service(match_id=match_id)
            except Exception:
                log.exception("%s for open match %s failed; the next sweep tries again.", service.__name__, match_id)
    return done


@shared_task(ignore_result=True)
def sweep_ai_turns() -> int:
    """Wake AI seats whose task was lost (for example while the broker was down)."""
    cutoff = timezone.now() - timedelta(seconds=AI_STALL_SECONDS)
    people = Seat.objects.filter(match=OuterRef("match"), user__isnull=False).order_by().values("match")
    stalled = (
        Seat.objects.filter(ai_level__isnull=False, to_act=True, match__status=Status.ACTIVE)
        .exclude(match__last_move_at__gt=cutoff)
        .exclude(match__last_move_at__isnull=True, match__created_at__gt=cutoff)
        .annotate(people=Subquery(people.annotate(count=Count("pk")).values("count")))
        .values_list("match_id", "match__version", "people")[:SWEEP_BATCH]
    )
    for match_id, version, people in stalled:
        ai_move.apply_async((match_id, version), priority=None if (people or 0) > 1 else AI_ALONE_PRIORITY)
    return len(stalled)


def enqueue_ai_move(match_id: int, version: int) -> None:
    publish(ai_move, (match_id, version))


def enqueue_ai_move_alone(match_id: int, version: int) -> None:
    """An AI move in a match against the AI alone: behind those of matches where several people wait."""
    publish(ai_move, (match_id, version), priority=AI_ALONE_PRIORITY)
