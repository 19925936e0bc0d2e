"""The admin site: Django's, with a plain-words refusal of a changelist action whose rows are no rows,
and no filter on a field that holds a secret."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.apps import AdminConfig
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError

NO_SUCH_ROWS = "Nothing was done: the rows chosen are not rows of this list. Reload the page and choose again."


class CheckedSelection(admin.ModelAdmin):
    """Django filters by the posted row ids as they come: "abc", "" or "1.5" (a forged or
    mangled form) ended in a server error (500) instead of an answer."""

    def response_action(self, request, queryset, *args, **kwargs):
        pk = self.model._meta.pk
        try:
            for value in request.POST.getlist(ACTION_CHECKBOX_NAME):
                pk.to_python(value)
        except ValidationError:
            self.message_user(request, NO_SUCH_ROWS, messages.ERROR)
            return None  # Django then redirects back to the list, which shows the message
        return super().response_action(request, queryset, *args, **kwargs)


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
