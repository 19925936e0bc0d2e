"""Every write to the players' messages: writing one, staff hiding one, reporting one to staff
and the email that tells staff of it."""

from __future__ import annotations

from datetime import UTC
from functools import partial

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts import limits
from accounts.models import User
from chat import selectors, signals, tasks
from chat.models import Message, MessageReport
from config.mail import ReadableEmail
from games import selectors as game_selectors
from games.models import Match, Seat
from games.services import AlreadyDone, NotAllowed, NotFound, ServiceError, TooFast
from games.services.base import lock_match, touch

MESSAGE_LENGTH = 500
MESSAGE_EMPTY = "Write something first."
MESSAGE_TOO_LONG = "A message may be at most {most} characters; yours has {count}. Shorten it and send it again."
MESSAGE_NUL = "Your message holds a NUL character, which nothing here accepts; nothing was sent."
MESSAGE_NOT_A_PLAYER = "Only the players of this match can write here."
MESSAGE_ACCOUNT_CLOSED = "Your account is closed, so nothing was sent."
MESSAGES_TOO_FAST = "You are writing too fast; wait a minute."
MESSAGES_WINDOW_SECONDS = 60

REPORT_REASON_LENGTH = 200
REPORT_REASON_TOO_LONG = "A reason may be at most {most} characters; yours has {count}."
REPORT_REASON_NUL = "Your reason holds a NUL character, which nothing here accepts; nothing was reported."
REPORT_OWN_MESSAGE = "This is your own message: there is nothing to report."
REPORT_HIDDEN_MESSAGE = "Staff removed this message already."
MESSAGE_NOT_FOUND = "There is no such message, or it is not yours to see."
REPORTED = "Reported. Staff will look at it."
REPORTED_ALREADY = "You reported this message already."
REPORTS_TOO_FAST = "You reported many messages in the last hour; wait a while before you report another."
REPORTS_WINDOW_SECONDS = 3600


def message_text(text: str) -> str:
    """What is stored of a typed message: a browser sends a line break as CR LF (two
    characters where the player sees one), and spaces round it say nothing."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _message_refusal(text: str) -> str:
    if "\x00" in text:  # PostgreSQL refuses it in text (the site's middleware answers forms with one first)
        return MESSAGE_NUL
    if not text:
        return MESSAGE_EMPTY
    if len(text) > MESSAGE_LENGTH:
        return MESSAGE_TOO_LONG.format(most=MESSAGE_LENGTH, count=len(text))
    return ""


def _message_allowed(user: User) -> bool:
    return limits.allowed(f"match-messages:{user.pk}", settings.MESSAGES_PER_MINUTE, MESSAGES_WINDOW_SECONDS)


@transaction.atomic
def message_post(*, match_id: int, user: User, text: str) -> Message:
    """A message from a player seated in the match (invited and not yet answered too, in a match
    of any status), written after the moves played so far. The match's revision moves on in the
    same transaction, so the others' open pages redraw with it at their next poll."""
    text = message_text(text)
    if refusal := _message_refusal(text):
        raise ServiceError(refusal)
    if not user.is_active:
        raise NotAllowed(MESSAGE_ACCOUNT_CLOSED)
    match = lock_match(match_id)
    if not Seat.objects.filter(match=match, user=user).exists():
        raise NotAllowed(MESSAGE_NOT_A_PLAYER)
    if not _message_allowed(user):
        raise TooFast(MESSAGES_TOO_FAST)
    message = Message.objects.create(match=match, author=user, text=text, after_move=match.version)
    touch(match)
    signals.message_posted.send(Message, match=match, message=message)
    return message


@transaction.atomic
def message_hide(*, message_id: int, hidden: bool) -> Message:
    """Staff remove a message from the match page (or put it back); open pages redraw."""
    match_id = Message.objects.values_list("match_id", flat=True).get(pk=message_id)
    match = lock_match(match_id)
    message = Message.objects.get(pk=message_id)
    if message.hidden != hidden:
        message.hidden = hidden
        message.save(update_fields=["hidden"])
        touch(match)
    return message


def _report_allowed(user: User) -> bool:
    return limits.allowed(f"message-reports:{user.pk}", settings.REPORTS_PER_HOUR, REPORTS_WINDOW_SECONDS)


@transaction.atomic
def message_report(*, match_id: int, message_id: int, user: User, reason: str) -> MessageReport:
    """A player tells staff that someone else's message is out of place: whoever reads the match's
    messages may report what they read there, once per message."""
    reason = message_text(reason)
    if "\x00" in reason:
        raise ServiceError(REPORT_REASON_NUL)
    if len(reason) > REPORT_REASON_LENGTH:
        raise ServiceError(REPORT_REASON_TOO_LONG.format(most=REPORT_REASON_LENGTH, count=len(reason)))
    # Whoever reads the messages (its players; everyone who may open it if they are public).
    if not Match.objects.filter(game_selectors.visible_to(user), selectors.readers(user), pk=match_id).exists():
        raise NotFound(MESSAGE_NOT_FOUND)
    # Locked, so that of two first reports at once only one is the first (the one that tells staff).
    message = Message.objects.select_for_update().filter(pk=message_id, match_id=match_id).first()
    if message is None:
        raise NotFound(MESSAGE_NOT_FOUND)
    if message.author_id == user.pk:
        raise ServiceError(REPORT_OWN_MESSAGE)
    if message.hidden:
        raise ServiceError(REPORT_HIDDEN_MESSAGE)
    if MessageReport.objects.filter(message=message, reporter=user).exists():
        raise AlreadyDone(REPORTED_ALREADY)
    if not _report_allowed(user):
        raise TooFast(REPORTS_TOO_FAST)
    first = not MessageReport.objects.filter(message=message).exists()
    report = MessageReport.objects.create(message=message, reporter=user, reason=reason)
    if first:  # staff get one email per message; the admin counts the reports that follow
        transaction.on_commit(partial(tasks.enqueue_report, report.pk), robust=True)
    return report


def report_staff_tell(*, report_id: int) -> bool:
    """Email the staff addresses (``MANAGERS``) about a message's first report; False when there is
    nothing to send: told already (a task delivered twice, the sweep), not the first report, or no
    address set. The report is claimed before the email goes, so two senders never both send it; a
    send that fails hands the claim back for the task's retry or the sweep, and a sender that dies
    between the two leaves it told: at most one email per message."""
    if not settings.MANAGERS:
        return False
    claimed = selectors.reports_staff_not_told().filter(pk=report_id).update(staff_told_at=timezone.now())
    if not claimed:
        return False
    report = MessageReport.objects.select_related("message__match", "message__author", "reporter").get(pk=report_id)
    message = report.message
    context = {
        "report": report,
        "message": message,
        "match": message.match,
        "author": message.author,
        "reporter": report.reporter,
        "match_url": settings.SITE_URL + message.match.get_absolute_url(),
        "admin_url": settings.SITE_URL + reverse("admin:chat_message_change", args=[message.pk]),
    }
    with timezone.override(UTC):
        subject = render_to_string("emails/message_reported_subject.txt", context, using="text").strip()
        body = render_to_string("emails/message_reported.txt", context, using="text")
    try:
        ReadableEmail(subject, body, to=list(settings.MANAGERS)).send()
    except Exception:
        MessageReport.objects.filter(pk=report_id).update(staff_told_at=None)
        raise
    return True
