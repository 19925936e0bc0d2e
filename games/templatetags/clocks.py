from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def duration(seconds: int | None) -> str:
    """A number of seconds as days, hours and minutes: "3 d 4 h", "5 h 12 min"."""
    if seconds is None:
        return ""
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    if days:
        return f"{days} d {hours} h"
    return f"{hours} h {rest // 60} min"
