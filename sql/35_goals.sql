-- Goal dedup (kind = 'goal'): goals naming the same metric (pymem.goal_metrics)
-- with enough word overlap are one goal, the newer wording replacing the
-- older ("Lower my A1C to 7%" -> "Get my A1C under 6.5 by June"). Goals
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

-- Shared words (and Chinese character pairs) over the smaller text's:
-- the overlap coefficient of pymem._query_tokens, 0..1.
CREATE OR REPLACE FUNCTION pymem._token_overlap(a text, b text)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN (
    SELECT
        CASE
            WHEN least(cardinality(t.a), cardinality(t.b)) = 0 THEN 0.0
            ELSE
                cardinality(array(
                    SELECT unnest(t.a)
                    INTERSECT
                    SELECT unnest(t.b)
                ))::double precision
                / least(cardinality(t.a), cardinality(t.b))
        END
    FROM (
        SELECT
            pymem._query_tokens(a) AS a,
            pymem._query_tokens(b) AS b
    ) AS t
);

-- The user's live goal that a new goal updates, if any: one naming a
-- metric the new goal names, with the most word overlap (at least
-- settings.goal_overlap_threshold).
CREATE OR REPLACE FUNCTION pymem._same_goal(
    user_id text, content text, embedding vector, overlap_threshold double precision,
    OUT memory_id uuid, OUT similarity double precision, OUT metrics text[]
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_metrics text [] := pymem._goal_metrics(_same_goal.content);
BEGIN
    IF cardinality(v_metrics) = 0 THEN
        RETURN;
    END IF;
    SELECT g.id, g.sim, g.shared INTO memory_id, similarity, metrics
    FROM (
        SELECT
            m.id,
            m.created_at,
            1 - (m.embedding <=> _same_goal.embedding) AS sim,
            pymem._token_overlap(m.content, _same_goal.content) AS overlap,
            ARRAY(
                SELECT unnest(pymem._goal_metrics(m.content)) INTERSECT SELECT unnest(v_metrics)
            ) AS shared
        FROM pymem.memories AS m
        WHERE m.user_id = _same_goal.user_id
            AND m.kind = 'goal'
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
    ) AS g
    WHERE cardinality(g.shared) > 0 AND g.overlap >= overlap_threshold
    ORDER BY g.overlap DESC, g.created_at DESC
    LIMIT 1;
END;
$$;
