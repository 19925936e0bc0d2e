"""SQL that Django builds once per process, for the reads every move and page makes.

Building a query with subqueries, unions or window functions costs Django milliseconds, many times
what running it costs: in a profile of moves on SQLite, 8 ms to build the query of the next match
waiting and 0.7 ms to run it. These few are built once, with stand-ins for the values that vary
(ids, a seat's number, a moment), and then run with each call's values."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models import QuerySet

Value = int | datetime
# Two sets of stand-ins: the parameters that differ between the two builds are the values'. Whole
# numbers small and positive, as every field's range admits (out of its range, Django drops a
# lookup from the query); moments in 2001 and 2002, a day apart from one value to the next.
STAND_INS = (30_001, 30_101)
MOMENT_STAND_INS = (datetime(2001, 1, 1, tzinfo=UTC), datetime(2002, 1, 1, tzinfo=UTC))


class Prepared:
    """The query ``build(*values)`` returns, its SQL built on first use. Its values (whole numbers or
    aware moments) must reach it as parameters, unchanged, and it must return plain values
    (``values_list``): ``rows`` reads them as the database gives them."""

    def __init__(self, build: Callable[..., QuerySet]):
        self._build = build
        self._built: dict[tuple, tuple[str, list, list[int | None]]] = {}

    def rows(self, *values: Value) -> list[tuple]:
        sql, params = self._sql(values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _sql(self, values: tuple[Value, ...]) -> tuple[str, list]:
        kinds = tuple(isinstance(value, datetime) for value in values)
        key = (connection.vendor, kinds)
        if key not in self._built:
            self._built[key] = self._build_twice(kinds)
        sql, params, slots = self._built[key]
        return sql, [
            param if slot is None else _as(param, values[slot]) for param, slot in zip(params, slots, strict=True)
        ]

    def _build_twice(self, kinds: tuple[bool, ...]) -> tuple[str, list, list[int | None]]:
        """The SQL, its parameters, and where each comes from: a value (its index) or the query (None)."""
        stand_ins = [_stand_ins(kinds, set_number) for set_number in (0, 1)]
        (sql, params), (other_sql, other_params) = (
            self._build(*values).query.sql_with_params() for values in stand_ins
        )
        # Each set's values as the database driver gets them (SQLite gets a moment as text).
        sent = [[_sent(value) for value in values] for values in stand_ins]
        slots = [_slot(param, other, sent) for param, other in zip(params, other_params, strict=True)]
        if sql != other_sql or {slot for slot in slots if slot is not None} != set(range(len(kinds))):
            raise ValueError("Each value must reach the query as a parameter.")
        return sql, list(params), slots


def _stand_ins(kinds: tuple[bool, ...], set_number: int) -> list[Value]:
    return [
        MOMENT_STAND_INS[set_number] + timedelta(days=index) if moment else STAND_INS[set_number] + index
        for index, moment in enumerate(kinds)
    ]


def _sent(value: Value) -> object:
    return connection.ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value


def _as(param: object, value: Value) -> object:
    """``value`` as its stand-in was sent: psycopg's Int2 stays PostgreSQL's smallint."""
    return _sent(value) if isinstance(value, datetime) else type(param)(value)


def _slot(param: object, other: object, sent: list[list[object]]) -> int | None:
    """Which value a parameter is (its index), or None for the query's own (the same in both builds)."""
    if param == other:
        return None
    for index, (first, second) in enumerate(zip(*sent, strict=True)):
        if param == first and other == second:
            return index
    raise ValueError("Nothing but the values may change the query's parameters.")
