"""Every write to the outbox and every delivery goes through here (the signal receivers, the
tasks, the admin and the profile call these)."""

from notifications.services.delivery import PRESENCE_SECONDS, PermanentFailure, notification_send
from notifications.services.outbox import next_digest_at, notification_settings_changed
from notifications.services.resending import notification_resend, resend_refusal

__all__ = [
    "PRESENCE_SECONDS",
    "PermanentFailure",
    "next_digest_at",
    "notification_resend",
    "notification_send",
    "notification_settings_changed",
    "resend_refusal",
]
