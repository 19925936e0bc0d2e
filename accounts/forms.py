from django import forms

from accounts.models import VACATION_DAYS_PER_YEAR, User


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["display_name", "time_zone", "turn_notice", "digest_hour", "reminders", "webhook_url"]


class VacationForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=VACATION_DAYS_PER_YEAR, initial=7, label="Days of vacation")
