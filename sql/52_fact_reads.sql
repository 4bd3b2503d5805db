-- Reading facts: the value believed at an instant, every value a key has
-- had, and the user's facts as believed now.

-- The value believed at as_of: a valid state first, else the habit;
-- NULL when nothing was known. The current row answers from its set_at
-- on (and for any instant from now on); earlier instants are answered by
-- the history of values that were current (replaced, expired, resolved).
CREATE OR REPLACE FUNCTION pymem.get_fact(
    user_id text, key text, as_of timestamptz DEFAULT now()
)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_value jsonb;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_fact_key(key);
    IF as_of IS NULL THEN
        RAISE EXCEPTION 'as_of must not be null' USING ERRCODE = 'PM006';
    END IF;
    SELECT b.value INTO v_value
    FROM (
        SELECT f.scope, f.value, 1 AS rank, f.set_at
        FROM pymem.facts AS f
        WHERE f.user_id = get_fact.user_id AND f.key = get_fact.key
            AND (f.set_at <= get_fact.as_of OR get_fact.as_of >= now())
            AND (f.valid_until IS NULL OR get_fact.as_of < f.valid_until)
        UNION ALL
        SELECT h.scope, h.value, 2 AS rank, h.set_at
        FROM pymem.fact_history AS h
        WHERE h.user_id = get_fact.user_id AND h.key = get_fact.key
            AND h.reason IN ('replaced', 'expired', 'resolved')
            AND h.set_at <= get_fact.as_of AND get_fact.as_of < h.replaced_at
            AND (h.valid_until IS NULL OR get_fact.as_of < h.valid_until)
    ) AS b
    ORDER BY b.scope = 'state' DESC, b.rank, b.set_at DESC
    LIMIT 1;
    RETURN v_value;
END;
$$;

-- Every value of a key, oldest first per scope; the current value last
-- with reason 'current' and no replaced_at.
CREATE OR REPLACE FUNCTION pymem.fact_history(user_id text, key text)
RETURNS TABLE (
    scope text,
    value jsonb,
    confidence double precision,
    source text,
    valid_until timestamptz,
    set_at timestamptz,
    replaced_at timestamptz,
    reason text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_fact_key(key);
    RETURN QUERY
    SELECT t.scope, t.value, t.confidence, t.source, t.valid_until, t.set_at,
        t.replaced_at, t.reason
    FROM (
        SELECT h.scope, h.value, h.confidence, h.source, h.valid_until, h.set_at,
            h.replaced_at, h.reason, h.id AS seq
        FROM pymem.fact_history AS h
        WHERE h.user_id = fact_history.user_id AND h.key = fact_history.key
        UNION ALL
        SELECT f.scope, f.value, f.confidence, f.source, f.valid_until, f.set_at,
            NULL::timestamptz, 'current', NULL::bigint
        FROM pymem.facts AS f
        WHERE f.user_id = fact_history.user_id AND f.key = fact_history.key
    ) AS t
    -- in the order the values arrived: a history row's id says when it was
    -- archived (a candidate rejected while A was current is archived before A)
    ORDER BY t.scope, t.seq IS NULL, t.set_at, t.seq;
END;
$$;

-- The user's facts as believed now: one row per key and scope, expired
-- states left out; conflict_pending marks a key waiting for the user.
CREATE OR REPLACE FUNCTION pymem.current_facts(user_id text)
RETURNS TABLE (
    key text,
    scope text,
    value jsonb,
    confidence double precision,
    source text,
    valid_until timestamptz,
    set_at timestamptz,
    conflict_pending boolean
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN QUERY
    SELECT f.key, f.scope, f.value, f.confidence, f.source, f.valid_until, f.set_at,
        f.conflict_pending
    FROM pymem.facts AS f
    WHERE f.user_id = current_facts.user_id
        AND (f.valid_until IS NULL OR f.valid_until > now())
    ORDER BY f.key, f.scope;
END;
$$;
