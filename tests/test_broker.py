"""The default setup's filesystem broker (config/broker.py): a worker looking at the queue
while a message is being written must see it whole or not at all (kombu's own channel let
it read an empty file and die of a JSONDecodeError, and ``python3 run.py`` with it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from queue import Empty

from kombu import Connection
from kombu.transport import filesystem

import config.broker

ROOT = Path(__file__).resolve().parents[1]
TRANSPORT = "config.broker:Transport"


def channel(folder: Path, transport: str = TRANSPORT):
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder), "store_processed": False}
    return Connection("filesystem://", transport=transport, transport_options=options).channel()


def test_a_reader_never_sees_a_message_half_written(tmp_path, monkeypatch):
    writer, reader = channel(tmp_path), channel(tmp_path)
    seen_meanwhile = []
    serialize = filesystem.dumps

    def dumps_while_a_worker_looks(payload):
        try:
            seen_meanwhile.append(reader._get("celery"))
        except Empty:
            seen_meanwhile.append("nothing")
        return serialize(payload)

    for module in (config.broker, filesystem):  # kombu's channel serializes once the file exists
        monkeypatch.setattr(module, "dumps", dumps_while_a_worker_looks)
    writer._put("celery", {"task": "games.tasks.ai_move", "n": 1})

    assert seen_meanwhile == ["nothing"]
    assert reader._get("celery") == {"task": "games.tasks.ai_move", "n": 1}
    assert os.listdir(tmp_path) == [], "read once, then gone; no half-written file left"


def test_the_default_setup_uses_it():
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    code = "import django; django.setup(); from django.conf import settings; print(settings.CELERY_BROKER_TRANSPORT)"
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == TRANSPORT


def test_a_message_sent_before_the_folders_exist_makes_them(tmp_path):
    """``manage.py seed_demo`` on its own, before runsite made var/celery, must not fail to queue the AI's move."""
    queue = tmp_path / "celery" / "queue"
    writer, reader = channel(queue), channel(queue)
    writer._put("celery", {"task": "games.tasks.ai_move", "n": 1})
    assert reader._get("celery") == {"task": "games.tasks.ai_move", "n": 1}


def test_a_queue_declared_before_the_folders_exist_is_empty(tmp_path):
    """Celery declares the queue before its first message: the declaration must not fail on the missing folder."""
    queue = tmp_path / "celery" / "queue"
    options = {"data_folder_in": str(queue), "data_folder_out": str(queue), "control_folder": str(tmp_path / "control")}
    with Connection("filesystem://", transport=TRANSPORT, transport_options=options) as connection:
        connection.SimpleQueue("celery").put({"task": "games.tasks.ai_move", "n": 1})
    assert len(os.listdir(queue)) == 1
