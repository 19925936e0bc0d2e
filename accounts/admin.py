from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import UserChangeForm

from accounts.forms import ProfileForm, offer_current_zone
from accounts.models import User
from games import services


class PlayerChangeForm(UserChangeForm):
    # Other players see this name and invite by it: staff renaming a player meet the profile's rules.
    clean_display_name = ProfileForm.clean_display_name
    time_zone = ProfileForm.base_fields["time_zone"]  # a list, as on the profile: a typo would break every date

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        offer_current_zone(self)


NOTIFICATION_SETTINGS = {"time_zone", "turn_notice", "digest_hour", "reminders"}


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    form = PlayerChangeForm
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("Player", {"fields": ("display_name", "time_zone", "turn_notice", "digest_hour", "reminders", "webhook_url",
                               "vacation_until", "vacation_days_used")}),
    )
    # A vacation stops and restarts clocks (services.vacation_start, vacation_end): typed in
    # here it would show "on vacation" over a running clock, or, cleared, leave clocks stopped for good.
    readonly_fields = ("vacation_until", "vacation_days_used")
    list_display = ("username", "email", "display_name", "is_staff", "date_joined")

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and NOTIFICATION_SETTINGS & set(form.changed_data):
            # As on the profile: the pending digest and the reminders follow the new settings.
            services.notification_settings_changed(user_id=obj.pk)
