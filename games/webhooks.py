"""Posting a notice to a player's webhook (Discord reads ``content``, Slack reads ``text``).

The address is the player's own input, and the worker sits inside our network: unless
``WEBHOOK_ALLOW_PRIVATE_ADDRESSES`` is on (development, tests), a host that resolves to a
loopback, private, link-local or otherwise non-public address is refused, and redirects
are never followed (a public hook could send us on to an inner one). A name that resolves
differently between the check and the connection is not caught; a proxy is the tool for that.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings

TIMEOUT_SECONDS = 5


class Refused(Exception):
    """A delivery that will never succeed as the address stands: not worth a retry."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx code


_opener = urllib.request.build_opener(_NoRedirects)


def post(url: str, text: str) -> None:
    """Deliver ``text``; raises ``Refused`` for good, anything else for a retry."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused("The webhook address must start with http:// or https:// and name a host.")
    if not settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        _refuse_inner_addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    data = json.dumps({"content": text, "text": text}).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json", "User-Agent": "Boardgames"})
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS):
            pass
    except urllib.error.HTTPError as error:
        if 300 <= error.code < 400:
            raise Refused(f"The webhook answered with a redirect (HTTP {error.code}); give its final address.") \
                from error
        if 400 <= error.code < 500 and error.code not in (408, 429):
            raise Refused(f"The webhook answered HTTP {error.code}.") from error
        raise


def _refuse_inner_addresses(host: str, port: int) -> None:
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)}
    except socket.gaierror as error:
        raise OSError(f"The webhook host {host} could not be found.") from error  # DNS may come back: retried
    for address in addresses:
        if not ipaddress.ip_address(address.split("%", 1)[0]).is_global:
            raise Refused(f"The webhook address {host} points into a private network ({address}); "
                          "use a public address.")
