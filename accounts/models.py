from __future__ import annotations

import zoneinfo
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, URLValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone


def _time_zone_names() -> set[str]:
    """Places people live in, and UTC. The tz database's zone.tab lists each country's zones by
    today's names ("Asia/Kolkata", not the old alias "Asia/Calcutta"); a machine without it
    offers every "Region/Place" it knows, never the system's own entries ("localtime",
    "Factory") or region-less aliases ("Japan", "EST5EDT")."""
    known = zoneinfo.available_timezones()
    for directory in zoneinfo.TZPATH:
        table = Path(directory) / "zone.tab"
        if table.is_file():
            rows = (line.split("\t") for line in table.read_text().splitlines() if not line.startswith("#"))
            return {row[2] for row in rows if len(row) > 2 and row[2] in known} | {"UTC"}
    system = ("Etc/", "posix/", "right/")
    return {name for name in known if name == "UTC" or ("/" in name and not name.startswith(system))}


TIME_ZONE_CHOICES = [(name, name.replace("_", " ")) for name in sorted(_time_zone_names())]
# Entries of the tz database that name no place: "localtime" is the server's own zone.
SYSTEM_ZONES = {"localtime", "Factory", "posixrules"}


def is_time_zone(name: str) -> bool:
    """Whether a browser or a stored profile may give ``name``: a zone of the tz database,
    today's name or an old one ("Asia/Calcutta", which browsers still give), a fixed offset
    ("Etc/GMT+5"), but no system entry."""
    return name in zoneinfo.available_timezones() and name not in SYSTEM_ZONES


# Reminders before a clock runs out, as the share of the turn's time already used.
REMINDER_CHOICES = [
    ("", "No reminders"),
    ("50", "At half time"),
    ("80", "When 80% of the time is used"),
    ("50,80", "At half time and at 80%"),
    ("50,80,95", "At half time, 80% and 95%"),
]
VACATION_DAYS_PER_YEAR = 30
# Each address field and the field that records when it last changed: a delivery failure
# from before that moment concerns an old address, so the profile no longer lists it.
CHANGE_STAMPS = {"email": "email_changed_at", "webhook_url": "webhook_changed_at"}


class TurnNotice(models.TextChoices):
    INSTANT = "instant", "An email at once"
    DIGEST = "digest", "One daily digest"
    NONE = "none", "No email"


class User(AbstractUser):
    """A player (or a staff member). AI opponents are not users: they live on seats."""

    display_name = models.CharField(max_length=40, blank=True, help_text="Shown to other players.")
    time_zone = models.CharField(max_length=64, default="UTC")  # one of TIME_ZONE_CHOICES (the profile form's)
    # Off by default: one click on the board sends a move, as it always did (site.js asks for a second one).
    confirm_moves = models.BooleanField(
        "Confirm each move before it is sent",
        default=False,
        help_text="A click on the board first selects the move; a second click on Confirm sends it.",
    )
    turn_notice = models.CharField(
        "When it is my turn",
        max_length=8,
        choices=TurnNotice.choices,
        default=TurnNotice.INSTANT,
        help_text="Invitations, results, timeouts and more time from staff come at once, unless you choose no email.",
    )
    digest_hour = models.PositiveSmallIntegerField(
        "Digest hour",
        default=8,
        validators=[MaxValueValidator(23)],
        help_text="The hour of the daily digest, in your time zone (0 to 23).",
    )
    reminders = models.CharField(
        "Reminders before my time runs out", max_length=20, choices=REMINDER_CHOICES, default="50,80", blank=True
    )
    message_emails = models.BooleanField(
        "Email me when another player writes in my matches",
        default=True,
        help_text="A few minutes after the message, unless you read it on the match page first; with the daily "
        "digest, a line in it instead.",
    )
    webhook_url = models.URLField(
        "Webhook URL",
        max_length=500,
        blank=True,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="A Discord or Slack incoming webhook: every notice is also posted there.",
    )
    # Vacation: while ``vacation_until`` is in the future the player's clocks are stopped.
    vacation_started_at = models.DateTimeField(null=True, blank=True)
    vacation_until = models.DateTimeField(null=True, blank=True)
    vacation_year = models.PositiveSmallIntegerField(default=0, help_text="The year vacation_days_used counts.")
    vacation_days_used = models.PositiveSmallIntegerField(default=0)
    email_changed_at = models.DateTimeField(null=True, blank=True)
    webhook_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractUser.Meta):
        indexes = [
            models.Index(fields=["vacation_until"], condition=Q(vacation_until__isnull=False), name="user_on_vacation"),
        ]

    def save(self, **kwargs) -> None:
        kwargs["update_fields"] = self._stamp_changed_addresses(kwargs.get("update_fields"))
        super().save(**kwargs)

    def _stamp_changed_addresses(self, update_fields: Iterable[str] | None) -> list[str] | None:
        """Stamp the addresses that differ from the stored ones. Here rather than in the
        profile form because allauth (a new primary email) and the admin save through here too."""
        watched = [field for field in CHANGE_STAMPS if update_fields is None or field in update_fields]
        if self._state.adding or not watched:
            return update_fields
        stored = User.objects.filter(pk=self.pk).values(*watched).first() or {}
        stamps = [CHANGE_STAMPS[field] for field, value in stored.items() if value != getattr(self, field)]
        now = timezone.now()
        for stamp in stamps:
            setattr(self, stamp, now)
        return None if update_fields is None else [*update_fields, *stamps]

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The player's time zone; UTC for a name this machine does not know."""
        try:
            return zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def vacation_year_now(self, now: datetime) -> int:
        """The year the vacation allowance counts: the player's own. In UTC's, a player in
        Chatham spent New Year's morning still in last year's allowance, and one in New York
        started next year's on New Year's Eve."""
        return now.astimezone(self.zone).year

    def vacation_days_left(self, now: datetime) -> int:
        used = self.vacation_days_used if self.vacation_year == self.vacation_year_now(now) else 0
        return VACATION_DAYS_PER_YEAR - used

    @property
    def reminder_percents(self) -> list[int]:
        return [int(part) for part in self.reminders.split(",") if part]

    def __str__(self) -> str:
        return self.public_name


class Tries(models.Model):
    """How many times one thing was tried in the current window (``accounts.limits``): sending
    messages, reporting them, downloading one's data, signing in with a wrong password."""

    key = models.CharField(max_length=200, primary_key=True)
    window_started_at = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "tries"
        indexes = [models.Index(fields=["window_started_at"], name="tries_window")]  # the daily clearing

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"
