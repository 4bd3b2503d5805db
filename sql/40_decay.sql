-- Maintenance: move faded memories to the cold tier. Cold memories are
-- kept, found with recall(include_cold => true), and come back hot when
-- touched or mentioned again. Memories past their valid_until (states,
-- by default) go cold too. Pinned memories never go cold.

-- Whether a memory is due to go cold at `at`. Inlinable (no SET clause;
-- it runs with the search_path of the pinned function calling it). Takes
-- the columns, not the row: a row read from one leaf partition is of
-- that leaf's type, not pymem.memories.
CREATE OR REPLACE FUNCTION pymem._decay_due(
    pinned boolean,
    valid_until timestamptz,
    importance double precision,
    decay_rate double precision,
    last_access_at timestamptz,
    at timestamptz,
    cold_below double precision
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN NOT pinned AND (
    valid_until <= at
    OR pymem.decay_score(importance, decay_rate, last_access_at, at) < cold_below
) IS TRUE;

-- One batch: the hot memories in heap blocks [from_block, to_block) of
-- one heap (the table, or one leaf partition of it: a TID range scan) or,
-- with user_id, that user's (the btree). Rows locked by a writer are
-- skipped, never waited for: a writer touching a memory is about to
-- revive it anyway; rows a writer changed meanwhile are re-checked on
-- their newest version. Rows are locked and updated by ctid (no second
-- index lookup). Only tier changes, which no index covers, so the
-- updates are HOT.
CREATE OR REPLACE FUNCTION pymem._decay_batch(
    at timestamptz,
    cold_below double precision,
    user_id text,
    heap regclass,
    from_block bigint,
    to_block bigint,
    OUT scanned bigint,
    OUT cooled bigint
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    EXECUTE format(
        $query$
        WITH slice AS MATERIALIZED (
            SELECT
                m.ctid AS tid,
                pymem._decay_due(
                    m.pinned, m.valid_until, m.importance,
                    coalesce(m.decay_rate, ($6 ->> m.kind)::double precision),
                    m.last_access_at, $1, $2
                ) AS due
            FROM %1$s AS m
            -- live memories only: a deleted one or a hidden fragment is in no
            -- tier anyone reads (get_memories, recall, quality_report skip them)
            WHERE m.tier = 'hot' AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
                AND %2$s
        ),
        locked AS (
            SELECT m.ctid AS tid
            FROM %1$s AS m
            -- a ctid names a row only within one heap: on a partitioned
            -- store the user's filter keeps the lookup in that user's leaf
            WHERE m.ctid = ANY(ARRAY(SELECT s.tid FROM slice AS s WHERE s.due))
                AND %2$s
                AND m.tier = 'hot' AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
                AND pymem._decay_due(
                    m.pinned, m.valid_until, m.importance,
                    coalesce(m.decay_rate, ($6 ->> m.kind)::double precision),
                    m.last_access_at, $1, $2
                )
            FOR UPDATE OF m SKIP LOCKED
        ),
        moved AS (
            UPDATE %1$s AS m
            SET tier = 'cold'
            FROM locked AS l
            WHERE m.ctid = l.tid AND %2$s
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM slice), (SELECT count(*) FROM moved)
        $query$,
        coalesce(heap, 'pymem.memories'::regclass),
        CASE
            WHEN _decay_batch.user_id IS NULL THEN 'm.ctid >= $3 AND m.ctid < $4'
            ELSE 'm.user_id = $5'
        END
    )
    INTO scanned, cooled
    USING at, cold_below, format('(%s,0)', from_block)::tid,
        format('(%s,0)', to_block)::tid, user_id, pymem._kind_rates();
END;
$$;

-- The batches of a sweep over every heap of pymem.memories: the table,
-- or each leaf of a partitioned one, in ranges of batch_blocks blocks.
CREATE OR REPLACE FUNCTION pymem._heap_batches(batch_blocks integer)
RETURNS TABLE (heap regclass, from_block bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT h.heap, f.from_block
    FROM (
        SELECT t.relid AS heap FROM pg_partition_tree(to_regclass('pymem.memories')) AS t
        WHERE t.isleaf
        UNION ALL
        SELECT to_regclass('pymem.memories')
        WHERE NOT EXISTS (
            SELECT FROM pg_inherits AS i WHERE i.inhparent = to_regclass('pymem.memories')
        )
    ) AS h
    CROSS JOIN LATERAL generate_series(
        0::bigint,
        pg_relation_size(h.heap) / current_setting('block_size')::bigint - 1,
        batch_blocks
    ) AS f (from_block)
    ORDER BY h.heap::text, f.from_block
$$;

-- What a decay run reports as cold_total: the live memories (not deleted, not a
-- hidden fragment) of the cold tier, of every user or one, as quality_report
-- counts them.
CREATE OR REPLACE FUNCTION pymem._cold_total(user_id text)
RETURNS bigint
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT count(*) FROM pymem.memories AS m
    WHERE m.tier = 'cold' AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
        AND (_cold_total.user_id IS NULL OR m.user_id = _cold_total.user_id)
$$;

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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_batch record;
BEGIN
    PERFORM pymem._check_decay_args(at, cold_below, user_id, batch_blocks);
    -- distributed with Citus: each shard on its worker (sql/39_shard_decay.sql)
    IF pymem.store_shards() IS NOT NULL THEN
        RETURN QUERY SELECT * FROM pymem._citus_apply_decay(at, cold_below, user_id, batch_blocks);
        RETURN;
    END IF;
    scanned := 0;
    cooled := 0;
    IF user_id IS NOT NULL THEN
        SELECT * INTO v_batch FROM pymem._decay_batch(at, cold_below, user_id, NULL, 0, 0);
        scanned := v_batch.scanned;
        cooled := v_batch.cooled;
    ELSE
        SELECT coalesce(sum(b.scanned), 0), coalesce(sum(b.cooled), 0) INTO scanned, cooled
        FROM pymem._heap_batches(batch_blocks) AS h
        CROSS JOIN LATERAL pymem._decay_batch(
            at, cold_below, NULL, h.heap, h.from_block, h.from_block + batch_blocks
        ) AS b;
    END IF;
    cold_total := pymem._cold_total(apply_decay.user_id);
    RETURN NEXT;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_decay_args(
    at timestamptz, cold_below double precision, user_id text, batch_blocks integer
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF at IS NULL THEN
        RAISE EXCEPTION 'at must be a timestamp, got NULL' USING ERRCODE = 'PM006';
    END IF;
    -- at infinity every memory has decayed: one call would cool the whole store
    IF NOT isfinite(at) THEN
        RAISE EXCEPTION 'at must be a finite timestamp, got %', at USING ERRCODE = 'PM006';
    END IF;
    IF cold_below IS NULL THEN
        RAISE EXCEPTION 'cold_below must be a number between 0 and 1, got NULL'
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_fraction(cold_below, 'cold_below');
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
    v_slice record;
    v_batch record;
BEGIN
    PERFORM pymem._check_decay_args(at, cold_below, NULL, batch_blocks);
    scanned := 0;
    cooled := 0;
    -- distributed with Citus: each shard on its worker, batch by batch
    -- (sql/39_shard_decay.sql), a commit after each batch as below
    IF pymem.store_shards() IS NOT NULL THEN
        FOR v_slice IN SELECT * FROM pymem._citus_batches(batch_blocks) LOOP
            SELECT * INTO v_batch
            FROM pymem._citus_shard_decay(
                v_slice.shard_key, at, cold_below, NULL, v_slice.from_block,
                v_slice.from_block + batch_blocks
            );
            scanned := scanned + v_batch.scanned;
            cooled := cooled + v_batch.cooled;
            COMMIT;
        END LOOP;
        cold_total := pymem._cold_total(NULL);
        RETURN;
    END IF;
    -- the list of batches is read once: a leaf growing meanwhile keeps its
    -- new blocks for the next run, as a growing table always did
    FOR v_slice IN SELECT * FROM pymem._heap_batches(batch_blocks) LOOP
        SELECT * INTO v_batch
        FROM pymem._decay_batch(
            at, cold_below, NULL, v_slice.heap, v_slice.from_block,
            v_slice.from_block + batch_blocks
        );
        scanned := scanned + v_batch.scanned;
        cooled := cooled + v_batch.cooled;
        COMMIT;
    END LOOP;
    cold_total := pymem._cold_total(NULL);
END;
$$;
