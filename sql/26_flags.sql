-- Contradictions between free-text memories, flagged by the app's LLM
-- (DESIGN: "Facts and contradictions"): they wait in the review queue
-- (sql/25_reviews.sql, cause 'conflict'); pending_conflicts
-- (sql/50_facts.sql) lists them beside the facts whose sources disagree.

-- A contradiction between two free-text memories that only the app's LLM
-- can see. Both memories stay; the pair waits in pymem.reviews (cause
-- 'conflict') until the app resolves it. Flagging an open pair again, in
-- either order, returns the same review.
CREATE OR REPLACE FUNCTION pymem.flag_conflict(
    user_id text, memory_id uuid, other_id uuid, note text DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_missing text;
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
    SELECT string_agg(coalesce(x::text, 'NULL'), ', ') INTO v_missing
    FROM unnest(ARRAY[memory_id, other_id]) AS x
    WHERE NOT EXISTS (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = flag_conflict.user_id AND m.id = x
            AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
    );
    IF v_missing IS NOT NULL THEN
        RAISE EXCEPTION 'no live memory % for user %', v_missing, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Memories of other users are invisible; deleted and consolidated '
                    'memories cannot be flagged.';
    END IF;
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
