"""Arguments as the SQL API takes them: vectors, JSON, text and id lists, items and
batches, each refused with pymem's error before a call is sent when it cannot be."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
from psycopg.types.json import Jsonb

from pymem.errors import (
    InvalidBatch,
    InvalidEmbedding,
    InvalidFactValue,
    WrongArgumentType,
)
from pymem.records import Embedding, MemoryItem


def _json_dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except TypeError as exc:
        # psycopg would let the TypeError through, from inside the call
        raise WrongArgumentType(
            f"a value the store sends as JSON is not JSON-serializable: {exc}",
            sqlstate=WrongArgumentType.sqlstate,
        ) from exc


def _text(value: Any) -> str | None:
    """An id or a name the SQL takes as text or uuid; None goes through as NULL, which
    the server refuses with its own code (str(None) acted on a contact named "None")."""
    return None if value is None else str(value)


def _object_json(value: Any) -> Jsonb | None:
    """metadata, details, attributes: sent as they are (a mapping as its object), so that
    the server refuses what is not a JSON object with its own code; None is NULL."""
    if value is None:
        return None
    return _jsonb(dict(value) if isinstance(value, Mapping) else value)


def _jsonb(value: Any) -> Jsonb:
    """A jsonb parameter; a value JSON cannot hold (a datetime, a set) is
    WrongArgumentType, as a value the driver cannot send."""
    return Jsonb(value, dumps=_json_dumps)


def _fact_json(value: Any) -> str | None:
    """A fact value as JSON text; None goes through for the server's PM021."""
    if value is None:
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidFactValue(
            f"fact value must be JSON-serializable, got {type(value).__name__}: {exc}",
            sqlstate=InvalidFactValue.sqlstate,
        ) from exc


def _plan_json(ops: Sequence[Mapping[str, Any]]) -> Any:
    if not isinstance(ops, list | tuple):
        # one op, or no list at all: the server says the plan must be an array (iterated,
        # a mapping gave its keys, and "op 1: must be a JSON object, got string")
        return ops
    plan: list[Any] = []
    for op in ops:
        if not isinstance(op, Mapping):
            plan.append(op)  # the server names the op that is not an object
            continue
        data = dict(op)
        embedding = data.get("embedding")
        if isinstance(embedding, np.ndarray):
            embedding = embedding.tolist()
        if isinstance(embedding, list | tuple):
            data["embedding"] = [_json_number(x) for x in embedding]
        if isinstance(data.get("ids"), list | tuple):
            data["ids"] = [str(i) for i in data["ids"]]
        if isinstance(data.get("id"), UUID):
            data["id"] = str(data["id"])
        plan.append(data)
    return plan


def _spelled(query: str, vector_type: str | None) -> str:
    """A call's SQL with pgvector's type named by its schema when it is not public."""
    if vector_type is None or vector_type == "vector":
        return query
    return query.replace("::vector", f"::{vector_type}")


def _embedding_fault(embedding: Any) -> str | None:
    """What an embedding holds that numpy would take for numbers and no embedding is:
    booleans (numpy's 1 and 0) or complex numbers (whose imaginary part numpy drops);
    None when neither. The one check of every call that sends an embedding (upsert,
    recall, consolidate, upsert_many, import_memories)."""
    if isinstance(embedding, np.ndarray):
        kinds = {embedding.dtype.kind}
        if "O" in kinds:  # objects: look at them as in a list
            kinds = {np.asarray(x).dtype.kind for x in embedding.ravel()}
    elif isinstance(embedding, str | bytes | Iterator) or not isinstance(embedding, Iterable):
        return None  # refused as they are (an iterator is not read here)
    else:
        # the types are read in C (a generator over 512 elements cost a third of a
        # millisecond per item)
        kinds = {np.dtype(t).kind for t in set(map(type, embedding)) if _numpy_scalar(t)}
    if "b" in kinds:
        return "booleans"
    if "c" in kinds:
        return "complex numbers"
    return None


def _numpy_scalar(t: type) -> bool:
    return issubclass(t, bool | complex | np.bool_ | np.complexfloating)


def _refused_embedding(fault: str, item: int | None = None) -> InvalidEmbedding:
    where = "" if item is None else f"item {item}: "
    return InvalidEmbedding(
        f"{where}embedding must be an array of real numbers, got {fault}", sqlstate="PM005"
    )


def _vector(embedding: Embedding | None) -> np.ndarray | None:
    # None goes through so that the server refuses it with its SQLSTATE.
    if embedding is None:
        return None
    if isinstance(embedding, str | bytes):
        raise InvalidEmbedding(
            "embedding must be a sequence of numbers, got a string", sqlstate="PM005"
        )
    fault = _embedding_fault(embedding)
    if fault is not None:
        raise _refused_embedding(fault)
    try:
        vector = np.asarray(embedding, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidEmbedding(
            f"embedding must be a sequence of numbers: {exc}", sqlstate="PM005"
        ) from exc
    if vector.ndim != 1:
        raise InvalidEmbedding(
            f"embedding must be one-dimensional, got shape {vector.shape}", sqlstate="PM005"
        )
    return vector


def _texts(values: Sequence[str] | None, name: str) -> list[str] | None:
    """A list parameter (contacts, aliases, kinds) as a list; a lone string would be
    iterated into its characters (kinds="fact" filtered on 'f', 'a', 'c', 't')."""
    if values is None:
        return None
    if isinstance(values, str | bytes):
        raise WrongArgumentType(
            f"{name} must be a list of strings, got a single string {values!r}",
            sqlstate=WrongArgumentType.sqlstate,
        )
    return list(values)


def _ids(values: Sequence[UUID | str] | None, name: str) -> list[str] | None:
    """A list of memory ids as strings; a lone id is refused like a lone string."""
    if values is None:
        return None
    if isinstance(values, str | bytes | UUID):
        raise WrongArgumentType(
            f"{name} must be a list of ids, got a single {type(values).__name__}",
            sqlstate=WrongArgumentType.sqlstate,
        )
    return [_text(i) for i in values]


def _json_number(x: Any) -> Any:
    # JSON has no NaN or infinity: send them as strings, which the server
    # refuses as "not a number" (PM005) naming the item.
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _item_json(item: MemoryItem | Mapping[str, Any]) -> dict[str, Any]:
    data = _item_json_raw(item)
    embedding = data.get("embedding")
    if isinstance(embedding, np.ndarray):
        embedding = embedding.tolist()
    if isinstance(embedding, list | tuple):
        data["embedding"] = [_json_number(x) for x in embedding]
    if isinstance(data.get("valid_until"), datetime):
        data["valid_until"] = data["valid_until"].isoformat()
    return data


def _batch(items: Any) -> Any:
    """A batch given as an iterator (a generator) as a list, read once: the typed form
    and the JSON one (or the item at fault) read it each."""
    return list(items) if isinstance(items, Iterator) else items


def _typed_batch(
    items: Sequence[MemoryItem | Mapping[str, Any]],
) -> tuple[list[Any], list[np.ndarray], list[dict[str, Any]] | None] | None:
    """Contents, float32 vectors and the other keys of a batch, for its typed form,
    upsert_memory_arrays (binary vector[], no JSON to parse); None when an item is not plain
    (a missing or non-numeric embedding, NaN): the JSON form then names its fault."""
    contents: list[Any] = []
    vectors: list[np.ndarray] = []
    options: list[dict[str, Any]] = []
    for n, item in enumerate(items, 1):
        data = _item_json_raw(item)
        embedding = data.pop("embedding", None)
        content = data.pop("content", None)
        fault = _embedding_fault(embedding)
        if fault is not None:
            raise _refused_embedding(fault, n)  # as upsert and recall refuse it
        if not isinstance(content, str) or embedding is None:
            return None
        try:
            vector = np.asarray(embedding, dtype=np.float32)
        except (TypeError, ValueError):
            return None
        if vector.ndim != 1 or vector.size == 0 or not np.isfinite(vector).all():
            return None
        contents.append(content)
        vectors.append(vector)
        options.append(_item_json(data))
    return contents, vectors, (options if any(options) else None)


def _item_json_raw(item: MemoryItem | Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(item, MemoryItem | Mapping):
        raise InvalidBatch(
            f"a batch item must be a MemoryItem or a mapping, got {type(item).__name__}",
            sqlstate="PM010",
        )
    if isinstance(item, MemoryItem):
        data = {k: v for k, v in asdict(item).items() if v is not None and k != "extra"}
        data.update(item.extra)
        return data
    return dict(item)
