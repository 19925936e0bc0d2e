"""Every write to a match goes through here: the views, the tasks and the admin call these
functions and nothing else changes a match.

A move is one short transaction: lock the match row, check the version the player saw,
apply the move through the pure rules, store the new state and the move record, tell the
other apps (``games.signals``: the notifications outbox is written in the same
transaction), and only after the commit hand work to Celery.

The modules split the services by subject; this package offers the ones other code calls.
"""

from games.services.clocks import seat_deadline_extend, vacation_end, vacation_start
from games.services.creating import (
    ACCEPTED,
    CREATED,
    ClockSpec,
    SeatSpec,
    clock_fields,
    creator_seats,
    invitee,
    match_create,
    match_rematch,
)
from games.services.errors import (
    NOT_IN_PLAY,
    AlreadyDone,
    MoveRejected,
    NotAllowed,
    NotFound,
    ServiceError,
    StaleMove,
    TooFast,
)
from games.services.holding import step_take_back
from games.services.joining import (
    invitation_expiry_tell,
    match_accept,
    match_cancel,
    match_decline,
    match_expire,
    match_join,
    waits_for_closed_account,
)
from games.services.leaving import match_abort, match_resign, match_timeout, seat_replace_by_ai
from games.services.turns import Played, ai_turn_play, move_play, move_submit, seat_seen
from games.services.watching import match_unwatch, match_watch, watch_seen

__all__ = [
    "ACCEPTED",
    "CREATED",
    "NOT_IN_PLAY",
    "AlreadyDone",
    "ClockSpec",
    "MoveRejected",
    "NotAllowed",
    "NotFound",
    "Played",
    "SeatSpec",
    "ServiceError",
    "StaleMove",
    "TooFast",
    "ai_turn_play",
    "clock_fields",
    "creator_seats",
    "invitation_expiry_tell",
    "invitee",
    "match_abort",
    "match_accept",
    "match_cancel",
    "match_create",
    "match_decline",
    "match_expire",
    "match_join",
    "match_rematch",
    "match_resign",
    "match_timeout",
    "match_unwatch",
    "match_watch",
    "move_play",
    "move_submit",
    "seat_deadline_extend",
    "seat_replace_by_ai",
    "seat_seen",
    "step_take_back",
    "vacation_end",
    "vacation_start",
    "waits_for_closed_account",
    "watch_seen",
]
