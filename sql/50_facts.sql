-- Facts and contradictions (DESIGN: "Facts and contradictions"; tables:
-- migrations/0005.facts.sql; docs/sql-api.md "Facts and contradictions").
--   set_fact          one value per (user, key, scope), versioned:
--                     set | unchanged | replaced | conflict | rejected
--   get_fact          the value believed at an instant: a valid state
--                     shadows the habit; earlier instants from history
--   resolve_conflict  the user's answer to a pending conflict
-- Writers take the per-user lock, so concurrent writers of one key are
-- serialized and each sees the value the previous one left. Free-text
-- contradictions (flag_conflict): sql/26_flags.sql.

-- set_fact's confidence_level: 'high' 0.9, 'medium' 0.6, 'low' 0.3, or a
-- number in [0, 1] written as text ('0.75'); anything else is PM023.
CREATE OR REPLACE FUNCTION pymem._fact_confidence(confidence text)
RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_value double precision;
BEGIN
    v_value := CASE pymem._word(confidence)
        WHEN 'high' THEN 0.9
        WHEN 'medium' THEN 0.6
        WHEN 'low' THEN 0.3
    END;
    IF v_value IS NULL AND btrim(confidence) ~ '^[+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$' THEN
        BEGIN
            v_value := btrim(confidence)::double precision;
        EXCEPTION WHEN numeric_value_out_of_range THEN
            NULL;  -- '1e400', '1e-400': not a number in [0, 1] either (PM023 below)
        END;
    END IF;
    IF v_value IS NULL OR NOT (v_value >= 0 AND v_value <= 1) THEN
        RAISE EXCEPTION 'confidence_level must be high, medium, low or a number between 0 and 1, got %',
            coalesce(quote_literal(confidence), 'NULL')
            USING ERRCODE = 'PM023',
                HINT = 'high = 0.9, medium = 0.6 (the default), low = 0.3.';
    END IF;
    RETURN v_value;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_fact_key(key text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF key IS NULL OR btrim(key, pymem._blank_characters()) = '' THEN
        RAISE EXCEPTION 'fact key must be a non-empty string, got %',
            coalesce(quote_literal(key), 'NULL')
            USING ERRCODE = 'PM020', HINT = 'A key names the slot, e.g. ''user_city''.';
    END IF;
    IF length(key) > 200 THEN
        RAISE EXCEPTION 'fact key is % characters long, the maximum is 200', length(key)
            USING ERRCODE = 'PM020';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_fact_scope(scope text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF scope IS NULL OR scope NOT IN ('habit', 'state') THEN
        RAISE EXCEPTION 'scope must be habit or state, got %',
            coalesce(quote_literal(scope), 'NULL')
            USING ERRCODE = 'PM022',
                HINT = 'habit: a standing fact; state: a temporary one that shadows the habit.';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_fact_value(value jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF value IS NULL OR jsonb_typeof(value) = 'null' THEN
        RAISE EXCEPTION 'fact value must be a JSON value other than null'
            USING ERRCODE = 'PM021',
                HINT = 'get_fact answers null for an unknown fact; store a string, number, '
                    'boolean, array or object.';
    END IF;
    PERFORM pymem._check_json_size(value, 'fact value', 'PM021');
END;
$$;

-- The policy of a key: the matching pattern with the most literal
-- characters ('*' matches any run), exact keys first; latest_wins when
-- nothing matches.
CREATE OR REPLACE FUNCTION pymem._fact_policy(key text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT coalesce((
        SELECT p.policy
        FROM pymem.fact_policies AS p
        WHERE
            key LIKE replace(
                replace(replace(replace(p.key_pattern, '\', '\\'), '%', '\%'), '_', '\_'), '*', '%'
            )
        -- the most specific first: the longest literal part, an exact key before
        -- a pattern of the same length ('likes_os' before '*likes_os')
        ORDER BY length(replace(p.key_pattern, '*', '')) DESC,
            strpos(p.key_pattern, '*') = 0 DESC, p.key_pattern
        LIMIT 1
    ), 'latest_wins')
$$;

-- Closes the open 'fact' review of a key once no scope of it is pending.
CREATE OR REPLACE FUNCTION pymem._close_fact_review(user_id text, key text, decision text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    UPDATE pymem.reviews AS r
    SET resolved_at = now(), decision = _close_fact_review.decision
    WHERE r.user_id = _close_fact_review.user_id
        AND r.cause = 'fact'
        AND r.fact_key = _close_fact_review.key
        AND r.resolved_at IS NULL
        AND NOT EXISTS (
            SELECT FROM pymem.facts AS f
            WHERE f.user_id = _close_fact_review.user_id
                AND f.key = _close_fact_review.key
                AND f.conflict_pending
        );
END;
$$;

-- When a fact stated at `at` stops being believed by default: a state after
-- the state kind's lifetime; a habit never.
CREATE OR REPLACE FUNCTION pymem._fact_default_end(scope text, at timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT CASE WHEN scope = 'state' THEN at + coalesce(
        (SELECT k.default_lifetime FROM pymem.kinds AS k WHERE k.kind = 'state'),
        interval '1 day'
    ) END
$$;

-- Whether a pending conflict still asks the user at `at`: while the value
-- held or the candidate is believed. Once both have expired (a state
-- conflict left unanswered) there is nothing left to choose between, and
-- it is neither listed nor counted as a contradiction.
CREATE OR REPLACE FUNCTION pymem._conflict_open(
    valid_until timestamptz, pending_valid_until timestamptz, at timestamptz
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN valid_until IS NULL OR valid_until > at
OR pending_valid_until IS NULL OR pending_valid_until > at;

-- The decision and its effects. `at` is the instant the statement was
-- made (now() from the public functions; tests pass earlier instants to
-- build a timeline). The caller holds the per-user lock.
CREATE OR REPLACE FUNCTION pymem._set_fact(
    user_id text,
    key text,
    value jsonb,
    confidence double precision,
    scope text,
    source text,
    valid_until timestamptz,
    at timestamptz
)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_cur pymem.facts;
    v_at timestamptz := at;
    v_until timestamptz := valid_until;
    v_policy text;
BEGIN
    PERFORM pymem._check_user(user_id);
    -- the public callers hold it already (re-entrant); a direct call takes it
    PERFORM pymem._lock_user(user_id);
    PERFORM pymem._check_fact_key(key);
    PERFORM pymem._check_fact_value(value);
    PERFORM pymem._check_fact_scope(scope);
    PERFORM pymem._check_source(source);
    IF confidence IS NULL OR NOT (confidence >= 0 AND confidence <= 1) THEN
        RAISE EXCEPTION 'confidence must be a number between 0 and 1, got %',
            coalesce(confidence::text, 'NULL')
            USING ERRCODE = 'PM023',
                HINT = 'Or a word in confidence_level: high = 0.9, medium = 0.6 (the default), low = 0.3.';
    END IF;
    IF v_at IS NULL OR NOT isfinite(v_at) THEN
        RAISE EXCEPTION 'at must be a finite timestamp, got %', coalesce(v_at::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    IF v_until IS NULL THEN
        v_until := pymem._fact_default_end(scope, v_at);
    END IF;
    IF v_until IS NOT NULL AND v_until <= v_at THEN
        RAISE EXCEPTION 'valid_until % is not after the time of the statement %', v_until, v_at
            USING ERRCODE = 'PM006',
                HINT = 'A fact that has already expired would never be believed.';
    END IF;

    SELECT f.* INTO v_cur
    FROM pymem.facts AS f
    WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key AND f.scope = _set_fact.scope
    FOR UPDATE;

    IF NOT found THEN
        INSERT INTO pymem.facts AS f
            (user_id, key, scope, value, confidence, source, valid_until, set_at, updated_at)
        VALUES (user_id, key, scope, value, confidence, source, v_until, v_at, v_at);
        RETURN 'set';
    END IF;

    -- Writers are serialized by the lock but each transaction's now() is
    -- its start: a writer that waited must not date its value before
    -- the one it replaces.
    v_at := greatest(v_at, v_cur.set_at, v_cur.updated_at);

    -- An expired value is no longer believed: whatever comes next is a
    -- first value again, whatever its confidence.
    IF v_cur.valid_until IS NOT NULL AND v_cur.valid_until <= v_at THEN
        INSERT INTO pymem.fact_history AS h
            (user_id, key, scope, value, confidence, source, valid_until, set_at, replaced_at, reason)
        VALUES (user_id, key, scope, v_cur.value, v_cur.confidence, v_cur.source,
            v_cur.valid_until, v_cur.set_at, v_at, 'expired');
        UPDATE pymem.facts AS f
        SET value = _set_fact.value, confidence = _set_fact.confidence,
            source = _set_fact.source, valid_until = v_until, set_at = v_at, updated_at = v_at,
            conflict_pending = false, pending_value = NULL, pending_confidence = NULL,
            pending_source = NULL, pending_valid_until = NULL, pending_since = NULL
        WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key
            AND f.scope = _set_fact.scope;
        PERFORM pymem._close_fact_review(user_id, key, 'expired');
        RETURN 'set';
    END IF;

    IF v_cur.value = value THEN
        -- restated: touch; confidence and source only grow; the latest
        -- statement says how long it holds
        UPDATE pymem.facts AS f
        SET confidence = greatest(f.confidence, _set_fact.confidence),
            source = pymem._stronger_source(f.source, _set_fact.source),
            valid_until = v_until,
            updated_at = v_at
        WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key
            AND f.scope = _set_fact.scope;
        RETURN 'unchanged';
    END IF;

    IF confidence < v_cur.confidence THEN
        INSERT INTO pymem.fact_history AS h
            (user_id, key, scope, value, confidence, source, valid_until, set_at, replaced_at, reason)
        VALUES (user_id, key, scope, value, confidence, source, v_until, v_at, v_at, 'rejected');
        UPDATE pymem.facts AS f SET updated_at = v_at
        WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key
            AND f.scope = _set_fact.scope;
        RETURN 'rejected';
    END IF;

    v_policy := pymem._fact_policy(key);
    -- Under 'confirm' a disagreeing value of equal or higher confidence
    -- waits for the user, unless it is the user's own confirmed answer
    -- against an unconfirmed value.
    IF v_policy = 'confirm'
        AND NOT (source = 'confirmed' AND v_cur.source <> 'confirmed') THEN
        IF v_cur.conflict_pending AND v_cur.pending_value = value THEN
            UPDATE pymem.facts AS f
            SET pending_confidence = greatest(f.pending_confidence, _set_fact.confidence),
                pending_source = pymem._stronger_source(f.pending_source, _set_fact.source),
                pending_valid_until = v_until,
                updated_at = v_at
            WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key
                AND f.scope = _set_fact.scope;
            RETURN 'conflict';
        END IF;
        INSERT INTO pymem.fact_history AS h
            (user_id, key, scope, value, confidence, source, valid_until, set_at, replaced_at, reason)
        VALUES (user_id, key, scope, value, confidence, source, v_until, v_at, v_at, 'conflict');
        UPDATE pymem.facts AS f
        SET conflict_pending = true, pending_value = _set_fact.value,
            pending_confidence = _set_fact.confidence, pending_source = _set_fact.source,
            pending_valid_until = v_until, pending_since = v_at, updated_at = v_at
        WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key
            AND f.scope = _set_fact.scope;
        -- one open review per key: its trigger announces conflict_flagged once
        INSERT INTO pymem.reviews AS r (user_id, cause, fact_key, note)
        VALUES (user_id, 'fact', key, format('%s %s: %s (current) vs %s',
            scope, key, v_cur.value::text, value::text))
        -- a newer candidate replaces the pending one: the note names the pair the user
        -- is asked about (announced once, by the insert's trigger)
        ON CONFLICT (user_id, fact_key) WHERE resolved_at IS NULL AND cause = 'fact'
        DO UPDATE SET note = excluded.note;
        RETURN 'conflict';
    END IF;

    INSERT INTO pymem.fact_history AS h
        (user_id, key, scope, value, confidence, source, valid_until, set_at, replaced_at, reason)
    VALUES (user_id, key, scope, v_cur.value, v_cur.confidence, v_cur.source,
        v_cur.valid_until, v_cur.set_at, v_at, 'replaced');
    UPDATE pymem.facts AS f
    SET value = _set_fact.value, confidence = _set_fact.confidence,
        source = _set_fact.source, valid_until = v_until, set_at = v_at, updated_at = v_at,
        conflict_pending = false, pending_value = NULL, pending_confidence = NULL,
        pending_source = NULL, pending_valid_until = NULL, pending_since = NULL
    WHERE f.user_id = _set_fact.user_id AND f.key = _set_fact.key AND f.scope = _set_fact.scope;
    IF v_cur.conflict_pending THEN
        PERFORM pymem._close_fact_review(user_id, key, 'replaced');
    END IF;
    RETURN 'replaced';
END;
$$;

-- One form, so a driver's untyped parameters resolve (node-pg, pgx): a
-- number in confidence (double precision like every numeric parameter;
-- a text overload took every untyped value, and pgx then could not send
-- a float64), the words in confidence_level ('high', 'medium', 'low', or
-- a number written as text). A level with a confidence other than the
-- default is PM023: one of the two says it.
CREATE OR REPLACE FUNCTION pymem.set_fact(
    user_id text,
    key text,
    value jsonb,
    confidence double precision DEFAULT 0.6,
    scope text DEFAULT 'habit',
    source text DEFAULT 'stated',
    valid_until timestamptz DEFAULT NULL,
    confidence_level text DEFAULT NULL
)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_confidence double precision := confidence;
BEGIN
    PERFORM pymem._check_user(user_id);
    IF confidence_level IS NOT NULL THEN
        IF confidence IS DISTINCT FROM 0.6 THEN
            RAISE EXCEPTION 'give confidence or confidence_level, not both: got % and %',
                coalesce(confidence::text, 'NULL'), quote_literal(confidence_level)
                USING ERRCODE = 'PM023',
                    HINT = 'confidence takes a number in [0, 1], confidence_level high, medium or low.';
        END IF;
        v_confidence := pymem._fact_confidence(confidence_level);
    END IF;
    PERFORM pymem._lock_user(user_id);
    RETURN pymem._set_fact(
        user_id, key, value, v_confidence, pymem._word(scope), pymem._word(source), valid_until,
        now()
    );
END;
$$;

-- Global: policies apply to every user's keys (owner only, like
-- configure_embedder). A NULL policy removes the pattern.
CREATE OR REPLACE FUNCTION pymem.set_fact_policy(key_pattern text, policy text)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    IF key_pattern IS NULL OR btrim(key_pattern) = '' THEN
        RAISE EXCEPTION 'key_pattern must be a non-empty string, got %',
            coalesce(quote_literal(key_pattern), 'NULL')
            USING ERRCODE = 'PM024', HINT = 'A key (''likes_os'') or a pattern (''likes_*'').';
    END IF;
    IF length(key_pattern) > 200 THEN
        RAISE EXCEPTION 'key_pattern is % characters long, the maximum is 200 (as for keys)',
            length(key_pattern)
            USING ERRCODE = 'PM024';
    END IF;
    policy := pymem._word(policy);
    IF policy IS NULL THEN
        DELETE FROM pymem.fact_policies AS p WHERE p.key_pattern = set_fact_policy.key_pattern;
        RETURN NULL;
    END IF;
    IF policy NOT IN ('latest_wins', 'confirm') THEN
        RAISE EXCEPTION 'policy must be latest_wins or confirm, got %', quote_literal(policy)
            USING ERRCODE = 'PM024',
                HINT = 'latest_wins: a new value replaces; confirm: disagreeing values wait for the user.';
    END IF;
    INSERT INTO pymem.fact_policies AS p (key_pattern, policy)
    VALUES (key_pattern, policy)
    ON CONFLICT (key_pattern) DO UPDATE SET policy = excluded.policy;
    RETURN policy;
END;
$$;
