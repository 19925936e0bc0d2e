"""Messages the players of a match write to each other, and their reports to staff."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Message(models.Model):
    """A line one player wrote to the others in a match; whoever may open the match reads it."""

    match = models.ForeignKey("games.Match", on_delete=models.CASCADE, related_name="messages")
    # Closing an account keeps the row (its public name too); deleting a user, which staff could,
    # keeps the message, written by "a former player".
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="match_messages"
    )
    text = models.TextField()  # at most MESSAGE_LENGTH characters: chat.services.message_post
    after_move = models.PositiveIntegerField(help_text="The match's version (moves played) when it was written.")
    created_at = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(
        default=False, help_text="Removed by staff: the match page shows its author and time, not its text."
    )

    class Meta:
        db_table = "games_message"  # made by the games app, which held messages first
        # The match page reads the latest 50 of one match, newest first, by this index.
        indexes = [models.Index(fields=["match", "-id"], name="message_latest")]

    def __str__(self) -> str:
        return f"{self.author.public_name if self.author else 'A former player'} after move {self.after_move}"


class MessageReport(models.Model):
    """A player's word to staff that a message is out of place. Staff read it in the admin; the
    reported player never learns who reported them."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="message_reports")
    reason = models.CharField(max_length=200, blank=True)  # as chat.services.message_report checks it
    created_at = models.DateTimeField(auto_now_add=True)
    # Only a message's first report tells staff (chat.services.report_staff_tell): when that email went out.
    staff_told_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_messagereport"
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_reporter")]

    def __str__(self) -> str:
        return f"Report of message {self.message_id}"
