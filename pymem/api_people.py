"""The store's methods for structured facts and for contacts (one method per SQL
function)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from pymem.calls import _Call, _sql
from pymem.conversions import _fact_json, _ids, _object_json, _text, _texts
from pymem.records import (
    ContactMatch,
    ContactMemory,
    Fact,
    FactHistoryEntry,
    MentionedContact,
    PendingConflict,
    RecentContact,
)


class PeopleCalls:
    """MemoryStore's methods for facts and contacts."""

    # -- facts ------------------------------------------------------------------

    @_sql
    def set_fact(
        self,
        user_id: str,
        key: str,
        value: Any,
        *,
        confidence: float | str = "medium",
        scope: str = "habit",
        source: str = "stated",
        valid_until: datetime | None = None,
    ) -> str:
        """``pymem.set_fact``: set|unchanged|replaced|conflict|rejected.

        ``value`` is any JSON-serializable value; ``confidence`` is ``high``,
        ``medium``, ``low`` or a number in [0, 1].
        """
        # a word (or a number as text) goes in confidence_level, a number in confidence
        text = isinstance(confidence, str)
        named = "confidence_level => %s::text" if text else "confidence => %s::double precision"
        return _Call(
            f"SELECT pymem.set_fact(%s, %s, %s::jsonb, {named},"
            " scope => %s, source => %s, valid_until => %s)",
            (user_id, key, _fact_json(value), confidence, scope, source, valid_until),
            user_id=user_id,
        )

    @_sql
    def get_fact(self, user_id: str, key: str, as_of: datetime | None = None) -> Any:
        """``pymem.get_fact``: the value believed at ``as_of`` (default now), or None."""
        return _Call(
            "SELECT pymem.get_fact(%s, %s, coalesce(%s::timestamptz, now()))",
            (user_id, key, as_of),
            user_id=user_id,
        )

    @_sql
    def current_facts(self, user_id: str) -> list[Fact]:
        """``pymem.current_facts``: the user's facts as believed now."""
        return _Call("SELECT * FROM pymem.current_facts(%s)", (user_id,), Fact, user_id=user_id)

    @_sql
    def fact_history(self, user_id: str, key: str) -> list[FactHistoryEntry]:
        """``pymem.fact_history``: every value of a key, the current one last."""
        return _Call(
            "SELECT * FROM pymem.fact_history(%s, %s)",
            (user_id, key),
            FactHistoryEntry,
            user_id=user_id,
        )

    @_sql
    def pending_conflicts(self, user_id: str) -> list[PendingConflict]:
        """``pymem.pending_conflicts``: fact conflicts and flagged memory pairs."""
        return _Call(
            "SELECT * FROM pymem.pending_conflicts(%s)",
            (user_id,),
            PendingConflict,
            user_id=user_id,
        )

    @_sql
    def resolve_conflict(
        self, user_id: str, key: str, value: Any, *, scope: str | None = None
    ) -> str:
        """``pymem.resolve_conflict``: the user's answer; returns kept|replaced."""
        return _Call(
            "SELECT pymem.resolve_conflict(%s, %s, %s::jsonb, scope => %s)",
            (user_id, key, _fact_json(value), scope),
            user_id=user_id,
        )

    @_sql
    def set_fact_policy(self, key_pattern: str, policy: str | None) -> str | None:
        """``pymem.set_fact_policy``: latest_wins or confirm for keys matching a pattern."""
        return _Call("SELECT pymem.set_fact_policy(%s, %s)", (key_pattern, policy))

    @_sql
    def flag_conflict(
        self,
        user_id: str,
        memory_id: UUID | str,
        other_id: UUID | str,
        note: str | None = None,
    ) -> UUID:
        """``pymem.flag_conflict``: queue two contradicting memories; returns the review id."""
        return _Call(
            "SELECT pymem.flag_conflict(%s, %s::uuid, %s::uuid, %s)",
            (user_id, memory_id, other_id, note),
            user_id=user_id,
        )

    @_sql
    def undo(self, user_id: str, memory_id: UUID | str, *, to_version: int | None = None) -> int:
        """``pymem.undo``: restore a memory's previous version; returns that version."""
        return _Call(
            "SELECT pymem.undo(%s, %s::uuid, to_version => %s::integer)",
            (user_id, memory_id, to_version),
            user_id=user_id,
        )

    @_sql
    def contradiction_rate(self, user_id: str | None = None) -> float:
        """``pymem.contradiction_rate``: pending fact conflicts per fact."""
        return _Call("SELECT pymem.contradiction_rate(%s)", (user_id,), user_id=user_id)

    # -- contacts ------------------------------------------------------------

    @_sql
    def sync_contact(
        self,
        user_id: str,
        name: str,
        memory_ids: Sequence[UUID | str] | None = None,
        *,
        relationship: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        aliases: Sequence[str] | None = None,
        description: str | None = None,
    ) -> UUID:
        """``pymem.sync_contact``: create or update a person, link memories; returns its id."""
        return _Call(
            "SELECT pymem.sync_contact(%s, %s, %s::uuid[], relationship => %s,"
            " attributes => %s, aliases => %s::text[], description => %s)",
            (
                user_id,
                name,
                _ids(memory_ids, "memory_ids"),
                relationship,
                _object_json(attributes),
                _texts(aliases, "aliases"),
                description,
            ),
            user_id=user_id,
        )

    @_sql
    def resolve_contact(self, user_id: str, name: str) -> list[ContactMatch]:
        """``pymem.resolve_contact``: exact name, else alias, else fuzzy candidates."""
        return _Call(
            "SELECT * FROM pymem.resolve_contact(%s, %s)",
            (user_id, name),
            ContactMatch,
            user_id=user_id,
        )

    @_sql
    def merge_contacts(self, user_id: str, keep: UUID | str, merge: UUID | str) -> UUID:
        """``pymem.merge_contacts``: join ``merge`` into ``keep``; returns keep's id."""
        return _Call(
            "SELECT pymem.merge_contacts(%s, %s, %s)",
            (user_id, _text(keep), _text(merge)),
            user_id=user_id,
        )

    @_sql
    def mentioned_contacts(self, user_id: str, message: str) -> list[MentionedContact]:
        """``pymem.mentioned_contacts``: the people a message names (marks them mentioned)."""
        return _Call(
            "SELECT * FROM pymem.mentioned_contacts(%s, %s)",
            (user_id, message),
            MentionedContact,
            user_id=user_id,
        )

    @_sql
    def contact_memories(
        self, user_id: str, contact: UUID | str, k: int = 20
    ) -> list[ContactMemory]:
        """``pymem.contact_memories``: linked memories, then text matches (linked now)."""
        return _Call(
            "SELECT * FROM pymem.contact_memories(%s, %s, %s)",
            (user_id, _text(contact), k),
            ContactMemory,
            user_id=user_id,
        )

    @_sql
    def contact_card(self, user_id: str, contact: UUID | str, max_chars: int = 600) -> str:
        """``pymem.contact_card``: a prompt-ready block about a person."""
        return _Call(
            "SELECT pymem.contact_card(%s, %s, %s)",
            (user_id, _text(contact), max_chars),
            user_id=user_id,
        )

    @_sql
    def consolidate_contact(
        self,
        user_id: str,
        contact: UUID | str,
        description: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        relationship: str | None = None,
    ) -> UUID | None:
        """``pymem.consolidate_contact``: store a profile; returns the profile memory's id."""
        return _Call(
            "SELECT pymem.consolidate_contact(%s, %s, %s, %s, %s)",
            (
                user_id,
                _text(contact),
                description,
                _object_json(attributes),
                relationship,
            ),
            user_id=user_id,
        )

    @_sql
    def recent_contacts(self, user_id: str, k: int = 10) -> list[RecentContact]:
        """``pymem.recent_contacts``: people by last mention, most recent first."""
        return _Call(
            "SELECT * FROM pymem.recent_contacts(%s, %s)",
            (user_id, k),
            RecentContact,
            user_id=user_id,
        )
