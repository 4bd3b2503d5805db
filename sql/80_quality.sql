-- Quality (DESIGN: "Quality", docs/sql-api.md "Quality"): the numbers a
-- team watches to know the store stays clean, for one user or the store.
--
-- Duplicate pairs are counted exactly, with no index and no sampling: two
-- live memories (not deleted, not folded into a consolidation) of one user
-- and one kind form a pair when they are the same text as the write path
-- reads it (pymem._same_text: the same fingerprint and markers) or their
-- cosine similarity is at least settings.dedup_threshold. Pairs never cross
-- users or kinds, so the cost is the sum over (user, kind) of n * (n - 1) / 2
-- vector comparisons: a user with 1,000 memories of one kind is 500k
-- comparisons (0.33 s measured here, 2,000 took 1.2 s); 100k users with 100 memories
-- each is 500M (minutes). Ask per user in hot paths; the whole store in a
-- nightly job.

CREATE OR REPLACE FUNCTION pymem.quality_report(user_id text DEFAULT NULL)
RETURNS TABLE (
    users bigint,
    live_memories bigint,
    duplicate_pairs bigint,
    duplicate_memories bigint,
    duplicate_rate double precision,
    pending_reviews bigint,
    pending_conflicts bigint,
    contradiction_rate double precision,
    cold_memories bigint,
    cold_share double precision,
    consolidated_memories bigint,
    consolidated_share double precision
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_user text := quality_report.user_id;
    v_max_distance double precision := 1 - (pymem._settings()).dedup_threshold;
    v_contradiction_rate double precision;
BEGIN
    IF v_user IS NOT NULL THEN
        PERFORM pymem._check_user(v_user);
    END IF;
    -- before the report's query, not inside it: on Citus a query of one user runs
    -- on that user's shard, where contradiction_rate's own query cannot start
    -- (XX000 "cannot execute a distributed query from a query on a shard")
    v_contradiction_rate := pymem.contradiction_rate(v_user);
    RETURN QUERY
    WITH live AS (
        SELECT m.user_id, m.id, m.kind, m.content, m.fingerprint, m.embedding, m.tier, m.created_at
        FROM pymem.memories AS m
        WHERE (v_user IS NULL OR m.user_id = v_user)
            AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
    ),
    pairs AS (
        -- b is the later memory of the pair (creation time, then id)
        SELECT a.user_id, b.id AS later_id
        FROM live AS a
        INNER JOIN live AS b
            ON a.user_id = b.user_id AND a.kind = b.kind
                AND (a.created_at, a.id) < (b.created_at, b.id)
        -- the same text as the write path reads it (its markers only when the
        -- fingerprints agree), or a close vector
        WHERE (a.fingerprint = b.fingerprint AND pymem._same_text(
            a.content, b.content, pymem._fact_markers(a.content) = pymem._fact_markers(b.content)
        ))
            OR (a.embedding <=> b.embedding) <= v_max_distance
    ),
    counts AS (
        SELECT
            count(DISTINCT l.user_id) AS users,
            count(*) AS live,
            count(*) FILTER (WHERE l.tier = 'cold') AS cold
        FROM live AS l
    ),
    dup AS (
        SELECT count(*) AS pairs, count(DISTINCT (p.user_id, p.later_id)) AS memories
        FROM pairs AS p
    ),
    folded AS (
        SELECT count(*) AS n
        FROM pymem.memories AS m
        WHERE (v_user IS NULL OR m.user_id = v_user)
            AND m.deleted_at IS NULL AND m.consolidated_into IS NOT NULL
    ),
    open_reviews AS (
        SELECT
            count(*) FILTER (WHERE r.cause = 'related') AS related,
            count(*) FILTER (WHERE r.cause <> 'related') AS conflicts
        FROM pymem.reviews AS r
        WHERE (v_user IS NULL OR r.user_id = v_user) AND r.resolved_at IS NULL
    )
    SELECT
        c.users,
        c.live,
        d.pairs,
        d.memories,
        coalesce(d.memories::double precision / nullif(c.live, 0), 0),
        o.related,
        o.conflicts,
        v_contradiction_rate,
        c.cold,
        coalesce(c.cold::double precision / nullif(c.live, 0), 0),
        f.n,
        coalesce(f.n::double precision / nullif(c.live + f.n, 0), 0)
    FROM counts AS c, dup AS d, folded AS f, open_reviews AS o;
END;
$$;
