from urllib.parse import urlsplit

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import UserChangeForm

from accounts import signals
from accounts.forms import ProfileForm, offer_current_zone
from accounts.models import User
from accounts.services import user_deactivate
from config.admin import SecretsNotFiltered


class PlayerChangeForm(UserChangeForm):
    # Other players see this name and invite by it: staff renaming a player meet the profile's rules.
    clean_display_name = ProfileForm.clean_display_name
    time_zone = ProfileForm.base_fields["time_zone"]  # a list, as on the profile: a typo would break every date

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        offer_current_zone(self)


NOTIFICATION_SETTINGS = {"time_zone", "turn_notice", "digest_hour", "reminders", "message_emails"}


@admin.register(User)
class UserAdmin(SecretsNotFiltered, BaseUserAdmin):
    form = PlayerChangeForm
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (
            "Player",
            {
                "fields": (
                    "display_name",
                    "time_zone",
                    "confirm_moves",
                    "turn_notice",
                    "digest_hour",
                    "reminders",
                    "message_emails",
                    "webhook",
                    "vacation_until",
                    "vacation_days_used",
                )
            },
        ),
    )
    # A vacation stops and restarts clocks (games' vacation_start, vacation_end): typed in
    # here it would show "on vacation" over a running clock, or, cleared, leave clocks stopped for good.
    readonly_fields = ("vacation_until", "vacation_days_used", "webhook")
    # A webhook's address is the key to post in the player's chat: staff see where it goes, not
    # the key, and no address may filter players by it (it would answer yes or no, a letter at a time).
    secret_fields = ("webhook_url",)
    list_display = ("username", "email", "display_name", "is_staff", "date_joined")

    @admin.display(description="webhook")
    def webhook(self, user: User) -> str:
        if not user.webhook_url:
            return "-"
        parts = urlsplit(user.webhook_url)
        return f"{parts.scheme}://{parts.hostname}/… (set by the player in their profile)"

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and NOTIFICATION_SETTINGS & set(form.changed_data):
            # As on the profile: the pending digest and the reminders follow the new settings.
            signals.notification_settings_changed.send(User, user_id=obj.pk)
        if change and "is_active" in form.changed_data and not obj.is_active:
            # No match may go on waiting for a player who can no longer sign in.
            user_deactivate(user_id=obj.pk, actor=request.user)
