-- Reading a user's memories as they are, and their history: what an app, the
-- `pymem` command and the eval show, without reading pymem's tables.

-- The user's live memories (not deleted, not consolidated into a record),
-- oldest first; with memory_ids, those (PM011 for any that is not live).
CREATE OR REPLACE FUNCTION pymem.get_memories(user_id text, memory_ids uuid[] DEFAULT NULL)
RETURNS TABLE (
    memory_id uuid,
    kind text,
    content text,
    topic text,
    importance double precision,
    source text,
    pinned boolean,
    tier text,
    mention_count integer,
    details jsonb,
    metadata jsonb,
    valid_until timestamptz,
    last_access_at timestamptz,
    created_at timestamptz,
    updated_at timestamptz,
    version integer
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_one_dimension(memory_ids, 'memory_ids');
    IF memory_ids IS NOT NULL THEN
        PERFORM pymem._check_live_memories(user_id, memory_ids, include_consolidated => FALSE);
    END IF;
    RETURN QUERY
    SELECT m.id, m.kind, m.content, m.topic, m.importance, m.source, m.pinned, m.tier,
        m.mention_count, m.details, m.metadata, m.valid_until, m.last_access_at,
        m.created_at, m.updated_at, m.version
    FROM pymem.memories AS m
    WHERE m.user_id = get_memories.user_id
        AND m.deleted_at IS NULL
        AND m.consolidated_into IS NULL
        AND (get_memories.memory_ids IS NULL OR m.id = ANY(get_memories.memory_ids))
    ORDER BY m.created_at, m.id;
END;
$$;

-- Every earlier content of a memory (of all the user's memories when
-- memory_id is NULL), oldest first, with why it changed: what supersede,
-- merge, update, delete and undo kept (sql/10_history.sql). id: the memory's
-- (memory_id names the parameter).
CREATE OR REPLACE FUNCTION pymem.memory_history(user_id text, memory_id uuid DEFAULT NULL)
RETURNS TABLE (
    id uuid,
    version integer,
    content text,
    reason text,
    changed_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    IF memory_history.memory_id IS NOT NULL THEN
        PERFORM pymem._check_live_memories(
            user_id, ARRAY[memory_history.memory_id], include_deleted => TRUE
        );
    END IF;
    -- a memory's versions in their own order: changed_at is its writer's transaction
    -- start, so a writer that began before another one committed a version wrote the
    -- later version with the earlier time. Across memories by time: the latest time
    -- of a memory's versions so far, which never goes back within one memory.
    RETURN QUERY
    SELECT h.memory_id, h.version, h.content, h.reason, h.changed_at
    FROM (
        SELECT v.*, max(v.changed_at) OVER (
            PARTITION BY v.memory_id ORDER BY v.version ROWS UNBOUNDED PRECEDING
        ) AS reached_at
        FROM pymem.memory_versions AS v
        WHERE v.user_id = memory_history.user_id
            AND (memory_history.memory_id IS NULL OR v.memory_id = memory_history.memory_id)
    ) AS h
    ORDER BY h.reached_at, h.memory_id, h.version;
END;
$$;

-- The topics the user's live memories hold, each with its current text: what an
-- extractor's prompt offers so that a new value of a known thing reuses its key
-- (pymem.remember in Python, docs/llm.md). One row a topic, its most recently
-- changed live memory, the most recently changed topics first; at most
-- max_topics rows (1 to 500), so that the prompt stays bounded.
CREATE OR REPLACE FUNCTION pymem.live_topics(user_id text, max_topics integer DEFAULT 50)
RETURNS TABLE (
    topic text,
    kind text,
    content text,
    updated_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    IF max_topics IS NULL OR max_topics < 1 OR max_topics > 500 THEN
        RAISE EXCEPTION 'max_topics must be between 1 and 500, got %',
            coalesce(max_topics::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    RETURN QUERY
    SELECT t.topic, t.kind, t.content, t.updated_at
    FROM (
        SELECT DISTINCT ON (m.topic) m.topic, m.kind, m.content, m.updated_at, m.id
        FROM pymem.memories AS m
        WHERE m.user_id = live_topics.user_id
            AND m.topic IS NOT NULL
            AND m.deleted_at IS NULL
            AND m.consolidated_into IS NULL
        ORDER BY m.topic, m.updated_at DESC, m.id DESC
    ) AS t
    ORDER BY t.updated_at DESC, t.topic
    LIMIT max_topics;
END;
$$;
