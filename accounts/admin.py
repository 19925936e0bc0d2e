from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts.models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("Player", {"fields": ("display_name", "time_zone", "turn_notice", "digest_hour", "reminders", "webhook_url",
                               "vacation_until", "vacation_days_used")}),
    )
    list_display = ("username", "email", "display_name", "is_staff", "date_joined")
