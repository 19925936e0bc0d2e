"""Posting a notice to a player's webhook (Discord reads ``content``, Slack reads ``text``).

The notice holds other players' names, which they choose: in neither chat may a name ping
anyone ("@everyone" as a display name) or become a link (Slack's ``<https://…|Accept>``).
Discord is told to notify nobody (``allowed_mentions``); Slack's text has its control
characters ``&``, ``<`` and ``>`` escaped, as Slack asks for any text it did not write.

The address is the player's own input, and the worker sits inside our network: unless
``WEBHOOK_ALLOW_PRIVATE_ADDRESSES`` is on (development, tests), a host that resolves to a
loopback, private, link-local or otherwise non-public address is refused, and redirects
are never followed (a public hook could send us on to an inner one). The name is resolved
once: the connection goes to the address that was checked, with the name kept for the
``Host`` header and the TLS certificate, so a name that resolves to a public address for
the check and to an inner one a moment later (DNS rebinding) still reaches only the public
one. Behind a proxy set by the environment (``https_proxy``…) the proxy resolves the
name again and is the guard against rebinding.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings

TIMEOUT_SECONDS = 5
# What http.client refuses in a request's address, in an error that quotes the path: the
# hook's secret token (Discord's /api/webhooks/<id>/<token>), which would reach the logs.
NOT_IN_A_REQUEST = re.compile("[\x00-\x20\x7f]")
UNUSABLE_ADDRESS = (
    "The webhook address holds a space or a control character, which no web address may: "
    "copy it again from the chat's settings."
)


class Refused(Exception):
    """A delivery that will never succeed as the address stands: not worth a retry."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx code


def _pinned(connection_class: type[http.client.HTTPConnection], address: str):
    """``connection_class`` connecting to ``address`` whatever its host name resolves to now."""

    def connection(host: str, **kwargs) -> http.client.HTTPConnection:
        made = connection_class(host, **kwargs)
        # http.client opens its socket through this attribute; the name stays for Host and TLS.
        made._create_connection = (  # type: ignore[attr-defined]  # http.client's own hook, not in its stubs
            lambda where, *args: socket.create_connection((address, where[1]), *args)
        )
        return made

    return connection


class _Pinned:
    """A handler that opens its connections to the address that was checked."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address


class _PinnedHTTP(_Pinned, urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(_pinned(http.client.HTTPConnection, self.address), req)


class _PinnedHTTPS(_Pinned, urllib.request.HTTPSHandler):
    def https_open(self, req):
        context = self._context  # type: ignore[attr-defined]  # set by HTTPSHandler, not in its stubs
        return self.do_open(_pinned(http.client.HTTPSConnection, self.address), req, context=context)


def post(url: str, text: str) -> None:
    """Deliver ``text``; raises ``Refused`` for good, anything else for a retry."""
    if NOT_IN_A_REQUEST.search(url):
        raise Refused(UNUSABLE_ADDRESS)
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("The webhook address must start with http:// or https:// and name a host.")
    address = _checked_address(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    if urllib.request.getproxies().get(parts.scheme) and not urllib.request.proxy_bypass(parts.hostname):
        opener = urllib.request.build_opener(_NoRedirects)  # the proxy resolves the name again
    else:
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), _PinnedHTTP(address), _PinnedHTTPS(address), _NoRedirects
        )
    data = json.dumps(payload(text)).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/json", "User-Agent": "Boardgames"}
    )
    try:
        with opener.open(request, timeout=TIMEOUT_SECONDS):
            pass
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            raise Refused(
                f"The webhook answered with a redirect (HTTP {error.code}); give its final address."
            ) from error
        if 400 <= error.code < 500 and error.code not in (408, 429):
            raise Refused(f"The webhook answered HTTP {error.code}.") from error
        raise


def payload(text: str) -> dict[str, object]:
    """The JSON body for ``text``: as Discord and as Slack read it, pinging nobody."""
    slack = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return {"content": text, "allowed_mentions": {"parse": []}, "text": slack}


# IPv6 addresses that carry an IPv4 one in their last 32 bits, some of which Python counts as
# global whatever they carry: a NAT64 gateway (IPv6-only hosts) turns 64:ff9b::a00:1 into
# 10.0.0.1 (and 64:ff9b:1::/48, RFC 8215, is NAT64 for local use); ::127.0.0.1 is the old
# "IPv4-compatible" form of 127.0.0.1, ::ffff:127.0.0.1 its "mapped" form and
# ::ffff:0:127.0.0.1 its "translated" one (RFC 2765).
CARRY_IPV4 = tuple(
    ipaddress.IPv6Network(network)
    for network in ("64:ff9b::/96", "64:ff9b:1::/48", "::/96", "::ffff:0:0/96", "::ffff:0:0:0/96")
)


def _carried_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses ``address`` leads to: the one it carries in its last 32 bits, the one of
    a 6to4 relay (2002::/16) or the server and client of a Teredo tunnel (2001::/32)."""
    carried = [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)] if any(address in n for n in CARRY_IPV4) else []
    if address.sixtofour is not None:
        carried.append(address.sixtofour)
    if address.teredo is not None:
        carried.extend(address.teredo)
    return carried


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if address.version == 6:
        return address.is_global and all(ipv4.is_global for ipv4 in _carried_ipv4(address))
    return address.is_global


def _checked_address(host: str, port: int) -> str:
    """The address to connect to: the first ``host`` resolves to, once every one of them
    is known to be public (unless private addresses are allowed)."""
    try:
        addresses = [str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)]
    except socket.gaierror as error:
        raise OSError(f"The webhook host {host} could not be found.") from error  # DNS may come back: retried
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return addresses[0]
    for address in addresses:
        if not _public(ipaddress.ip_address(address.split("%", 1)[0])):
            raise Refused(
                f"The webhook address {host} points into a private network ({address}); use a public address."
            )
    return addresses[0]
