"""How the site writes a span of time: one format on the match page and the dashboard alike."""

from __future__ import annotations

from datetime import datetime

from django import template

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
