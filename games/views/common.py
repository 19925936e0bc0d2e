"""What every view of one match shares: the words of its refusals, the 404 for a match that is
not the viewer's to see, and the decorators of its addresses."""

from __future__ import annotations

import re
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render

from games import selectors
from games.models import LARGEST_ID, Match

MALFORMED = "This request was malformed: reload the page and try again."
NOT_FOUND = "There is no such match, or it is not yours to see."
OPENED_NOT_SENT = "That address takes a button press on this page, so nothing was done."


class MatchHidden(Http404):
    """Someone else's match, or none at all."""


def viewer_match(request, pk: int) -> Match:
    match = selectors.match_for_viewer(pk, request.user)
    if match is None:
        raise MatchHidden(NOT_FOUND)
    return match


# Sent with every htmx request of a page drawn for someone signed in (base.html): a page whose session
# ended since (signed out in another tab) is sent to sign in, not redrawn for a visitor.
SIGNED_IN_HEADER = "X-Signed-In"


def match_address(*, signed_in: bool = False):
    """For an address of one match (inside ``match_page``). A visitor who is not signed in opens what
    anyone may (a public match: ``selectors.visible_to``); any other match is the same 404 as none
    at all. ``signed_in``: an action, for those signed in only: a visitor is sent to sign in where
    the match is one they may open. A page of a session that ended is sent to sign in whatever the
    match, as a sign-in would bring the player back to it."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, pk: int, *args, **kwargs):
            if not request.user.is_authenticated:
                if request.headers.get(SIGNED_IN_HEADER):
                    return redirect_to_login(request.get_full_path())
                if signed_in:
                    if not selectors.match_visible(pk, request.user):
                        raise MatchHidden(NOT_FOUND)
                    return redirect_to_login(request.get_full_path())
            return view(request, pk, *args, **kwargs)

        return wrapper

    return decorate


def match_page(view):
    """A match view whose hidden match is answered in plain words, in the site's layout (a
    fragment for htmx), with DEBUG on or off."""

    @wraps(view)
    def wrapper(request, pk: int, *args, **kwargs):
        if pk > LARGEST_ID:  # SQLite refuses such a number outright (an error, not "no such row")
            return not_found(request, NOT_FOUND)
        try:
            return view(request, pk, *args, **kwargs)
        except MatchHidden as hidden:
            return not_found(request, str(hidden))

    return wrapper


def posted_or_back(view):
    """A match's POST-only address opened by GET (a sign-in that returns to it, a reload
    of a refused form's answer, a bookmark) goes to the match page, not a blank 405."""

    @wraps(view)
    def wrapper(request, pk: int, *args, **kwargs):
        if request.method != "POST":
            messages.info(request, OPENED_NOT_SENT)
            return redirect("match_detail", pk=pk)
        return view(request, pk, *args, **kwargs)

    return wrapper


def sent_match_id(text: str) -> int | None:
    """A match id sent in a form, or None: str.isdigit() alone lets "²" through to int()."""
    return int(text) if re.fullmatch(r"[0-9]{1,18}", text) else None


def not_found(request, message: str, status: int = 404) -> HttpResponse:
    """The page (htmx: the part) that says so in plain words; a visitor who is not signed in is offered
    to sign in and come back to the page they were on (a private match may be theirs)."""
    template = "games/not_found.html#live" if request.htmx else "games/not_found.html"
    back = (request.htmx.current_url_abs_path if request.htmx else None) or request.get_full_path()
    return render(request, template, {"message": message, "back": back}, status=status)
