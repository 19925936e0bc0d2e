"""Staff read the outbox and send a notice again where that still makes sense; the outbox itself
is never edited. A match's page lists its latest notifications, each with "Send again":
``MatchAdmin`` is extended here with them."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import ActionLocation, helpers
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html

from games.admin import ReadOnlyInline
from games.models import Match
from games.services import ServiceError
from notifications import services
from notifications.models import Notification
from notifications.selectors import with_resend_facts

RESEND_FORM = "resend-notification"  # the form that each row's "Send again" button posts (a match's page, the list)


def send_again_button(notification: Notification, name: str) -> str:
    """A row's "Send again", only where sending it again makes sense (``services.resend_refusal``,
    whose words the dash shows on hover): a notice still waiting for its time, out of date, or
    to a player who no longer wants it offered a button that could only be refused."""
    if refusal := services.resend_refusal(notification):
        return format_html('<span title="{}">-</span>', refusal)
    return format_html(
        '<button type="submit" form="{}" name="{}" value="{}" class="button">Send again</button>',
        RESEND_FORM,
        name,
        notification.pk,
    )


class NotificationInline(ReadOnlyInline):
    model = Notification
    latest = 50
    verbose_name_plural = "latest notifications"
    fields = (
        "created_at",
        "user",
        "kind",
        "channel",
        "subject",
        "due_at",
        "sent_at",
        "outcome",
        "attempts",
        "last_error",
    )
    readonly_fields = (*fields, "send_again")
    part_of_the_match = False  # the outbox, with its own list and permission

    def get_fields(self, request, obj=None):
        may_resend = self.admin_site.get_model_admin(Notification).has_resend_permission(request)
        return (*self.fields, "send_again") if may_resend else self.fields

    @admin.display(description="send again")
    def send_again(self, notification: Notification) -> str:
        return send_again_button(notification, "notification")

    def get_queryset(self, request):
        return with_resend_facts(super().get_queryset(request).select_related("user"))


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    show_full_result_count = False  # filtered to a match, no second count of the whole table
    list_display = (
        "created_at",
        "user",
        "kind",
        "channel",
        "match",
        "subject",
        "due_at",
        "sent_at",
        "outcome",
        "attempts",
        "last_error",
    )
    list_filter = ("kind", "channel", "outcome", ("sent_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "user__email", "subject", "=match__id")
    readonly_fields = (
        "user",
        "match",
        "kind",
        "channel",
        "subject",
        "body",
        "created_at",
        "due_at",
        "claimed_until",
        "sent_at",
        "outcome",
        "attempts",
        "last_error",
    )
    actions = ["resend"]

    def get_queryset(self, request):
        return with_resend_facts(super().get_queryset(request))

    def get_list_display(self, request):
        return (*self.list_display, "send_again") if self.has_resend_permission(request) else self.list_display

    def changelist_view(self, request, extra_context=None):
        # The form each row's "Send again" posts, outside the list's own form (forms do not nest).
        resend = {"resend_form": RESEND_FORM} if self.has_resend_permission(request) else {}
        return super().changelist_view(request, {**(extra_context or {}), **resend})

    @admin.display(description="send again")
    def send_again(self, notification: Notification) -> str:
        return send_again_button(notification, helpers.ACTION_CHECKBOX_NAME)

    # The outbox is a record of what was sent: staff read it and resend, never edit or
    # delete a row (a "resent from" set by hand would skip the checks before sending).
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_resend_permission(self, request):
        # Rows are never edited here, but the "change" permission is what staff are given to act on them.
        return request.user.has_perm("notifications.change_notification")

    @admin.action(description="Send the selected notifications again", permissions=["resend"])
    def resend(self, request, queryset):
        queued = 0
        for notification in queryset.select_related("user", "match"):
            what = f"{notification.get_kind_display()} to {notification.user.public_name}"
            try:
                copy = services.notification_resend(notification_id=notification.pk)
            except ServiceError as error:
                # Named as the list shows it: an id alone told staff nothing.
                about = f" about {notification.match}" if notification.match_id else ""
                self.message_user(
                    request, f"Notification {notification.pk} ({what}{about}): {error.message}", messages.WARNING
                )
            else:
                queued += 1
                self.log_change(request, notification, f"Sent again, as notification {copy.pk}.")
                if notification.match_id:  # and in the match's History, with what else staff did to it
                    self.log_change(
                        request,
                        notification.match,
                        f"Notification {notification.pk} ({what}) sent again, as notification {copy.pk}.",
                    )
        self.message_user(
            request, f"{queued} notification{pluralize(queued)} queued again, to be sent as they were written."
        )


MatchAdminBefore = type(admin.site.get_model_admin(Match))
admin.site.unregister(Match)


@admin.register(Match)
class MatchAdmin(MatchAdminBefore):
    """A match's page with its notifications, each sent again by its own button."""

    inlines = [*MatchAdminBefore.inlines, NotificationInline]
    actions = [*MatchAdminBefore.actions, "resend_notification"]
    change_form_template = "admin/notifications/match_change_form.html"

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        allowed = self.get_actions(request, action_location=ActionLocation.CHANGE_FORM)
        context["resend_form"] = RESEND_FORM if "resend_notification" in allowed else None
        return super().render_change_form(request, context, add, change, form_url, obj)

    def whole_log_links(self, match) -> list[tuple[str, int, str]]:
        notes = Notification.objects.filter(match=match).count()
        return [
            *super().whole_log_links(match),
            (reverse("admin:notifications_notification_changelist"), notes, "notification"),
        ]

    @admin.action(description="Send a notification again", permissions=["resend"], location=ActionLocation.CHANGE_FORM)
    def resend_notification(self, request, queryset):
        """The notifications list's own action, for the row whose button was pressed on the match's page."""
        chosen = [pk for pk in request.POST.getlist("notification") if pk.isdigit()]
        notifications = self.admin_site.get_model_admin(Notification)
        return notifications.resend(request, Notification.objects.filter(match__in=queryset, pk__in=chosen))

    def has_resend_permission(self, request):
        return self.admin_site.get_model_admin(Notification).has_resend_permission(request)
