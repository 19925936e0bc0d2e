"""The outbox: every email and webhook post the site sends a player, as a row written in the
same transaction as what causes it."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import now


class Notification(models.Model):
    """The outbox: one message on one channel, written in the same transaction as what
    causes it, due at ``due_at``, delivered by a task and, if that is lost or fails, by
    the periodic sweep (the relay). Reminders, digests and notices of messages are rows due later."""

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", "Your turn"
        MATCH_OVER = "match_over", "Match over"
        INVITATION = "invitation", "Invitation"
        REMINDER = "reminder", "Reminder before the clock runs out"
        TIMEOUT = "timeout", "Time ran out"
        SEAT_TAKEN = "seat_taken", "Seat given to the AI"
        EXTENSION = "extension", "More time from staff"
        DIGEST = "digest", "Daily digest"
        MESSAGE = "message", "New message"

    class Channel(models.TextChoices):
        EMAIL = "email", "Email"
        WEBHOOK = "webhook", "Webhook"

    class Outcome(models.TextChoices):
        PENDING = "", "Pending"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Not needed any more"
        FAILED = "failed", "Failed for good"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    match = models.ForeignKey(
        "games.Match", on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.EMAIL)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    due_at = models.DateTimeField(default=now, help_text="Not sent before this time.")
    claimed_until = models.DateTimeField(null=True, blank=True)
    # When it was done with: sent, skipped or failed for good (``outcome`` says which).
    sent_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, default=Outcome.PENDING, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    # A copy staff asked for: sent as it stands, even if the turn is over or a digest waits.
    resent_from = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # A notice of messages: the first it tells of; it tells of those after it too, written while it waits
    # (its text is written as it goes out, of those the player has not seen on the match page).
    first_message = models.ForeignKey(
        "chat.Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "games_notification"  # made by the games app, which held the outbox first
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["due_at"], condition=Q(sent_at__isnull=True), name="notification_due"),
            models.Index(fields=["-created_at"], name="notification_newest"),  # the admin list's order
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "channel"],
                condition=Q(kind="digest", sent_at__isnull=True, resent_from__isnull=True),
                name="notification_one_pending_digest",
            ),
            # One notice of messages waits per player, match and channel: a burst of messages makes one.
            models.UniqueConstraint(
                fields=["user", "match", "channel"],
                condition=Q(kind="message", sent_at__isnull=True, resent_from__isnull=True),
                name="notification_one_pending_message",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.user} by {self.channel} ({self.outcome or 'pending'})"
