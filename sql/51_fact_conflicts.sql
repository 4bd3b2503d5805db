-- Facts whose sources disagree: what waits for the user, the user's answer,
-- and the share of facts in conflict (sql/50_facts.sql writes them).

-- What waits for the user: facts whose sources disagree (cause 'fact',
-- one row per key and scope, both candidates) and free-text conflicts
-- flagged by the app (cause 'conflict', the two memories).
CREATE OR REPLACE FUNCTION pymem.pending_conflicts(user_id text)
RETURNS TABLE (
    review_id uuid,
    cause text,
    fact_key text,
    scope text,
    value jsonb,
    confidence double precision,
    source text,
    candidate_value jsonb,
    candidate_confidence double precision,
    candidate_source text,
    memory_id uuid,
    other_id uuid,
    note text,
    created_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN QUERY
    SELECT r.id, 'fact'::text, f.key, f.scope, f.value, f.confidence, f.source,
        f.pending_value, f.pending_confidence, f.pending_source,
        NULL::uuid, NULL::uuid, r.note, f.pending_since
    FROM pymem.facts AS f
    LEFT JOIN pymem.reviews AS r
        ON r.user_id = f.user_id AND r.cause = 'fact' AND r.fact_key = f.key
            AND r.resolved_at IS NULL
    WHERE f.user_id = pending_conflicts.user_id AND f.conflict_pending
        AND pymem._conflict_open(f.valid_until, f.pending_valid_until, now())
    UNION ALL
    SELECT r.id, r.cause, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        r.memory_id, r.matched_id, r.note, r.created_at
    FROM pymem.reviews AS r
    WHERE r.user_id = pending_conflicts.user_id AND r.cause = 'conflict'
        AND r.resolved_at IS NULL
    ORDER BY 14, 3, 4;
END;
$$;

-- The user's answer: `value` becomes current as 'confirmed' with
-- confidence 1 in every pending scope of the key (or only `scope`). The
-- value it replaces goes to history as 'resolved'; the losing candidate
-- is already there as 'conflict'. Returns 'kept' when the user chose the
-- value that was current, else 'replaced'.
CREATE OR REPLACE FUNCTION pymem.resolve_conflict(
    user_id text, key text, value jsonb, scope text DEFAULT NULL
)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_cur pymem.facts;
    v_at timestamptz;
    v_until timestamptz;
    v_action text := 'kept';
    v_found boolean := false;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_fact_key(key);
    PERFORM pymem._check_fact_value(value);
    scope := pymem._word(scope);
    IF scope IS NOT NULL THEN
        PERFORM pymem._check_fact_scope(scope);
    END IF;
    PERFORM pymem._lock_user(user_id);
    FOR v_cur IN
        SELECT f.* FROM pymem.facts AS f
        WHERE f.user_id = resolve_conflict.user_id AND f.key = resolve_conflict.key
            AND f.conflict_pending
            AND (resolve_conflict.scope IS NULL OR f.scope = resolve_conflict.scope)
        ORDER BY f.scope
        FOR UPDATE
    LOOP
        v_found := true;
        v_at := greatest(now(), v_cur.set_at, v_cur.updated_at);
        -- the end of the value the user chose; one that has passed starts again
        -- from the answer (a state's lifetime, a habit's none): a confirmed answer
        -- stored already expired was believed by nobody
        v_until := CASE WHEN v_cur.value <> value AND v_cur.pending_value = value
            THEN v_cur.pending_valid_until ELSE v_cur.valid_until END;
        IF v_until <= v_at THEN
            v_until := pymem._fact_default_end(v_cur.scope, v_at);
        END IF;
        IF v_cur.value = value THEN
            UPDATE pymem.facts AS f
            SET confidence = 1, source = 'confirmed', valid_until = v_until, updated_at = v_at
            WHERE f.user_id = v_cur.user_id AND f.key = v_cur.key AND f.scope = v_cur.scope;
        ELSE
            v_action := 'replaced';
            INSERT INTO pymem.fact_history AS h
                (user_id, key, scope, value, confidence, source, valid_until, set_at,
                replaced_at, reason)
            VALUES (v_cur.user_id, v_cur.key, v_cur.scope, v_cur.value, v_cur.confidence,
                v_cur.source, v_cur.valid_until, v_cur.set_at, v_at, 'resolved');
            UPDATE pymem.facts AS f
            SET value = resolve_conflict.value, confidence = 1, source = 'confirmed',
                valid_until = v_until, set_at = v_at, updated_at = v_at
            WHERE f.user_id = v_cur.user_id AND f.key = v_cur.key AND f.scope = v_cur.scope;
        END IF;
        UPDATE pymem.facts AS f
        SET conflict_pending = false, pending_value = NULL, pending_confidence = NULL,
            pending_source = NULL, pending_valid_until = NULL, pending_since = NULL
        WHERE f.user_id = v_cur.user_id AND f.key = v_cur.key AND f.scope = v_cur.scope;
    END LOOP;
    IF NOT v_found THEN
        RAISE EXCEPTION '%', format('no pending conflict on fact %s%s for user %s',
            quote_literal(key),
            CASE WHEN scope IS NULL THEN '' ELSE format(' (scope %s)', scope) END,
            quote_literal(user_id))
            USING ERRCODE = 'PM025',
                HINT = 'pending_conflicts(user_id) lists what waits for an answer; '
                    'set_fact sets a value directly.';
    END IF;
    PERFORM pymem._close_fact_review(user_id, key, 'confirmed');
    RETURN v_action;
END;
$$;

-- Pending fact conflicts per fact: the share of a user's (or, with NULL,
-- every user's) facts whose sources disagree and wait for an answer.
-- 0 when there are no facts; a blank user id is refused (PM001), as by
-- quality_report, not read as a user with no facts.
CREATE OR REPLACE FUNCTION pymem.contradiction_rate(user_id text DEFAULT NULL)
RETURNS double precision
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF contradiction_rate.user_id IS NOT NULL THEN
        PERFORM pymem._check_user(contradiction_rate.user_id);
    END IF;
    RETURN (
        SELECT
            coalesce(
                (count(*) FILTER (WHERE f.conflict_pending
                    AND pymem._conflict_open(f.valid_until, f.pending_valid_until, now())
                ))::double precision
                / nullif(count(*), 0),
                0
            )
        FROM pymem.facts AS f
        WHERE contradiction_rate.user_id IS NULL OR f.user_id = contradiction_rate.user_id
    );
END;
$$;
