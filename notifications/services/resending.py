"""Staff sending a notice again, as it was written (the admin's "Send again"), where that still
makes sense."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from chat.models import Message
from games.services import ServiceError
from notifications import tasks
from notifications.models import Notification
from notifications.selectors import with_resend_facts
from notifications.services.delivery import TURN_NOTICES
from notifications.services.outbox import email_wanted
from notifications.services.texts import indented

NOT_SENT_YET = "It has not gone out yet: it goes at its time, so sending it now would send it twice."
NO_LONGER_THEIR_TURN = "It is out of date: it is no longer their turn in that match, so it would mislead them."
INVITATION_CLOSED = "It is out of date: the invitation is no longer open, so it would mislead them."
EMAIL_NOT_WANTED = "They chose in their profile to get no such email, so it is not sent again."
NO_WEBHOOK_NOW = "They have no webhook any more, so it is not sent again."
NO_EMAIL_NOW = "They have no email address any more, so it is not sent again."
NOTHING_TO_RESEND = "It has no text to send again (a digest is written when it goes out, and this one never did)."
ACCOUNT_CLOSED = "Their account is closed, so nothing more is sent to them."
QUOTES_A_REMOVED_MESSAGE = "It quotes a message staff removed since, so it is not sent again."


def resend_refusal(notice: Notification) -> str:
    """Why staff may not send ``notice`` again, or "" (the admin offers "Send again" only then).
    ``notice`` is read through ``selectors.with_resend_facts``, with its player. A turn notice
    or an invitation sent again must still be true; the other kinds tell of something that
    happened and stays so."""
    if not notice.body:
        return NOTHING_TO_RESEND
    if notice.sent_at is None and notice.outcome == Notification.Outcome.PENDING:
        return NOT_SENT_YET
    user = notice.user
    if not user.is_active:
        return ACCOUNT_CLOSED  # a copy skips the checks made when sending: it would reach a closed account
    if notice.channel == Notification.Channel.EMAIL and not email_wanted(user, notice.kind):
        return EMAIL_NOT_WANTED  # staff may not undo an unsubscribe
    if notice.channel == Notification.Channel.WEBHOOK and not user.webhook_url:
        return NO_WEBHOOK_NOW
    if notice.channel == Notification.Channel.EMAIL and not user.email:
        return NO_EMAIL_NOW
    if notice.match_id is None:
        return ""
    if notice.kind in TURN_NOTICES and not notice.their_turn:
        return NO_LONGER_THEIR_TURN
    if notice.kind == Notification.Kind.INVITATION and not notice.still_invited:
        return INVITATION_CLOSED
    if (
        notice.kind == Notification.Kind.MESSAGE
        and notice.removed_since
        and any(
            indented(text) in notice.body
            for text in Message.objects.filter(
                match_id=notice.match_id, pk__gte=notice.first_message_id, hidden=True
            ).values_list("text", flat=True)
        )
    ):
        return QUOTES_A_REMOVED_MESSAGE  # a copy goes out as it was written: the text staff removed with it
    return ""


def notification_resend(*, notification_id: int) -> Notification:
    """Staff: send a notice again, as it was written, in a new outbox row (returned)."""
    original = with_resend_facts(Notification.objects.select_related("match", "user")).get(pk=notification_id)
    if refusal := resend_refusal(original):
        raise ServiceError(refusal)
    with transaction.atomic():
        copy = Notification.objects.create(
            user=original.user,
            match=original.match,
            kind=original.kind,
            channel=original.channel,
            subject=original.subject,
            body=original.body,
            resent_from=original,
        )
        transaction.on_commit(partial(tasks.enqueue_notification, copy.pk), robust=True)
    return copy
