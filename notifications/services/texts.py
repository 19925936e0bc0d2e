"""What the notices say: each written from the match as it stands, on the player's clock.

A notice due later (a "your turn" held back, a reminder, a digest, a notice of messages) is
written again as it goes out: what it says must still be true then."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, IntegerField, Max, QuerySet, Subquery, Value, Window
from django.db.models.functions import Coalesce, RowNumber
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import TurnNotice, User
from chat.models import Message
from chat.selectors import matches_with_unseen_messages
from games import selectors
from games.models import Match, MatchEvent, MoveRecord, Seat
from games.naming import names_in_words, scores_by_name, seat_names
from games.prepared import Prepared
from notifications.models import Notification

# A notice of messages lists at most this many (the first ones), then says how many more; its
# subject quotes at most this many characters of a lone message.
MESSAGES_LISTED = 10
SUBJECT_QUOTE = 60
SINCE_SHOWN = 12  # moves a "your turn" email lists at most, the latest
# The rows ``since_your_last_move`` reads, told apart; at one ply a move sorts after its events.
# WAITING: a channel whose "your turn" still waits, read in the same query by ``turn_context_and_waiting``.
YOUR_LAST, EVENT, MOVE, WAITING = -1, 0, 1, 2


def match_url(match: Match) -> str:
    return settings.SITE_URL + match.get_absolute_url()


def written(user: User, match: Match, template: str, context: dict) -> tuple[str, str]:
    """A notice's subject and email body, every moment in it on the player's clock."""
    context = {"user": user, "match": match, "url": match_url(match), **context}
    with timezone.override(user.zone):
        subject = render_to_string(f"emails/{template}_subject.txt", context, using="text").strip()
        body = render_to_string(f"emails/{template}.txt", context, using="text")
    return subject, body


def result_words(match: Match, seats: list[Seat], reader: Seat) -> dict[str, str]:
    """What a match-over email tells the player on ``reader`` of the result, by the names
    the match page shows: in a word for the subject (``verdict``), in a sentence that says
    who won and why (``outcome``), and the score. A reader whose seat the AI took over
    reads the result of that seat, played by the AI ("AI (Strong), in your former seat, lost")."""
    names = seat_names(seats)
    winners, reason = match.result["winners"], match.result["reason"]
    won_by = names_in_words([names[number] for number in winners])
    tie_break = " on the tie-break" if match.won_on_tie_break else ""
    left = reader.user_id is None
    yours, you = ("your former seat ", f"{names[reader.number]}, in your former seat,") if left else ("you ", "You")
    if len(winners) == len(seats):
        verdict, outcome = "a draw", f"It is a draw: {won_by} share the win"
    elif reader.number not in winners:
        won = f"won{tie_break}" if len(winners) == 1 else "share the win"
        verdict, outcome = f"{yours}lost", f"{you} lost: {won_by} {won}"
    elif len(winners) == 1:
        verdict, outcome = f"{yours}won", f"{you} won{tie_break}"
    else:
        others = names_in_words([names[number] for number in winners if number != reader.number])
        shares = "shares" if left else "share"
        verdict, outcome = f"{yours}{shares} the win", f"{you} {shares} the win with {others}"
    if reason != "played out":
        outcome += f" ({reason})"
    score = scores_by_name(names, match.result["scores"])
    return {"verdict": verdict, "outcome": f"{outcome}.", "score": score}


def turn_context(match: Match, seat: Seat) -> dict:
    """What a "your turn" email says: the moves since the player's last, and their clock."""
    return {**since_your_last_move(match, seat), **clock_context(seat)}


def clock_context(seat: Seat) -> dict:
    """The seat's clock as the emails say it: its deadline, or the time left while a vacation stops it."""
    return {"deadline": seat.deadline, "paused": seat.paused_seconds}


def waiting_turn_notices(user_id: int, match_id: int) -> QuerySet[Notification]:
    """The player's "your turn" notices of the match not sent yet."""
    return Notification.objects.filter(
        user=user_id, match=match_id, kind=Notification.Kind.YOUR_TURN, sent_at__isnull=True
    )


def turn_context_and_waiting(match: Match, seat: Seat) -> tuple[dict, set[str]]:
    """``turn_context``, and the channels of the seat's player's ``waiting_turn_notices``, in one query."""
    since, channels = _since_and_waiting(SINCE.rows(match.pk, seat.number, seat.user_id))
    return {**since, **clock_context(seat)}, channels


def since_your_last_move(match: Match, seat: Seat) -> dict:
    """What happened since the seat's own last move (a Mecca turn is several moves, and
    other colours or the AI may have played several turns), with what the move log shows
    between moves (the AI taking a seat, more time): the latest SINCE_SHOWN lines."""
    return _since_and_waiting(SINCE.rows(match.pk, seat.number))[0]


def _since_query(match_id: int, seat_number: int, user_id: int | None = None) -> QuerySet:
    """A row with the seat's last ply (None before its first move), then the latest moves and
    move log events (in the log: a ply) after it; with ``user_id``, the channels of that
    player's ``waiting_turn_notices``."""
    yours = Subquery(MoveRecord.objects.filter(match=match_id, seat=seat_number).order_by("-ply").values("ply")[:1])
    first = Coalesce(yours + 1, 0)
    parts = [
        _latest(MoveRecord.objects.filter(match=match_id, ply__gte=first), MOVE, "description", "-ply"),
        _latest(MatchEvent.objects.filter(match=match_id, ply__gte=first), EVENT, "reason", "-ply", "-pk"),
    ]
    if user_id is not None:
        no_ply = Value(None, output_field=IntegerField())  # Django must be told the type of a NULL
        waiting = waiting_turn_notices(user_id, match_id).order_by()
        parts.append(waiting.values_list(no_ply, Value(WAITING), "channel", Value(0)))
    return (
        Match.objects.filter(pk=match_id)
        .order_by()
        .values_list(yours, Value(YOUR_LAST), Value(""), Value(0))
        .union(*parts, all=True)
    )


# Built once per process (games.prepared), with the waiting channels (3 values) or without (2).
SINCE = Prepared(_since_query)


def _since_and_waiting(rows: list[tuple]) -> tuple[dict, set[str]]:
    """``since_your_last_move`` and the waiting channels, from the rows of ``SINCE``."""
    mine, counted, lines, channels = None, {}, [], set()
    for ply, kind, text, count in rows:
        if kind == YOUR_LAST:
            mine = ply
        elif kind == WAITING:
            channels.add(text)
        else:
            counted[kind] = count
            lines.append((ply, kind, text))
    # An event at ply p came after move p - 1 and before move p: newest first, a move before its events.
    texts = [text for _ply, _kind, text in sorted(lines, reverse=True)]
    more_before = len(texts) > SINCE_SHOWN
    total = sum(counted.values()) if more_before else len(texts)  # "12 of 30": what was left out
    since = {"since": texts[:SINCE_SHOWN][::-1], "more_before": more_before, "total": total, "first_turn": mine is None}
    return since, channels


def _latest(records: QuerySet, kind: int, text: str, *order: str) -> QuerySet:
    """The SINCE_SHOWN + 1 latest as (ply, kind, text, how many there are). Window functions
    rank and count them: SQLite takes no LIMIT in a part of a UNION."""
    return (
        records.annotate(rank=Window(RowNumber(), order_by=order), count=Window(Count("pk")))
        .filter(rank__lte=SINCE_SHOWN + 1)
        .order_by()
        .values_list("ply", Value(kind), text, "count")
    )


def author_name(message: Message) -> str:
    return message.author.public_name if message.author else "A former player"


def authors(messages: list[Message]) -> str:
    """Who wrote them, in the order they first wrote: "Bob", "Bob and Carol", "Bob and 3 others"."""
    names = list(dict.fromkeys(author_name(message) for message in messages))
    return names_in_words(names) if len(names) <= 2 else f"{names[0]} and {len(names) - 1} others"


def quote(text: str) -> str:
    """A message in a subject: one line, at most SUBJECT_QUOTE characters."""
    line = " ".join(text.split())
    return line if len(line) <= SUBJECT_QUOTE else f"{line[: SUBJECT_QUOTE - 1].rstrip()}…"


def indented(text: str) -> str:
    """A message in an email's body: each of its lines set in by two spaces, under its author."""
    return "\n".join(f"  {line}" for line in text.split("\n"))


def digest_news(user: User) -> list[Match]:
    """The matches whose messages a digest tells of: those the player has not read and no earlier
    digest told of (``selectors.matches_with_unseen_messages``), if they want to hear of messages."""
    if not user.message_emails:
        return []
    last = Notification.objects.filter(
        user=user,
        kind=Notification.Kind.DIGEST,
        outcome=Notification.Outcome.SENT,
        resent_from__isnull=True,
    ).aggregate(last=Max("sent_at"))["last"]
    return matches_with_unseen_messages(user, since=last)


def digest_render(notification: Notification) -> str:
    user = notification.user
    matches = selectors.matches_to_act(user)
    news = digest_news(user) if user.turn_notice == TurnNotice.DIGEST else []
    if user.turn_notice != TurnNotice.DIGEST or not (matches or news):
        return "Nothing waits for the player."
    context = {"user": user, "matches": matches, "news": news, "site_url": settings.SITE_URL}
    with timezone.override(user.zone):
        notification.subject = render_to_string("emails/digest_subject.txt", context, using="text").strip()
        notification.body = render_to_string("emails/digest.txt", context, using="text")
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)
    return ""


def turn_render(notification: Notification, seat: Seat) -> None:
    """A "your turn", a reminder or a notice of more time, written again as it goes out: while it waited (a
    player who just left the page, a mail server down) the player may have changed time
    zone, staff moved the deadline or a vacation stopped the clock, and it must say the
    deadline as it then stands, on the player's clock. ``seat``: its ``_turn_seat``."""
    if notification.channel != Notification.Channel.EMAIL:
        return  # a webhook's notice says no time
    seat.match, seat.user = notification.match, notification.user
    if notification.kind == Notification.Kind.YOUR_TURN:
        template, context = "your_turn", turn_context(seat.match, seat)
    elif notification.kind == Notification.Kind.EXTENSION:
        template, context = "extension", clock_context(seat)
    else:
        template, context = "reminder", {"deadline": seat.deadline}
    subject, notification.body = written(notification.user, seat.match, template, context)
    if notification.kind != Notification.Kind.EXTENSION:  # whose subject, the hours staff gave, stays true
        notification.subject = subject
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)
