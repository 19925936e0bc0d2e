"""Reads of the players' messages that are more than a filter."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import Window
from django.db.models.functions import Coalesce
from django.db.models.lookups import IsNull

from accounts.models import User
from chat.models import Message, MessageReport
from games.models import Match, Seat

MESSAGES_SHOWN = 50  # the latest messages of a match on its page; the rest a link away


class Messages(NamedTuple):
    shown: list[Message]  # oldest first
    total: int  # how many the match has


def match_messages(match: Match, *, every: bool = False, reader: User | None = None) -> Messages:
    """The match's latest MESSAGES_SHOWN messages (``every``: all of them), oldest first, with their
    authors, whether ``reader`` reported each (``reported``), and how many there are in all: one query
    however many there are (the count comes with each row), the match's rows read by the index on
    (match, -id)."""
    reported = MessageReport.objects.filter(message=OuterRef("pk"), reporter_id=reader.pk if reader else None)
    rows = (
        Message.objects.filter(match=match)
        .select_related("author")
        .annotate(total=Window(Count("pk")), reported=Exists(reported))
        .order_by("-pk")
    )
    shown = list(rows if every else rows[:MESSAGES_SHOWN])
    return Messages(shown[::-1], shown[0].total if shown else 0)


def may_read(match: Match, seats: list[Seat], user: User | AnonymousUser) -> bool:
    """Whether someone who may open the match reads its players' messages (``seats``: its seats, read
    already): the players seated in it (the invited too), a player whose seat the AI took, staff;
    and everyone else who may open it when its players made them public (``Match.chat_public``)."""
    if match.chat_public or user.is_staff:
        return True
    return user.is_authenticated and any(user.pk in (seat.user_id, seat.former_user_id) for seat in seats)


def readers(user: User) -> Q:
    """``may_read`` as a condition on matches (the user may open them: ``games.selectors.visible_to``)."""
    if user.is_staff:
        return Q()
    theirs = Seat.objects.filter(match=OuterRef("pk")).filter(Q(user=user) | Q(former_user=user))
    return Q(chat_public=True) | Q(Exists(theirs))


def unseen_messages(user: User, since: datetime | None = None) -> QuerySet[Message]:
    """The messages the player of the outer query's seat has not seen: written by someone else, not
    hidden by staff, after they last had the match page open (``Seat.last_seen_at``), or ever; and
    after ``since``, if given (the digest's last one)."""
    seen = OuterRef("last_seen_at")
    rows = Message.objects.filter(
        Q(IsNull(seen, True)) | Q(created_at__gt=seen), match=OuterRef("match"), hidden=False
    ).exclude(author=user)
    return rows if since is None else rows.filter(created_at__gt=since)


def new_messages(user: User, since: datetime | None = None) -> Coalesce:
    """How many messages the player has not seen in the outer query's match (0 where they hold no
    seat now: watching a match whose seat the AI took, their visits are not recorded). Inside the
    list's query: two subqueries per row, each by an index (the player's seat, the match's messages)."""
    count = unseen_messages(user, since).order_by().values("match").annotate(count=Count("pk")).values("count")
    seat = Seat.objects.filter(match=OuterRef("pk"), user=user).annotate(unseen=Subquery(count)).values("unseen")
    return Coalesce(Subquery(seat[:1]), 0)


def matches_with_unseen_messages(user: User, *, since: datetime | None) -> list[Match]:
    """The matches the player is seated in with messages they have not seen (``unseen_messages``)
    written after ``since``, by number; each with ``unseen``, how many (My matches counts them so)."""
    seated = Seat.objects.filter(match=OuterRef("pk"), user=user)
    return list(
        Match.objects.filter(Exists(seated))
        .annotate(unseen=new_messages(user, since=since))
        .filter(unseen__gt=0)
        .defer("state")
        .order_by("pk")
    )


def reports_staff_not_told() -> QuerySet[MessageReport]:
    """The first report of each message whose email to staff has not gone out (the reports that
    follow it tell nobody)."""
    earlier = MessageReport.objects.filter(message=OuterRef("message"), pk__lt=OuterRef("pk"))
    return MessageReport.objects.filter(staff_told_at__isnull=True).exclude(Exists(earlier))
