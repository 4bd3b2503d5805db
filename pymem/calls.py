"""One SQL statement a store method sends (:class:`_Call`), and the decorator that
makes a method of the call its body builds."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class _Call:
    """One SQL statement a store method sends, and how its result comes back.

    Every public method of :class:`MemoryStore` builds one ``_Call`` (the SQL lives
    there, once); ``_StoreCore._call`` is its way, which ``MemoryStore._run`` runs
    on a connection and ``AsyncMemoryStore._run`` awaits on an async one.
    """

    query: str
    params: Sequence[Any] = ()
    # rows as this dataclass; None: the first column of the first row
    row_type: type | None = None
    # exactly one row of row_type instead of a list
    one: bool = False
    # whose data the call reads or writes (None: the store's settings or all users)
    user_id: str | None = None


def _sql(builder: Callable[..., _Call]) -> Callable[..., Any]:
    """A store method whose body builds the :class:`_Call` it sends; the method runs it."""

    @functools.wraps(builder)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._run(builder(self, *args, **kwargs))

    method.__pymem_call__ = builder  # type: ignore[attr-defined]
    return method


def _sql_methods(cls: type) -> dict[str, Callable[..., _Call]]:
    """The builders of ``cls``'s SQL methods, by method name."""
    # the store's methods live in classes by job (pymem.api_*), MemoryStore's bases
    return {
        name: attr.__pymem_call__
        for klass in reversed(cls.__mro__)
        for name, attr in vars(klass).items()
        if hasattr(attr, "__pymem_call__")
    }


# Whether the schema exists, then its version: the first call of a store checks both.
_HAS_SCHEMA = "SELECT CASE WHEN to_regproc('pymem.schema_version') IS NOT NULL THEN 0 END"
_SCHEMA_VERSION = "SELECT pymem.schema_version()"
