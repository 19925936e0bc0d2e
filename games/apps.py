from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from accounts import export
        from accounts import signals as account_signals
        from games import export as games_export
        from games import receivers

        account_signals.account_closed.connect(receivers.account_closed, dispatch_uid="games.account_closed")
        export.SECTIONS.append(("matches", games_export.matches))
