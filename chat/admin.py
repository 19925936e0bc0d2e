"""Staff read the players' messages and the reports of them, and hide a message (through the
service, so that open pages redraw). A match's page lists its latest messages, each with a
"hidden" box: ``MatchAdmin`` is extended here with them."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.forms.models import BaseInlineFormSet

from chat import services
from chat.models import Message, MessageReport
from games.admin import ReadOnlyInline, may_see_matches
from games.models import Match


def with_report_count(messages):
    """Messages with how many times they were reported (``report_count``), in their own query."""
    counted = (
        MessageReport.objects.filter(message=OuterRef("pk"))
        .order_by()
        .values("message")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return messages.annotate(report_count=Coalesce(Subquery(counted), 0))


class ReportCount:
    @admin.display(description="reports", ordering="report_count")
    def report_count(self, message: Message) -> int:
        return message.report_count


class MessagesHiddenThroughTheService(BaseInlineFormSet):
    """Only the messages' "hidden" boxes can change on a match's page, each through the service
    (open pages redraw)."""

    def save(self, commit=True):
        self.new_objects, self.deleted_objects, self.changed_objects = [], [], []  # for the History
        for form in self.forms:
            if form.instance.pk and "hidden" in form.changed_data:
                message = services.message_hide(message_id=form.instance.pk, hidden=form.cleaned_data["hidden"])
                self.changed_objects.append((message, ["hidden"]))
        return []


class MessageInline(ReportCount, admin.TabularInline):
    """The players' messages, read-only but for ``hidden``: staff tick it to remove one from the match
    page (its author and time stay), through the service (``MessagesHiddenThroughTheService``)."""

    model = Message
    formset = MessagesHiddenThroughTheService
    extra = 0
    can_delete = False
    latest = 50
    verbose_name_plural = "latest messages between the players"
    fields = ("created_at", "author", "after_move", "text", "report_count", "hidden")
    readonly_fields = ("created_at", "author", "after_move", "text", "report_count")

    def has_add_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) or may_see_matches(request)

    def get_queryset(self, request):
        return with_report_count(super().get_queryset(request).select_related("author"))


class ReportedFilter(admin.SimpleListFilter):
    title = "reported"
    parameter_name = "reported"

    def lookups(self, request, model_admin):
        return [("yes", "Yes"), ("no", "No")]

    def queryset(self, request, queryset):
        reported = Exists(MessageReport.objects.filter(message=OuterRef("pk")))
        if self.value() == "yes":
            return queryset.filter(reported)
        if self.value() == "no":
            return queryset.exclude(reported)
        return queryset


class MessageReportInline(ReadOnlyInline):
    """Who reported the message, when and why (the reported player never learns who)."""

    model = MessageReport
    verbose_name_plural = "reports by players"
    fields = ("created_at", "reporter", "reason", "staff_told_at")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("reporter")


@admin.register(Message)
class MessageAdmin(ReportCount, admin.ModelAdmin):
    """Every message between players, to find one by its words or its author, or those players
    reported; ``hidden`` is the one thing staff change (through the service, so that open pages
    redraw)."""

    show_full_result_count = False
    list_display = ("created_at", "match", "author", "after_move", "text_start", "report_count", "hidden")
    list_editable = ("hidden",)
    list_filter = ("hidden", ReportedFilter)
    inlines = [MessageReportInline]
    search_fields = ("text", "author__username", "author__display_name", "=match__id")
    search_help_text = "Words of the message, its author's username or display name, or a match's number."
    fields = ("match", "author", "after_move", "created_at", "text", "hidden")
    readonly_fields = ("match", "author", "after_move", "created_at", "text")

    def get_queryset(self, request):
        # A match's name only: its state (kilobytes) stays unread.
        return with_report_count(super().get_queryset(request).select_related("match", "author").defer("match__state"))

    @admin.display(description="text")
    def text_start(self, message: Message) -> str:
        return message.text if len(message.text) <= 80 else message.text[:79] + "…"

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) or may_see_matches(request)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        services.message_hide(message_id=obj.pk, hidden=obj.hidden)


MatchAdminBefore = type(admin.site.get_model_admin(Match))
admin.site.unregister(Match)


@admin.register(Match)
class MatchAdmin(MatchAdminBefore):
    """A match's page with its players' messages."""

    inlines = [*MatchAdminBefore.inlines, MessageInline]

    def saves_on_its_page(self, request, object_id) -> bool:
        # The messages' "hidden" boxes, for staff who may change messages.
        return super().saves_on_its_page(request, object_id) or (
            request.user.has_perm("chat.change_message")
            and Message.objects.filter(match_id=object_id if str(object_id).isdigit() else None).exists()
        )
