"""Sending one notice: claim its row, check it is still wanted and true, write it as it stands
now, deliver it (email or webhook), and mark it done; a failure is tried again later, a
permanent one is recorded."""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.unsubscribe import MESSAGES, REMINDERS, TURN_EMAILS, unsubscribe_url
from chat.models import Message
from config import webhooks
from config.mail import ReadableEmail, conversation
from config.publish import MAX_SEND_ATTEMPTS
from games.models import Seat, Status
from games.services.base import lock_match
from notifications.models import Notification
from notifications.services import texts
from notifications.services.outbox import digest_schedule, email_wanted

log = logging.getLogger(__name__)

# Notices about the player's turn: not sent once it is over, and written again as they go out.
TURN_NOTICES = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER, Notification.Kind.EXTENSION)
# A player seen on the match page this recently gets no "your turn" message about it.
PRESENCE_SECONDS = 90
# Seconds a sender may hold a notification before another sender may try it again.
NOTIFICATION_CLAIM_SECONDS = 300
# Why messages written before staff deactivated the player are not sent (the account cannot sign in).
PLAYER_DEACTIVATED = "The player's account is deactivated."
NO_EMAIL_ADDRESS = "The player has no email address."  # one who closed their account, which staff opened again
MESSAGES_SEEN = "The player read them on the match page."
MESSAGES_REMOVED = "Staff removed every message it told of."
NO_SEAT_NOW = "The player has no seat in the match any more."


class PermanentFailure(Exception):
    """A delivery that will never succeed (address refused, webhook gone): not retried."""


def notification_send(*, notification_id: int) -> bool:
    """Claim the row, deliver it, mark it done. False when another sender has it, it went
    out already, it is not needed any more (skipped), it waits a little longer (a "your
    turn" for a player who had the match open a moment ago) or it failed for good."""
    now = timezone.now()
    claimed = Notification.objects.filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now), pk=notification_id, sent_at__isnull=True
    ).update(claimed_until=now + timedelta(seconds=NOTIFICATION_CLAIM_SECONDS), attempts=F("attempts") + 1)
    if not claimed:
        return False
    notification = Notification.objects.select_related("user", "match").get(pk=notification_id)
    reason, told_upto = "", None
    if not notification.resent_from_id:  # a copy staff asked for goes out as it was written
        seat = _turn_seat(notification)
        reason = _skip_reason(notification, seat, now)
        later = None
        if not reason and notification.kind == Notification.Kind.MESSAGE:
            reason, later, told_upto = _messages_render(notification, now)
        elif not reason:
            later = _seen_before_the_turn(notification, seat, now)
        if not reason and later:
            # Not an attempt to deliver: the claim is handed back with the new time.
            Notification.objects.filter(pk=notification_id).update(
                claimed_until=None, due_at=later, attempts=F("attempts") - 1
            )
            return False
        if not reason and notification.kind == Notification.Kind.DIGEST:
            reason = texts.digest_render(notification)
        elif not reason and seat is not None:
            texts.turn_render(notification, seat)
    if reason:
        _close(notification, Notification.Outcome.SKIPPED, reason, told_upto=told_upto)
        return False
    try:
        _deliver(notification)
    except Exception as error:
        if isinstance(error, PermanentFailure) or notification.attempts >= MAX_SEND_ATTEMPTS:
            log.warning("Notification %s failed for good: %s", notification_id, error)
            _close(notification, Notification.Outcome.FAILED, str(error) or type(error).__name__, told_upto=told_upto)
            _next_digest(notification)  # the address may be corrected by tomorrow
            return False
        backoff = settings.NOTIFICATION_RETRY_SECONDS * 2 ** (notification.attempts - 1)
        Notification.objects.filter(pk=notification_id).update(
            claimed_until=None,
            last_error=(str(error) or type(error).__name__)[:300],
            due_at=timezone.now() + timedelta(seconds=backoff),
        )
        raise
    _close(notification, Notification.Outcome.SENT, "", told_upto=told_upto)
    _next_digest(notification)
    return True


def _next_digest(notification: Notification) -> None:
    """After a digest went out, or failed for good: tomorrow's, as what waited today may wait still."""
    if notification.kind == Notification.Kind.DIGEST:
        digest_schedule(notification.user, timezone.now(), just_sent=True)


def _close(notification: Notification, outcome: str, error: str, *, told_upto: int | None = None) -> None:
    """Mark it done. A notice of messages that told of those up to ``told_upto`` (their last id)
    is closed with its match locked, as ``message_post`` locks it: a message written after that
    one, which found this notice waiting and left it to tell of it, gets a notice of its own."""
    if told_upto is None:
        _mark_done(notification, outcome, error)
        return
    with transaction.atomic():
        match = lock_match(notification.match_id)
        _mark_done(notification, outcome, error)
        later = (
            Message.objects.filter(match=match, pk__gt=told_upto)
            .exclude(author_id=notification.user_id)
            .order_by("pk")
            .first()
        )
        if later is not None and notification.user.is_active:
            Notification.objects.bulk_create(
                [
                    Notification(
                        user=notification.user,
                        match=match,
                        kind=Notification.Kind.MESSAGE,
                        channel=notification.channel,
                        first_message=later,
                        due_at=later.created_at + timedelta(seconds=settings.MESSAGE_NOTICE_DELAY_SECONDS),
                    )
                ],
                ignore_conflicts=True,
            )


def _mark_done(notification: Notification, outcome: str, error: str) -> None:
    Notification.objects.filter(pk=notification.pk).update(
        sent_at=timezone.now(), outcome=outcome, last_error=error[:300], claimed_until=None
    )


def _turn_seat(notification: Notification) -> Seat | None:
    """For a notice about the player's turn (TURN_NOTICES): their seat if it is still to act in
    a match in play (read once, for both checks below)."""
    if notification.match_id is None or notification.kind not in TURN_NOTICES:
        return None
    return Seat.objects.filter(
        match_id=notification.match_id, user_id=notification.user_id, to_act=True, match__status=Status.ACTIVE
    ).first()


def _skip_reason(notification: Notification, seat: Seat | None, now: datetime) -> str:
    """Why a message is not wanted or not needed any more, or "": the player may have
    changed their email settings since it was written, and a "your turn" or a reminder
    may be out of date (``seat``: its ``_turn_seat``)."""
    kind = notification.kind
    if not notification.user.is_active:
        return PLAYER_DEACTIVATED
    if notification.channel == Notification.Channel.EMAIL and not notification.user.email:
        return NO_EMAIL_ADDRESS  # Django would send to nobody and count it sent
    if notification.channel == Notification.Channel.WEBHOOK and not notification.user.webhook_url:
        return "The player removed the webhook."
    if kind == Notification.Kind.REMINDER and not notification.user.reminders:
        return "The player turned reminders off."  # by email and webhook alike, as when they are written
    if (
        notification.channel == Notification.Channel.EMAIL
        and kind != Notification.Kind.DIGEST
        and not email_wanted(notification.user, kind)
    ):
        return "The player turned these emails off."
    if (
        kind == Notification.Kind.INVITATION
        and notification.match_id is not None
        and not Seat.objects.filter(
            match_id=notification.match_id, user_id=notification.user_id, accepted=False, match__status=Status.OPEN
        ).exists()
    ):
        # Held back (a mail server down) past its answer or the match's cancellation: it would
        # arrive after the cancellation notice and invite to a match that is gone.
        return "The invitation is no longer open: answered, withdrawn or cancelled."
    if notification.match_id is None or notification.kind not in TURN_NOTICES:
        return ""
    if seat is None:
        return "The player's turn is over."
    if notification.kind == Notification.Kind.REMINDER and seat.deadline is None:
        return "The player's clock is stopped."
    if (
        notification.kind == Notification.Kind.YOUR_TURN
        and seat.last_seen_at is not None
        and seat.last_seen_at >= now - timedelta(seconds=PRESENCE_SECONDS)
        and seat.last_seen_at >= notification.created_at
    ):  # written when the turn began
        return "The player is looking at the match."
    return ""


def _seen_before_the_turn(notification: Notification, seat: Seat | None, now: datetime) -> datetime | None:
    """For a "your turn": when to look again, if the player had the match open until just
    before the turn began. They may still be looking (their page says "Your turn" then, and
    presence is written every half minute) or may have closed it a moment before; skipped
    outright, the message was lost for good in the second case."""
    if notification.kind != Notification.Kind.YOUR_TURN or seat is None:
        return None
    last_seen = seat.last_seen_at
    if last_seen is None or last_seen >= notification.created_at:
        return None
    later = last_seen + timedelta(seconds=PRESENCE_SECONDS)
    return later if later > now else None


def _messages_render(notification: Notification, now: datetime) -> tuple[str, datetime | None, int]:
    """A notice of messages as it goes out: of the messages the others wrote since its first, those
    staff did not remove and the player has not read on the match page (written after the page
    last recorded them there). Returns why it is not needed ("" if it is), when to look again (the
    player had the page open a moment ago, and may be reading them now: once the page has been
    quiet for PRESENCE_SECONDS), and the id of the last message of the match it took into account."""
    user, match = notification.user, notification.match
    written = list(
        Message.objects.filter(match=match, pk__gte=notification.first_message_id or 0)
        .select_related("author")
        .order_by("pk")
    )
    told_upto = written[-1].pk if written else notification.first_message_id or 0
    others = [message for message in written if message.author_id != user.pk]
    shown = [message for message in others if not message.hidden]
    seat = Seat.objects.filter(match=match, user=user).first()
    seen = seat.last_seen_at if seat else None
    unseen = [message for message in shown if seen is None or message.created_at > seen]
    if seat is None:
        return NO_SEAT_NOW, None, told_upto
    if others and not shown:
        return MESSAGES_REMOVED, None, told_upto
    if not unseen:
        return MESSAGES_SEEN, None, told_upto
    if seen is not None and seen + timedelta(seconds=PRESENCE_SECONDS) > now:
        return "", seen + timedelta(seconds=PRESENCE_SECONDS), told_upto
    url = f"{texts.match_url(match)}#messages"
    subject, notification.body = texts.written(
        user,
        match,
        "message",
        {
            "url": url,
            "authors": texts.authors(unseen),
            "count": len(unseen),
            "quote": texts.quote(unseen[0].text),
            "messages": [
                (texts.author_name(message), message.created_at, texts.indented(message.text))
                for message in unseen[: texts.MESSAGES_LISTED]
            ],
            "more": max(0, len(unseen) - texts.MESSAGES_LISTED),
        },
    )
    notification.subject = subject[:200]
    if notification.channel == Notification.Channel.WEBHOOK:
        notification.body = f"{notification.subject}\n{url}"
    Notification.objects.filter(pk=notification.pk).update(subject=notification.subject, body=notification.body)
    return "", None, told_upto


def _deliver(notification: Notification) -> None:
    if notification.channel == Notification.Channel.WEBHOOK:
        _post_webhook(notification)
    else:
        _send_email(notification)


def _send_email(notification: Notification) -> None:
    topic = {Notification.Kind.REMINDER: REMINDERS, Notification.Kind.MESSAGE: MESSAGES}.get(
        notification.kind, TURN_EMAILS
    )
    url = unsubscribe_url(notification.user_id, topic)
    body = f"{notification.body.rstrip()}\n\n-- \nUnsubscribe with one click: {url}\n"
    headers = {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    if notification.match_id is not None:  # a digest, about several matches, stands alone
        headers |= conversation(f"match-{notification.match_id}")
    message = ReadableEmail(notification.subject, body, to=[notification.user.email], headers=headers)
    try:
        message.send()
    except smtplib.SMTPRecipientsRefused as error:
        codes = [code for code, _ in error.recipients.values()]
        if codes and all(code >= 500 for code in codes):
            raise PermanentFailure(f"The mail server refused the address: {error.recipients}") from error
        raise
    except smtplib.SMTPResponseException as error:
        if error.smtp_code >= 500:
            raise PermanentFailure(
                f"The mail server refused the message: {error.smtp_code} {error.smtp_error!r}"
            ) from error
        raise


def _post_webhook(notification: Notification) -> None:
    try:
        webhooks.post(notification.user.webhook_url, notification.body)
    except webhooks.Refused as refused:
        raise PermanentFailure(str(refused)) from refused
