-- Goal dedup (kind = 'goal'): goals naming the same metric (pymem.goal_metrics)
-- with enough word overlap are one goal, the newer wording replacing the
-- older ("Lower my A1C to 7%" -> "Lower my A1C to 6.5% by June"). Goals
-- naming no known metric dedup only on exact normalized text. Numbers do
-- not block: a goal's new number is its update.

-- The metrics a text names, sorted. (`content` is the parameter:
-- goal_metrics has no such column.)
CREATE OR REPLACE FUNCTION pymem._goal_metrics(content text)
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN array(
    SELECT g.metric
    FROM pymem.goal_metrics AS g
    WHERE lower(content) ~ g.pattern
    ORDER BY g.metric
);

-- A goal's text without the metric names: what is left says what the
-- goal is about the metric (lower it, check it, keep it under ...).
CREATE OR REPLACE FUNCTION pymem._strip_goal_metrics(content text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN regexp_replace(
    lower(content),
    coalesce((SELECT string_agg('(' || g.pattern || ')', '|') FROM pymem.goal_metrics AS g), '$^'),
    ' ',
    'g'
);

-- The user's live goal that a new goal updates, if any: one whose
-- metrics the new goal all names, under the same topic when both have
-- one, with the most overlap of the words around the metric names (at
-- least settings.goal_overlap_threshold). "Lower my A1C to 7%" ->
-- "Lower my A1C to 6.5% by June" is one goal; "Check my A1C every three
-- months" is another, and "Lower my weight and blood pressure" is not
-- replaced by a blood-pressure-only goal.
CREATE OR REPLACE FUNCTION pymem._same_goal(
    user_id text,
    content text,
    embedding vector,
    topic text,
    overlap_threshold double precision,
    OUT memory_id uuid,
    OUT similarity double precision,
    OUT metrics text[]
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_metrics text [] := pymem._goal_metrics(_same_goal.content);
    v_rest text := pymem._strip_goal_metrics(_same_goal.content);
BEGIN
    IF cardinality(v_metrics) = 0 THEN
        RETURN;
    END IF;
    SELECT g.id, g.sim, g.metrics INTO memory_id, similarity, metrics
    FROM (
        SELECT
            m.id,
            m.created_at,
            1 - (m.embedding <=> _same_goal.embedding) AS sim,
            pymem._goal_metrics(m.content) AS metrics,
            pymem._token_overlap(pymem._strip_goal_metrics(m.content), v_rest) AS overlap
        FROM pymem.memories AS m
        WHERE m.user_id = _same_goal.user_id
            AND m.kind = 'goal'
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
            AND (m.topic IS NULL OR _same_goal.topic IS NULL OR m.topic = _same_goal.topic)
    ) AS g
    WHERE cardinality(g.metrics) > 0
        AND g.metrics <@ v_metrics
        AND g.overlap >= overlap_threshold
    ORDER BY g.overlap DESC, g.created_at DESC
    LIMIT 1;
END;
$$;
