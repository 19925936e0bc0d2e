"""How the site writes a span of time and a moment: one format on the match page, the
dashboard and in emails alike."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import dateformat, timezone

from games.models import DAY

register = template.Library()

HOUR = 3600


@register.filter
def duration(seconds: float | None) -> str:
    """Seconds as "6 d 23 h", "5 h 12 min", "12 min" or "less than a minute".

    Rounded down: a clock never shows more time than the player has."""
    if seconds is None:
        return ""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min"
    return "less than a minute"


@register.filter
def time_until(moment: datetime | None, now: datetime) -> str:
    """``{{ deadline|time_until:now }}``, in place of Django's "6 days, 23 hours"."""
    return "" if moment is None else duration((moment - now).total_seconds())


@register.filter
def time_ago(moment: datetime | None, now: datetime) -> str:
    """``{{ last_move_at|time_ago:now }}``: "5 h 12 min ago", or "just now"."""
    if moment is None:
        return ""
    seconds = (now - moment).total_seconds()
    return "just now" if seconds < 60 else f"{duration(seconds)} ago"


@register.filter
def local_time(moment: datetime | None, date_part: str = "D j M") -> str:
    """``{{ deadline|local_time }}``: "Sun 29 Mar, 07:00 EDT", on the clock of the active time
    zone (the signed-in player's on a page, the recipient's in an email). Where the tz database
    has no letters for a zone it writes the offset ("00:45 +1345", "09:00 -03"), which reads as
    part of the time: "UTC+13:45", "UTC-3" instead."""
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    return f"{dateformat.format(local, date_part)}, {local:%H:%M} {_zone_letters(local) or _utc_offset(local)}"


@register.filter
def machine_time(moment: datetime | None) -> str:
    """``<time datetime="{{ deadline|machine_time }}">``: "2026-03-29T07:00:12-04:00". Django's ``date:'c'``
    writes microseconds, which a datetime attribute may not have (at most three digits)."""
    return "" if moment is None else timezone.localtime(moment).isoformat(timespec="seconds")


@register.filter
def local_time_named(moment: datetime | None, date_part: str = "D j M") -> str:
    """``local_time`` for an email, read away from the site: letters such as "IST" (India,
    Ireland, Israel) or "CST" stand for several zones, so the zone's name follows them:
    "Friday 15 January 2027, 17:30 IST (Asia/Kolkata)". An offset or "UTC" needs none."""
    written = local_time(moment, date_part)
    if moment is None or _zone_letters(timezone.localtime(moment)) in ("", "UTC"):
        return written
    zone = timezone.get_current_timezone()
    return f"{written} ({getattr(zone, 'key', str(zone)).replace('_', ' ')})"


def _zone_letters(local: datetime) -> str:
    letters = local.tzname() or ""
    return letters if letters[:1].isalpha() else ""


def _utc_offset(local: datetime) -> str:
    minutes = int(local.utcoffset().total_seconds()) // 60
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{'-' if minutes < 0 else '+'}{hours}{f':{rest:02}' if rest else ''}"
