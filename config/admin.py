"""The admin site: Django's, with a plain-words refusal of a changelist action whose rows are no rows."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.apps import AdminConfig
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError

NO_SUCH_ROWS = "Nothing was done: the rows chosen are not rows of this list. Reload the page and choose again."


class CheckedSelection:
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
