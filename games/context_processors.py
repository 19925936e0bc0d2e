"""What every page's top bar shows: how many matches wait for the signed-in player."""

from __future__ import annotations

from functools import cached_property

from django.http import HttpRequest

from games import selectors


class Waiting:
    """``waiting.count``, read once and only by a template that shows it: an HTMX fragment
    without the top bar (a poll, a replay step) and an anonymous visitor pay no query."""

    def __init__(self, request: HttpRequest, *, count: int | None = None):
        self._request = request
        if count is not None:  # read already, with the next match (``selectors.next_match_and_count``)
            self.count = count

    @cached_property
    def count(self) -> int:
        user = self._request.user
        return selectors.waiting_count(user) if user.is_authenticated else 0


def waiting(request: HttpRequest) -> dict:
    return {"waiting": Waiting(request)}
