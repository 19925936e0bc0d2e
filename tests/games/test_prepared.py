"""Queries whose SQL is built once per process (games.prepared): each call runs with its own values,
and a query a value would reshape is refused rather than run wrong."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Match, Seat
from games.prepared import Prepared
from tests.conftest import start_match

pytestmark = pytest.mark.django_db


def test_each_call_runs_with_its_own_values_and_the_sql_is_built_once(alice, bob, monkeypatch):
    first, second = start_match(alice, bob), start_match(bob, alice)
    seats = Prepared(lambda match, number: Seat.objects.filter(match=match, number=number).values_list("user"))
    assert seats.rows(first.pk, 0) == [(alice.pk,)]
    built = []
    monkeypatch.setattr(seats, "_build", lambda *values: built.append(values))  # built again: it would fail
    with CaptureQueriesContext(connection) as captured:
        assert seats.rows(second.pk, 0) == [(bob.pk,)] and seats.rows(first.pk, 1) == [(bob.pk,)]
    assert built == [] and len(captured.captured_queries) == 2


def test_a_value_that_does_not_reach_the_query_as_a_parameter_is_refused(alice, bob):
    start_match(alice, bob)
    with pytest.raises(ValueError, match="must reach the query"):
        Prepared(lambda count: Match.objects.values_list("pk")[:count]).rows(1)  # LIMIT is written in the SQL
    with pytest.raises(ValueError, match="must reach the query"):
        Prepared(lambda match, _unused: Match.objects.filter(pk=match).values_list("pk")).rows(1, 2)


def test_a_parameter_that_changes_by_itself_is_refused(alice, bob):
    start_match(alice, bob)
    moment = Prepared(lambda match: Match.objects.filter(pk=match, created_at__lt=timezone.now()).values_list("pk"))
    with pytest.raises(ValueError, match="Nothing but the values"):
        moment.rows(1)


def test_a_moment_is_a_value_too(alice, bob):
    match = start_match(alice, bob)
    started = Prepared(lambda match, before: Match.objects.filter(pk=match, created_at__lt=before).values_list("pk"))
    later = match.created_at + timedelta(seconds=1)
    assert started.rows(match.pk, later) == [(match.pk,)]
    assert started.rows(match.pk, match.created_at) == []  # the same SQL, another moment
