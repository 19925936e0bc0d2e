"""Watching a match one does not play in: the Watching list of My matches, and what its watcher
has seen of each match (the "new" mark)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games import selectors
from games.models import Match, Seat, Watch
from games.services.errors import AlreadyDone, NotFound, ServiceError

WATCHING_ALREADY = "You watch this match already: it is on My matches, under Watching."
NOT_WATCHING = "You were not watching this match, so nothing changed."
PLAYING_IT = "You play in this match: it is on My matches already."
NOTHING_TO_WATCH = "There is no such match, or it is not yours to see."


@transaction.atomic
def match_watch(*, match_id: int, user: User) -> Watch:
    """Put a match the user may open, and does not play in, on their Watching list, seen as it
    stands (only what comes after is new)."""
    match = Match.objects.filter(selectors.visible_to(user), pk=match_id).only("version").first()
    if match is None:
        raise NotFound(NOTHING_TO_WATCH)
    if Seat.objects.filter(match=match, user=user).exists():
        raise ServiceError(PLAYING_IT)
    watch, made = Watch.objects.get_or_create(
        user=user, match=match, defaults={"seen_version": match.version, "seen_at": timezone.now()}
    )
    if not made:
        raise AlreadyDone(WATCHING_ALREADY)
    return watch


@transaction.atomic
def match_unwatch(*, match_id: int, user: User) -> None:
    """Take a match off the user's Watching list."""
    deleted, _ = Watch.objects.filter(user=user, match_id=match_id).delete()
    if not deleted:
        raise AlreadyDone(NOT_WATCHING)


def watch_seen(*, match: Match, user: User) -> None:
    """The watcher has the match's page open as it stands: nothing in it is new any more. One
    conditional UPDATE, which changes a row only when there was something new."""
    behind = Q(seen_version__lt=match.version)
    if match.finished_at:
        behind |= Q(seen_at__lt=match.finished_at)
    Watch.objects.filter(behind, user=user, match=match).update(seen_version=match.version, seen_at=timezone.now())
