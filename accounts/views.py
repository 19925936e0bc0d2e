from __future__ import annotations

from allauth.account.adapter import get_adapter
from allauth.account.views import EmailView
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, StreamingHttpResponse
from django.middleware.csrf import REASON_BAD_ORIGIN, REASON_BAD_REFERER, REASON_NO_CSRF_COOKIE
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRefresh

from accounts import export, limits, signals, unsubscribe
from accounts.forms import CloseAccountForm, ProfileForm, VacationForm
from accounts.models import User
from accounts.services import user_close_own

PROFILE_SAVED = "Your profile is saved."
BAD_LINK = "This unsubscribe link is not valid."
UNSUBSCRIBED = "Done: you will get no more {topic}."
ALREADY_UNSUBSCRIBED = "You are unsubscribed already: you get no {topic}."
OUT_OF_DATE = (
    "The page was out of date (you signed in or out in another tab or window), so nothing "
    "was sent. Here it is again: please try once more."
)


def profile_page(request, *, form: ProfileForm | None = None, vacation_form=None, status: int = 200):
    """The profile, with a refused form's errors (the vacation's too, whose view is the clocks')."""
    user = request.user
    context = {
        "form": form or ProfileForm(instance=user),
        "vacation_form": vacation_form or VacationForm(),
        "on_vacation": user.vacation_until is not None and user.vacation_until > timezone.now(),
        "vacation_days_left": user.vacation_days_left(timezone.now()),
        "keep_days": settings.NOTIFICATIONS_KEEP_DAYS,  # what "Download my data" holds of them
    }
    return render(request, "accounts/profile.html", context, status=status)


@never_cache  # Back after signing out must not show the address, the time zone or the vacation
@login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    # A form sent with no fields is still a form sent: unbound, it was refused without a word.
    form = ProfileForm(request.POST if request.method == "POST" else None, instance=request.user)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            signals.notification_settings_changed.send(User, user_id=request.user.pk)
            messages.success(request, PROFILE_SAVED)
            return redirect("profile")
        request.user.refresh_from_db()  # is_valid() wrote the refused values onto it; the page shows what is stored
        return profile_page(request, form=form, status=400)
    return profile_page(request, form=form)


# 200 long matches (64,000 moves) took a web process about a second to write: 15 MB, 1 MB gzipped. A few
# downloads a player may want (one broke off); more would only keep the site's processes busy.
DOWNLOADS = 5
DOWNLOADS_SECONDS = 600


def _download_allowed(user: User) -> bool:
    # In the cache, as allauth's limits are (allauth's own helper never limits a GET).
    return limits.allowed(f"download-data:{user.pk}", DOWNLOADS, DOWNLOADS_SECONDS)


@never_cache  # the file holds the addresses and the webhook: no cache may keep a copy
@login_required
@require_GET  # not HEAD: it would read every match for nothing
def account_data(request):
    """Download my data: a JSON file of what the site keeps about the player (``accounts.export``),
    written as it is read."""
    if not _download_allowed(request.user):
        return render(request, "429.html", status=429)
    today = timezone.now().astimezone(request.user.zone).date()
    response = StreamingHttpResponse(export.account_data(request.user), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, export.file_name(request.user, today))
    return response


ACCOUNT_CLOSED = "Your account is closed and you are signed out. Thank you for playing."
STAFF_CLOSE_IN_ADMIN = "A staff account is closed by another staff member, in the admin, so nothing changed."


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def account_close(request):
    """The player closes their own account, as staff can in the admin, once they type their
    password. Not a staff account: its rights are given and taken back in the admin, where the
    change is recorded, and the last staff account closing itself would leave nobody to run the
    site (Discourse's admins cannot delete their accounts either). Another staff member closes it."""
    user = request.user
    staff = user.is_staff or user.is_superuser
    form = CloseAccountForm(request.POST if request.method == "POST" else None, user=user)
    if request.method == "GET":
        return render(request, "accounts/close.html", {"form": form, "staff": staff})
    if staff:
        return render(
            request, "accounts/close.html", {"form": form, "staff": staff, "refused": STAFF_CLOSE_IN_ADMIN}, status=403
        )
    if not form.is_valid():
        return render(request, "accounts/close.html", {"form": form, "staff": staff}, status=400)
    user_close_own(user=user)
    logout(request)  # its other sessions end too: an inactive account signs in nowhere (ModelBackend.get_user)
    messages.success(request, ACCOUNT_CLOSED)
    return redirect("home")


@csrf_exempt  # RFC 8058 one-click: mail clients POST without a session; the signed token is the proof
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request, token: str):
    parsed = unsubscribe.read_token(token)
    if parsed is None or not User.objects.filter(pk=parsed[0]).exists():  # a bad link, or a deleted account
        return render(request, "accounts/unsubscribe.html", {"error": BAD_LINK}, status=404)
    user_id, topic = parsed
    # Signed in as someone else: the link still acts on its own account, and the page says so.
    context = {"someone_elses": request.user.is_authenticated and request.user.pk != user_id}
    if request.method == "GET":
        user = User.objects.get(pk=user_id)
        field, stopped = unsubscribe.STOPS[topic]
        if getattr(user, field) == stopped:  # the link opened again: say so rather than ask once more
            return render(
                request,
                "accounts/unsubscribe.html",
                {**context, "done": ALREADY_UNSUBSCRIBED.format(topic=unsubscribe.TOPICS[topic])},
            )
        # Which account: the link may have been forwarded, or the reader has several.
        return render(
            request, "accounts/unsubscribe.html", {**context, "topic": unsubscribe.TOPICS[topic], "owner": user}
        )
    field, stopped = unsubscribe.STOPS[topic]
    User.objects.filter(pk=user_id).update(**{field: stopped})
    signals.notification_settings_changed.send(User, user_id=user_id)
    if request.POST.get("List-Unsubscribe") == "One-Click":
        return HttpResponse("Unsubscribed.", content_type="text/plain")
    return render(
        request, "accounts/unsubscribe.html", {**context, "done": UNSUBSCRIBED.format(topic=unsubscribe.TOPICS[topic])}
    )


# The fixed start of Django's reasons for a request whose Origin or Referer is not this site.
CROSS_SITE_REASONS = (REASON_BAD_ORIGIN.split("%s")[0], REASON_BAD_REFERER.split("%s")[0])


def csrf_failure(request, reason: str = ""):
    """A form or click from a page older than the session (signed in or out elsewhere):
    htmx reloads the page with a word of why; a plain form gets a page that says so. A
    browser that kept no cookie of ours is told that instead, not blamed for a sign-out."""
    no_cookie = reason == REASON_NO_CSRF_COOKIE  # cookies blocked, or https-only cookies over http
    # Sent by a page of another address: a forged form, or this site behind a proxy it was not told of
    # (then every form fails, and "out of date" sent players round in circles).
    from_elsewhere = reason.startswith(CROSS_SITE_REASONS)
    if request.headers.get("HX-Request") and not (no_cookie or from_elsewhere):
        messages.warning(request, OUT_OF_DATE)
        return HttpResponseClientRefresh()
    http_only_site = settings.CSRF_COOKIE_SECURE and not request.is_secure()
    # The browser's address is this very site over https, which the site itself sees as plain http.
    https_seen_as_http = (
        from_elsewhere and request.headers.get("Origin") == f"https://{request.get_host()}" and not request.is_secure()
    )
    return render(
        request,
        "403_csrf.html",
        {
            "no_cookie": no_cookie,
            "http_only_site": http_only_site,
            "from_elsewhere": from_elsewhere,
            "https_seen_as_http": https_seen_as_http,
        },
        status=403,
    )


RESEND_WAIT = (
    "No email was sent: a confirmation went to that address less than 3 minutes ago (at most one every "
    "3 minutes). Look for it in your inbox and spam folder, or try again in a few minutes."
)


ALREADY_CONFIRMED = "{email} is confirmed already, so no email was sent."
ALREADY_PRIMARY = "{email} is your primary address already, so nothing changed."
NOT_ON_ACCOUNT = (
    "That address is not on your account (it may have been removed in another tab or window), so nothing changed."
)
NO_ADDRESS_CHOSEN = "No address was chosen, so nothing changed."


class EmailAddressesView(EmailView):
    """allauth's email page, saying why "Send the confirmation again" sent nothing (its
    rate limit, or an address confirmed already): the page used to come back unchanged, as
    if the button did nothing, or a confirmed address was asked to confirm again; and that
    "Make primary" on the primary address changes nothing. Likewise for an address that is
    no longer on the account (removed in another tab) and a form with none chosen. Remove
    asks first, on a page of its own, so it asks without JavaScript too."""

    def post(self, request, *args, **kwargs):
        if "action_add" not in request.POST and not request.POST.get("email"):
            messages.info(request, NO_ADDRESS_CHOSEN)
        return super().post(request, *args, **kwargs)

    def _get_email_address(self, request):
        address = super()._get_email_address(request)
        if address is None:
            messages.info(request, NOT_ON_ACCOUNT)
        return address

    def _action_send(self, request, *args, **kwargs):
        address = self._get_email_address(request)
        if address is None:  # allauth would look it up, and say so, a second time
            return None
        if address.verified:  # allauth would ask to confirm it all over again
            messages.info(request, ALREADY_CONFIRMED.format(email=address.email))
            return None
        response = super()._action_send(request, *args, **kwargs)
        if not self._did_send_verification_email:
            messages.info(request, RESEND_WAIT)
        return response

    def _action_primary(self, request, *args, **kwargs):
        address = self._get_email_address(request)
        if address is None:
            return None
        if address.primary:  # allauth said "Primary email address set" and emailed a change
            messages.info(request, ALREADY_PRIMARY.format(email=address.email))
            return None
        return super()._action_primary(request, *args, **kwargs)

    def _action_remove(self, request, *args, **kwargs):
        address = self._get_email_address(request)
        if address is None:
            return None
        # An address that may not go is refused at once (allauth says why), not after a Yes.
        if request.POST.get("confirmed") != "yes" and get_adapter().can_delete_email(address):
            return render(request, "account/email_remove.html", {"emailaddress": address})
        return super()._action_remove(request, *args, **kwargs)


email_addresses = never_cache(EmailAddressesView.as_view())  # Back after signing out shows no address
