-- One pass of recall's ranking for the plain question (sql/30_recall.sql): no
-- words to match, no wordings the user's memories absorbed, no values of a
-- topic and no open reviews to rank newer above older, no earlier values asked
-- for, not asked about before. Its statement is recall's with the parts those
-- need left out; the rows and the proof are the same (a test holds the two
-- statements equal). A new connection plans it in a fraction of recall's time,
-- and each call starts a plan of a few nodes instead of recall's hundreds: a
-- user with no memories 0.25 -> 0.12 ms, 1,000 memories 1.46x -> 1.17-1.19x the
-- recall of 9181830 (docs/history/benchmarks.md).
-- Each row is a memory once (its own text is its only wording), so the pool
-- needs no pass by id; proven is the pass's verdict, the rows follow it only
-- when it holds (a NULL id when nothing is shown).
CREATE OR REPLACE FUNCTION pymem._plain_recall_pass(
    user_id text,
    query_embedding vector,
    k integer,
    pool_limit integer,
    include_cold boolean,
    kinds text[],
    min_similarity double precision,
    at timestamptz,
    filter jsonb,
    created_after timestamptz,
    created_before timestamptz,
    sources text[],
    state_boost double precision,
    decay_floor double precision,
    person_lift double precision,
    named uuid[],
    asked_window tstzrange,
    time_boost double precision,
    rates jsonb
)
RETURNS TABLE (
    proven boolean,
    id uuid,
    strength double precision,
    final_score double precision,
    sim double precision,
    content text,
    kind text,
    importance double precision,
    tier text,
    pinned boolean,
    topic text,
    details jsonb,
    last_access_at timestamptz,
    valid_until timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
-- as recall: the pool's rows are read again by ctid, one TID lookup each
SET enable_hashjoin = off
SET enable_mergejoin = off
-- RETURN QUERY may run a parallel plan; recall's own statement, read through a cursor,
-- never does: a worker's start would cost more than a user's rows
SET max_parallel_workers_per_gather = 0
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH pool AS MATERIALIZED (
        -- the memories' own scan of recall's statement, its arm for a question without words
        SELECT
            h.ctid AS tid, h.id,
            pymem._ranked(
                pymem._relevance(
                    1 - (h.embedding <=> _plain_recall_pass.query_embedding), 0, 0,
                    h.kind = 'state', _plain_recall_pass.state_boost,
                    _plain_recall_pass.person_lift > 0 AND h.id = ANY(_plain_recall_pass.named),
                    _plain_recall_pass.person_lift,
                    h.created_at, _plain_recall_pass.asked_window, _plain_recall_pass.time_boost
                ),
                _plain_recall_pass.decay_floor, h.importance
            ) AS bound
        FROM pymem.memories AS h
        WHERE h.user_id = _plain_recall_pass.user_id
            AND h.consolidated_into IS NULL
            AND h.deleted_at IS NULL
            AND (_plain_recall_pass.include_cold OR h.tier = 'hot')
            AND pymem._recall_filter_holds(
                h.metadata, h.created_at, h.source,
                _plain_recall_pass.filter, _plain_recall_pass.created_after,
                _plain_recall_pass.created_before, _plain_recall_pass.sources
            )
            AND (_plain_recall_pass.kinds IS NULL OR h.kind = ANY(_plain_recall_pass.kinds))
            AND (
                _plain_recall_pass.min_similarity IS NULL
                OR 1 - (h.embedding <=> _plain_recall_pass.query_embedding)
                >= _plain_recall_pass.min_similarity
            )
        ORDER BY bound DESC
        LIMIT _plain_recall_pass.pool_limit + 1
    ),
    best AS (
        SELECT
            p.tid, p.id, p.strength, p.updated_at,
            pymem._ranked(p.rel, _plain_recall_pass.decay_floor, p.strength) AS final_score
        FROM (
            SELECT
                pool.tid, pool.id, m.updated_at,
                -- the relevance again from the bound, as recall's statement does
                coalesce(
                    pool.bound
                    / nullif(pymem._ranked(1, _plain_recall_pass.decay_floor, m.importance), 0),
                    0
                ) AS rel,
                pymem.decay_score(
                    m.importance,
                    coalesce(m.decay_rate, (_plain_recall_pass.rates ->> m.kind)::double precision),
                    m.last_access_at, _plain_recall_pass.at
                ) AS strength
            FROM pool
            INNER JOIN pymem.memories AS m
                ON m.user_id = _plain_recall_pass.user_id AND m.ctid = pool.tid
            WHERE m.valid_until IS NULL OR m.valid_until > _plain_recall_pass.at
        ) AS p
        ORDER BY final_score DESC, p.id
        LIMIT _plain_recall_pass.k
    ),
    verdict AS MATERIALIZED (
        SELECT pymem._pool_proves(
            _plain_recall_pass.pool_limit, p.n, p.low, _plain_recall_pass.k, b.n, b.kth,
            _plain_recall_pass.decay_floor
        ) AS proven
        FROM (SELECT count(*) AS n, min(x.bound) AS low FROM pool AS x) AS p,
            (SELECT count(*) AS n, min(x.final_score) AS kth FROM best AS x) AS b
    )
    SELECT
        v.proven, sc.id, sc.strength, sc.final_score,
        1 - (m.embedding <=> _plain_recall_pass.query_embedding),
        m.content, m.kind, m.importance, m.tier, m.pinned, m.topic, m.details,
        m.last_access_at, m.valid_until
    FROM verdict AS v
    LEFT JOIN (
        best AS sc
        INNER JOIN pymem.memories AS m
            ON m.user_id = _plain_recall_pass.user_id AND m.ctid = sc.tid
    ) ON v.proven
    ORDER BY sc.final_score DESC, sc.updated_at DESC, sc.id;
END;
$$;
