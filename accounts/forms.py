from __future__ import annotations

import re
import unicodedata

from django import forms
from django.db.models import Q

from accounts.models import TIME_ZONE_CHOICES, VACATION_DAYS_PER_YEAR, User

NAME_TAKEN = "Another player is already called “{name}”; choose another name."
NAME_INVISIBLE = "A name may not contain invisible or control characters."
NAME_RESERVED = "Names that start with “AI”, “Player” or “Open seat” are how the site labels seats; choose another."
NAME_LOOKALIKE = ("A name may not mix alphabets or use letter variants (a Cyrillic “е” among Latin letters, "
                  "“Ａｌｉｃｅ” in wide letters): such a name can pass for someone else's.")
# "AI (Strong)", "Player 2", "player2", "AI_bot", "Open seat"; not "Aiden" or "Playful"
SITE_LABELS = re.compile(r"(ai|players?|open ?seat)(?![^\W\d_])")
# Scripts that are written together in one name (Japanese mixes kanji and kana, Korean may add hanja).
EAST_ASIAN = {"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPHIC"}


def _script(char: str) -> str:
    script = unicodedata.name(char, "UNKNOWN").split()[0]
    return "CJK" if script in EAST_ASIAN else script


def name_problem(name: str) -> str:
    """Why a name (display name or username) could pass for something it is not, or ""."""
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in name):
        return NAME_INVISIBLE  # a zero-width space makes a second "Bob"
    if SITE_LABELS.match(" ".join(name.casefold().split())):
        return NAME_RESERVED
    if unicodedata.normalize("NFKC", name) != unicodedata.normalize("NFC", name):
        return NAME_LOOKALIKE  # wide, circled or ligature letters that read as plain ones
    if len({_script(char) for char in name if char.isalpha()}) > 1:
        return NAME_LOOKALIKE
    return ""


class ProfileForm(forms.ModelForm):
    # The list is the machine's time zone database, so it lives here, not in a migration.
    time_zone = forms.ChoiceField(choices=TIME_ZONE_CHOICES)

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
