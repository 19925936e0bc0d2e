"""What happens to an account, for the apps that act on it (games settles the player's matches,
notifications follows their settings), so that accounts imports none of them. Each is sent
inside the transaction of the change; ``sender`` is ``User``."""

from __future__ import annotations

from django.dispatch import Signal

# user, actor: the account was closed (by staff, a command with no actor, or the player).
account_closed = Signal()
# user_id: the player's notification settings (or time zone) changed.
notification_settings_changed = Signal()
