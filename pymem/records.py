"""The rows pymem's SQL functions return, as small frozen dataclasses (one per row
type), and the item a write takes (:class:`MemoryItem`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np

Embedding = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class UpsertResult:
    memory_id: UUID
    action: str
    similarity: float | None
    matched_id: UUID | None
    rule: str


@dataclass(frozen=True)
class BatchResult:
    ordinal: int
    memory_id: UUID
    action: str
    similarity: float | None
    matched_id: UUID | None
    rule: str


@dataclass
class MemoryItem:
    """One item of :meth:`MemoryStore.upsert_many`; plain dicts work too.

    Its fields are the attributes of the SQL type ``pymem.memory_item`` (a test
    holds the two equal); None means the store's default.
    """

    content: str
    embedding: Embedding
    kind: str | None = None
    importance: float | None = None
    source: str | None = None
    pinned: bool | None = None
    metadata: dict[str, Any] | None = None
    details: dict[str, Any] | None = None
    topic: str | None = None
    canonical: str | None = None
    valid_until: datetime | str | None = None
    decay_rate: float | None = None
    contacts: Sequence[str] | None = None
    dedup_threshold: float | None = None
    supersede_threshold: float | None = None
    on_related: str | None = None
    review_floor: float | None = None
    # keys sent as they are (the server names any it does not know)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Review:
    review_id: UUID
    cause: str
    memory_id: UUID | None
    matched_id: UUID | None
    fact_key: str | None
    similarity: float | None
    note: str | None
    created_at: datetime
    content: str | None
    matched_content: str | None
    # a reviewer's failed judgements of the pair so far, the last one's error, and when it
    # was parked (a person's to look at: ``unpark_reviews``)
    attempts: int = 0
    last_error: str | None = None
    parked_at: datetime | None = None


@dataclass(frozen=True)
class ClaimedReview:
    """A row of ``pymem.claim_reviews`` (the type ``pymem.claimed_review``): a related pair a
    reviewer holds until ``claimed_until``, with what a judge's prompt needs of both
    memories: ``content`` is the newer one (the memory the write returned), ``matched_*``
    its older neighbour."""

    review_id: UUID
    user_id: str
    cause: str
    memory_id: UUID
    matched_id: UUID
    similarity: float | None
    queued_at: datetime
    attempts: int
    claimed_until: datetime
    content: str
    kind: str
    topic: str | None
    created_at: datetime
    updated_at: datetime
    matched_content: str
    matched_kind: str
    matched_topic: str | None
    matched_created_at: datetime
    matched_updated_at: datetime
    # for a newer memory queued for being close to what the older one said before, the
    # review's note quoting that earlier text; None for other pairs
    note: str | None = None


@dataclass(frozen=True)
class UnparkedReview:
    """A row of ``pymem.unpark_reviews``: a parked review put back, as it was."""

    review_id: UUID
    memory_id: UUID | None
    matched_id: UUID | None
    attempts: int
    last_error: str | None
    parked_at: datetime


@dataclass(frozen=True)
class ClaimedJob:
    """A row of ``pymem.claim_jobs`` (the type ``pymem.claimed_job``): a model job a worker
    holds until ``claimed_until``. ``job`` is consolidate (``key`` the topic,
    ``member_ids`` its live fragments), profile (``key`` and ``contact_id`` the person,
    ``member_ids`` their fragments) or reflect (``key`` '', ``since`` the last
    reflection, None for none)."""

    user_id: str
    job: str
    key: str
    member_ids: list[UUID] | None
    contact_id: UUID | None
    since: datetime | None
    attempts: int
    claimed_until: datetime


@dataclass(frozen=True)
class UnparkedJob:
    """A row of ``pymem.unpark_jobs``: a parked job put back, as it was."""

    job: str
    key: str
    attempts: int
    last_error: str | None
    parked_at: datetime


@dataclass(frozen=True)
class ExportRow:
    """A row of ``pymem.export_rows``: a row of one of the user's tables, as JSON."""

    table_name: str
    row_data: dict[str, Any]


@dataclass(frozen=True)
class StoredMemory:
    """A row of ``pymem.get_memories``: a live memory as it is."""

    memory_id: UUID
    kind: str
    content: str
    topic: str | None
    importance: float
    source: str
    pinned: bool
    tier: str
    mention_count: int
    details: dict[str, Any]
    metadata: dict[str, Any]
    valid_until: datetime | None
    last_access_at: datetime
    created_at: datetime
    updated_at: datetime
    version: int


@dataclass(frozen=True)
class LiveTopic:
    """A row of ``pymem.live_topics``: a topic and its most recently changed live memory."""

    topic: str
    kind: str
    content: str
    updated_at: datetime


@dataclass(frozen=True)
class MemoryVersion:
    """A row of ``pymem.memory_history``: an earlier content of the memory ``id`` and why it
    went."""

    id: UUID
    version: int
    content: str
    reason: str
    changed_at: datetime


@dataclass(frozen=True)
class ExplainStep:
    """A row of ``pymem.explain``: what one rule read about a pair, in the order the
    decision reads them; the last row is the decision."""

    step: str
    finding: str


@dataclass(frozen=True)
class RecallHit:
    memory_id: UUID
    content: str
    kind: str
    similarity: float
    decay_score: float
    score: float
    lexical: float
    importance: float
    tier: str
    pinned: bool
    topic: str | None
    details: dict[str, Any]
    last_access_at: datetime
    valid_until: datetime | None
    # set on an earlier value (recall's include_history): when it stopped being the value
    superseded_at: datetime | None = None


@dataclass(frozen=True)
class DecayResult:
    scanned: int
    cooled: int
    cold_total: int


@dataclass(frozen=True)
class ImportSource:
    source: str
    lines_done: int
    digest: str | None


@dataclass(frozen=True)
class Settings:
    singleton: bool
    embedding_dimensions: int
    embedding_model: str | None
    dedup_threshold: float
    supersede_threshold: float
    topic_supersede_threshold: float
    trigram_threshold: float
    max_content_chars: int
    recall_decay_floor: float
    recall_lexical_weight: float
    recall_state_boost: float
    goal_overlap_threshold: float
    on_related: str
    dedup_term_change: float
    trigram_min_similarity: float
    contact_fuzzy_threshold: float
    contact_cjk_fuzzy_threshold: float
    contact_profile_due_count: int
    consolidation_group_size: int
    consolidation_similarity: float
    review_max_attempts: int
    cjk_dedup_threshold: float
    cjk_dedup_term_change: float
    review_floor: float | None
    cross_kind_review_floor: float
    reflect_every: int


# -- facts ----------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    key: str
    scope: str
    value: Any
    confidence: float
    source: str
    valid_until: datetime | None
    set_at: datetime
    conflict_pending: bool


@dataclass(frozen=True)
class FactHistoryEntry:
    scope: str
    value: Any
    confidence: float
    source: str
    valid_until: datetime | None
    set_at: datetime
    replaced_at: datetime | None
    reason: str


@dataclass(frozen=True)
class PendingConflict:
    review_id: UUID | None
    cause: str
    fact_key: str | None
    scope: str | None
    value: Any
    confidence: float | None
    source: str | None
    candidate_value: Any
    candidate_confidence: float | None
    candidate_source: str | None
    memory_id: UUID | None
    other_id: UUID | None
    note: str | None
    created_at: datetime


# -- contacts: rows ----------------------------------------------------------


@dataclass(frozen=True)
class ContactMatch:
    contact_id: UUID
    name: str
    match: str
    score: float


@dataclass(frozen=True)
class MentionedContact:
    contact_id: UUID
    name: str
    relationship: str | None
    matched: str


@dataclass(frozen=True)
class ContactMemory:
    memory_id: UUID
    content: str
    kind: str
    found_by: str
    importance: float
    decay_score: float
    created_at: datetime


@dataclass(frozen=True)
class RecentContact:
    contact_id: UUID
    name: str
    relationship: str | None
    last_mentioned_at: datetime | None


# -- consolidation rows ---------------------------------------------------------


@dataclass(frozen=True)
class ConsolidationGroup:
    group_no: int
    size: int
    member_ids: list[UUID]
    topic: str | None
    mean_similarity: float | None
    edges: int


@dataclass(frozen=True)
class MaintenanceResult:
    op_index: int
    op: str
    memory_id: UUID
    result: str


# -- quality rows -------------------------------------------------------------


@dataclass(frozen=True)
class SetupStep:
    """A row of ``pymem.setup``: a step it took and what it did."""

    step: str
    detail: str


@dataclass(frozen=True)
class PartitionedTable:
    table_name: str
    partition_count: int
    rows_moved: int
    # False: the table was partitioned before this call
    converted: bool


@dataclass(frozen=True)
class DistributedObject:
    """A row of ``pymem.distribute_by_user`` (docs/scaling.md)."""

    object_name: str
    # table or function
    object_type: str
    # 'distributed by user_id', 'reference' or 'delegated by user_id'
    distribution: str
    # False: it was distributed before this call
    converted: bool


@dataclass(frozen=True)
class QualityReport:
    users: int
    live_memories: int
    duplicate_pairs: int
    duplicate_memories: int
    duplicate_rate: float
    pending_reviews: int
    pending_conflicts: int
    contradiction_rate: float
    cold_memories: int
    cold_share: float
    consolidated_memories: int
    consolidated_share: float
