"""Matches, their seats, the append-only move log and status events.

Games themselves have no tables: a match stores its game's slug, options and the
game's own JSON state, and ``version`` counts the moves applied (the optimistic lock).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games.boards import options_label
from games.engine import get_game


class Status(models.TextChoices):
    OPEN = "open", "Waiting for players"
    ACTIVE = "active", "In play"
    FINISHED = "finished", "Finished"
    ABORTED = "aborted", "Cancelled"  # by staff, its creator or a declined invitation: the site says cancelled


# The status machine: every allowed change, in one place.
STATUS_TRANSITIONS: dict[str, set[str]] = {
    Status.OPEN: {Status.ACTIVE, Status.ABORTED},
    Status.ACTIVE: {Status.FINISHED, Status.ABORTED},
    Status.FINISHED: set(),
    Status.ABORTED: set(),
}


class TimeControl(models.TextChoices):
    NONE = "none", "No time limit"
    PER_MOVE = "per_move", "Fixed days per move"
    BANK = "bank", "Time bank"


class OnTimeout(models.TextChoices):
    LOSE = "lose", "The late player loses (two players)"
    AI = "ai", "The AI takes the late player's seat and plays on"


DAYS_PER_MOVE_CHOICES = (1, 2, 3, 5, 7, 14)


def now():
    """``timezone.now()`` looked up at each call, so tests that move the clock move defaults too
    (the outbox's ``due_at``; its migrations name this function)."""
    return timezone.now()


DAY = 86400


LARGEST_ID = 2**63 - 1  # of a row's id (BigAutoField)


def poll_token(version: int, status: str, revision: int) -> str:
    """What an open match page sends when it polls: any change to the match changes it."""
    return f"{version}-{status}-{revision}"


class Match(models.Model):
    # A registry slug (games.engine.registry); no choices here, so a new game needs no migration.
    game = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # The game's dumped state and its secret seed; never shown as such to anyone.
    state = models.JSONField()
    seed = models.BigIntegerField()
    version = models.PositiveIntegerField(default=0, help_text="Moves applied so far.")
    # Counts the changes that are not moves (an extension, the AI taking a seat, a vacation
    # stopping a clock), so that open pages learn of them by polling too.
    revision = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, help_text="Scores and winners once finished.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="created_matches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_move_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The clock, chosen by the creator: see README ("Time controls").
    time_control = models.CharField(max_length=10, choices=TimeControl.choices, default=TimeControl.NONE)
    days_per_move = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_initial_days = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_increment_days = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_cap_days = models.PositiveSmallIntegerField(null=True, blank=True)
    on_timeout = models.CharField(max_length=8, choices=OnTimeout.choices, default=OnTimeout.LOSE)
    # Created with a seat for anyone (an open challenge): someone who was too late to join
    # may be told what happened to it; a match among invited players stays theirs alone.
    open_to_all = models.BooleanField(default=False)
    # A finished match has at most one rematch that is not cancelled, whoever of its players
    # asks first; a declined or withdrawn one stays a rematch of it.
    rematch_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches")
    # While open: when it is cancelled if no seat is taken or invitation accepted meanwhile
    # (``OPEN_MATCH_EXPIRY_DAYS`` after it was created or a seat was last taken), and whether the
    # invited players still to answer were told it runs out (once per such moment).
    open_until = models.DateTimeField(null=True, blank=True)
    open_until_told = models.BooleanField(default=False)
    # The creator's choices: whether the result changes the players' ratings, whether anyone (signed
    # in or not) may watch, and whether those watching read the players' messages too.
    rated = models.BooleanField(default=True)
    public = models.BooleanField(default=True)
    chat_public = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            # The public matches the home page and each game's page list (games.selectors.public_matches):
            # in play by their last move, finished by their end; each read in order, a handful of rows.
            models.Index(fields=["-last_move_at"], condition=Q(public=True, status="active"), name="match_public_live"),
            models.Index(
                fields=["game", "-last_move_at"],
                condition=Q(public=True, status="active"),
                name="match_public_live_game",
            ),
            models.Index(
                fields=["-finished_at"], condition=Q(public=True, status="finished"), name="match_public_finished"
            ),
            models.Index(
                fields=["game", "-finished_at"],
                condition=Q(public=True, status="finished"),
                name="match_public_finished_game",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["rematch_of"], condition=~models.Q(status="aborted"), name="one_rematch_not_cancelled"
            )
        ]

    def __str__(self) -> str:
        return f"{self.game_obj.name} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("match_detail", args=[self.pk])

    @property
    def game_obj(self):
        return get_game(self.game)

    @property
    def game_state(self):
        return self.game_obj.load(self.state)

    @property
    def on_timeout_words(self) -> str:
        """What happens when a clock runs out, to follow a colon ("the AI takes …")."""
        label = self.get_on_timeout_display().split(" (")[0]  # the form's "(two players)" says nothing here
        return label[:1].lower() + label[1:]

    @property
    def clock_label(self) -> str:
        if self.time_control == TimeControl.PER_MOVE:
            return f"{_days(self.days_per_move)} per move"
        if self.time_control == TimeControl.BANK:
            if not self.bank_increment_days:  # the bank only shrinks: its cap says nothing
                return f"Time bank: {_days(self.bank_initial_days)} for all your moves"
            return (
                f"Time bank: {_days(self.bank_initial_days)}, +{_days(self.bank_increment_days)} per move, "
                f"at most {_days(self.bank_cap_days)}"
            )
        return "No time limit"

    @property
    def clock_terms(self) -> str:
        """The clock and what its running out does: what a player agrees to by joining."""
        if self.time_control == TimeControl.NONE:
            return self.clock_label
        return f"{self.clock_label}; when a clock runs out: {self.on_timeout_words}"

    @property
    def options_label(self) -> str:
        return options_label(self.game, self.options)

    @property
    def won_on_tie_break(self) -> bool:
        """One winner, though another seat scored as much (Mecca: more pilgrims close to the Kaaba),
        and no other reason given (Mecca: the one player with an empty hand wins whatever the score)."""
        result = self.result or {}
        scores, winners = result.get("scores") or [], result.get("winners") or []
        if result.get("reason") != "played out":
            return False
        return len(winners) == 1 and scores.count(max(scores, default=None)) > 1

    @property
    def poll_token(self) -> str:
        return poll_token(self.version, self.status, self.revision)

    @property
    def full_name(self) -> str:
        """ "Mancala #3 (Egyptian)", or "Mecca #4" for a game without options."""
        label = self.options_label
        return f"{self} ({label})" if label else str(self)


class Seat(models.Model):
    """A place at the table: a person, an AI level, or (while the match is open) nobody yet."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="seats"
    )
    ai_level = models.PositiveSmallIntegerField(null=True, blank=True)
    # Who sat here before the AI took over (resigned, ran out of time, replaced by staff):
    # they may still watch the match, from no seat.
    former_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="former_seats"
    )
    # When the AI took the seat from ``former_user`` in a match in play: they took part, and
    # hear how it ends. Empty when they left before the start (an invitation withdrawn).
    taken_over_at = models.DateTimeField(null=True, blank=True)
    # An invited player is seated but has not accepted yet.
    accepted = models.BooleanField(default=True)
    # The creator offered this seat to its player (an invitation, answered or not), rather than
    # someone joining an open seat: what the daily limit on invitations counts.
    invited = models.BooleanField(default=False)
    to_act = models.BooleanField(default=False, help_text="This seat must move now.")
    # The clock. ``deadline`` runs while the seat is to act (null: no clock or stopped);
    # ``clock_started_at`` is when it was last set going (the turn's start, the end of a
    # vacation, a staff extension): reminders count their share of the time from there;
    # ``reminded_share`` is the highest share (percent) whose moment came in this turn before
    # the clock last stopped or moved: after it restarts, only higher shares are reminded of;
    # ``bank_seconds`` is a time bank's balance between turns; ``paused_seconds`` the time
    # left when a vacation stopped the clock.
    deadline = models.DateTimeField(null=True, blank=True)
    clock_started_at = models.DateTimeField(null=True, blank=True)
    reminded_share = models.PositiveSmallIntegerField(default=0)
    bank_seconds = models.PositiveIntegerField(null=True, blank=True)
    paused_seconds = models.PositiveIntegerField(null=True, blank=True)
    # When the player last had the match page open (throttled): no email about what they see.
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # Turns its player finished on a clock, and those their clock ran out in: how reliable a player is.
    turns = models.PositiveIntegerField(default=0)
    timeouts = models.PositiveIntegerField(default=0)
    # Steps of a turn in play that its player may still take back (``games.services.holding``), in
    # order, as notations: not played yet, so nobody else sees them. They count only while the match
    # is at ``held_at`` (its version when they were held): any move or timeout leaves them behind.
    held = models.JSONField(default=list, blank=True)
    held_at = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="seat_unique_number"),
            models.CheckConstraint(
                condition=~(Q(user__isnull=False) & Q(ai_level__isnull=False)),
                name="seat_user_or_ai",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "to_act"]),
            models.Index(fields=["deadline"], condition=Q(deadline__isnull=False), name="seat_deadline_running"),
            # The AI sweep reads only the AI seats to act, not every seat ever played.
            models.Index(fields=["match"], condition=Q(to_act=True, ai_level__isnull=False), name="seat_ai_to_act"),
            # Invitations waiting for an answer, a few among all the player's seats: with ("user", "to_act"),
            # the top bar's count of matches waiting reads those seats alone (selectors.waiting_count).
            models.Index(fields=["user"], condition=Q(accepted=False), name="seat_invited"),
        ]

    def __str__(self) -> str:
        return f"Seat {self.number + 1}: {self.occupant_name}"

    @property
    def is_ai(self) -> bool:
        return self.ai_level is not None

    @property
    def is_open(self) -> bool:
        return self.user_id is None and self.ai_level is None

    @property
    def occupant_name(self) -> str:
        if self.is_ai:
            return self.ai_name(self.ai_level)
        if self.user_id is None:
            return "Open seat"
        return self.user.public_name

    def ai_name(self, level: int) -> str:
        return f"AI ({self.match.game_obj.ai_levels.get(level, level)})"


def _days(count: int | None) -> str:
    return f"{count} day{'' if count == 1 else 's'}"


class MoveRecord(models.Model):
    """One applied move. Append-only: ``seed`` + these records replay the stored state."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField(help_text="The match version the move was applied to.")
    seat = models.PositiveSmallIntegerField()
    notation = models.CharField(max_length=64)
    description = models.TextField()  # Jeexa: a roll can pass the turn round the table; 1,000+ characters
    by_ai = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "ply"]
        constraints = [models.UniqueConstraint(fields=["match", "ply"], name="move_unique_ply")]

    def __str__(self) -> str:
        return f"{self.ply + 1}. {self.description}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Move records are append-only.")
        super().save(*args, **kwargs)


class MatchEvent(models.Model):
    """A change of a match's status or seating, with who did it and why."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    from_status = models.CharField(max_length=16, choices=Status.choices, blank=True)
    to_status = models.CharField(max_length=16, choices=Status.choices)
    reason = models.TextField()  # names (up to 150 characters) and a staff reason (150) can pass 200
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set for events shown in the move log (timeouts, seats taken by the AI, extensions): the
    # number of moves played when it happened.
    ply = models.PositiveIntegerField(null=True, blank=True)
    # Set when staff change the level of an AI seat: the replay names that AI, before the
    # change, at the level it played then.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    former_ai_level = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.from_status or '—'} → {self.to_status}: {self.reason}"


class Watch(models.Model):
    """A match someone who does not play in it follows from the Watching list of My matches, with
    what they had seen of it when they last had its page open: the moves, and when."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="watches")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="watches")
    created_at = models.DateTimeField(auto_now_add=True)
    seen_version = models.PositiveIntegerField(default=0, help_text="Moves played when the page was last open.")
    seen_at = models.DateTimeField(default=now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "match"], name="watch_unique_user_match")]

    def __str__(self) -> str:
        return f"{self.user} watches {self.match_id}"
