-- Maintenance: move faded memories to the cold tier. Cold memories are
-- kept, found with recall(include_cold => true), and come back hot when
-- touched or mentioned again. Memories past their valid_until (states,
-- by default) go cold too. Pinned memories never go cold.

-- Whether a memory is due to go cold at `at`. Inlinable (no SET clause;
-- it runs with the search_path of the pinned function calling it).
CREATE OR REPLACE FUNCTION pymem._decay_due(
    m pymem.memories,
    kind_decay_rate double precision,
    at timestamptz,
    cold_below double precision
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NOT m.pinned AND (
    m.valid_until <= at
    OR pymem.decay_score(
        m.importance, coalesce(m.decay_rate, kind_decay_rate), m.last_access_at, at
    ) < cold_below
) IS TRUE;

-- One batch: the hot memories in heap blocks [from_block, to_block) (a
-- TID range scan) or, with user_id, that user's (the btree). Rows locked
-- by a writer are skipped, never waited for: a writer touching a memory
-- is about to revive it anyway; rows a writer changed meanwhile are
-- re-checked on their newest version. Rows are locked and updated by
-- ctid (no second index lookup). Only tier changes, which no index
-- covers, so the updates are HOT.
CREATE OR REPLACE FUNCTION pymem._decay_batch(
    at timestamptz,
    cold_below double precision,
    user_id text,
    from_block bigint,
    to_block bigint,
    OUT scanned bigint,
    OUT cooled bigint
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    EXECUTE format(
        $query$
        WITH slice AS MATERIALIZED (
            SELECT m.ctid AS tid, pymem._decay_due(m, kd.decay_rate, $1, $2) AS due
            FROM pymem.memories AS m
            INNER JOIN pymem.kinds AS kd ON kd.kind = m.kind
            WHERE m.tier = 'hot' AND %s
        ),
        locked AS (
            SELECT m.ctid AS tid
            FROM pymem.memories AS m
            INNER JOIN pymem.kinds AS kd ON kd.kind = m.kind
            WHERE m.ctid = ANY(ARRAY(SELECT s.tid FROM slice AS s WHERE s.due))
                AND m.tier = 'hot'
                AND pymem._decay_due(m, kd.decay_rate, $1, $2)
            FOR UPDATE OF m SKIP LOCKED
        ),
        moved AS (
            UPDATE pymem.memories AS m
            SET tier = 'cold'
            FROM locked AS l
            WHERE m.ctid = l.tid
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM slice), (SELECT count(*) FROM moved)
        $query$,
        CASE
            WHEN _decay_batch.user_id IS NULL THEN 'm.ctid >= $3 AND m.ctid < $4'
            ELSE 'm.user_id = $5'
        END
    )
    INTO scanned, cooled
    USING at, cold_below, format('(%s,0)', from_block)::tid,
        format('(%s,0)', to_block)::tid, user_id;
END;
$$;

-- Heap blocks of the memories table: the range the decay batches cover.
CREATE OR REPLACE FUNCTION pymem._heap_blocks()
RETURNS bigint
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public
RETURN pg_relation_size('pymem.memories') / current_setting('block_size')::bigint;

-- All users (or one), in one call and one transaction, batch by batch.
-- For a cron job on a big table prefer CALL pymem.run_decay(), which
-- commits after each batch so no lock outlives a batch.
CREATE OR REPLACE FUNCTION pymem.apply_decay(
    at timestamptz DEFAULT now(),
    cold_below double precision DEFAULT 0.05,
    user_id text DEFAULT NULL,
    batch_blocks integer DEFAULT 4096
)
RETURNS TABLE (scanned bigint, cooled bigint, cold_total bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_batch record;
BEGIN
    PERFORM pymem._check_decay_args(at, cold_below, user_id, batch_blocks);
    scanned := 0;
    cooled := 0;
    IF user_id IS NOT NULL THEN
        SELECT * INTO v_batch FROM pymem._decay_batch(at, cold_below, user_id, 0, 0);
        scanned := v_batch.scanned;
        cooled := v_batch.cooled;
    ELSE
        SELECT coalesce(sum(b.scanned), 0), coalesce(sum(b.cooled), 0) INTO scanned, cooled
        FROM generate_series(0, pymem._heap_blocks() - 1, batch_blocks) AS f (from_block)
        CROSS JOIN LATERAL pymem._decay_batch(
            at, cold_below, NULL, f.from_block, f.from_block + batch_blocks
        ) AS b;
    END IF;
    cold_total := (
        SELECT count(*) FROM pymem.memories AS m
        WHERE m.tier = 'cold' AND (apply_decay.user_id IS NULL OR m.user_id = apply_decay.user_id)
    );
    RETURN NEXT;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_decay_args(
    at timestamptz, cold_below double precision, user_id text, batch_blocks integer
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    IF at IS NULL THEN
        RAISE EXCEPTION 'at must be a timestamp, got NULL' USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_fraction(coalesce(cold_below, 'NaN'), 'cold_below');
    IF user_id IS NOT NULL THEN
        PERFORM pymem._check_user(user_id);
    END IF;
    IF batch_blocks IS NULL OR batch_blocks < 1 THEN
        RAISE EXCEPTION 'batch_blocks must be at least 1, got %', batch_blocks
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

-- The cron-friendly form: commits after every batch. Must be CALLed
-- outside an explicit transaction block.
CREATE OR REPLACE PROCEDURE pymem.run_decay(
    INOUT scanned bigint DEFAULT 0,
    INOUT cooled bigint DEFAULT 0,
    INOUT cold_total bigint DEFAULT 0,
    at timestamptz DEFAULT now(),
    cold_below double precision DEFAULT 0.05,
    batch_blocks integer DEFAULT 4096
)
LANGUAGE plpgsql
AS $$
DECLARE
    v_blocks bigint;
    v_from bigint := 0;
    v_batch record;
BEGIN
    PERFORM pymem._check_decay_args(at, cold_below, NULL, batch_blocks);
    scanned := 0;
    cooled := 0;
    v_blocks := pymem._heap_blocks();
    WHILE v_from < v_blocks LOOP
        SELECT * INTO v_batch
        FROM pymem._decay_batch(at, cold_below, NULL, v_from, v_from + batch_blocks);
        scanned := scanned + v_batch.scanned;
        cooled := cooled + v_batch.cooled;
        v_from := v_from + batch_blocks;
        COMMIT;
    END LOOP;
    cold_total := (SELECT count(*) FROM pymem.memories AS m WHERE m.tier = 'cold');
END;
$$;
