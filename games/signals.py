"""What happens in a match, for the apps that act on it (notifications writes its outbox from
these), so that games imports none of them.

Each signal is sent inside the transaction that made the change, the match row locked: what a
receiver writes commits or rolls back with it. ``sender`` is always ``Match``.
"""

from __future__ import annotations

from django.dispatch import Signal

# match, user, creator: the user was invited and has to answer.
invited = Signal()
# match, user: the user's invitation runs out soon (``match.open_until``).
invitation_expiring = Signal()
# match, seat (its user loaded), watching: a person's turn began. ``watching``: the player whose
# own action began it (starting the match), who is looking at the page.
turn_started = Signal()
# match: the match has just finished with a result (``match.result``; its seats are read from the
# database), once: played out, resigned or timed out, never cancelled (ratings count it).
match_finished = Signal()
# match, seats, seat, user, last_move: the match ended and ``user`` (on ``seat``, or on the seat
# the AI took from them) hears the result. ``last_move``: the line of the move that ended it, or "".
match_ended = Signal()
# match, seat, user, why: the match was cancelled, and ``user`` hears why.
match_cancelled = Signal()
# match, user, what: a clock ran out; ``what`` tells ``user`` what it did.
timed_out = Signal()
# match, user, why, invited: staff (or the player closing their account) gave the user's seat to the AI.
seat_taken = Signal()
# match, seat, hours: staff gave the seat's player more time.
deadline_extended = Signal()
# seats, since: these seats' clocks started, or started again, at ``since`` (each seat with its
# ``match`` and ``user`` loaded, its ``deadline`` set).
clocks_started = Signal()
# match_ids, user_ids: the clocks of these players (``None``: everyone) in these matches stopped or moved.
clocks_stopped = Signal()
