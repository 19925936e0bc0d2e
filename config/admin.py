"""The admin site: Django's, with a plain-words refusal of a changelist action whose rows are no rows,
Django's "doesn't exist" for a row's page whose id no row can have, and no filter on a field that holds
a secret."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.apps import AdminConfig
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.options import TO_FIELD_VAR
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.db import models

NO_SUCH_ROWS = "Nothing was done: the rows chosen are not rows of this list. Reload the page and choose again."


class CheckedSelection(admin.ModelAdmin):
    """Django filters by the posted row ids as they come: "abc", "" or "1.5" (a forged or
    mangled form) ended in a server error (500) instead of an answer, and so did a whole number
    past what the id's column holds (on SQLite, past 64 bits), posted or in a row's address."""

    def response_action(self, request, queryset, *args, **kwargs):
        pk = self.model._meta.pk
        try:
            for value in request.POST.getlist(ACTION_CHECKBOX_NAME):
                pk.run_validators(pk.to_python(value))  # the validators hold the column's range
        except ValidationError:
            self.message_user(request, NO_SUCH_ROWS, messages.ERROR)
            return None  # Django then redirects back to the list, which shows the message
        return super().response_action(request, queryset, *args, **kwargs)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Before any subclass reads the id (the match's page asks for its messages by it).
        if not self._could_be_a_row(request, unquote(object_id)):
            no_such_row = self._get_obj_does_not_exist_redirect  # type: ignore[attr-defined]  # not in Django's stubs
            return no_such_row(request, self.opts, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def _could_be_a_row(self, request, object_id: str) -> bool:
        """Whether ``object_id`` fits the field that finds the row (the primary key, or the one
        ``_to_field`` names), as Django's ``get_object`` reads it."""
        to_field = request.POST.get(TO_FIELD_VAR, request.GET.get(TO_FIELD_VAR))
        if to_field and not self.to_field_allowed(request, to_field):
            return True  # Django refuses that field itself
        field = self.opts.get_field(to_field) if to_field else self.opts.pk
        if not isinstance(field, models.Field):
            return True  # the far side of a relation: Django's get_object reads it
        try:
            field.run_validators(field.to_python(object_id))
        except ValidationError:
            return False
        return True


class SecretsNotFiltered(admin.ModelAdmin):
    """Django's admin lets any address filter on any field of the model (``?seed__gte=…``),
    which answers yes or no about a value the page does not show: a match's seed could be
    found by halving, a hidden offering by trying its six values. Those fields take no
    filter here."""

    secret_fields: tuple[str, ...] = ()

    def lookup_allowed(self, lookup, value, request):
        if lookup.split("__")[0] in self.secret_fields:
            return False
        return super().lookup_allowed(lookup, value, request)


class BoardgamesAdminSite(admin.AdminSite):
    def register(self, model_or_iterable, admin_class=None, **options):
        # Every list checks its rows, also those of the installed apps (allauth's email
        # addresses, Django's groups), which register their own ModelAdmin classes.
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, CheckedSelection):
            admin_class = type(
                admin_class.__name__,
                (CheckedSelection, admin_class),
                {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__},
            )
        super().register(model_or_iterable, admin_class, **options)


class BoardgamesAdminConfig(AdminConfig):
    default_site = "config.admin.BoardgamesAdminSite"
