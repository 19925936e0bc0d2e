"""Site-wide request guards that belong to no one app."""

from __future__ import annotations

from django.http import HttpResponseBadRequest

NUL_REFUSED = "This address or form holds a NUL character, which nothing here accepts; nothing was done."


class RefuseNulCharacters:
    """A NUL character in a query or form value reaches PostgreSQL as text, which refuses it
    with an error (a 500), for instance through an admin filter (``?status=%00``). Forms
    already reject it; this answers every other path the same way, with a 400 in words."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        for query in (request.GET, request.POST):
            for key, values in query.lists():
                if "\x00" in key or any("\x00" in value for value in values):
                    return HttpResponseBadRequest(NUL_REFUSED, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
