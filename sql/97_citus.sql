-- Citus: a store distributed by user_id over a Citus cluster
-- (docs/scaling.md). pymem.distribute_by_user() (`pymem migrate --citus`)
-- makes every table of users' rows a distributed table by user_id, all
-- co-located with pymem.memories, and the shared configuration tables
-- reference tables (a copy on every node). Each public function that takes
-- a user first runs on the worker that holds that user's shard: its body
-- is copied to schema pymem_citus, distributed by that user argument, and
-- the public function becomes a small wrapper that checks the user and
-- hands the call to Citus. Every later `pymem migrate` re-creates the
-- functions from sql/ and calls distribute_by_user() again in the same
-- transaction, so the copies always hold the bodies of this release.
--
-- What Citus cannot run is refused with PM060 naming it; a server without
-- Citus, or a node that is not the coordinator, refuses the conversion
-- with PM061. On a server without Citus every function here answers
-- "not distributed" and changes nothing.

-- The checks of distribute_by_user: Citus installed, this node the
-- coordinator, workers added, the store not hash-partitioned.
CREATE OR REPLACE FUNCTION pymem._citus_check_cluster()
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF NOT pymem._citus_loaded()
        OR NOT EXISTS (SELECT FROM pg_catalog.pg_extension AS e WHERE e.extname = 'citus') THEN
        RAISE EXCEPTION 'the citus extension is not installed in this database'
            USING ERRCODE = 'PM061',
                HINT = 'Load citus (shared_preload_libraries), CREATE EXTENSION citus on '
                    'every node, and add the workers (citus_add_node) on the coordinator.';
    END IF;
    IF NOT citus_is_coordinator() THEN
        RAISE EXCEPTION 'this node is not the Citus coordinator'
            USING ERRCODE = 'PM061', HINT = 'Run it on the coordinator.';
    END IF;
    IF NOT EXISTS (
        SELECT FROM pg_catalog.pg_dist_node AS n
        WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0
    ) THEN
        RAISE EXCEPTION 'the Citus cluster has no worker nodes'
            USING ERRCODE = 'PM061',
                HINT = 'Add them on the coordinator: SELECT citus_add_node(host, port).';
    END IF;
    IF pymem.store_partitions() IS NOT NULL THEN
        PERFORM pymem._citus_refuse(
            'a store hash-partitioned by user_id',
            'Citus shards by user_id itself: distribute a plain store (a dump of this one '
            'reloaded into a new store made by pymem migrate --citus).'
        );
    END IF;
END;
$$;

-- The tables of users' rows (a user_id column) and the shared ones.
-- PL/pgSQL (its query is planned when it runs): Citus's catalog exists only
-- where Citus is installed.
CREATE OR REPLACE FUNCTION pymem._citus_tables()
RETURNS TABLE (rel regclass, of_users boolean, citus_type text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT
        c.oid::regclass,
        EXISTS (
            SELECT FROM pg_attribute AS a
            WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped
        ),
        (
            SELECT CASE p.partmethod WHEN 'h' THEN 'distributed' WHEN 'n' THEN
                CASE WHEN p.repmodel = 't' THEN 'reference' ELSE 'local' END
            END
            FROM pg_catalog.pg_dist_partition AS p WHERE p.logicalrelid = c.oid
        )
    FROM pg_class AS c
    WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')
        AND NOT c.relispartition
    ORDER BY c.relname;
END;
$$;

-- The events of a distributed store wait here until relay_events() sends
-- them on the coordinator (sql/15_events.sql). A table of users' rows
-- like the others, made by the conversion: a store that is not
-- distributed has no use for it.
CREATE OR REPLACE FUNCTION pymem._citus_create_outbox()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF to_regclass('pymem.event_outbox') IS NOT NULL THEN
        RETURN;
    END IF;
    CREATE TABLE pymem.event_outbox (
        user_id text NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        event text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (user_id, id)
    );
    ALTER TABLE pymem.event_outbox ENABLE ROW LEVEL SECURITY;
    CREATE POLICY event_outbox_of_current_user ON pymem.event_outbox
    FOR ALL TO pymem_app
    USING (user_id = current_setting('pymem.user_id', TRUE))
    WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));
    GRANT INSERT ON pymem.event_outbox TO pymem_app;
END;
$$;

-- Makes the tables distributed or reference tables; returns what it changed.
CREATE OR REPLACE FUNCTION pymem._citus_distribute_tables()
RETURNS TABLE (object_name text, object_type text, distribution text, converted boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_table record;
    v_done regclass [] := '{}';
    v_next regclass;
    v_triggers jsonb;
BEGIN
    PERFORM pymem._citus_create_outbox();
    -- The rows a table holds are copied into its shards, whose triggers
    -- would take each row for a new write (and write tables not distributed
    -- yet): they are off for the copy and back as they were after it.
    v_triggers := coalesce((
        SELECT jsonb_agg(jsonb_build_object(
            'rel', g.tgrelid::regclass::text, 'name', g.tgname, 'state', g.tgenabled
        ))
        FROM pg_trigger AS g
        INNER JOIN pymem._citus_tables() AS t ON t.rel = g.tgrelid
        WHERE NOT g.tgisinternal AND g.tgenabled <> 'D' AND t.citus_type IS NULL
    ), '[]');
    FOR v_table IN SELECT * FROM jsonb_to_recordset(v_triggers) AS x (rel text, name text) LOOP
        EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', v_table.rel, v_table.name);
    END LOOP;
    -- the shared configuration first: users' tables have keys to them
    FOR v_table IN
        SELECT t.rel FROM pymem._citus_tables() AS t
        WHERE NOT t.of_users AND t.citus_type IS DISTINCT FROM 'reference'
    LOOP
        IF v_table.rel IS NOT NULL THEN
            PERFORM create_reference_table(v_table.rel);
            v_done := v_done || v_table.rel;
            object_name := v_table.rel::text;
            object_type := 'table';
            distribution := 'reference';
            converted := TRUE;
            RETURN NEXT;
        END IF;
    END LOOP;
    -- memories anchors the co-location group; the others follow it, each
    -- after the tables its foreign keys name
    LOOP
        SELECT t.rel INTO v_next
        FROM pymem._citus_tables() AS t
        WHERE t.of_users AND t.citus_type IS DISTINCT FROM 'distributed'
            AND (
                t.rel = 'pymem.memories'::regclass
                OR (SELECT x.citus_type FROM pymem._citus_tables() AS x
                    WHERE x.rel = 'pymem.memories'::regclass) = 'distributed'
            )
            AND NOT EXISTS (
                SELECT FROM pg_constraint AS k
                INNER JOIN pymem._citus_tables() AS r ON r.rel = k.confrelid
                WHERE k.conrelid = t.rel AND k.contype = 'f' AND k.confrelid <> t.rel
                    AND r.of_users AND r.citus_type IS DISTINCT FROM 'distributed'
            )
        ORDER BY t.rel <> 'pymem.memories'::regclass, t.rel::text
        LIMIT 1;
        EXIT WHEN v_next IS NULL;
        IF v_next = 'pymem.memories'::regclass THEN
            PERFORM create_distributed_table(v_next, 'user_id');
        ELSE
            PERFORM create_distributed_table(v_next, 'user_id', colocate_with => 'pymem.memories');
        END IF;
        v_done := v_done || v_next;
        object_name := v_next::text;
        object_type := 'table';
        distribution := 'distributed by user_id';
        converted := TRUE;
        RETURN NEXT;
    END LOOP;
    IF EXISTS (
        SELECT FROM pymem._citus_tables() AS t
        WHERE t.citus_type IS NULL OR t.citus_type = 'local'
            OR (t.of_users AND t.citus_type <> 'distributed')
    ) THEN
        RAISE EXCEPTION 'could not distribute %', (
            SELECT string_agg(t.rel::text, ', ') FROM pymem._citus_tables() AS t
            WHERE t.citus_type IS NULL OR t.citus_type = 'local'
                OR (t.of_users AND t.citus_type <> 'distributed')
        )
            USING ERRCODE = 'PM060',
                HINT = 'A table of users'' rows needs user_id in every key and foreign '
                    'keys only to tables of users'' rows or shared tables.';
    END IF;
    -- the rows copied into the shards stay on disk in the coordinator's
    -- tables until they are truncated
    FOREACH v_next IN ARRAY v_done LOOP
        PERFORM truncate_local_data_after_distributing_table(v_next);
    END LOOP;
    FOR v_table IN
        SELECT * FROM jsonb_to_recordset(v_triggers) AS x (rel text, name text, state text)
    LOOP
        EXECUTE format(
            'ALTER TABLE %s ENABLE %s TRIGGER %I', v_table.rel,
            CASE v_table.state WHEN 'A' THEN 'ALWAYS' WHEN 'R' THEN 'REPLICA' ELSE '' END,
            v_table.name
        );
    END LOOP;
END;
$$;

-- pymem's own types (composite, enum, domain) and the extensions it uses
-- (vector, pg_trgm) on every node, before the functions that name them: a
-- function made on a worker whose body names a type the worker lacks is
-- refused there, and one calling similarity() fails where pg_trgm is
-- missing. Citus sends an object when something distributed depends on
-- it: a function taking them all (one type of each extension), made and
-- dropped, does.
CREATE OR REPLACE FUNCTION pymem._citus_distribute_types()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_types text := (
        SELECT string_agg(t.oid::regtype::text, ', ' ORDER BY t.oid)
        FROM pg_type AS t
        LEFT JOIN pg_class AS c ON c.oid = t.typrelid
        WHERE (
            t.typnamespace = 'pymem'::regnamespace AND t.typtype IN ('c', 'e', 'd')
            AND (t.typtype <> 'c' OR c.relkind = 'c')
        ) OR t.oid IN (
            SELECT min(d.objid) FROM pg_depend AS d
            INNER JOIN pg_extension AS e ON e.oid = d.refobjid
            INNER JOIN pg_type AS x ON x.oid = d.objid
            WHERE d.classid = 'pg_type'::regclass AND d.refclassid = 'pg_extension'::regclass
                AND d.deptype = 'e' AND e.extname IN ('vector', 'pg_trgm') AND x.typtype = 'b'
            GROUP BY e.extname
        )
    );
BEGIN
    IF v_types IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format(
        'CREATE FUNCTION pymem._citus_types(%s) RETURNS void LANGUAGE sql AS %L', v_types,
        'SELECT NULL'
    );
    PERFORM create_distributed_function(format('pymem._citus_types(%s)', v_types)::regprocedure);
    EXECUTE format('DROP FUNCTION pymem._citus_types(%s)', v_types);
END;
$$;

-- Distributes the store by user_id over the Citus cluster this node
-- coordinates (docs/scaling.md): tables of users' rows distributed by
-- user_id and co-located with pymem.memories (their rows kept, copied into
-- the shards), the shared configuration tables reference tables, and the
-- public functions that take a user run on that user's worker. One
-- transaction: all of it or nothing. A second call changes only what is
-- new (a table or function a later migration added). `pymem migrate
-- --citus` calls it; every later `pymem migrate` of a distributed store
-- calls it again. shard_count: the number of shards of a new distribution
-- (NULL: Citus's citus.shard_count, 32 by default); a store already
-- distributed keeps its count. Owner only.
CREATE OR REPLACE FUNCTION pymem.distribute_by_user(shard_count integer DEFAULT NULL)
RETURNS TABLE (object_name text, object_type text, distribution text, converted boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_first boolean;
BEGIN
    PERFORM pymem._citus_check_cluster();
    IF shard_count IS NOT NULL AND (shard_count < 1 OR shard_count > 64000) THEN
        RAISE EXCEPTION 'shard_count must be between 1 and 64000, got %', shard_count
            USING ERRCODE = 'PM006';
    END IF;
    -- one call at a time: two first ones both made the outbox (23505); the second
    -- now finds the store distributed
    PERFORM pg_advisory_xact_lock(hashtextextended('pymem.distribute_by_user', 0));
    v_first := pymem.store_shards() IS NULL;
    IF NOT v_first AND shard_count IS NOT NULL AND shard_count <> pymem.store_shards() THEN
        RAISE EXCEPTION 'this store is distributed in % shards; it cannot change to %',
            pymem.store_shards(), shard_count
            USING ERRCODE = 'PM013',
                HINT = 'Citus changes the count with alter_distributed_table(..., '
                    'shard_count => N, cascade_to_colocated => true).';
    END IF;
    -- one connection per worker for the whole transaction (DDL on shards and
    -- on reference tables in one transaction needs it); triggers on
    -- distributed tables are pymem's own, each writing only the same
    -- user's rows of a co-located table (docs/scaling.md); memories keeps
    -- its key to pymem.kinds when both become Citus tables
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', TRUE);
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', TRUE);
    PERFORM set_config('citus.enable_local_reference_table_foreign_keys', 'off', TRUE);
    PERFORM set_config('citus.enable_ddl_propagation', 'on', TRUE);
    IF shard_count IS NOT NULL THEN
        PERFORM set_config('citus.shard_count', shard_count::text, TRUE);
    END IF;
    RETURN QUERY SELECT * FROM pymem._citus_distribute_tables();
    PERFORM pymem._citus_distribute_types();
    -- the copies on the workers take recall's settings with its body
    PERFORM pymem._fit_recall_plans();
    RETURN QUERY SELECT * FROM pymem._citus_distribute_functions(v_first);
    -- schema-wide grants the load made while nothing was distributed
    GRANT USAGE ON SCHEMA pymem TO pymem_app;
    -- Citus opens its connections to the workers as the current role: the
    -- app's role must be able to log in there. Citus keeps a role alike on
    -- every node, so it can log in on the coordinator too; pg_hba.conf
    -- decides from where and how it authenticates (docs/scaling.md).
    IF NOT (SELECT r.rolcanlogin FROM pg_roles AS r WHERE r.rolname = 'pymem_app') THEN
        ALTER ROLE pymem_app LOGIN;
    END IF;
END;
$$;

-- Sends the events waiting in the outbox of a distributed store as NOTIFY
-- on channel pymem_events of this node (the coordinator), oldest first,
-- and removes them, in one transaction: a listener hears them after the
-- commit, each once. The app's listener (or a cron job) runs it every few
-- seconds; on a store that is not distributed events are NOTIFYs already
-- and this returns 0. Returns the number of events sent. SECURITY
-- DEFINER: it relays every user's events, whatever the caller's policies.
CREATE OR REPLACE FUNCTION pymem.relay_events()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_event record;
    v_count integer := 0;
BEGIN
    IF NOT pymem._citus_outbox() OR to_regclass('pymem.event_outbox') IS NULL THEN
        RETURN 0;
    END IF;
    -- one relay at a time: two would send an event twice
    PERFORM pg_advisory_xact_lock(hashtextextended('pymem.relay_events', 0));
    FOR v_event IN
        WITH gone AS (
            DELETE FROM pymem.event_outbox AS o
            RETURNING o.user_id, o.id, o.payload, o.created_at
        )
        SELECT g.payload FROM gone AS g ORDER BY g.created_at, g.user_id, g.id
    LOOP
        PERFORM pg_notify('pymem_events', v_event.payload::text);
        v_count := v_count + 1;
    END LOOP;
    RETURN v_count;
END;
$$;
