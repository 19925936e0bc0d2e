from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from accounts import export
        from games import hooks
        from games import signals as game_signals
        from ratings import export as ratings_export
        from ratings import player, receivers

        game_signals.match_finished.connect(receivers.match_finished, dispatch_uid="ratings.match_finished")
        export.SECTIONS.append(("ratings", ratings_export.ratings))
        hooks.player_page_parts.append(player.player_page_ratings)
