"""allauth's hooks into sign-up and into the emails it sends."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress
from allauth.core import context as allauth_context
from django import forms
from django.conf import settings
from django.contrib.sites.requests import RequestSite
from django.core.mail import EmailMessage
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from accounts import limits
from accounts.forms import NAME_LOOKS_TAKEN, NAME_TAKEN, looks_taken, name_problem
from accounts.models import User
from config.mail import ReadableEmail

# allauth's emails to an address whose account cannot sign in, or that has none: "we do not have any
# record of such an account" (a password reset) and "an account using that email address already
# exists; use the password forgotten procedure" (a sign-up). For a closed account's address the
# first is wrong, and the second led to the first: its owner went round in a loop.
NO_ACCOUNT_MAILS = {"account/email/unknown_account": "reset", "account/email/account_already_exists": "signup"}


# In the session of whoever gave a closed account's right password: whether its owner closed it
# (account/account_inactive.html reads it; allauth's page is a redirect away and knows no user).
CLOSED_BY_OWNER = "closed_by_owner"


def kept_by_a_closed_account(email: str) -> bool:
    """Whether ``email`` belongs to a closed account (staff closed it, perhaps as a ban) and to no open one."""
    owners = User.objects.filter(Q(email__iexact=email) | Q(emailaddress__email__iexact=email))
    return owners.exists() and not owners.filter(is_active=True).exists()


SIGN_IN_TRIES = "sign-in:{}"  # the key of an account's count of wrong passwords (accounts.limits)


def sign_in_tries_key(login: str) -> str:
    """The count of wrong passwords for the account ``login`` names (its username or any of its
    addresses, any case), whichever was typed; for a login that names no account, its own."""
    login = login.strip()
    named = (
        User.objects.filter(Q(username__iexact=login) | Q(email__iexact=login) | Q(emailaddress__email__iexact=login))
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )
    return SIGN_IN_TRIES.format(named if named is not None else login.lower())


class AccountAdapter(DefaultAccountAdapter):
    def pre_authenticate(self, request: HttpRequest, **credentials) -> None:
        """Before a password is checked: allauth's limit per address (``ACCOUNT_RATE_LIMITS``), then
        the account's own count, whichever of its names was typed, counted in one row at a time
        (allauth counted per typed login, and tries sent at once all passed)."""
        super().pre_authenticate(request, **credentials)
        self._sign_in_tries = sign_in_tries_key(credentials.get("email") or credentials.get("username") or "")
        if not limits.allowed(
            self._sign_in_tries, settings.SIGN_IN_FAILURES_PER_ACCOUNT, settings.SIGN_IN_FAILURES_WINDOW_SECONDS
        ):
            raise self.validation_error("too_many_login_attempts")

    def authenticate(self, request: HttpRequest, **credentials) -> User | None:
        user = super().authenticate(request, **credentials)
        if user is not None:  # the right password: its try was no failure
            limits.give_back(self._sign_in_tries)
        return user

    def _delete_login_attempts_cached_email(self, request: HttpRequest, **credentials) -> None:
        # After a new password was set by the emailed link: the account starts afresh.
        super()._delete_login_attempts_cached_email(request, **credentials)
        limits.forget(sign_in_tries_key(credentials.get("email") or credentials.get("username") or ""))

    def clean_username(self, username: str, shallow: bool = False) -> str:
        # Players invite by username or display name: a new username may not be someone's display name.
        username = super().clean_username(username, shallow=shallow)
        if name_problem(username):
            raise forms.ValidationError(name_problem(username))
        if not shallow and User.objects.filter(display_name__iexact=username).exists():
            raise forms.ValidationError(NAME_TAKEN.format(name=username))
        if not shallow and looks_taken(username, User.objects.all()):
            raise forms.ValidationError(NAME_LOOKS_TAKEN.format(name=username))
        return username

    def can_delete_email(self, email_address: EmailAddress) -> bool:
        # allauth lets a player who signs in by username remove the last address; with
        # confirmation mandatory they could then not sign in again, nor get a new password.
        if not email_address.pk:
            return super().can_delete_email(email_address)
        others_confirmed = EmailAddress.objects.filter(user_id=email_address.user_id, verified=True).exclude(
            pk=email_address.pk
        )
        if email_address.primary or (email_address.verified and not others_confirmed.exists()):
            return False
        return super().can_delete_email(email_address)

    def respond_user_inactive(self, request: HttpRequest, user: User) -> HttpResponse:
        # Only closing one's own account forgets its address (accounts.services.user_close_own): staff
        # closing keeps it, and signing up needs one. So an account closed without one was closed by its owner.
        addressless = not user.email and not EmailAddress.objects.filter(user=user).exists()
        request.session[CLOSED_BY_OWNER] = addressless
        return super().respond_user_inactive(request, user)

    def get_email_verification_redirect_url(self, email_address: EmailAddress) -> str:
        # Signed in, a player confirms an address they added on the email page: back there to
        # see it confirmed, not to "My matches". (Confirming at sign-up signs in and goes on as before.)
        if self.request.user.is_authenticated:
            return reverse("account_email")
        return super().get_email_verification_redirect_url(email_address)

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        # django.contrib.sites is not installed, so allauth's site would be named after the
        # request's host: "Hello from 127.0.0.1:8040!".
        site = RequestSite(allauth_context.request)
        site.name = settings.SITE_NAME
        if template_prefix in NO_ACCOUNT_MAILS and kept_by_a_closed_account(email):
            # Its owner asked for a new password or signed up again: neither can help, and the
            # address is not free. Say so, rather than "unknown account" or "already exists".
            context = {**context, "asked": NO_ACCOUNT_MAILS[template_prefix]}
            template_prefix = "account/email/account_closed"
        super().send_mail(template_prefix, email, {"current_site": site, "site_url": settings.SITE_URL, **context})

    def send_notification_mail(
        self, template_prefix: str, user: User, context: dict | None = None, email: str | None = None
    ) -> None:
        # "A change was made to your account" gives its date in the owner's time zone.
        super().send_notification_mail(template_prefix, user, {"time_zone": user.zone, **(context or {})}, email)

    def render_mail(
        self, template_prefix: str, email: str | list[str], context: dict, headers: dict[str, str] | None = None
    ) -> EmailMessage:
        """allauth's message, as the site's ``ReadableEmail``: its link stays on one line."""
        message = super().render_mail(template_prefix, email, context, headers)
        readable = ReadableEmail(
            message.subject,
            message.body,
            message.from_email,
            message.to,
            headers=message.extra_headers,
            alternatives=getattr(message, "alternatives", None),
        )
        readable.content_subtype = message.content_subtype
        return readable
