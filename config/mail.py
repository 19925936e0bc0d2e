"""The default email backend: every message is printed to the console and kept as a
file under ``var/mail/``, so a player on a fresh machine can open their confirmation link."""

from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend


class ConsoleAndFileEmailBackend(FileBackend):
    def __init__(self, *, alias=None, file_path=None, **kwargs):
        super().__init__(alias=alias, file_path=file_path, **kwargs)
        self.console = ConsoleBackend(alias=alias)

    def send_messages(self, email_messages):
        self.console.send_messages(email_messages)
        return super().send_messages(email_messages)
