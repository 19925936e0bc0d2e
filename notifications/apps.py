from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from accounts import export
        from accounts import signals as account_signals
        from chat import signals as chat_signals
        from games import hooks
        from games import signals as game_signals
        from notifications import export as notification_export
        from notifications import receivers
        from notifications.services.outbox import first_unsent_reminders

        for name in (
            "invited",
            "invitation_expiring",
            "turn_started",
            "match_ended",
            "match_cancelled",
            "timed_out",
            "seat_taken",
            "deadline_extended",
            "clocks_started",
            "clocks_stopped",
        ):
            getattr(game_signals, name).connect(getattr(receivers, name), dispatch_uid=f"notifications.{name}")
        chat_signals.message_posted.connect(receivers.message_posted, dispatch_uid="notifications.message_posted")
        account_signals.notification_settings_changed.connect(
            receivers.notification_settings_changed, dispatch_uid="notifications.settings_changed"
        )
        hooks.first_unsent_reminders.append(first_unsent_reminders)
        export.SECTIONS.append(("notifications", notification_export.notifications))
