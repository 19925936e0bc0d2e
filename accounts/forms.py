from __future__ import annotations

import re
import unicodedata

from django import forms
from django.db.models import Q

from accounts.models import VACATION_DAYS_PER_YEAR, User

NAME_TAKEN = "Another player is already called “{name}”; choose another name."
NAME_INVISIBLE = "A name may not contain invisible or control characters."
NAME_RESERVED = "Names that start with “AI”, “Player” or “Open seat” are how the site labels seats; choose another."
SITE_LABELS = re.compile(r"(ai|players?|open seat)\b")  # "AI (Strong)", "Player 2", "Open seat"


def name_problem(name: str) -> str:
    """Why a name (display name or username) could pass for something it is not, or ""."""
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in name):
        return NAME_INVISIBLE  # a zero-width space makes a second "Bob"
    if SITE_LABELS.match(" ".join(name.casefold().split())):
        return NAME_RESERVED
    return ""


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "turn_notice", "digest_hour", "reminders", "webhook_url"]
        widgets = {"digest_hour": forms.NumberInput(attrs={"max": 23})}  # the browser checks it too

    def clean_display_name(self) -> str:
        # Other players see this name and invite by it: it must not pass for someone else.
        name = self.cleaned_data["display_name"].strip()
        if name_problem(name):
            raise forms.ValidationError(name_problem(name))
        others = User.objects.exclude(pk=self.instance.pk)
        if name and others.filter(Q(username__iexact=name) | Q(display_name__iexact=name)).exists():
            raise forms.ValidationError(NAME_TAKEN.format(name=name))
        return name


class VacationForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=VACATION_DAYS_PER_YEAR, initial=7, label="Days of vacation")
