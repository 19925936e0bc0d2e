"""The refusals a service raises (``message`` is written for the player, ``status`` is HTTP), and
the words several services refuse with."""

from __future__ import annotations

NOT_IN_PLAY = "This match is not in play any more."


NOT_STARTED = "This match has not started yet: it is waiting for players."


NOT_YOUR_MATCH = "You are not playing in this match."


UNKNOWN_AI_LEVEL = "{game} has no AI level {level}."


STALE_MOVE = (
    "The board changed since you loaded it (a move was played, perhaps from another tab or window), "
    "so yours was not played. Here is the current position."
)


class ServiceError(Exception):
    """A request the site refuses; ``message`` is written for the player, ``status`` is HTTP."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class AlreadyDone(ServiceError):
    """What was asked is so already (Join or Accept pressed twice, a second tab): the page
    shows the match with these words, not a refusal."""


class MoveRejected(ServiceError):
    status = 422


class StaleMove(ServiceError):
    status = 409


class NotAllowed(ServiceError):
    status = 403


class TooFast(ServiceError):
    status = 429


class NotFound(ServiceError):
    """Nothing there, or nothing the user may see: the site's not-found answer."""

    status = 404
