-- Decay on a store distributed with Citus: one batch per shard, run on the
-- shard's worker (sql/40_decay.sql calls these; a plain store never does).

-- One distribution value in each shard of pymem.memories: what a call
-- that works shard by shard (decay) gives Citus to find the shard's worker.
CREATE OR REPLACE FUNCTION pymem._citus_shard_keys()
RETURNS TABLE (shard_id bigint, shard_key text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_left bigint [] := ARRAY(
        SELECT s.shardid FROM pg_catalog.pg_dist_shard AS s
        WHERE s.logicalrelid = 'pymem.memories'::regclass
        ORDER BY s.shardid
    );
    v_i bigint := 0;
    v_key text;
    v_shard bigint;
BEGIN
    WHILE cardinality(v_left) > 0 LOOP
        v_key := 'pymem.shard.' || v_i;
        v_shard := get_shard_id_for_distribution_column('pymem.memories', v_key);
        IF v_shard = ANY(v_left) THEN
            shard_id := v_shard;
            shard_key := v_key;
            RETURN NEXT;
            v_left := array_remove(v_left, v_shard);
        END IF;
        v_i := v_i + 1;
    END LOOP;
END;
$$;

-- The batches of a decay sweep over a distributed store: each shard of
-- pymem.memories (by a distribution value in it) in ranges of batch_blocks
-- blocks, as pymem._heap_batches lists a plain table's. The sizes are read
-- from the workers once: a shard growing meanwhile keeps its new blocks for
-- the next run, as a growing table does.
CREATE OR REPLACE FUNCTION pymem._citus_batches(batch_blocks integer)
RETURNS TABLE (shard_key text, from_block bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT k.shard_key, f.from_block
    FROM pymem._citus_shard_keys() AS k
    INNER JOIN citus_shard_sizes() AS s ON s.shard_id = k.shard_id
    CROSS JOIN LATERAL generate_series(
        0::bigint, s.size / current_setting('block_size')::bigint - 1, batch_blocks
    ) AS f (from_block)
    ORDER BY k.shard_id, f.from_block;
END;
$$;

-- On the worker of shard_key: one decay batch over that shard's heap
-- (blocks [from_block, to_block)), or with user_id that user's memories.
CREATE OR REPLACE FUNCTION pymem._citus_shard_decay(
    shard_key text,
    at timestamptz,
    cold_below double precision,
    user_id text,
    from_block bigint,
    to_block bigint,
    OUT scanned bigint,
    OUT cooled bigint
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_shard bigint := get_shard_id_for_distribution_column('pymem.memories', shard_key);
BEGIN
    IF NOT EXISTS (
        SELECT FROM pg_catalog.pg_dist_placement AS p
        WHERE p.shardid = v_shard
            AND p.groupid = (SELECT g.groupid FROM pg_catalog.pg_dist_local_group AS g)
    ) THEN
        RAISE EXCEPTION 'decay of shard % ran on a node that does not hold it', v_shard
            USING ERRCODE = 'PM060',
                HINT = 'Run apply_decay or run_decay on the coordinator.';
    END IF;
    SELECT b.scanned, b.cooled INTO scanned, cooled
    FROM pymem._decay_batch(
        at, cold_below, user_id, shard_name('pymem.memories'::regclass, v_shard)::regclass,
        from_block, to_block
    ) AS b;
END;
$$;

-- apply_decay on a distributed store: the user's memories on their worker,
-- or each shard on its worker batch by batch, in the caller's transaction
-- (run_decay commits after each batch).
CREATE OR REPLACE FUNCTION pymem._citus_apply_decay(
    at timestamptz, cold_below double precision, user_id text, batch_blocks integer
)
RETURNS TABLE (scanned bigint, cooled bigint, cold_total bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_slice record;
    v_batch record;
BEGIN
    IF user_id IS NOT NULL THEN
        SELECT b.scanned, b.cooled INTO scanned, cooled
        FROM pymem._citus_shard_decay(user_id, at, cold_below, user_id, 0, 0) AS b;
    ELSE
        -- one statement a batch, a call alone in it: what Citus hands to the
        -- shard's worker (a call joined to the list of batches would run here)
        scanned := 0;
        cooled := 0;
        FOR v_slice IN SELECT * FROM pymem._citus_batches(batch_blocks) LOOP
            SELECT * INTO v_batch
            FROM pymem._citus_shard_decay(
                v_slice.shard_key, at, cold_below, NULL, v_slice.from_block,
                v_slice.from_block + batch_blocks
            );
            scanned := scanned + v_batch.scanned;
            cooled := cooled + v_batch.cooled;
        END LOOP;
    END IF;
    cold_total := pymem._cold_total(_citus_apply_decay.user_id);
    RETURN NEXT;
END;
$$;
