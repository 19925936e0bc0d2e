from __future__ import annotations

from django import forms
from django.db.models import Q

from accounts.models import VACATION_DAYS_PER_YEAR, User

NAME_TAKEN = "Another player is already called “{name}”; choose another name."


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "turn_notice", "digest_hour", "reminders", "webhook_url"]
        widgets = {"digest_hour": forms.NumberInput(attrs={"max": 23})}  # the browser checks it too

    def clean_display_name(self) -> str:
        # Other players see this name and invite by it: it must not pass for someone else.
        name = self.cleaned_data["display_name"].strip()
        others = User.objects.exclude(pk=self.instance.pk)
        if name and others.filter(Q(username__iexact=name) | Q(display_name__iexact=name)).exists():
            raise forms.ValidationError(NAME_TAKEN.format(name=name))
        return name


class VacationForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=VACATION_DAYS_PER_YEAR, initial=7, label="Days of vacation")
