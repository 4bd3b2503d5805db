-- What every function leans on: the store's settings row, the per-user
-- lock that serializes one user's writers, and the stronger of two
-- sources (a restatement never weakens a memory's or a fact's source).

-- Functions that read a table have a string body, not an SQL-standard one
-- (RETURN ...): Citus 14 fails to run those on a distributed store
-- (docs/scaling.md); tests/test_citus.py keeps it so.
CREATE OR REPLACE FUNCTION pymem._settings()
RETURNS pymem.settings
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT s.* FROM pymem.settings AS s
$$;

-- Each kind's default decay rate per day ({"fact": 0.01, ...}): queries over
-- a user's memories look their rate up here instead of joining pymem.kinds,
-- because on Citus a function run on a worker cannot join a distributed
-- table with a reference table in one statement (docs/scaling.md).
CREATE OR REPLACE FUNCTION pymem._kind_rates()
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT coalesce(jsonb_object_agg(k.kind, k.decay_rate), '{}') FROM pymem.kinds AS k
$$;

-- Serializes one user's writers: dedup reads then writes, and two
-- concurrent transactions must not both decide "inserted". Under
-- REPEATABLE READ the snapshot predates the lock, so the second writer
-- would not see the first one's row: refused. (SERIALIZABLE is safe:
-- one of two conflicting writers gets a serialization failure.)
CREATE OR REPLACE FUNCTION pymem._lock_user(user_id text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') = 'repeatable read' THEN
        RAISE EXCEPTION 'pymem writes need READ COMMITTED or SERIALIZABLE isolation, '
            'this transaction is REPEATABLE READ'
            USING ERRCODE = 'PM014',
                HINT = 'Its snapshot predates the per-user lock: two writers could both '
                    'store the same fact.';
    END IF;
    -- on Citus the lock is the worker's that holds the user's rows, where
    -- every write of the user runs (sql/96_citus.sql); a write Citus did not
    -- hand to that worker is refused rather than locked elsewhere
    IF current_setting('citus.propagate_set_commands', TRUE) IS NOT NULL THEN
        PERFORM pymem._citus_check_local(user_id);
        -- a shard move by logical replication (citus_move_shard_placement, the
        -- rebalancer) counts the target caught up once it reaches the source's
        -- WAL write position (pg_current_wal_lsn()): a commit whose WAL is not
        -- written yet (synchronous_commit = off: up to wal_writer_delay of
        -- them) stays behind in the old placement and is lost. So a write of a
        -- distributed store returns only once its WAL is written on its worker.
        IF current_setting('synchronous_commit') = 'off'
            AND pymem.store_shards() IS NOT NULL THEN
            PERFORM set_config('synchronous_commit', 'local', TRUE);
        END IF;
    END IF;
    -- a session under row-level security (pymem_app) acts for the user of
    -- pymem.user_id alone. Refused before the lock, not by the policy after it:
    -- a call for anyone else would hold that user's lock, and stall its writers,
    -- for the rest of the transaction, even one the policies let read nothing
    IF row_security_active('pymem.memories')
        AND user_id IS DISTINCT FROM current_setting('pymem.user_id', TRUE) THEN
        RAISE EXCEPTION 'this session acts for user %, not %',
            coalesce(quote_literal(nullif(current_setting('pymem.user_id', TRUE), '')), 'none'),
            quote_literal(user_id)
            USING ERRCODE = '42501',
                HINT = 'Under pymem_app, set pymem.user_id to the user first '
                    '(the Python wrapper does so for every call).';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('pymem.user:' || user_id, 0));
END;
$$;

CREATE OR REPLACE FUNCTION pymem._stronger_source(a text, b text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN 'confirmed' IN (a, b) THEN 'confirmed'
    WHEN 'stated' IN (a, b) THEN 'stated'
    ELSE coalesce(a, b)
END;
