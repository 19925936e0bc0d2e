from __future__ import annotations

import re
import unicodedata
from functools import cache

from allauth.account.adapter import get_adapter
from allauth.account.forms import LoginForm, ReauthenticateForm, SignupForm
from confusable_homoglyphs import categories, confusables
from django import forms
from django.contrib import messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core import validators
from django.db.models import Q, QuerySet

from accounts.models import TIME_ZONE_CHOICES, VACATION_DAYS_PER_YEAR, User, is_time_zone
from config import webhooks

WEBHOOK_CONTROL_CHARACTERS = "A web address may not contain control characters: copy it again from the chat's settings."
UNKNOWN_TIME_ZONE = "That is not a time zone we know: choose yours from the list."
# A sign-up whose browser gave no time zone we know (no JavaScript, or a forged form) starts in UTC.
TIME_ZONE_NOT_TOLD = (
    "We could not tell your time zone from your browser, so your deadlines are shown in UTC for now: "
    "once you are signed in, choose your time zone in your profile."
)
NAME_TAKEN = "Another player is already called “{name}”; choose another name."
NAME_LOOKS_TAKEN = "“{name}” looks just like the name of another player; choose another name."
NAME_INVISIBLE = "A name may not contain invisible or control characters."
NAME_RESERVED = "Names that start with “AI”, “Player” or “Open seat” are how the site labels seats; choose another."
NAME_NO_LETTER = "A name needs at least one letter or digit (“-” or “.” alone names nobody)."
NAME_BRACKETS = "A name may not contain brackets: the site writes them after names (“Bob (green)”, “AI (Easy)”)."
NAME_LOOKALIKE = (
    "A name may not mix alphabets or use letter variants (a Cyrillic “е” among Latin letters, "
    "“Ａｌｉｃｅ” in wide letters): such a name can pass for someone else's."
)
# "AI (Strong)", "Player 2", "player2", "AI_bot", "Open seat"; not "Aiden" or "Playful"
SITE_LABELS = re.compile(r"(ai|players?|open ?seat)(?![^\W\d_])")
BRACKETS = set("()[]{}")
# Scripts written together in one name (Japanese mixes kanji and kana, Korean may add hanja);
# marks such as the kana "ー" or the Hawaiian "ʻ" belong to no script ("COMMON").
EAST_ASIAN = {"HAN", "HIRAGANA", "KATAKANA", "HANGUL"}
NO_SCRIPT = {"COMMON", "INHERITED"}
LOOK_ALIKE_STROKES = set("il1")  # I, l and 1 are one stroke in many fonts


def _script(char: str) -> str:
    script = categories.alias(char)
    return "CJK" if script in EAST_ASIAN else script


@cache
def _latin_twins(char: str) -> frozenset[str]:
    """The ASCII letters and digits ``char`` can be taken for ("а" for "a")."""
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    return frozenset(h["c"].lower() for f in found for h in f["homoglyphs"] if h["c"].isascii() and h["c"].isalnum())


def skeleton(name: str, stroke: str = "") -> str:
    """The name as it reads: each letter that looks like an ASCII one replaced by it; a
    non-ASCII one-stroke letter ("ӏ", "І") by ``stroke`` where given."""
    return "".join(
        stroke
        if stroke and not char.isascii() and _latin_twins(char) & LOOK_ALIKE_STROKES
        else min(_latin_twins(char), default=char)
        for char in name
    )


def one_space(name: str) -> str:
    """A name as it is saved and looked up: any run of spaces (no-break, wide, thin, doubled)
    is drawn as one, so it counts as one plain space."""
    return " ".join(name.split())


def name_problem(name: str) -> str:
    """Why a name (display name or username) could pass for something it is not, or ""."""
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in name):
        return NAME_INVISIBLE  # a zero-width space makes a second "Bob"
    if any(SITE_LABELS.match(" ".join(skeleton(name, stroke).casefold().split())) for stroke in "il"):
        return NAME_RESERVED  # also written in look-alike letters ("АІ", "Рӏауег 2")
    if name and not any(char.isalnum() for char in name):
        return NAME_NO_LETTER
    if BRACKETS & set(name):
        return NAME_BRACKETS
    if any(unicodedata.normalize("NFKC", char) != char for char in name if char.isalpha()):
        return NAME_LOOKALIKE  # wide, circled or ligature letters that read as plain ones
    if len({_script(char) for char in name if char.isalpha()} - NO_SCRIPT) > 1:
        return NAME_LOOKALIKE
    return ""


def _reads_as(char: str) -> set[str]:
    """Every character ``char`` can be taken for, itself included: its ASCII twins ("а"
    for "a"), and the other letters that look like those ("а", "ɑ", "α" for "a")."""
    twins = {char.lower()} if char.isascii() else set(_latin_twins(char))
    if not char.isascii() and twins & LOOK_ALIKE_STROKES:
        twins |= LOOK_ALIKE_STROKES
    alike = {char, *twins, *(twin.upper() for twin in twins)}
    for twin in list(alike):
        alike |= {h["c"] for h in confusables.confusables_data.get(twin, []) if h["c"].isalpha()}
    return alike


def looks_taken(name: str, others: QuerySet[User]) -> bool:
    """Whether ``name`` reads as the username or display name of one of ``others`` written
    in other, look-alike letters: "Аӏісе" (all Cyrillic) as "Alice", or "Top" as "Тор"."""
    classes = "".join(f"[{''.join(re.escape(c) for c in sorted(_reads_as(char)))}]" for char in name)
    pattern = f"^{classes}$"
    return others.filter(Q(username__iregex=pattern) | Q(display_name__iregex=pattern)).exists()


def offer_current_zone(form: forms.ModelForm) -> None:
    """A zone chosen from an older list ("Asia/Calcutta") stays a choice until the player picks another."""
    current = form.instance.time_zone
    if current not in dict(TIME_ZONE_CHOICES) and is_time_zone(current):
        form.fields["time_zone"].choices = sorted([*TIME_ZONE_CHOICES, (current, current.replace("_", " "))])


class FocusFirstRefused:
    """A refused form comes back at the top of its page: on a phone the first field it refuses
    (an invite left without a name at the foot of the new-match form, the profile's webhook) was
    out of sight, and the button seemed to do nothing. The browser scrolls to a field with
    autofocus (and a phone opens its keyboard there)."""

    def full_clean(self) -> None:
        super().full_clean()
        refused = next((name for name in self.fields if name in self.errors), None)
        if refused:
            self.fields[refused].widget.attrs["autofocus"] = True


class ProfileForm(FocusFirstRefused, forms.ModelForm):
    # The list is the machine's time zone database, so it lives here, not in a migration.
    time_zone = forms.ChoiceField(choices=TIME_ZONE_CHOICES, error_messages={"invalid_choice": UNKNOWN_TIME_ZONE})

    class Meta:
        model = User
        fields = [
            "display_name",
            "time_zone",
            "confirm_moves",
            "turn_notice",
            "digest_hour",
            "reminders",
            "message_emails",
            "webhook_url",
        ]
        widgets = {"digest_hour": forms.NumberInput(attrs={"max": 23})}  # the browser checks it too
        # "Enter a valid URL." refused ftp://… and the like, which are valid URLs: say what is wanted.
        error_messages = {"webhook_url": {"invalid": "Enter a web address that starts with http:// or https://."}}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        offer_current_zone(self)

    def clean_webhook_url(self) -> str:
        # Django's check lets control characters through; no request could carry them (config.webhooks).
        url = self.cleaned_data["webhook_url"]
        if webhooks.NOT_IN_A_REQUEST.search(url):
            raise forms.ValidationError(WEBHOOK_CONTROL_CHARACTERS)
        return url

    def clean_display_name(self) -> str:
        # Other players see this name and invite by it: it must not pass for someone else.
        name = one_space(self.cleaned_data["display_name"])
        if name_problem(name):
            raise forms.ValidationError(name_problem(name))
        others = User.objects.exclude(pk=self.instance.pk)
        taken = others.filter(Q(username__iexact=name) | Q(display_name__iexact=name)).first() if name else None
        if taken:  # named as its owner writes it ("Carol Ann"), not as typed ("carol ann")
            shown = taken.display_name if taken.display_name.casefold() == name.casefold() else taken.username
            raise forms.ValidationError(NAME_TAKEN.format(name=shown))
        if name and looks_taken(name, others):
            raise forms.ValidationError(NAME_LOOKS_TAKEN.format(name=name))
        return name


class VacationForm(forms.Form):
    days = forms.IntegerField(
        min_value=1,
        max_value=VACATION_DAYS_PER_YEAR,
        initial=7,
        label="Days of vacation",
        help_text="Each day is 24 hours from now. If you come back early, the days you did not begin go back.",
    )


PASSWORD_TO_CLOSE = "Type your password to close your account; it stays open until you do."
WRONG_PASSWORD_TO_CLOSE = "That is not your password, so your account stays open."
TOO_MANY_TO_CLOSE = (
    "Too many wrong passwords in a short time, so this one was not checked and your account stays "
    "open. Wait a few minutes and try again."
)


class CloseAccountForm(FocusFirstRefused, ReauthenticateForm):
    """The current password, checked as signing in checks it (allauth's reauthentication): a
    wrong one counts toward the account's sign-in limit (allauth's "login_failed": five in five
    minutes, ten a minute from one address), so this page is no way round it to guess a password."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        password = self.fields["password"]
        password.label = "Your password"
        password.error_messages["required"] = PASSWORD_TO_CLOSE

    def clean_password(self) -> str:
        try:
            return super().clean_password()
        except forms.ValidationError as refused:
            raise forms.ValidationError(
                TOO_MANY_TO_CLOSE if refused.code == "too_many_login_attempts" else WRONG_PASSWORD_TO_CLOSE
            ) from None


LOGIN_MAX_LENGTH = 254  # the longest email address; usernames are shorter


class StaffSignInForm(AdminAuthenticationForm):
    """The admin's sign-in (``admin.site.login_form``), counting failures as the site's does
    (allauth's "login_failed" limit, by address and by name, shared with the site's form):
    Django's own let anyone guess a staff password as fast as they could post it."""

    def clean(self):
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if username is not None and password:
            # Raises "Too many failed login attempts" once the limit is reached.
            self.user_cache = get_adapter(self.request).authenticate(self.request, username=username, password=password)
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class SignUpForm(SignupForm):
    """allauth's sign-up, which also keeps the browser's time zone (site.js fills the hidden
    field): every new player's deadlines and digest hour were in UTC until they found the
    profile's setting."""

    # No length limit: a hidden field too long would refuse the sign-up with a message about a
    # field the player never saw. Anything unknown means UTC, and the next page says so.
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_time_zone(self) -> str:
        zone = self.cleaned_data["time_zone"]
        return zone if is_time_zone(zone) else ""

    def save(self, request):
        user = super().save(request)
        if zone := self.cleaned_data.get("time_zone"):
            user.time_zone = zone
            user.save(update_fields=["time_zone"])
        else:
            messages.info(request, TIME_ZONE_NOT_TOLD)
        return user


class SignInForm(LoginForm):
    """allauth's sign-in form, its first field named for what it takes (allauth: "Login")
    and as long as the longest address: allauth sets no limit, and on SQLite a login of
    50,000 characters failed the lookup (a LIKE pattern too long), a 500."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        login = self.fields["login"]
        login.label = "Username or email"
        login.max_length = LOGIN_MAX_LENGTH
        login.validators.append(validators.MaxLengthValidator(LOGIN_MAX_LENGTH))
        login.widget.attrs["maxlength"] = str(LOGIN_MAX_LENGTH)
