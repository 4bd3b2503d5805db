"""The store's methods for memories: the write path, the review and job queues,
import and export, recall, history and decay (one method per SQL function)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from pymem.calls import _Call, _sql
from pymem.conversions import (
    _batch,
    _ids,
    _item_json,
    _jsonb,
    _object_json,
    _text,
    _texts,
    _typed_batch,
    _vector,
)
from pymem.errors import (
    InvalidEmbedding,
)
from pymem.records import (
    BatchResult,
    ClaimedJob,
    ClaimedReview,
    DecayResult,
    Embedding,
    ExplainStep,
    ExportRow,
    ImportSource,
    LiveTopic,
    MemoryItem,
    MemoryVersion,
    RecallHit,
    Review,
    StoredMemory,
    UnparkedJob,
    UnparkedReview,
    UpsertResult,
)


class MemoryCalls:
    """MemoryStore's methods for memories (AsyncMemoryStore's too, awaited)."""

    # -- write path --------------------------------------------------------

    @_sql
    def upsert(
        self,
        user_id: str,
        content: str,
        embedding: Embedding,
        kind: str | None = None,
        *,
        importance: float | None = None,
        source: str | None = None,
        pinned: bool | None = None,
        metadata: Mapping[str, Any] | None = None,
        details: Mapping[str, Any] | None = None,
        topic: str | None = None,
        canonical: str | None = None,
        valid_until: datetime | None = None,
        decay_rate: float | None = None,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
        contacts: Sequence[str] | None = None,
        review_floor: float | None = None,
    ) -> UpsertResult:
        """``pymem.upsert_memory``: insert, or recognise a duplicate or an update.

        The options are the fields of ``pymem.memory_item`` (and of :class:`MemoryItem`),
        by the same names; None is the store's default (kind ``fact``, importance 0.5,
        source ``stated``, ...), which the server alone sets."""
        return _Call(
            "SELECT * FROM pymem.upsert_memory(%s, %s, %s, %s,"
            " importance => %s, source => %s, pinned => %s, metadata => %s,"
            " details => %s, topic => %s, canonical => %s, valid_until => %s,"
            " decay_rate => %s, dedup_threshold => %s, supersede_threshold => %s,"
            " on_related => %s, contacts => %s, review_floor => %s)",
            (
                user_id,
                content,
                _vector(embedding),
                kind,
                importance,
                source,
                pinned,
                _object_json(metadata),
                _object_json(details),
                topic,
                canonical,
                valid_until,
                decay_rate,
                dedup_threshold,
                supersede_threshold,
                on_related,
                _texts(contacts, "contacts"),
                review_floor,
            ),
            UpsertResult,
            one=True,
            user_id=user_id,
        )

    @_sql
    def upsert_many(
        self,
        user_id: str,
        items: Sequence[MemoryItem | Mapping[str, Any]],
        *,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
    ) -> list[BatchResult]:
        """``pymem.upsert_memories``: a batch in one call, one row per item.

        Sent in the typed form, ``pymem.upsert_memory_arrays`` (contents, binary vectors,
        other keys as JSON), when every item is plain, else as one JSON array; the server
        decides the same either way."""
        items = _batch(items)
        typed = _typed_batch(items)
        if typed is not None:
            contents, vectors, options = typed
            return _Call(
                "SELECT * FROM pymem.upsert_memory_arrays(%s, %s::text[], %b::vector[], %s,"
                " dedup_threshold => %s, supersede_threshold => %s, on_related => %s)",
                (
                    user_id,
                    contents,
                    vectors,
                    None if options is None else _jsonb(options),
                    dedup_threshold,
                    supersede_threshold,
                    on_related,
                ),
                BatchResult,
                user_id=user_id,
            )
        return _Call(
            "SELECT * FROM pymem.upsert_memories(%s, %s::jsonb,"
            " dedup_threshold => %s, supersede_threshold => %s, on_related => %s)",
            (
                user_id,
                _jsonb([_item_json(i) for i in items]),
                dedup_threshold,
                supersede_threshold,
                on_related,
            ),
            BatchResult,
            user_id=user_id,
        )

    # -- review claims (reviewers: pymem.review, docs/review-worker.md) ---------

    @_sql
    def claim_reviews(
        self, user_id: str | None, worker: str, k: int = 10, *, lease: float = 600.0
    ) -> list[ClaimedReview]:
        """``pymem.claim_reviews``: up to ``k`` open related reviews of the user (None: of
        every user the store's role sees) held by ``worker`` for ``lease`` seconds; no
        other reviewer gets them meanwhile."""
        return _Call(
            "SELECT * FROM pymem.claim_reviews(%s, %s, %s, lease => %s)",
            (user_id, worker, k, lease),
            ClaimedReview,
            user_id=user_id,
        )

    @_sql
    def release_review(
        self,
        user_id: str,
        review_id: UUID | str,
        worker: str,
        error: str | None = None,
        *,
        retry_after: float = 0.0,
    ) -> str:
        """``pymem.release_review``: give back a claimed review; with an ``error``, one more
        failed attempt (claimable after ``retry_after`` seconds, or parked at the limit).
        Returns released, retry, parked or not held."""
        return _Call(
            "SELECT pymem.release_review(%s, %s::uuid, %s, %s, retry_after => %s)",
            (user_id, _text(review_id), worker, error, retry_after),
            user_id=user_id,
        )

    @_sql
    def unpark_reviews(
        self, user_id: str, review_ids: Sequence[UUID | str] | None = None
    ) -> list[UnparkedReview]:
        """``pymem.unpark_reviews``: parked reviews (of ``review_ids``, or all) back in the
        queue with no attempts; each as it was."""
        return _Call(
            "SELECT * FROM pymem.unpark_reviews(%s, %s::uuid[])",
            (user_id, _ids(review_ids, "review_ids")),
            UnparkedReview,
            user_id=user_id,
        )

    # -- job claims (the worker: pymem.worker, docs/llm.md) ---------------------

    @_sql
    def claim_jobs(
        self,
        user_id: str | None,
        worker: str,
        k: int = 10,
        *,
        lease: float = 600.0,
        reflect_after: float | None = None,
        jobs: Sequence[str] | None = None,
    ) -> list[ClaimedJob]:
        """``pymem.claim_jobs``: up to ``k`` due model jobs (consolidate, profile, reflect)
        of the user (None: of every user the store's role sees) held by ``worker`` for
        ``lease`` seconds; ``reflect_after`` seconds also make a reflection due for a user
        who wrote anything since one that old; ``jobs``: only these kinds (None: all)."""
        return _Call(
            "SELECT * FROM pymem.claim_jobs(%s, %s, %s, lease => %s, reflect_after => %s,"
            " jobs => %s::text[])",
            (user_id, worker, k, lease, reflect_after, None if jobs is None else list(jobs)),
            ClaimedJob,
            user_id=user_id,
        )

    @_sql
    def finish_job(self, user_id: str, job: str, key: str, worker: str) -> str:
        """``pymem.finish_job``: the claimed job is done (a reflection is recorded); done or
        not held."""
        return _Call(
            "SELECT pymem.finish_job(%s, %s, %s, %s)", (user_id, job, key, worker),
            user_id=user_id,
        )  # fmt: skip

    @_sql
    def release_job(
        self,
        user_id: str,
        job: str,
        key: str,
        worker: str,
        error: str | None = None,
        *,
        retry_after: float = 0.0,
    ) -> str:
        """``pymem.release_job``: give back a claimed job; with an ``error``, one more failed
        attempt (claimable after ``retry_after`` seconds, or parked at the limit). Returns
        released, retry, parked or not held."""
        return _Call(
            "SELECT pymem.release_job(%s, %s, %s, %s, %s, retry_after => %s)",
            (user_id, job, key, worker, error, retry_after),
            user_id=user_id,
        )

    @_sql
    def unpark_jobs(self, user_id: str, jobs: Sequence[str] | None = None) -> list[UnparkedJob]:
        """``pymem.unpark_jobs``: parked jobs (of the kinds in ``jobs``, or all) back with no
        attempts; each as it was."""
        return _Call(
            "SELECT * FROM pymem.unpark_jobs(%s, %s::text[])",
            (user_id, None if jobs is None else list(jobs)),
            UnparkedJob,
            user_id=user_id,
        )

    # -- bulk import ---------------------------------------------------------

    @_sql
    def export_rows(self, user_id: str | None = None) -> list[ExportRow]:
        """``pymem.export_rows``: every row of the user (None: of every user the store's role
        sees) in every exported table, in restore order. ``pymem export`` streams the same
        query (pymem.export); this reads it whole."""
        return _Call("SELECT * FROM pymem.export_rows(%s)", (user_id,), ExportRow, user_id=user_id)

    @_sql
    def import_rows(
        self, user_id: str, table_name: str, rows_data: Sequence[Mapping[str, Any]]
    ) -> int:
        """``pymem.import_rows``: insert exported rows of one table for the user; the rows
        inserted (one already there is left as it is)."""
        return _Call(
            "SELECT pymem.import_rows(%s, %s, %s)",
            (user_id, table_name, _jsonb([dict(r) for r in rows_data])),
            user_id=user_id,
        )

    @_sql
    def import_lines_done(self, user_id: str, source: str) -> int:
        """``pymem.import_lines_done``: the last line of ``source`` committed for the user."""
        return _Call("SELECT pymem.import_lines_done(%s, %s)", (user_id, source), user_id=user_id)

    @_sql
    def import_digest(self, user_id: str, source: str) -> str | None:
        """``pymem.import_digest``: what ``source`` recorded of the user's committed lines."""
        return _Call("SELECT pymem.import_digest(%s, %s)", (user_id, source), user_id=user_id)

    @_sql
    def import_sources(self, user_id: str) -> list[ImportSource]:
        """``pymem.import_sources``: every import of the user, how far it got, its digest."""
        return _Call(
            "SELECT * FROM pymem.import_sources(%s)", (user_id,), ImportSource, user_id=user_id
        )

    @_sql
    def import_memories(
        self,
        user_id: str,
        source: str,
        lines: Sequence[int],
        items: Sequence[MemoryItem | Mapping[str, Any]],
        *,
        digest: str | None = None,
    ) -> list[BatchResult]:
        """``pymem.import_memories``: ``upsert_many`` of the items of ``lines`` of a file,
        committed with how far ``source`` got; lines an earlier run committed are skipped.
        Each result's ``ordinal`` is its line. Every item needs its embedding. ``digest``
        (recorded with the batch): the caller's digest of the user's lines through the
        batch's last one, what a re-run compares (:meth:`import_digest`)."""
        items = _batch(items)
        typed = _typed_batch(items)
        if typed is None:
            # name the item at fault as the server does ("item 3: ..."): an importer maps
            # it to its line
            n = next(n for n, item in enumerate(items, 1) if _typed_batch([item]) is None)
            raise InvalidEmbedding(
                f"item {n}: import_memories needs the content and a non-empty "
                "one-dimensional array of finite numbers as the embedding",
                sqlstate=InvalidEmbedding.sqlstate,
            )
        contents, vectors, options = typed
        return _Call(
            "SELECT * FROM pymem.import_memories(%s, %s, %s::integer[], %s::text[],"
            " %b::vector[], %s, digest => %s)",
            (
                user_id,
                source,
                list(lines),
                contents,
                vectors,
                None if options is None else _jsonb(options),
                digest,
            ),
            BatchResult,
            user_id=user_id,
        )

    # -- the review queue ----------------------------------------------------

    @_sql
    def pending_reviews(self, user_id: str) -> list[Review]:
        """``pymem.pending_reviews``: related pairs and conflicts waiting for the app."""
        return _Call("SELECT * FROM pymem.pending_reviews(%s)", (user_id,), Review, user_id=user_id)

    @_sql
    def resolve_review(
        self,
        user_id: str,
        memory_id: UUID | str,
        decision: str,
        *,
        reason: str | None = None,
        claimed_by: str | None = None,
        review_id: UUID | str | None = None,
        as_seen: Sequence[datetime] | None = None,
    ) -> UUID:
        """``pymem.resolve_review``: keep_both, supersede, duplicate, past (the newer speaks
        of a value the older replaced: retired into the history) or conflict (a related
        pair flagged as a contradiction); the survivor's id. ``reason`` goes into the review
        and the history; ``claimed_by`` is the reviewer deciding (PM017 when another holds
        the review); ``review_id`` picks one of the memory's open reviews; ``as_seen``: the
        pair's ``updated_at`` as the judge read them (PM018 when either changed since)."""
        return _Call(
            "SELECT pymem.resolve_review(%s, %s::uuid, %s, reason => %s, claimed_by => %s,"
            " review_id => %s::uuid, as_seen => %s::timestamptz[])",
            (
                user_id,
                _text(memory_id),
                decision,
                reason,
                claimed_by,
                None if review_id is None else str(review_id),
                None if as_seen is None else list(as_seen),
            ),
            user_id=user_id,
        )

    # -- read path and decay ---------------------------------------------------

    @_sql
    def recall(
        self,
        user_id: str,
        query_embedding: Embedding,
        k: int = 5,
        *,
        query_text: str | None = None,
        kinds: Sequence[str] | None = None,
        include_cold: bool = False,
        min_similarity: float | None = None,
        touch: bool = False,
        at: datetime | None = None,
        filter: Mapping[str, Any] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        sources: Sequence[str] | None = None,
        include_history: bool = False,
    ) -> list[RecallHit]:
        """``pymem.recall``: the user's live memories ranked by relevance and decay; only
        those whose metadata contains ``filter``, written in [``created_after``,
        ``created_before``) and of one of ``sources``, when given. With
        ``include_history``, their earlier values too (``superseded_at`` set), each
        below its memory's current value; asked about the present, they only lift
        their current value."""
        return _Call(
            "SELECT * FROM pymem.recall(%s, %s, %s, query_text => %s, kinds => %s,"
            " include_cold => %s, min_similarity => %s, touch => %s,"
            " at => coalesce(%s, now()), filter => %s, created_after => %s,"
            " created_before => %s, sources => %s, include_history => %s)",
            (
                user_id,
                _vector(query_embedding),
                k,
                query_text,
                _texts(kinds, "kinds"),
                include_cold,
                min_similarity,
                touch,
                at,
                _object_json(filter),
                created_after,
                created_before,
                _texts(sources, "sources"),
                include_history,
            ),
            RecallHit,
            user_id=user_id,
        )

    @_sql
    def check_contents(
        self,
        contents: Sequence[str],
        labels: Sequence[str] | None = None,
        *,
        user_id: str | None = None,
        kind: str | None = None,
    ) -> None:
        """``pymem.check_contents``: refuse, as a write would (``InvalidContent``,
        ``ContentTooLong``; ``InvalidUserId`` and ``UnknownKind`` for a ``user_id`` or
        ``kind`` given), what the store cannot take, before the texts are embedded.
        ``labels`` name each text in the error (default ``item N: content``)."""
        return _Call(
            "SELECT pymem.check_contents(%s::text[], %s::text[], %s, %s)",
            (_texts(contents, "contents"), _texts(labels, "labels"), user_id, kind),
        )

    @_sql
    def get_memories(
        self, user_id: str, memory_ids: Sequence[UUID | str] | None = None
    ) -> list[StoredMemory]:
        """``pymem.get_memories``: the user's live memories, oldest first (those of
        ``memory_ids`` when given)."""
        return _Call(
            "SELECT * FROM pymem.get_memories(%s, %s::uuid[])",
            (user_id, _ids(memory_ids, "memory_ids")),
            StoredMemory,
            user_id=user_id,
        )

    @_sql
    def live_topics(self, user_id: str, max_topics: int = 50) -> list[LiveTopic]:
        """``pymem.live_topics``: the topics of the user's live memories with their
        current text, the most recently changed first (at most ``max_topics``)."""
        return _Call(
            "SELECT * FROM pymem.live_topics(%s, %s)",
            (user_id, max_topics),
            LiveTopic,
            user_id=user_id,
        )

    @_sql
    def memory_history(
        self, user_id: str, memory_id: UUID | str | None = None
    ) -> list[MemoryVersion]:
        """``pymem.memory_history``: earlier contents of a memory (of all the user's
        memories when None), oldest first, with the reason of each change."""
        return _Call(
            "SELECT * FROM pymem.memory_history(%s, %s::uuid)",
            (user_id, None if memory_id is None else str(memory_id)),
            MemoryVersion,
            user_id=user_id,
        )

    @_sql
    def explain(
        self,
        old_content: str,
        new_content: str,
        old_embedding: Embedding,
        new_embedding: Embedding,
        *,
        old_topic: str | None = None,
        new_topic: str | None = None,
        old_canonical: str | None = None,
        new_canonical: str | None = None,
        dedup_threshold: float | None = None,
        supersede_threshold: float | None = None,
        on_related: str | None = None,
    ) -> list[ExplainStep]:
        """``pymem.explain``: why a write of ``new_content`` beside ``old_content`` is
        decided as it is: the evidence, each guard with whether it fired, the rule."""
        return _Call(
            "SELECT * FROM pymem.explain(%s, %s, %s, %s, old_topic => %s, new_topic => %s,"
            " old_canonical => %s, new_canonical => %s, dedup_threshold => %s,"
            " supersede_threshold => %s, on_related => %s)",
            (
                old_content,
                new_content,
                _vector(old_embedding),
                _vector(new_embedding),
                old_topic,
                new_topic,
                old_canonical,
                new_canonical,
                dedup_threshold,
                supersede_threshold,
                on_related,
            ),
            ExplainStep,
        )

    @_sql
    def explain_memories(
        self, user_id: str, old_id: UUID | str, new_id: UUID | str
    ) -> list[ExplainStep]:
        """``pymem.explain_memories``: :meth:`explain` for two memories of the user."""
        return _Call(
            "SELECT * FROM pymem.explain_memories(%s, %s::uuid, %s::uuid)",
            (user_id, str(old_id), str(new_id)),
            ExplainStep,
            user_id=user_id,
        )

    @_sql
    def touch(self, user_id: str, memory_ids: Sequence[UUID | str]) -> int:
        """``pymem.touch``: re-mention memories; returns how many were touched."""
        return _Call(
            "SELECT pymem.touch(%s, %s::uuid[])",
            (user_id, _ids(memory_ids, "memory_ids")),
            user_id=user_id,
        )

    @_sql
    def apply_decay(
        self,
        at: datetime | None = None,
        cold_below: float = 0.05,
        *,
        user_id: str | None = None,
        batch_blocks: int = 4096,
    ) -> DecayResult:
        """``pymem.apply_decay``: move faded memories to the cold tier, in this transaction."""
        return _Call(
            "SELECT * FROM pymem.apply_decay(coalesce(%s, now()), %s, user_id => %s,"
            " batch_blocks => %s)",
            (at, cold_below, user_id, batch_blocks),
            DecayResult,
            one=True,
            user_id=user_id,
        )

    @_sql
    def run_decay(
        self, at: datetime | None = None, cold_below: float = 0.05, *, batch_blocks: int = 4096
    ) -> DecayResult:
        """``CALL pymem.run_decay``: apply_decay committing after each batch (autocommit only)."""
        return _Call(
            "CALL pymem.run_decay(at => coalesce(%s, now()), cold_below => %s, batch_blocks => %s)",
            (at, cold_below, batch_blocks),
            DecayResult,
            one=True,
        )

    @_sql
    def decay_score(
        self,
        importance: float,
        decay_rate: float,
        last_access_at: datetime,
        at: datetime | None = None,
    ) -> float:
        """``pymem.decay_score``: importance * exp(-decay_rate * age in days)."""
        return _Call(
            "SELECT pymem.decay_score(%s, %s, %s, coalesce(%s, now()))",
            (importance, decay_rate, last_access_at, at),
        )
