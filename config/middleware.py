"""Site-wide request guards that belong to no one app, and each request's id."""

from __future__ import annotations

import re
import uuid

from django.shortcuts import render
from django.template.loader import render_to_string

from config import logs

NUL_REFUSED = "This address or form holds a NUL character, which nothing here accepts; nothing was done."
REQUEST_ID_HEADER = "X-Request-ID"
# An id the proxy in front gives (nginx's $request_id is 32 hex digits). Anything else, a line
# break or a page of text, would be written into every log line of the request and sent back.
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RequestId:
    """Gives each request an id: the proxy's (``X-Request-ID``) where it looks like one, else a new
    one. Every log line written while answering carries it (``config.logs``), the answer sends it
    back in ``X-Request-ID`` and the 500 page shows it to the player (``config.errors``), so that
    an operator finds the failure a player tells them of. First of the middleware: every answer
    has one, refusals too (an unknown Host)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = given if SANE_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        request.request_id = request_id  # for Django's lines about the request written after us ("Not Found")
        with logs.request_id_set(request_id):
            response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response


class RefuseNulCharacters:
    """A NUL character in a query or form value reaches PostgreSQL as text, which refuses it
    with an error (a 500), for instance through an admin filter (``?status=%00``). Forms
    already reject it; this answers every other path the same way, with a 400 in words, on a
    page of the site (it was a bare line of text)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for query in (request.GET, request.POST):
            for key, values in query.lists():
                if "\x00" in key or any("\x00" in value for value in values):
                    return render(request, "400.html", {"message": NUL_REFUSED}, status=400)
        return self.get_response(request)


class ExplainRefusedMethod:
    """Django answers a request by a method an address does not take (a POST to a page)
    with an empty 405: say it in words, in the site's layout."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 405 and not response.content:
            # HEAD and OPTIONS come with every GET page: naming them only adds jargon ("GET or HEAD or OPTIONS").
            allowed = " or ".join(
                method
                for method in response.get("Allow", "").split(", ")
                if method and method not in ("HEAD", "OPTIONS")
            )
            response.content = render_to_string("405.html", {"allowed": allowed}, request=request)
            response["Content-Type"] = "text/html; charset=utf-8"
            response["Content-Length"] = str(len(response.content))  # CommonMiddleware set it to 0
        return response
