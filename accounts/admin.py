from urllib.parse import urlsplit

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.forms import ProfileForm, offer_current_zone
from accounts.models import User
from accounts.services import user_deactivate
from games import services
from games.admin import SecretsNotFiltered
from games.models import Seat


class PlayerChangeForm(UserChangeForm):
    # Other players see this name and invite by it: staff renaming a player meet the profile's rules.
    clean_display_name = ProfileForm.clean_display_name
    time_zone = ProfileForm.base_fields["time_zone"]  # a list, as on the profile: a typo would break every date

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        offer_current_zone(self)


NOTIFICATION_SETTINGS = {"time_zone", "turn_notice", "digest_hour", "reminders", "message_emails"}
MATCHES_NAMED = 10  # per player refused deletion; the rest are counted


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
    # A vacation stops and restarts clocks (services.vacation_start, vacation_end): typed in
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
            services.notification_settings_changed(user_id=obj.pk)
        if change and "is_active" in form.changed_data and not obj.is_active:
            # No match may go on waiting for a player who can no longer sign in.
            user_deactivate(user_id=obj.pk, actor=request.user)

    def get_deleted_objects(self, objs, request):
        """A player who ever had a seat (or whose seat the AI took over) cannot be deleted: the
        seat protects them, and the matches' move logs, results and replays name them for the
        other players. Django only said staff had "no permission to delete notification" (the
        outbox is read-only), without a word about matches; it now lists each player's matches,
        and the delete pages (admin/accounts/user/) say to deactivate the account instead."""
        seats = (
            Seat.objects.filter(Q(user__in=objs) | Q(former_user__in=objs))
            .select_related("match")
            .only("user_id", "former_user_id", "match__id", "match__game", "match__status")
            .order_by("-match")
        )
        if not seats:
            return super().get_deleted_objects(objs, request)
        played = []
        for user in objs:
            matches = [seat.match for seat in seats if user.pk in (seat.user_id, seat.former_user_id)]
            if matches:
                played.append(self._matches_played(user, matches))
        return [], {}, set(), played

    @staticmethod
    def _matches_played(user: User, matches: list) -> str:
        """ "Alice: Mancala #4 (in play), Mecca #2 (finished)", newest first, each a link to its page."""
        named = format_html_join(
            ", ",
            '<a href="{}">{}</a> ({})',
            (
                (reverse("admin:games_match_change", args=[match.pk]), match, match.get_status_display().lower())
                for match in matches[:MATCHES_NAMED]
            ),
        )
        more = len(matches) - MATCHES_NAMED
        return format_html(
            '<a href="{}">{}</a>: {}{}',
            reverse("admin:accounts_user_change", args=[user.pk]),
            user.public_name,
            named,
            f" and {more} more" if more > 0 else "",
        )
