from django.apps import AppConfig


class HousekeepingConfig(AppConfig):
    name = "housekeeping"
    verbose_name = "Housekeeping"
