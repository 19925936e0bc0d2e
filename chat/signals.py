"""What happens in a match's chat, for the apps that act on it (notifications tells the other
players), sent inside the transaction that wrote it, the match row locked."""

from __future__ import annotations

from django.dispatch import Signal

# match, message: a player wrote a message (sender: ``Message``).
message_posted = Signal()
