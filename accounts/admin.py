from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import UserChangeForm

from accounts.forms import ProfileForm
from accounts.models import User


class PlayerChangeForm(UserChangeForm):
    # Other players see this name and invite by it: staff renaming a player meet the profile's rules.
    clean_display_name = ProfileForm.clean_display_name


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
