"""The benchmarks still run against the site as it is (they print numbers; nothing here times anything)."""

from __future__ import annotations

from django.test import override_settings

from bench import site
from tests.conftest import start_match


def test_the_bare_write_the_move_is_compared_with_answers_an_htmx_post(client, alice, bob):
    """The site's middleware names the sign-in page on every htmx request: with only the
    bare view's address the bench stopped with NoReverseMatch before printing a number."""
    match = start_match(alice, bob)
    client.force_login(alice)
    with override_settings(ROOT_URLCONF=site.__name__):
        response = client.post(f"/bare/{match.pk}/", **site.HTMX)
    assert response.status_code == 200 and response.content == b"ok"
