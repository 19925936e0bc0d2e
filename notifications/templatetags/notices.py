"""The outbox on other apps' pages: the profile says which deliveries failed for good."""

from __future__ import annotations

from django import template

from notifications.selectors import failures_to_show

register = template.Library()


@register.simple_tag
def delivery_failures(user):
    """The last failed deliveries that still concern the player's current address and webhook."""
    return failures_to_show(user)
