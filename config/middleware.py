"""Site-wide request guards that belong to no one app."""

from __future__ import annotations

from django.shortcuts import render
from django.template.loader import render_to_string

NUL_REFUSED = "This address or form holds a NUL character, which nothing here accepts; nothing was done."


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
