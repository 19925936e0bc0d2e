from django.apps import AppConfig
from django.db.models import Exists, Q


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        from accounts import export
        from chat import export as chat_export
        from chat import selectors
        from chat.views import match_page_messages
        from games import hooks

        hooks.match_page_parts.append(match_page_messages)
        hooks.match_list_annotations.append(lambda user: {"new_messages": selectors.new_messages(user)})
        hooks.presence_now.append(lambda user: Q(Exists(selectors.unseen_messages(user))))
        export.SECTIONS += [("messages", chat_export.messages), ("reports", chat_export.reports)]
