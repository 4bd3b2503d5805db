-- The earlier values recall returns with include_history (sql/30_recall.sql).
--
-- A supersede (by a write or a review) keeps the old value in history, not as
-- a way to find the current one. A question about the past ("where did she
-- live before she moved?") needs that value: a store that settled its
-- reviews has retired it, and only a store that never cleaned still answers.
-- With include_history, recall also ranks the earlier values of the user's
-- live memories, each a row of its own (superseded_at says when it stopped
-- being the value), scored as the memory's own text would be at the
-- memory's strength, and never above its memory's current value: the
-- current value takes the score of its earlier one when its own is lower,
-- and wins the tie (the rule of two live values of one thing).

-- Whether a version's reason says a newer value replaced its text: a
-- supersede by a write (sql/22_upsert.sql, 'superseded: <rule>, ...') or by a
-- review (sql/25_reviews.sql, 'review: superseded by <id>...'). Not an app's
-- own edit (a correction is no earlier value), an undo, nor a profile
-- rewritten: only what the store itself took as a new value.
CREATE OR REPLACE FUNCTION pymem._replaced_by_a_newer_value(reason text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN reason LIKE 'superseded: %' OR reason LIKE 'review: superseded by %';

-- The user's earlier values: the texts a live memory held before
-- (memory_versions whose content is not the memory's current one, replaced
-- by a newer value, a vector kept), one row each, the k best by score. at is the clock of decay and
-- expiry, as for recall: the contents are today's (a store has no copy of
-- itself at an earlier instant), so a value replaced after at is an earlier
-- value too (and on Citus a version's time is its worker's clock).
-- tid is the memory's row, vtid the version's; the memory's filters, kinds,
-- tier and validity hold as for its current value, and so does the lift of
-- the memories in named (those of the people the question names, recall's
-- person_lift): the earlier value is still about them. No state lift and no
-- asked span: a state's earlier value is not a state that holds, and the
-- time it was said is not stored. Exact: every version of the user is read,
-- which recall does only for this option.
-- (the signature before the named people, issue 34)
DROP FUNCTION IF EXISTS pymem._earlier_values(
    text, vector, integer, text[], double precision[], double precision, double precision,
    jsonb, timestamptz, boolean, text[], double precision, jsonb, timestamptz, timestamptz,
    text[]
);
CREATE OR REPLACE FUNCTION pymem._earlier_values(
    user_id text,
    query_embedding vector,
    k integer,
    tokens text[],
    token_weights double precision[],
    lexical_weight double precision,
    decay_floor double precision,
    rates jsonb,
    at timestamptz,
    include_cold boolean,
    kinds text[],
    min_similarity double precision,
    filter jsonb,
    created_after timestamptz,
    created_before timestamptz,
    sources text[],
    named uuid[],
    person_lift double precision
)
RETURNS TABLE (
    tid tid,
    id uuid,
    wtid tid,
    strength double precision,
    final_score double precision,
    topic text,
    updated_at timestamptz,
    vtid tid
)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT e.tid, e.id, NULL::tid, e.strength,
        pymem._ranked(
            pymem._relevance(
                e.similarity, lexical_weight,
                CASE WHEN cardinality(tokens) > 0
                    THEN pymem._lexical_match(tokens, token_weights, e.searchable)
                    ELSE 0 END,
                FALSE, 0, e.id = ANY(named), person_lift, NULL, NULL, 0
            ),
            decay_floor, e.strength
        ) AS final_score,
        e.topic, e.changed_at, e.vtid
    FROM (
        -- the latest row of each text: when it stopped being the value
        SELECT DISTINCT ON (v.memory_id, v.content)
            h.ctid AS tid, h.id, v.ctid AS vtid, h.topic, v.changed_at,
            1 - (v.embedding <=> query_embedding) AS similarity,
            pymem._searchable(v.content, h.topic) AS searchable,
            pymem.decay_score(
                h.importance, coalesce(h.decay_rate, (rates ->> h.kind)::double precision),
                h.last_access_at, at
            ) AS strength
        FROM pymem.memory_versions AS v
        INNER JOIN pymem.memories AS h
            ON h.user_id = v.user_id AND h.id = v.memory_id
        WHERE v.user_id = _earlier_values.user_id
            AND v.content <> h.content
            AND pymem._replaced_by_a_newer_value(v.reason)
            AND v.embedding IS NOT NULL
            AND h.consolidated_into IS NULL
            AND h.deleted_at IS NULL
            AND (h.valid_until IS NULL OR h.valid_until > at)
            AND (include_cold OR h.tier = 'hot')
            AND (kinds IS NULL OR h.kind = ANY(kinds))
            AND pymem._recall_filter_holds(
                h.metadata, h.created_at, h.source,
                filter, created_after, created_before, sources
            )
            AND (min_similarity IS NULL OR 1 - (v.embedding <=> query_embedding) >= min_similarity)
        ORDER BY v.memory_id, v.content, v.changed_at DESC
    ) AS e
    ORDER BY final_score DESC, e.changed_at DESC, e.vtid
    LIMIT k;
$$;
