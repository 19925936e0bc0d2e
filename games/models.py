"""Matches, their seats, the append-only move log, status events and the email outbox.

Games themselves have no tables: a match stores its game's slug, options and the
game's own JSON state, and ``version`` counts the moves applied (the optimistic lock).
"""

from __future__ import annotations

import re
from collections import Counter

from django.conf import settings
from django.db import models
from django.db.models import Q
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
    """``timezone.now()`` looked up at each call, so tests that move the clock move defaults too."""
    return timezone.now()


DAY = 86400


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

    class Meta:
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "-created_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["rematch_of"], condition=~models.Q(status="aborted"), name="one_rematch_not_cancelled"
            )
        ]

    def __str__(self) -> str:
        return f"{self.game_obj.name} #{self.pk}"

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


def seat_names(seats: list[Seat]) -> dict[int, str]:
    """Each seat's name for a sentence, with its number where seats share a name (three
    "AI (Strong)" seats), so that "... wins" always says who."""
    return _told_apart({seat.number: seat.occupant_name for seat in seats})


def _told_apart(names: dict[int, str]) -> dict[int, str]:
    count = Counter(names.values())
    return {
        number: name if count[name] == 1 else with_detail(name, f"player {number + 1}")
        for number, name in names.items()
    }


def names_in_words(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C", as the match page lists names."""
    return f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names)


def scores_by_name(names: dict[int, str], scores: list[int]) -> str:
    """A result's scores with whose they are: "Alice 24, AI (Easy) 23"."""
    return ", ".join(f"{names[number]} {points}" for number, points in enumerate(scores))


def seat_names_at(
    seats: list[Seat], moves: list[MoveRecord], level_changes: list[MatchEvent], ply: int
) -> dict[int, str]:
    """``seat_names`` as they were after ``ply`` moves: a seat the AI took over later still
    bears its former player's name there, and an AI whose level staff changed later its
    former level, as the log, written at the time, does. ``level_changes`` oldest first."""
    names = {}
    for seat in seats:
        if seat.former_user_id is not None and _before_the_ai_moved(seat, moves, ply):
            names[seat.number] = seat.former_user.public_name
        elif seat.is_ai:
            names[seat.number] = seat.ai_name(_ai_level_at(seat, level_changes, ply))
        else:
            names[seat.number] = seat.occupant_name
    return _told_apart(names)


def _before_the_ai_moved(seat: Seat, moves: list[MoveRecord], ply: int) -> bool:
    first_ai = next((move.ply for move in moves if move.seat == seat.number and move.by_ai), None)
    return first_ai is None or ply <= first_ai


def _ai_level_at(seat: Seat, level_changes: list[MatchEvent], ply: int) -> int:
    """A change made after move N counts from position N + 1 (position N shows move N, made
    at the former level); one made before the first move counts from the start."""
    for change in level_changes:
        if change.seat == seat.number and ply < (change.ply + 1 if change.ply else 0):
            return change.former_ai_level
    return seat.ai_level


def _days(count: int | None) -> str:
    return f"{count} day{'' if count == 1 else 's'}"


PLAYER_NUMBER = re.compile(r"\bPlayer ([1-9])\b")  # how the Mancala and Jeexa engines name seats
CAPITALISED = re.compile(r"\b([A-Z][a-z]+)\b('s)?")  # Mecca and Mesopotamia name a player by colour ("Green")
SEAT_NUMBER = re.compile(r"(?:, player \d(?=\)$)| \(player \d\)$)")  # seat_names' way of telling same names apart


def with_player_names(text: str, names: dict[int, str], colours: dict[int, str] | None = None) -> str:
    """An engine's sentence with each "Player N" replaced by that seat's name ("Bob sows
    tile 4"), as the seat list names players. Where the engine names players by colour,
    ``colours`` gives each seat's colour words as the seat list shows them ("Yellow and
    Green"): "Green places …" becomes "Bob (green) places …", or "AI (Easy, green) places …"
    (the colour then tells three "AI (Easy)" seats apart), and "Blue's b2" becomes "Bob's b2".
    A pilgrim's or piece's colour is written in small letters and stays."""
    text = PLAYER_NUMBER.sub(lambda found: names.get(int(found[1]) - 1, found[0]), text)
    owners = {word: seat for seat, words in (colours or {}).items() for word in words.split(" and ") if word}

    def named(found: re.Match) -> str:
        seat = owners.get(found[1])
        if seat is None or seat not in names:
            return found[0]
        if found[2] and not names[seat].endswith(")"):
            return f"{names[seat]}'s"
        return with_colour(names[seat], found[1].lower()) + (found[2] or "")

    return CAPITALISED.sub(named, text) if owners else text


def with_colour(name: str, colour: str) -> str:
    """A seat's name with its colour words: "Bob (red)", and "AI (Easy, red)", not
    "AI (Easy, player 2, red)": the colour tells two AI (Easy) seats apart."""
    return with_detail(SEAT_NUMBER.sub("", name), colour)


def with_detail(name: str, detail: str) -> str:
    """ "Bob (red)", and "AI (Easy, red)" rather than "AI (Easy) (red)"."""
    return f"{name[:-1]}, {detail})" if name.endswith(")") else f"{name} ({detail})"


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


class Message(models.Model):
    """A line one player wrote to the others in a match; whoever may open the match reads it."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="messages")
    # Closing an account keeps the row (its public name too); deleting a user, which staff could,
    # keeps the message, written by "a former player".
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="match_messages"
    )
    text = models.TextField()  # at most MESSAGE_LENGTH characters: games.services.message_post
    after_move = models.PositiveIntegerField(help_text="The match's version (moves played) when it was written.")
    created_at = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(
        default=False, help_text="Removed by staff: the match page shows its author and time, not its text."
    )

    class Meta:
        # The match page reads the latest 50 of one match, newest first, by this index.
        indexes = [models.Index(fields=["match", "-id"], name="message_latest")]

    def __str__(self) -> str:
        return f"{self.author.public_name if self.author else 'A former player'} after move {self.after_move}"


class MessageReport(models.Model):
    """A player's word to staff that a message is out of place. Staff read it in the admin; the
    reported player never learns who reported them."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="message_reports")
    reason = models.CharField(max_length=200, blank=True)  # as services.message_report checks it
    created_at = models.DateTimeField(auto_now_add=True)
    # Only a message's first report tells staff (services.report_staff_tell): when that email went out.
    staff_told_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_reporter")]

    def __str__(self) -> str:
        return f"Report of message {self.message_id}"


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
    match = models.ForeignKey(Match, on_delete=models.CASCADE, null=True, blank=True, related_name="notifications")
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
    first_message = models.ForeignKey(Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
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
