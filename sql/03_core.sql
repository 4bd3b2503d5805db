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
    -- every write of the user runs (sql/97_citus.sql); a write Citus did not
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

-- What every store asks of its distribution (sql/97_citus.sql distributes):
-- whether it is distributed, the user a transaction acts for, and where a
-- distributed store's events and refusals go. On a plain store they answer
-- "not distributed" and change nothing.

-- Whether the Citus library is loaded in this server (its settings exist).
CREATE OR REPLACE FUNCTION pymem._citus_loaded()
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT current_setting('citus.propagate_set_commands', TRUE) IS NOT NULL
$$;

-- The number of shards pymem.memories is distributed in by Citus; NULL for
-- a store that is not distributed (no Citus, or a plain store on a Citus
-- node).
CREATE OR REPLACE FUNCTION pymem.store_shards()
RETURNS integer
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF NOT pymem._citus_loaded() OR to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN NULL;
    END IF;
    RETURN (
        SELECT nullif(count(*), 0)::integer
        FROM pg_catalog.pg_dist_shard AS s
        INNER JOIN pg_catalog.pg_dist_partition AS p ON p.logicalrelid = s.logicalrelid
        WHERE s.logicalrelid = to_regclass('pymem.memories') AND p.partmethod = 'h'
    );
END;
$$;

-- Events go to the outbox instead of NOTIFY (sql/15_events.sql).
CREATE OR REPLACE FUNCTION pymem._citus_outbox()
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT pymem._citus_loaded() AND pymem.store_shards() IS NOT NULL
$$;

-- Refuses a write of user_id on a node that does not hold the user's rows
-- (pymem._lock_user calls it on a Citus server). Every write of a user
-- takes the per-user lock on the worker that holds the user's shard, where
-- Citus runs the delegated call: a call Citus did not delegate (inside
-- another query, INSERT ... SELECT, a function of the app's) would lock on
-- the coordinator, where it serializes nothing, and its history reasons
-- would be set where the triggers do not fire.
CREATE OR REPLACE FUNCTION pymem._citus_check_local(user_id text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF pymem.store_shards() IS NULL OR user_id IS NULL THEN
        RETURN;
    END IF;
    IF NOT EXISTS (
        SELECT FROM pg_catalog.pg_dist_placement AS p
        WHERE p.shardid = get_shard_id_for_distribution_column('pymem.memories', user_id)
            AND p.groupid = (SELECT g.groupid FROM pg_catalog.pg_dist_local_group AS g)
    ) THEN
        RAISE EXCEPTION 'this write of user % ran on a node that does not hold the user''s '
            'rows: Citus did not hand the call to the user''s worker', quote_literal(user_id)
            USING ERRCODE = 'PM060',
                HINT = 'Call pymem''s functions alone in their statement, with constant '
                    'arguments (SELECT * FROM pymem.upsert_memory(...)), not inside another '
                    'query, INSERT ... SELECT or a function of your own.';
    END IF;
END;
$$;

-- Sets pymem.user_id (row-level security) for the rest of the transaction.
-- On Citus with SET LOCAL, which Citus repeats on every worker the
-- transaction uses (with citus.propagate_set_commands = 'local');
-- set_config() does not reach them, and the policies there would see no
-- user. No SET clause: one would undo the SET LOCAL when this returns.
CREATE OR REPLACE FUNCTION pymem._set_user(user_id text)
RETURNS text
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    IF pg_catalog.current_setting('citus.propagate_set_commands', TRUE) IS NULL THEN
        RETURN pg_catalog.set_config('pymem.user_id', coalesce(user_id, ''), TRUE);
    END IF;
    PERFORM pg_catalog.set_config('citus.propagate_set_commands', 'local', TRUE);
    EXECUTE pg_catalog.format('SET LOCAL pymem.user_id = %L', coalesce(user_id, ''));
    RETURN user_id;
END;
$$;

-- Refuses what a distributed store cannot do (PM060), naming it.
CREATE OR REPLACE FUNCTION pymem._citus_refuse(what text, hint text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION '% is not supported on a store distributed with Citus', what
        USING ERRCODE = 'PM060', HINT = hint;
END;
$$;
