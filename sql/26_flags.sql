-- Contradictions between free-text memories, flagged by the app's LLM
-- (DESIGN: "Facts and contradictions"): they wait in the review queue
-- (sql/25_reviews.sql, cause 'conflict'); pending_conflicts
-- (sql/51_fact_conflicts.sql) lists them beside the facts whose sources disagree.

-- A contradiction between two free-text memories that only the app's LLM
-- can see. Both memories stay; the pair waits in pymem.reviews (cause
-- 'conflict') until the app resolves it. Flagging an open pair again, in
-- either order, returns the same review.
CREATE OR REPLACE FUNCTION pymem.flag_conflict(
    user_id text, memory_id uuid, other_id uuid, note text DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id uuid;
    v_note text := nullif(btrim(note), '');
BEGIN
    PERFORM pymem._check_user(user_id);
    IF memory_id = other_id THEN
        RAISE EXCEPTION 'a memory cannot conflict with itself (%)', memory_id
            USING ERRCODE = 'PM006';
    END IF;
    IF v_note IS NOT NULL THEN
        PERFORM pymem._check_content(v_note, (pymem._settings()).max_content_chars, 'note');
    END IF;
    PERFORM pymem._lock_user(user_id);
    PERFORM pymem._check_live_memories(
        user_id, ARRAY[memory_id, other_id], include_consolidated => false
    );
    SELECT r.id INTO v_id
    FROM pymem.reviews AS r
    WHERE r.user_id = flag_conflict.user_id AND r.cause = 'conflict' AND r.resolved_at IS NULL
        AND ((r.memory_id = flag_conflict.memory_id AND r.matched_id = flag_conflict.other_id)
            OR (r.memory_id = flag_conflict.other_id AND r.matched_id = flag_conflict.memory_id));
    IF found THEN
        RETURN v_id;
    END IF;
    INSERT INTO pymem.reviews AS r (user_id, cause, memory_id, matched_id, note)
    VALUES (user_id, 'conflict', memory_id, other_id, v_note)
    RETURNING r.id INTO v_id;
    RETURN v_id;
END;
$$;
