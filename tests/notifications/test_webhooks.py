"""The webhook: Discord and Slack JSON that pings nobody, retried after a server error, failing
for good (and said so on the profile) when it is gone, redirects, cannot carry the address or
stands on a private network, also one a name rebinds to after the check; the profile takes
only http and https addresses; a player who wants no email still gets the webhook. Deliveries
go to an HTTP server on 127.0.0.1."""

from __future__ import annotations

import ipaddress
import logging
import socket

import pytest
from django.urls import reverse

from accounts.models import User
from config import webhooks
from games import services
from games.models import Match
from games.services import SeatSpec
from notifications import services as notification_services
from notifications.models import Notification
from tests.games.conftest import start_timed_match


def your_turn_by_webhook(alice, bob, webhook, *statuses: int) -> tuple[Match, Notification]:
    """Bob has a webhook answering ``statuses`` (then 204); Alice moves: his webhook notice."""
    bob.webhook_url = webhook.url
    bob.save()
    match = start_timed_match(alice, bob)
    webhook.statuses.extend(statuses)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    return match, Notification.objects.get(user=bob, kind=Notification.Kind.YOUR_TURN, channel="webhook")


def test_a_webhook_gets_discord_and_slack_json_and_is_retried_after_a_server_error(clock, alice, bob, webhook):
    match, hook = your_turn_by_webhook(alice, bob, webhook, 500)

    with pytest.raises(Exception, match="500"):
        notification_services.notification_send(notification_id=hook.pk)
    hook.refresh_from_db()
    assert hook.sent_at is None and hook.due_at > clock.now
    clock.advance(seconds=31)
    assert notification_services.notification_send(notification_id=hook.pk) is True
    assert notification_services.notification_send(notification_id=hook.pk) is False
    assert len(webhook.bodies) == 1
    body = webhook.bodies[0]
    assert body["content"] == body["text"] and f"Your turn in {match}" in body["content"]
    assert f"/matches/{match.pk}/" in body["content"]


def test_a_players_name_in_a_webhook_notice_pings_nobody_and_makes_no_link(alice, bob, webhook):
    # Names may hold "@", "<", ">" and "|": Discord would ping the whole server, Slack would
    # ping the channel and show a link labelled "Go" leading elsewhere.
    alice.display_name = "@everyone <!here> <https://x.io|Go>"
    alice.save()
    bob.webhook_url = webhook.url
    bob.save()
    services.match_create(
        creator=alice, game_slug="mancala", options={}, seats=[SeatSpec("creator"), SeatSpec("user", username="bob")]
    )
    hook = Notification.objects.get(user=bob, kind=Notification.Kind.INVITATION, channel="webhook")

    assert notification_services.notification_send(notification_id=hook.pk) is True
    body = webhook.bodies[0]
    assert body["allowed_mentions"] == {"parse": []}
    assert body["content"].startswith("@everyone <!here> <https://x.io|Go> invites you")
    assert body["text"].startswith("@everyone &lt;!here&gt; &lt;https://x.io|Go&gt; invites you")


def test_a_webhook_that_is_gone_fails_for_good_and_the_profile_says_so(clock, alice, bob, webhook, client):
    _, hook = your_turn_by_webhook(alice, bob, webhook, 404)
    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "404" in hook.last_error
    client.force_login(bob)
    assert "The webhook answered HTTP 404." in client.get(reverse("profile")).content.decode()


def test_a_webhook_on_a_private_address_is_refused_for_good_without_a_request(
    clock, alice, bob, webhook, settings, client
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False  # as in production
    _, hook = your_turn_by_webhook(alice, bob, webhook)

    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "private network (127.0.0.1)" in hook.last_error
    assert webhook.bodies == [] and webhook.requests == 0
    client.force_login(bob)
    assert "use a public address" in client.get(reverse("profile")).content.decode()


def test_a_webhook_address_no_request_can_carry_fails_for_good_and_no_log_shows_its_token(
    clock, alice, bob, webhook, caplog
):
    """A control character in the path (an address saved before the profile refused them):
    http.client refused each attempt with "URL can't contain control characters. '/hook/<token>'",
    which was retried eight times and written, token and all, to the worker's log, the row's
    last error (shown to staff) and the "failed for good" line."""
    token = "T0k3nThatPostsToTheirChannel"
    _, hook = your_turn_by_webhook(alice, bob, webhook)
    User.objects.filter(pk=bob.pk).update(webhook_url=f"{webhook.url}/{token}\x01")
    with caplog.at_level(logging.INFO):
        assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert (hook.outcome, hook.attempts) == ("failed", 1), "no retry can succeed"
    assert hook.last_error == webhooks.UNUSABLE_ADDRESS
    assert token not in caplog.text and token not in hook.last_error
    assert webhook.requests == 0


def test_a_webhook_that_redirects_is_not_followed(clock, alice, bob, webhook):
    _, hook = your_turn_by_webhook(alice, bob, webhook, 307)

    assert notification_services.notification_send(notification_id=hook.pk) is False
    hook.refresh_from_db()
    assert hook.outcome == "failed" and "redirect (HTTP 307)" in hook.last_error
    assert webhook.requests == 1, "one POST, the redirect not followed"


class RebindingDNS:
    """Answers for ``hook.example``: ``first`` the first time, ``later`` every time after
    (None: the name is not found); other names and literal addresses resolve as usual."""

    def __init__(self, monkeypatch, first: str, later: str | None):
        self.first, self.later, self.asked = first, later, 0
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host != "hook.example":
                return real(host, port, *args, **kwargs)
            self.asked += 1
            address = self.first if self.asked == 1 else self.later
            if address is None:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return real(address, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_a_webhook_request_names_its_host_though_it_connects_to_a_checked_address(monkeypatch, webhook):
    port = webhook.httpd.server_address[1]
    dns = RebindingDNS(monkeypatch, first="127.0.0.1", later=None)

    webhooks.post(f"http://hook.example:{port}/hook", "Your turn")

    assert dns.asked == 1, "the address checked is the address connected to"
    assert webhook.requests == 1 and webhook.hosts == [f"hook.example:{port}"]


def test_a_host_that_rebinds_to_a_private_address_after_the_check_is_never_reached(monkeypatch, settings, webhook):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False  # as in production
    port = webhook.httpd.server_address[1]
    RebindingDNS(monkeypatch, first="93.184.215.14", later="127.0.0.1")  # public for the check, then ours
    connected = []
    real = socket.create_connection

    def create_connection(address, *args, **kwargs):
        connected.append(address)
        if address[0] == "93.184.215.14":
            raise ConnectionRefusedError("no outside network in tests")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)

    with pytest.raises(OSError):
        webhooks.post(f"http://hook.example:{port}/hook", "Your turn")

    assert connected == [("93.184.215.14", port)]
    assert webhook.requests == 0, "the private server behind the rebound name got nothing"


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "10.1.2.3",
        "192.168.0.10",
        "169.254.169.254",
        "[::1]",
        "100.64.0.1",
        "[64:ff9b::a9fe:a9fe]",
        "[::127.0.0.1]",
        # IPv6 addresses that carry a private IPv4 one, each form of it: Python counted the
        # "IPv4-translated" ::ffff:0:a.b.c.d (RFC 2765) as global, so it reached 127.0.0.1.
        "[::ffff:0:127.0.0.1]",
        "[::ffff:0:a00:1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:10.0.0.1]",
        "[64:ff9b:1::a00:1]",  # NAT64 for local use (RFC 8215)
        "[2002:7f00:1::]",  # 6to4 of 127.0.0.1
        "[2002:a9fe:a9fe::1]",  # 6to4 of 169.254.169.254
        "[2001:0:a00:1:8000:0:a247:28f1]",  # Teredo, its server 10.0.0.1
        "[2001:0:5db8:d70e::80ff:fffe]",  # Teredo, its client 127.0.0.1 (written inverted)
    ],
)
def test_webhook_hosts_inside_private_networks_are_refused(settings, host):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    with pytest.raises(webhooks.Refused, match="private network"):
        webhooks.post(f"http://{host}/hook", "Your turn")


@pytest.mark.parametrize(
    "address",
    ["::ffff:93.184.215.14", "::ffff:0:93.184.215.14", "64:ff9b::5db8:d70e", "2606:4700:4700::1111", "93.184.215.14"],
)
def test_an_address_that_carries_a_public_ipv4_address_is_public(address):
    assert webhooks._public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("::ffff:0:127.0.0.1", "127.0.0.1"),
        ("64:ff9b:1:ffff::a00:1", "10.0.0.1"),
        ("2002:c0a8:101::", "192.168.1.1"),
        ("2001:0:a00:1:8000:0:a247:28f1", "10.0.0.1"),
        ("2001:0:5db8:d70e::80ff:fffe", "127.0.0.1"),
    ],
)
def test_an_address_that_carries_a_private_ipv4_address_is_refused_whatever_python_thinks_of_it(
    monkeypatch, address, carried
):
    """Which of these ranges Python counts as global changed between its releases (6to4 and
    Teredo were global before 3.12.4): the IPv4 address each carries decides, however it is asked."""
    monkeypatch.setattr(ipaddress.IPv6Address, "is_global", property(lambda self: True))
    assert ipaddress.ip_address(carried) in webhooks._carried_ipv4(ipaddress.IPv6Address(address))
    assert not webhooks._public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/hook",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://example.com/hook/\x01token",
        "https://example.com/hook/tok\x7fen",
    ],
)
def test_the_profile_accepts_only_http_and_https_webhooks(client, bob, url):
    client.force_login(bob)
    response = client.post(
        reverse("profile"),
        {
            "display_name": "",
            "time_zone": "UTC",
            "turn_notice": "instant",
            "digest_hour": "8",
            "reminders": "",
            "webhook_url": url,
        },
    )
    assert response.status_code == 400
    said = "control characters" if url.startswith("https") else "starts with http:// or https://"
    assert said in response.content.decode()
    bob.refresh_from_db()
    assert bob.webhook_url == ""


def test_a_player_who_wants_no_email_gets_none_but_still_a_webhook(clock, alice, bob, webhook):
    bob.turn_notice, bob.webhook_url = "none", webhook.url
    bob.save()
    match = start_timed_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    channels = set(Notification.objects.filter(user=bob, kind="your_turn").values_list("channel", flat=True))
    assert channels == {"webhook"}
