from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Players"  # allauth's own app is "Accounts" in the admin: two sections had that title
