"""Every write of ratings: a finished rated match updates them, once, in the transaction that
finishes it (``ratings_update``, from ``games.signals.match_finished``), and ``ratings_recompute``
replays every finished rated match in order through the same rule (``entries_of``, ``apply``).

The rule (docs/players.md, "Ratings"): openskill's Weng-Lin Plackett-Luce model with its default
parameters, each seat a team of one. The winners share the first rank; the others follow by score
(equal scores share a rank), or all share the last rank where the result has no scores (a
resignation, a timeout). A person whose seat the AI took during play takes a loss, below everyone
else, and the AI that took it is not rated for it. An AI level on several seats moves once, by
the average of its seats' updates.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db import connection, transaction
from django.db.models import Prefetch, Q
from openskill.models import PlackettLuce

from games.models import Match, Seat, Status
from ratings.models import Rating, RatingChange, displayed_value
from ratings.pools import pool_of

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3 for a newcomer

# Who a rating is within its pool: (user id, None) for a player, (None, level) for an AI level.
Key = tuple[int | None, int | None]

RATING_FIELDS = ["mu", "sigma", "value", "rated_matches", "last_played_at"]
# Matches read together by the recompute (2 queries), and rows written in one statement.
REPLAY_CHUNK = 1000
WRITE_BATCH = 1000

# Where a seat ends: the winners first, then the others by score, then those the AI replaced.
WON, PLAYED, REPLACED = 0, 1, 2


@dataclass(frozen=True)
class Entry:
    """One seat the match rates: whose rating, which seat, and its rank (1 is best; equal ranks tie)."""

    key: Key
    seat: int
    rank: int


def entries_of(match: Match, seats: Iterable[Seat]) -> list[Entry]:
    """The seats the match rates, with their ranks from ``match.result``; none where fewer than two
    ratings would take part (nothing to learn)."""
    result = match.result or {}
    winners = set(result.get("winners") or [])
    seats = sorted(seats, key=lambda seat: seat.number)
    scores = result.get("scores") or []
    if len(scores) != len(seats):  # a resignation or a timeout: no scores, every other seat lost
        scores = [0] * len(seats)
    placed: list[tuple[Key, int, tuple[int, float]]] = []
    for seat in seats:
        if seat.taken_over_at is not None:
            # The AI took the seat from a person during play: they lose, and the AI's play there counts for nobody.
            if seat.former_user_id is not None:
                placed.append(((seat.former_user_id, None), seat.number, (REPLACED, 0)))
            continue
        if seat.user_id is not None:
            key: Key = (seat.user_id, None)
        elif seat.ai_level is not None:
            key = (None, seat.ai_level)
        else:
            continue
        place = (WON, 0) if seat.number in winners else (PLAYED, -scores[seat.number])
        placed.append((key, seat.number, place))
    if len({key for key, _, _ in placed}) < 2:
        return []
    places = sorted({place for _, _, place in placed})
    return [Entry(key, number, places.index(place) + 1) for key, number, place in placed]


def rate(entries: list[Entry], before: dict[Key, tuple[float, float]]) -> dict[Key, tuple[float, float]]:
    """Each rating's (mu, sigma) after the match: openskill's update, averaged over an AI level's seats."""
    teams = [[MODEL.rating(*before[entry.key])] for entry in entries]
    updated = MODEL.rate(teams, ranks=[entry.rank for entry in entries])
    seats_of: dict[Key, list[tuple[float, float]]] = {}
    for entry, [rating] in zip(entries, updated, strict=True):
        seats_of.setdefault(entry.key, []).append((rating.mu, rating.sigma))
    return {
        key: (sum(mu for mu, _ in values) / len(values), sum(sigma for _, sigma in values) / len(values))
        for key, values in seats_of.items()
    }


def apply(match: Match, entries: list[Entry], ratings: dict[Key, Rating]) -> list[RatingChange]:
    """Update ``ratings`` (in memory) by the match; the changes to write, in the order the rows are locked."""
    after = rate(entries, {key: (rating.mu, rating.sigma) for key, rating in ratings.items()})
    first_seat: dict[Key, int] = {}
    for entry in entries:
        first_seat.setdefault(entry.key, entry.seat)
    at = match.finished_at
    changes = []
    for key in sorted(after, key=lock_order):
        rating = ratings[key]
        mu, sigma = after[key]
        value = displayed_value(mu, sigma)
        changes.append(
            RatingChange(
                rating=rating,
                match_id=match.pk,
                seat=first_seat[key],
                mu_before=rating.mu,
                sigma_before=rating.sigma,
                mu_after=mu,
                sigma_after=sigma,
                value_after=value,
                at=at,
            )
        )
        rating.mu, rating.sigma, rating.value = mu, sigma, value
        rating.rated_matches += 1
        if at is not None and (rating.last_played_at is None or at > rating.last_played_at):
            rating.last_played_at = at
    return changes


def lock_order(key: Key) -> tuple[bool, int, int]:
    """The order rating rows are locked in, as PostgreSQL sorts (user id, AI level): players by id, then AI levels."""
    user_id, level = key
    return (user_id is None, user_id or 0, level or 0)


def new_rating(pool: str, key: Key) -> Rating:
    user_id, level = key
    return Rating(
        pool=pool,
        user_id=user_id,
        ai_level=level,
        mu=MODEL.mu,
        sigma=MODEL.sigma,
        value=displayed_value(MODEL.mu, MODEL.sigma),
        rated_matches=0,
    )


@transaction.atomic
def ratings_update(*, match: Match) -> list[RatingChange]:
    """The ratings a finished rated match changes, changed once: called in the transaction that
    finishes it (the match row locked, ``match.result`` and ``finished_at`` set); a casual match,
    or one already counted, changes nothing. The changes written, in lock order."""
    if not match.rated or match.status != Status.FINISHED:
        return []
    if RatingChange.objects.filter(match=match).exists():  # counted already: the constraint would refuse it
        return []
    entries = entries_of(match, Seat.objects.filter(match=match).order_by("number"))
    if not entries:
        return []
    ratings = _locked(pool_of(match.game, match.options), {entry.key for entry in entries})
    changes = apply(match, entries, ratings)
    Rating.objects.bulk_update([change.rating for change in changes], RATING_FIELDS)
    RatingChange.objects.bulk_create(changes)
    return changes


def _locked(pool: str, keys: set[Key]) -> dict[Key, Rating]:
    """The ratings of ``keys`` in ``pool``, created where missing and locked until the transaction
    ends, in one order (``lock_order``), so that matches finishing at once with the same players or
    AI levels take their turns instead of losing an update or deadlocking. Two matches creating a
    new player's rating at once: the second insert waits for the first and then adds nothing."""
    users = [user_id for user_id, _ in keys if user_id is not None]
    levels = [level for _, level in keys if level is not None]
    who = []
    if users:
        who.append(Q(user_id__in=users))
    if levels:
        who.append(Q(ai_level__in=levels))
    rows = Rating.objects.filter(reduce(or_, who), pool=pool)
    found = set(rows.values_list("user_id", "ai_level"))
    for _ in range(2):  # a second time only if a recompute deleted a rating read just now
        missing = sorted(keys - found, key=lock_order)
        if missing:
            Rating.objects.bulk_create([new_rating(pool, key) for key in missing], ignore_conflicts=True)
        locked = {
            (rating.user_id, rating.ai_level): rating
            for rating in rows.select_for_update().order_by("pool", "user_id", "ai_level")
        }
        if locked.keys() >= keys:
            break
        found = set(locked)
    return locked


@dataclass(frozen=True)
class Recomputed:
    matches: int  # finished rated matches replayed (or that would be)
    ratings_deleted: int
    changes_deleted: int
    ratings: int = 0  # written
    changes: int = 0
    seconds: float = 0.0


def ratings_recompute(*, dry_run: bool = False) -> Recomputed:
    """Delete every rating and change and replay every finished rated match in the order they
    finished (then by id) through the rule of the live updates (``entries_of``, ``apply``), which
    gives the same numbers. One transaction: pages read the old ratings until it commits; a match
    finishing meanwhile waits for it (PostgreSQL: the ratings table is locked against writes)."""
    started = time.monotonic()
    finished = Match.objects.filter(status=Status.FINISHED, rated=True)
    if dry_run:
        return Recomputed(finished.count(), Rating.objects.count(), RatingChange.objects.count())
    with transaction.atomic():
        deleted = _delete_all()
        ids = list(finished.order_by("finished_at", "pk").values_list("pk", flat=True))
        ratings: dict[tuple[str, Key], Rating] = {}
        written = 0
        for start in range(0, len(ids), REPLAY_CHUNK):
            new, changes = _replay(ids[start : start + REPLAY_CHUNK], ratings)
            Rating.objects.bulk_create(new, batch_size=WRITE_BATCH)  # the changes need their ids
            RatingChange.objects.bulk_create(changes, batch_size=WRITE_BATCH)
            written += len(changes)
        Rating.objects.bulk_update(ratings.values(), RATING_FIELDS, batch_size=WRITE_BATCH)
    return Recomputed(len(ids), *deleted, len(ratings), written, time.monotonic() - started)


def _delete_all() -> tuple[int, int]:
    """Every rating and change gone (counted), the ratings locked against live updates until the commit."""
    quote = connection.ops.quote_name
    counts = []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # reads go on; a finishing match's update waits
            cursor.execute(f"LOCK TABLE {quote(Rating._meta.db_table)} IN EXCLUSIVE MODE")
        for model in (Rating, RatingChange):
            cursor.execute(f"SELECT COUNT(*) FROM {quote(model._meta.db_table)}")
            counts.append(cursor.fetchone()[0])
        for model in (RatingChange, Rating):  # one statement each, not Django's collection of every row
            cursor.execute(f"DELETE FROM {quote(model._meta.db_table)}")
    return counts[0], counts[1]


def _replay(ids: list[int], ratings: dict[tuple[str, Key], Rating]) -> tuple[list[Rating], list[RatingChange]]:
    """These matches, in this order, applied to ``ratings``: the ratings new to them, and their changes."""
    seats = Prefetch(
        "seats",
        queryset=Seat.objects.only("match_id", "number", "user_id", "ai_level", "former_user_id", "taken_over_at"),
    )
    matches = {
        match.pk: match
        for match in Match.objects.filter(pk__in=ids)
        .only("game", "options", "status", "rated", "result", "finished_at")
        .prefetch_related(seats)
    }
    new: list[Rating] = []
    changes: list[RatingChange] = []
    for match in (matches[pk] for pk in ids):
        entries = entries_of(match, match.seats.all())
        if not entries:
            continue
        pool = pool_of(match.game, match.options)
        held = {}
        for key in {entry.key for entry in entries}:
            rating = ratings.get((pool, key))
            if rating is None:
                rating = ratings[pool, key] = new_rating(pool, key)
                new.append(rating)
            held[key] = rating
        changes += apply(match, entries, held)
    return new, changes
