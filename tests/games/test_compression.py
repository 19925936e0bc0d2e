"""Pages and htmx fragments go compressed to browsers that accept it: the move log makes a
long game's match page large, and every redraw sends it again."""

from __future__ import annotations

import gzip

from django.urls import reverse

from tests.conftest import start_match
from tests.games.conftest import play_moves


def test_a_long_games_match_page_and_its_redraw_are_compressed(client, alice, bob):
    client.force_login(alice)
    match = start_match(alice, bob, variant="ethiopian")
    play_moves(match, [alice, bob], 120, slowly=True)
    url = reverse("match_detail", args=[match.pk])

    plain = client.get(url)
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain
    assert packed["Content-Encoding"] == "gzip"
    page = gzip.decompress(packed.content).decode()
    assert "Replay from the start" in page and page.count("<li value=") >= 100
    assert len(packed.content) * 4 < len(plain.content)

    fragment = client.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_HX_REQUEST="true")
    assert fragment["Content-Encoding"] == "gzip"
    redrawn = gzip.decompress(fragment.content).decode()
    assert '<div id="live"' in redrawn and "<html" not in redrawn  # the match's part (and the top bar's count)
