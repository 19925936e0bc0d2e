"""SQL that Django builds once per process, for the reads every move and page makes.

Building a query with subqueries, unions or window functions costs Django milliseconds, many times
what running it costs: in a profile of moves on SQLite, 8 ms to build the query of the next match
waiting and 0.7 ms to run it. These few are built once, with stand-ins for the values that vary
(ids, a seat's number), and then run with each call's values."""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection
from django.db.models import QuerySet

# Two sets of stand-ins: the parameters that differ between the two builds are the values'. Small and
# positive, as every field's range admits (out of its range, Django drops a lookup from the query).
STAND_INS = (30_001, 30_101)


class Prepared:
    """The query ``build(*values)`` returns, its SQL built on first use. Its values (ids, numbers)
    must reach it as parameters only, and it must return plain values (``values_list``): ``rows``
    reads them as the database gives them."""

    def __init__(self, build: Callable[..., QuerySet]):
        self._build = build
        self._built: dict[tuple[str, int], tuple[str, list, list[int | None]]] = {}

    def rows(self, *values: int) -> list[tuple]:
        sql, params = self._sql(values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _sql(self, values: tuple[int, ...]) -> tuple[str, list]:
        key = (connection.vendor, len(values))
        if key not in self._built:
            self._built[key] = self._build_twice(len(values))
        sql, params, slots = self._built[key]
        # A value takes its stand-in's type: psycopg sends an Int2 as PostgreSQL's smallint.
        return sql, [
            param if slot is None else type(param)(values[slot]) for param, slot in zip(params, slots, strict=True)
        ]

    def _build_twice(self, count: int) -> tuple[str, list, list[int | None]]:
        """The SQL, its parameters, and where each comes from: a value (its index) or the query (None)."""
        (sql, params), (other_sql, other_params) = (
            self._build(*range(first, first + count)).query.sql_with_params() for first in STAND_INS
        )
        slots = [_slot(param, other, count) for param, other in zip(params, other_params, strict=True)]
        if sql != other_sql or {slot for slot in slots if slot is not None} != set(range(count)):
            raise ValueError("Each value must reach the query as a parameter.")
        return sql, list(params), slots


def _slot(param: object, other: object, count: int) -> int | None:
    """Which value a parameter is (its index), or None for the query's own (the same in both builds)."""
    if param == other:
        return None
    slot = param - STAND_INS[0] if isinstance(param, int) else None  # psycopg's Int2 too
    if slot is None or not 0 <= slot < count or other != STAND_INS[1] + slot:
        raise ValueError("Nothing but the values may change the query's parameters.")
    return slot
