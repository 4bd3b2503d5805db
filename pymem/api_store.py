"""The store's methods for the store itself: administration, consolidation, quality,
partitions and Citus (one method per SQL function)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from pymem.calls import _SCHEMA_VERSION, _Call, _sql
from pymem.conversions import _ids, _jsonb, _object_json, _plan_json, _text, _texts, _vector
from pymem.records import (
    ConsolidationGroup,
    DistributedObject,
    Embedding,
    MaintenanceResult,
    PartitionedTable,
    QualityReport,
    Settings,
    SetupStep,
)


class StoreCalls:
    """MemoryStore's methods for the store as a whole."""

    # -- administration ------------------------------------------------------

    @_sql
    def configure_embedder(
        self,
        model: str,
        dedup_threshold: float,
        supersede_threshold: float,
        topic_supersede_threshold: float | None = None,
        *,
        overwrite: bool = False,
        dedup_term_change: float | None = None,
        cjk_dedup_threshold: float | None = None,
        cjk_dedup_term_change: float | None = None,
    ) -> Settings:
        """``pymem.configure_embedder``: record the model and its thresholds (those for
        Chinese text default to the others)."""
        return _Call(
            "SELECT * FROM pymem.configure_embedder(%s, %s, %s, %s, overwrite => %s,"
            " dedup_term_change => %s, cjk_dedup_threshold => %s, cjk_dedup_term_change => %s)",
            (
                model,
                dedup_threshold,
                supersede_threshold,
                topic_supersede_threshold,
                overwrite,
                dedup_term_change,
                cjk_dedup_threshold,
                cjk_dedup_term_change,
            ),
            Settings,
            one=True,
        )

    @_sql
    def get_settings(self) -> Settings:
        """``pymem.get_settings``: thresholds, dimension and model of the store."""
        return _Call("SELECT * FROM pymem.get_settings()", (), Settings, one=True)

    @_sql
    def schema_version(self) -> int:
        """``pymem.schema_version``."""
        return _Call(_SCHEMA_VERSION)

    # -- consolidation ---------------------------------------------------------

    @_sql
    def consolidation_candidates(
        self,
        user_id: str,
        *,
        min_similarity: float | None = None,
        min_group: int | None = None,
        include_pinned: bool = False,
        kinds: Sequence[str] | None = None,
    ) -> list[ConsolidationGroup]:
        """``pymem.consolidation_candidates``: groups of related unconsolidated memories."""
        return _Call(
            "SELECT * FROM pymem.consolidation_candidates(%s, min_similarity => %s,"
            " min_group => %s, include_pinned => %s, kinds => %s)",
            (
                user_id,
                min_similarity,
                min_group,
                include_pinned,
                _texts(kinds, "kinds"),
            ),
            ConsolidationGroup,
            user_id=user_id,
        )

    @_sql
    def consolidate(
        self,
        user_id: str,
        source_ids: Sequence[UUID | str],
        content: str,
        embedding: Embedding,
        details: Mapping[str, Any] | None = None,
    ) -> UUID:
        """``pymem.consolidate``: one record from fragments; the same set returns it again."""
        return _Call(
            "SELECT pymem.consolidate(%s, %s::uuid[], %s, %s, %s)",
            (
                user_id,
                _ids(source_ids, "source_ids"),
                content,
                _vector(embedding),
                _jsonb({}) if details is None else _object_json(details),
            ),
            user_id=user_id,
        )

    @_sql
    def apply_maintenance(
        self, user_id: str, ops: Sequence[Mapping[str, Any]]
    ) -> list[MaintenanceResult]:
        """``pymem.apply_maintenance``: a reviewer's plan, all or nothing, a row per op."""
        return _Call(
            "SELECT * FROM pymem.apply_maintenance(%s, %s)",
            (user_id, _jsonb(_plan_json(ops))),
            MaintenanceResult,
            user_id=user_id,
        )

    @_sql
    def unconsolidate(self, user_id: str, consolidated_id: UUID | str) -> int:
        """``pymem.unconsolidate``: restore the sources; returns how many were restored."""
        return _Call(
            "SELECT pymem.unconsolidate(%s, %s::uuid)",
            (user_id, _text(consolidated_id)),
            user_id=user_id,
        )

    # -- quality ---------------------------------------------------------------

    @_sql
    def quality_report(self, user_id: str | None = None) -> QualityReport:
        """``pymem.quality_report``: live memories, duplicates, reviews, cold and consolidated."""
        return _Call(
            "SELECT * FROM pymem.quality_report(%s)",
            (user_id,),
            QualityReport,
            one=True,
            user_id=user_id,
        )

    # -- partitions ---------------------------------------------------------------------

    @_sql
    def partition_by_user(self, partitions: int) -> list[PartitionedTable]:
        """``pymem.partition_by_user``: hash-partition every table of users' rows by
        user_id, rows kept (the store's owner only; ``pymem migrate --partitions N``)."""
        return _Call("SELECT * FROM pymem.partition_by_user(%s)", (partitions,), PartitionedTable)

    @_sql
    def setup(self, dimensions: int | None = None, *, seed: bool = True) -> list[SetupStep]:
        """``pymem.setup``: after ``CREATE EXTENSION pymem``, the configuration rows, the
        dimension of an empty store, the role pymem_app, its row-level security and
        grants (the store's owner only; docs/operations.md, "Install")."""
        return _Call("SELECT * FROM pymem.setup(%s, %s)", (dimensions, seed), SetupStep)

    @_sql
    def store_partitions(self) -> int | None:
        """``pymem.store_partitions``: leaves of pymem.memories, None when not partitioned."""
        return _Call("SELECT pymem.store_partitions()")

    # -- Citus ---------------------------------------------------------------------------

    @_sql
    def distribute_by_user(self, shard_count: int | None = None) -> list[DistributedObject]:
        """``pymem.distribute_by_user``: distribute the store by user_id over the Citus
        cluster this connection's node coordinates (the store's owner only; ``pymem
        migrate --citus``; docs/scaling.md)."""
        return _Call(
            "SELECT * FROM pymem.distribute_by_user(%s::integer)", (shard_count,), DistributedObject
        )

    @_sql
    def store_shards(self) -> int | None:
        """``pymem.store_shards``: shards of pymem.memories, None when not distributed."""
        return _Call("SELECT pymem.store_shards()")

    @_sql
    def relay_events(self) -> int:
        """``pymem.relay_events``: on a store distributed with Citus, send the events
        waiting in its outbox as NOTIFY on ``pymem_events`` of the coordinator (0 on any
        other store, whose events are NOTIFYs already); the number sent."""
        return _Call("SELECT pymem.relay_events()")
