"""The filesystem broker of the default setup (no Redis), made safe for a busy worker.

kombu's filesystem channel creates a message's file first and writes it after, while a
worker that looks at that moment moves the file away and reads it empty: the worker dies
of a JSONDecodeError (kombu issue #1551), and with it ``python3 run.py``. Here a message
is written under a name no reader looks for and then renamed into place, which a reader
sees whole or not at all.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

WRITING = ".writing"  # "<ms>_<uuid>.<queue>.msg.writing" is no queue's file until renamed


class Channel(filesystem.Channel):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A command run before runsite made them (seed_demo on its own) declares the queue and
        # binds it before the first message: kombu lists and writes these folders but makes none.
        for folder in (self.data_folder_in, self.data_folder_out, self.control_folder):
            os.makedirs(folder, exist_ok=True)

    # kombu's base channel calls the second argument "message", its filesystem channel "payload".
    def _put(self, queue, payload, **kwargs):  # type: ignore[override]
        body = str_to_bytes(dumps(payload))
        name = os.path.join(self.data_folder_out, f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg")
        try:
            with open(name + WRITING, "wb") as file:
                file.write(body)
            os.replace(name + WRITING, name)  # atomic on one filesystem
        except OSError as error:
            raise ChannelError(f"Cannot add file {name!r} to directory") from error


class Transport(filesystem.Transport):
    Channel = Channel
