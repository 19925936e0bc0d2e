"""Staff find, inspect and manage matches. Nothing here writes a match directly: the
actions call the same services as the site.

Chat and notifications add their parts to a match's page (its messages, its notifications and
"Send again") by extending ``MatchAdmin`` in their own admin modules and registering it again."""

from __future__ import annotations

import json
import re

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import ActionLocation
from django.contrib.auth import get_permission_codename
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.shortcuts import render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import smart_split, unescape_string_literal

from accounts.admin import UserAdmin
from accounts.models import User
from config.admin import SecretsNotFiltered
from games import services
from games.engine import all_games
from games.models import STATUS_TRANSITIONS, Match, MatchEvent, MoveRecord, Seat, Status
from games.naming import names_in_words, scores_by_name, seat_names
from games.templatetags.clocks import duration, local_time


def may_see_matches(request) -> bool:
    """A match's seats, moves and events are part of it: whoever may see (or change) matches
    sees them, as the site shows them with the match. Django asks for a permission on each of
    their models, which nobody thinks to give a moderator: their match pages had no seats and
    no move log, and "All moves" was refused."""
    opts = Match._meta
    return any(
        request.user.has_perm(f"{opts.app_label}.{get_permission_codename(action, opts)}")
        for action in ("view", "change")
    )


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False
    latest: int | None = None  # rows that grow with the match: only this many of the newest (see MatchAdmin)
    part_of_the_match = True  # seen with the match; False: with its own model's permission

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return may_see_matches(request) if self.part_of_the_match else super().has_view_permission(request, obj)


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = (
        "seat",
        "user",
        "ai_level",
        "former_user",
        "accepted",
        "to_act",
        "deadline",
        "time_stopped",
        "time_in_bank",
        "clock_started_at",
        "last_seen_at",
    )
    readonly_fields = fields

    @admin.display(description="seat")
    def seat(self, seat):
        return seat.number + 1  # as the site and the actions' forms count them

    # In the site's words ("4 d 23 h"), not raw seconds (431897).
    @admin.display(description="time left while stopped (vacation)")
    def time_stopped(self, seat):
        return "—" if seat.paused_seconds is None else duration(seat.paused_seconds)

    @admin.display(description="time bank")
    def time_in_bank(self, seat):
        return "—" if seat.bank_seconds is None else duration(seat.bank_seconds)

    def get_queryset(self, request):
        # Each row names its player, former player, or AI (whose name is its game's): not queries a seat.
        return super().get_queryset(request).select_related("user", "former_user", "match")


NOTATION_HIDDEN = "shown when the match ends"


class NotationAfterTheEnd:
    """A move's notation may name a hidden thing (a Mesopotamia offering under a hut), and
    staff can be players too: until the match can no longer change they get the public
    description only."""

    # Counted from 1, as the site's move log ("1. Alice sows ...") and the actions' forms count.
    @admin.display(description="move", ordering="ply")
    def move_number(self, record: MoveRecord) -> int:
        return record.ply + 1

    @admin.display(description="seat", ordering="seat")
    def seat_number(self, record: MoveRecord) -> int:
        return record.seat + 1

    @admin.display(description="notation")
    def notation_shown(self, record: MoveRecord) -> str:
        return NOTATION_HIDDEN if STATUS_TRANSITIONS[record.match.status] else record.notation


class MoveRecordInline(NotationAfterTheEnd, ReadOnlyInline):
    model = MoveRecord
    latest = 50
    verbose_name_plural = "latest moves"
    fields = ("move_number", "seat_number", "notation_shown", "description", "by_ai", "created_at")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("match")


class MatchEventInline(ReadOnlyInline):
    model = MatchEvent
    fields = ("created_at", "from_status", "to_status", "reason", "actor", "moves_made")
    readonly_fields = fields

    @admin.display(description="moves made")
    def moves_made(self, event: MatchEvent) -> int | str:
        return "-" if event.ply is None else event.ply  # the number of moves before the event; "-" as other empty cells

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("actor")


SEAT_HELP = "Seat number, from 1 (with several matches chosen, the same seat in each)."


class AbortForm(forms.Form):
    reason = forms.CharField(
        max_length=200, required=False, help_text="Emailed to every player and shown in the move log."
    )


class ReplaceSeatForm(forms.Form):
    seat = forms.IntegerField(min_value=1, help_text=SEAT_HELP)
    level = forms.TypedChoiceField(
        coerce=int,
        initial=1,
        choices=lambda: sorted(
            {level: f"{level}: {name}" for game in all_games() for level, name in game.ai_levels.items()}.items()
        ),
    )
    reason = forms.CharField(max_length=200, initial="Replaced by staff.")


class ExtendDeadlineForm(forms.Form):
    seat = forms.IntegerField(min_value=1, help_text=SEAT_HELP)
    hours = forms.IntegerField(min_value=1, max_value=24 * 60, initial=24)
    reason = forms.CharField(max_length=150, help_text="Recorded in the match's events and move log.")


class PlayerFilter(admin.SimpleListFilter):
    title = "whose turn"
    parameter_name = "turn"

    def lookups(self, request, model_admin):
        return [("human", "A person"), ("ai", "An AI")]

    def queryset(self, request, queryset):
        # EXISTS, not a join: a join lists a match once per seat, and the DISTINCT that
        # follows compares whole match rows, state included.
        to_act = Seat.objects.filter(match=OuterRef("pk"), to_act=True)
        if self.value() == "human":
            return queryset.filter(Exists(to_act.filter(user__isnull=False)))
        if self.value() == "ai":
            return queryset.filter(Exists(to_act.filter(ai_level__isnull=False)))
        return queryset


class GameFilter(admin.SimpleListFilter):
    """Every game the site offers, by its name (the field alone lists the slugs of the games
    that have a match)."""

    title = "game"
    parameter_name = "game"

    def lookups(self, request, model_admin):
        return [(game.slug, game.name) for game in all_games()]

    def queryset(self, request, queryset):
        return queryset.filter(game=self.value()) if self.value() else queryset


BOTH_PAGES = [ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM]  # the list of matches and a match's own page
PLAYER_FIELDS = ("username", "email", "display_name")  # a player is searched for by these
MATCH_NUMBER = re.compile(r"[0-9]{1,18}")
MATCH_NAME = re.compile(r"(?:^|\s)#(\d{1,18})\b")  # "Mesopotamia #205", as emails, subjects and messages name a match


@admin.register(Match)
class MatchAdmin(SecretsNotFiltered, admin.ModelAdmin):
    list_display = ("id", "game_name", "options_label", "status", "players", "whose_turn", "version", "last_move_at")
    list_filter = (GameFilter, "status", PlayerFilter, "created_at")
    search_fields = ("=id", *(f"seats__{who}__{field}" for who in ("user", "former_user") for field in PLAYER_FIELDS))
    search_help_text = "A player (username, display name or email, also one who left) or a match (“Mecca #12”, “#12”)."
    date_hierarchy = "created_at"
    # The stored state holds the seed (and so every future draw) and every seat's secrets:
    # staff see the position as a spectator would, through the game's view.
    secret_fields = ("seed", "state")
    exclude = (*secret_fields, "result")  # shown in words (result_in_words)
    readonly_fields = (
        "game",
        "options",
        "status",
        "version",
        "revision",
        "result_in_words",
        "created_by",
        "created_at",
        "open_to_all",
        "open_until",
        "open_until_told",
        "rematch_of",
        "last_move_at",
        "finished_at",
        "time_control",
        "days_per_move",
        "bank_initial_days",
        "bank_increment_days",
        "bank_cap_days",
        "on_timeout",
        "rated",
        "public",
        "chat_public",
        "position",
        "whole_log",
    )
    inlines = [SeatInline, MoveRecordInline, MatchEventInline]
    actions = ["abort_matches", "replace_seat_by_ai", "extend_deadline"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_search_results(self, request, queryset, search_term):
        """What Django's search of ``search_fields`` finds (every word in one seat: its
        player's, its former player's, or the match's number), asked as "has such a seat"
        (EXISTS). Django's own search joined every seat and two players to every match, then
        de-duplicated whole match rows, state included: seconds at 90,000 matches. A match
        named as the site names it ("Mesopotamia #205", "#205") is found by its number:
        pasted from a player's email it found nothing."""
        if named := MATCH_NAME.search(search_term):
            return queryset.filter(pk=int(named[1])), False
        seat = Q()
        for word in smart_split(search_term):
            if word[:1] in ('"', "'") and word[0] == word[-1]:
                word = unescape_string_literal(word)
            players = User.objects.filter(
                Q(*(Q(**{f"{field}__icontains": word}) for field in PLAYER_FIELDS), _connector=Q.OR)
            )
            term = Q(user__in=players) | Q(former_user__in=players)
            seat &= term | Q(match_id=int(word)) if MATCH_NUMBER.fullmatch(word) else term
        if not seat:
            return queryset, False
        return queryset.filter(Exists(Seat.objects.filter(seat, match=OuterRef("pk")))), False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Every field is read-only (staff act through the actions): Save buttons would save nothing,
        # unless an inline another app adds has something staff may change (chat: "hidden" boxes).
        boxes = self.saves_on_its_page(request, object_id)
        hidden = {"show_save": boxes, "show_save_and_continue": boxes, "show_save_and_add_another": False}
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **hidden})

    def save_model(self, request, obj, form, change):
        """Nothing of the match is edited here (every field is read-only): saving its row would write
        back the position this page read over a move made meanwhile."""

    def saves_on_its_page(self, request, object_id) -> bool:
        """Whether a match's page has anything for Save to save (nothing here: every field is read-only)."""
        return False

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # Each action the match allows is a button of its own (match_tools); Django's drop-down of
        # every action would offer to abort a finished match, or to resend no notification at all.
        allowed = self.get_actions(request, action_location=ActionLocation.CHANGE_FORM)
        context.update(
            action_form=None,
            action_field=self._action_field_on_its_page(),
            match_tools=self.match_tools(obj, allowed),
        )
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _action_field_on_its_page(self) -> str:
        """The name Django gives the action field on an object's own page (the list's is "action")."""
        return self.action_form(prefix=ActionLocation.CHANGE_FORM.value).add_prefix("action")

    @staticmethod
    def match_tools(match: Match, allowed) -> list[tuple[str, int | None, str]]:
        """The ``allowed`` actions (those the staff member's permissions give) that apply to the
        match as it stands, as (action, seat, button's words): no Abort once it is over, the AI
        takes only a seat a person holds, and only a clock that runs (or a vacation stopped)
        can be extended."""
        tools = []
        if "abort_matches" in allowed and Status.ABORTED in STATUS_TRANSITIONS[match.status]:
            tools.append(("abort_matches", None, "Abort this match"))
        for seat in match.seats.all():
            number, name = seat.number + 1, seat.occupant_name
            if "replace_seat_by_ai" in allowed and STATUS_TRANSITIONS[match.status] and seat.user_id is not None:
                tools.append(("replace_seat_by_ai", number, f"Replace {name} (seat {number}) by the AI"))
            clock = seat.deadline is not None or seat.paused_seconds is not None
            if "extend_deadline" in allowed and match.status == Status.ACTIVE and clock:
                tools.append(("extend_deadline", number, f"Extend {name}'s deadline (seat {number})"))
        return tools

    def get_formset_kwargs(self, request, obj, inline, prefix):
        """A match of a thousand moves would list them all on its page: the inlines that grow
        show the newest ``latest`` rows; ``whole_log`` links to all of them, a page at a time."""
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if inline.latest and obj is not None:
            newest = inline.model.objects.filter(match=obj).order_by("-pk").values_list("pk", flat=True)
            kwargs["queryset"] = kwargs["queryset"].filter(pk__in=list(newest[: inline.latest]))
        return kwargs

    def whole_log_links(self, match) -> list[tuple[str, int, str]]:
        """The lists that hold all of a match's rows its page shows the latest of: (list, count, noun)."""
        moves = MoveRecord.objects.filter(match=match).count()
        return [(reverse("admin:games_moverecord_changelist"), moves, "move")]

    @admin.display(description="whole log")
    def whole_log(self, match):
        links = self.whole_log_links(match)
        listed = format_html_join(
            " · ",
            '<a href="{}?match__id__exact={}">{} {} {}{}</a>',
            (
                (url, match.pk, "All" if index == 0 else "all", count, noun, pluralize(count))
                for index, (url, count, noun) in enumerate(links)
            ),
        )
        each = " of each" if len(links) > 1 else ""
        return format_html("{} (this page lists the latest {}{})", listed, MoveRecordInline.latest, each)

    @admin.display(description="result")
    def result_in_words(self, match):
        """Who won, by name, as the match page says it: the stored result counts seats from 0,
        this page from 1, so its "winners": [1] read as seat 1 when seat 2 had won."""
        if not match.result:
            return "-"
        names = seat_names(list(match.seats.all()))
        winners = [names[number] for number in match.result["winners"]]
        tie_break = " on the tie-break" if match.won_on_tie_break else ""
        text = f"{names_in_words(winners)} {'wins' if len(winners) == 1 else 'share the win'}{tie_break}."
        if match.result["scores"]:
            text += f" Score: {scores_by_name(names, match.result['scores'])}."
        if match.result["reason"] != "played out":
            text += f" ({match.result['reason']})"
        return text

    @admin.display(description="position (a spectator's view)")
    def position(self, match):
        return format_html("<pre>{}</pre>", json.dumps(match.game_obj.view(match.game_state, None), indent=1))

    @admin.display(description="game", ordering="game")
    def game_name(self, match):
        return match.game_obj.name

    @admin.display(description="players")
    def players(self, match):
        return ", ".join(seat.occupant_name for seat in match.seats.all())

    @admin.display(description="to act")
    def whose_turn(self, match):
        return ", ".join(seat.occupant_name for seat in match.seats.all() if seat.to_act) or "—"

    def _form_action(self, request, queryset, form_class, action, apply):
        """An action that first asks for its form, then calls ``apply(match, data)`` on each
        chosen match; the text it returns, or the service's refusal, is that match's message.
        Asked for on a match's own page, the form posts back there (where a seat's button has
        already named its seat) and is titled for the one match."""
        field = self._action_field_on_its_page()
        on_its_page = field in request.POST
        form = form_class(request.POST if "apply" in request.POST else None, initial={"seat": request.POST.get("seat")})
        if not form.is_valid():
            return render(
                request,
                "admin/games/replace_seat.html",
                {
                    **self.admin_site.each_context(request),
                    "form": form,
                    "matches": queryset,
                    "action": action.__name__,
                    "action_field": field if on_its_page else "action",
                    "title": action.short_description if on_its_page else action.plural_description,
                },
            )
        for match in queryset:
            try:
                done = apply(match, form.cleaned_data)
            except (services.ServiceError, IndexError) as error:
                text = getattr(error, "message", None) or (
                    f"There is no seat {form.cleaned_data['seat']}: its seats are 1 to {match.seats.count()}."
                )
                self.message_user(request, f"{match}: {text}", messages.WARNING)
            else:
                self.message_user(request, done)
                # The match's History and the admin's "Recent actions" said no one had touched it.
                reason = form.cleaned_data["reason"].strip()
                self.log_change(request, match, f"{done} Reason: {reason}" if reason else done)
        return None

    @admin.action(
        description="Abort this match",
        description_plural="Abort the selected matches",
        permissions=["change"],
        location=BOTH_PAGES,
    )
    def abort_matches(self, request, queryset):
        def abort(match, data):
            services.match_abort(match_id=match.pk, actor=request.user, reason=data["reason"])
            return f"{match} aborted."

        return self._form_action(request, queryset, AbortForm, self.abort_matches, abort)

    @admin.action(description="Extend a seat's deadline", permissions=["change"], location=BOTH_PAGES)
    def extend_deadline(self, request, queryset):
        def extend(match, data):
            seat = services.seat_deadline_extend(
                match_id=match.pk,
                seat_number=data["seat"] - 1,
                hours=data["hours"],
                actor=request.user,
                reason=data["reason"],
            )
            if seat.deadline:
                until = f"until {local_time(seat.deadline, 'j F Y')}"
            else:  # a vacation stopped the clock
                until = f"{duration(seat.paused_seconds)} left once the vacation ends"
            return f"{match}: Seat {data['seat']} now has {until}."

        return self._form_action(request, queryset, ExtendDeadlineForm, self.extend_deadline, extend)

    @admin.action(description="Replace a seat by the AI", permissions=["change"], location=BOTH_PAGES)
    def replace_seat_by_ai(self, request, queryset):
        def replace(match, data):
            services.seat_replace_by_ai(
                match_id=match.pk,
                seat_number=data["seat"] - 1,
                level=data["level"],
                actor=request.user,
                reason=data["reason"],
            )
            level = match.game_obj.ai_levels.get(data["level"], data["level"])
            return f"{match}: The AI ({level}) plays seat {data['seat']}."

        return self._form_action(request, queryset, ReplaceSeatForm, self.replace_seat_by_ai, replace)


@admin.register(MoveRecord)
class MoveRecordAdmin(NotationAfterTheEnd, SecretsNotFiltered, admin.ModelAdmin):
    show_full_result_count = False  # filtered to a match, no second count of the whole table
    list_display = ("match", "move_number", "seat_number", "notation_shown", "description", "by_ai", "created_at")
    list_select_related = ("match",)
    search_fields = ("=match__id",)
    # Named, or the read-only page would list every model field, the raw notation too.
    fields = readonly_fields = (
        "match",
        "move_number",
        "seat_number",
        "notation_shown",
        "description",
        "by_ai",
        "created_at",
    )
    secret_fields = ("notation",)

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) or may_see_matches(request)  # a match's whole log

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


MATCHES_NAMED = 10  # per player refused deletion; the rest are counted


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    """The players' admin (``accounts.admin``), knowing their matches."""

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
