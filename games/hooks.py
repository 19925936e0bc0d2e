"""Hooks that other apps fill in at start-up (in their ``AppConfig.ready``), so that games reads
what they add to its pages and queries without importing them. Each is a plain list; games
works with every list empty."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

# (user_id, match_ids) -> {match_id: when the first of the player's reminders not sent yet is due}
# (notifications: the clock counts a reminder still waiting to go out as not come yet).
first_unsent_reminders: list[Callable[[int, list[int]], dict[int, datetime]]] = []
# (request, match, seats, my_seat) -> more context for the match page (chat: its messages).
match_page_parts: list[Callable[..., dict[str, Any]]] = []
# (request, player) -> more context for a player's page (ratings: their ratings and history charts).
player_page_parts: list[Callable[..., dict[str, Any]]] = []
# (user) -> {name: expression} annotated on every match of a player's lists (chat: new messages).
match_list_annotations: list[Callable[[Any], dict[str, Any]]] = []
# (user) -> a condition on the player's seat under which their presence on the match page is
# written at once rather than every few polls (chat: messages written since they last looked).
presence_now: list[Callable[[Any], Any]] = []
