"""What every page says of its visitor, also where the request cannot say who it is."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError
from django.http import HttpRequest


def visitor(request: HttpRequest) -> dict:
    """Nothing where Django's ``auth`` and ``messages`` context processors can tell (every page
    the middleware has seen); the top bar of a visitor signed out where they cannot, so that an
    error page still renders: a request refused before the middleware gave it a user (an unknown
    ``Host``: a 400), or one whose session and user are in a database that is down."""
    user = getattr(request, "user", None)
    try:
        if user is not None and (user.is_authenticated or user.is_anonymous):  # reads the session and the user
            return {}
    except DatabaseError:
        pass
    # The messages wait in the session: where it cannot be read, none are shown.
    return {"user": AnonymousUser(), "messages": ()}
