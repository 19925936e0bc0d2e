"""A NUL character anywhere in a query or form: a 400 in words, never a 500 from PostgreSQL."""

from __future__ import annotations

import pytest
from django.urls import reverse

from config.middleware import NUL_REFUSED
from games.models import Match


@pytest.mark.parametrize("query", ["status=%00", "q=%00", "game=mecca%00", "%00=1"])
def test_an_admin_filter_with_a_nul_is_refused_in_words(admin_client, match, query):
    response = admin_client.get(reverse("admin:games_match_changelist") + "?" + query)
    assert response.status_code == 400 and NUL_REFUSED in response.content.decode()


def test_a_form_with_a_nul_changes_nothing(client, alice, match):
    client.force_login(alice)
    response = client.post(reverse("match_move", args=[match.pk]), {"move": "1\x00", "version": "0"})
    assert response.status_code == 400
    assert Match.objects.get(pk=match.pk).version == 0
