from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.shortcuts import resolve_url
from django.utils import timezone
from django_htmx.http import HttpResponseClientRedirect

SIGNED_OUT_NOTHING_SENT = "You are signed out, so that was not sent. Sign in, then try again."


class UserTimezoneMiddleware:
    """Show times in the signed-in player's own time zone. A view marked ``draws_no_times`` (a
    poll, which mostly answers "nothing changed") is left to call ``activate_zone`` itself
    before it draws: reading the user for nothing was a third of the poll's queries."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()  # the previous request's zone must not linger on this thread
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not getattr(view_func, "draws_no_times", False):
            activate_zone(request)


def activate_zone(request) -> None:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        timezone.activate(user.zone)


def draws_no_times(view):
    """Mark a view that calls ``activate_zone`` itself, only when it draws."""
    view.draws_no_times = True
    return view


class HtmxSignInMiddleware:
    """An htmx request from a page whose session ended (signed out in another tab, the
    cookie gone) would get the sign-in page swapped into the board, and signing in there
    would land on the fragment's address. Instead the whole page goes to the sign-in page,
    which comes back to that page afterwards. A move or an action sent so is not made, and
    the sign-in page says so: it used to appear without a word, as if the move had gone.
    Must come after django-htmx's middleware and the messages'."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        login_url = resolve_url(settings.LOGIN_URL)
        if response.status_code != 302 or not response["Location"].startswith(login_url):
            return response
        # Sent back for want of a session (``login_required`` names the page to return to), not
        # sent on after something done (allauth's confirmation of an address from another browser).
        sent_back = request.method == "POST" and REDIRECT_FIELD_NAME in parse_qs(urlsplit(response["Location"]).query)
        if sent_back and not _waiting(request, SIGNED_OUT_NOTHING_SENT):  # a double click said it twice
            messages.warning(request, SIGNED_OUT_NOTHING_SENT)
        if request.htmx:
            back = request.htmx.current_url_abs_path or resolve_url("home")
            return HttpResponseClientRedirect(f"{login_url}?{urlencode({REDIRECT_FIELD_NAME: back})}")
        return response


def _waiting(request, text: str) -> bool:
    """Whether ``text`` is among the messages not shown yet; looking does not count as showing them."""
    pending = messages.get_messages(request)
    found = any(message.message == text for message in pending)
    pending.used = False
    return found
