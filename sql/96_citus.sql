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

-- Public functions whose user_id NULL means "every user": on Citus their
-- wrapper runs the delegated call for each user the query lists (in that
-- order), passing the rest of the arguments unchanged except the limit
-- argument, which shrinks by the rows returned so far.
CREATE OR REPLACE FUNCTION pymem._citus_every_user(fn regprocedure)
RETURNS TABLE (users_query text, limit_arg integer)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT q.users_query, q.limit_arg
    FROM (
        VALUES (
            'claim_reviews',
            'SELECT r.user_id FROM pymem.reviews AS r'
            ' WHERE r.resolved_at IS NULL AND r.cause = ''related'''
            ' GROUP BY r.user_id ORDER BY min(r.created_at), r.user_id',
            3
        )
    ) AS q (name, users_query, limit_arg)
    WHERE q.name = (SELECT p.proname FROM pg_proc AS p WHERE p.oid = fn)
$$;

-- The functions that run on the worker of a user: public ones that take a
-- user first (user_id text, without a default: those with a default of
-- NULL read every user and run on the coordinator), and the Citus helpers
-- that take a shard's key first (pymem._citus_shard_*).
CREATE OR REPLACE FUNCTION pymem._citus_delegated()
RETURNS TABLE (fn oid, name text, wrapped boolean)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT p.oid, p.proname::text, p.proname !~ '^_'
    FROM pg_proc AS p
    WHERE p.pronamespace = 'pymem'::regnamespace AND p.prokind = 'f' AND p.pronargs > 0
        AND p.proargtypes[0] = 'text'::regtype
        AND (
            (
                p.proname !~ '^_' AND p.proargnames[1] = 'user_id'
                AND p.pronargdefaults < p.pronargs
            )
            OR p.proname ~ '^_citus_shard_'
        )
    ORDER BY p.oid
$$;

-- One statement of a wrapper (pymem._citus_wrapper): the call of
-- pymem_citus.<name> with the wrapper's first nargs arguments, each cast to
-- its type, returning the rows (a set) or into v_result. Citus sends the
-- values of a PL/pgSQL statement's variables along with it, those of a type
-- made in the database (an extension's vector) without their type, which
-- the worker then cannot resolve: a function taking one is called with
-- literals (EXECUTE format).
CREATE OR REPLACE FUNCTION pymem._citus_call(fn oid, nargs integer)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_proc pg_proc;
    v_select text;
    v_dynamic boolean;
BEGIN
    SELECT p.* INTO v_proc FROM pg_proc AS p WHERE p.oid = fn;
    v_dynamic := EXISTS (
        SELECT FROM unnest(v_proc.proargtypes) AS a (type) WHERE a.type >= 16384
    );
    v_select := format(
        'SELECT %s FROM pymem_citus.%I(%s)%s',
        CASE WHEN v_proc.proretset THEN '*' ELSE 'r' END,
        v_proc.proname,
        (
            SELECT string_agg(
                CASE WHEN v_dynamic
                    THEN '%L::' || replace(format_type(v_proc.proargtypes[i - 1], NULL), '%', '%%')
                    ELSE format('$%s::%s', i, format_type(v_proc.proargtypes[i - 1], NULL))
                END,
                ', ' ORDER BY i
            )
            FROM generate_series(1, nargs) AS i
        ),
        CASE WHEN v_proc.proretset THEN '' ELSE ' AS r' END
    );
    IF v_dynamic THEN
        v_select := format(
            'EXECUTE format(%L, %s)', v_select,
            (SELECT string_agg('$' || i, ', ' ORDER BY i) FROM generate_series(1, nargs) AS i)
        );
        RETURN CASE WHEN v_proc.proretset THEN 'RETURN QUERY ' || v_select
            ELSE v_select || ' INTO v_result' END;
    END IF;
    RETURN CASE WHEN v_proc.proretset THEN 'RETURN QUERY ' || v_select
        ELSE regexp_replace(v_select, '^SELECT r FROM', 'SELECT r INTO v_result FROM') END;
END;
$$;

-- The wrapper that replaces a public function on a distributed store: it
-- checks the user (Citus 14.0.1 crashes the coordinator's backend on a NULL
-- distribution argument) and hands the call to pymem_citus.<name>, which
-- Citus runs on the user's worker. Same signature, result, volatility
-- and search_path as the function it replaces. A last argument that
-- defaults to now() and is now() is left out of the call, so that the
-- worker's clock says what now is: the coordinator's now() is another
-- transaction's, earlier than the rows the worker writes in this one.
CREATE OR REPLACE FUNCTION pymem._citus_wrapper(fn oid)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_proc pg_proc;
    v_call text;
    v_every record;
    v_null text;
    v_body text;
BEGIN
    SELECT p.* INTO v_proc FROM pg_proc AS p WHERE p.oid = fn;
    v_call := pymem._citus_call(fn, v_proc.pronargs) || ';';
    IF v_proc.pronargdefaults > 0
        AND split_part(pg_get_expr(v_proc.proargdefaults, 0), ', ', v_proc.pronargdefaults) = 'now()'
    THEN
        v_call := format(
            E'IF $%s IS NOT DISTINCT FROM now() THEN\n        %s;\n    ELSE\n        %s\n    END IF;',
            v_proc.pronargs, pymem._citus_call(fn, v_proc.pronargs - 1), v_call
        );
    END IF;
    SELECT * INTO v_every FROM pymem._citus_every_user(fn::regprocedure);
    IF v_every.users_query IS NOT NULL AND v_proc.proretset THEN
        v_null := format(
            $f$
    IF $1 IS NULL THEN
        v_left := %2$s;
        FOR v_user IN %1$s LOOP
            EXIT WHEN v_left IS NOT NULL AND v_left <= 0;
            RETURN QUERY SELECT * FROM pymem_citus.%3$I(%4$s);
            GET DIAGNOSTICS v_rows = ROW_COUNT;
            v_left := v_left - v_rows;
        END LOOP;
        RETURN;
    END IF;$f$,
            v_every.users_query,
            '$' || v_every.limit_arg,
            v_proc.proname,
            (
                SELECT string_agg(
                    format('%s::%s',
                        CASE WHEN i = 1 THEN 'v_user' WHEN i = v_every.limit_arg THEN 'v_left'
                            ELSE '$' || i END,
                        format_type(v_proc.proargtypes[i - 1], NULL)
                    ),
                    ', ' ORDER BY i
                )
                FROM generate_series(1, v_proc.pronargs) AS i
            )
        );
    ELSE
        v_null := E'\n    PERFORM pymem._check_user($1);';
    END IF;
    v_body := format(
        E'DECLARE\n    v_result %s;\n    v_user text;\n    v_left bigint;\n    v_rows bigint;\n'
        || E'BEGIN%s\n    %s\n%s\nEND;',
        CASE WHEN v_proc.proretset THEN 'record' ELSE format_type(v_proc.prorettype, NULL) END,
        v_null, v_call,
        CASE WHEN v_proc.proretset THEN '' ELSE '    RETURN v_result;' END
    );
    RETURN format(
        E'CREATE OR REPLACE FUNCTION pymem.%I(%s)\nRETURNS %s\nLANGUAGE plpgsql %s%s\n'
        'AS $citus$\n-- pymem: delegated to pymem_citus.%I on this Citus store\n%s\n$citus$',
        v_proc.proname,
        pg_get_function_arguments(fn),
        pg_get_function_result(fn),
        CASE v_proc.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE'
            ELSE 'VOLATILE' END,
        -- the search_path only: work_mem and the like matter where the body runs
        coalesce((
            SELECT string_agg(format(E'\nSET search_path = %s', substr(c, 13)), '')
            FROM unnest(v_proc.proconfig) AS c
            WHERE c LIKE 'search\_path=%'
        ), ''),
        v_proc.proname,
        v_body
    );
END;
$$;

-- The grants of one function, made again (Citus sends them to the workers
-- for a distributed function): PUBLIC's default revoked when the ACL is
-- set, then every grant of the ACL.
CREATE OR REPLACE FUNCTION pymem._citus_regrant(fn regprocedure, acl aclitem[], owner oid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_kind text := CASE (SELECT p.prokind FROM pg_proc AS p WHERE p.oid = fn)
        WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END;
    v_statement text;
BEGIN
    IF acl IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format('REVOKE ALL ON %s %s FROM PUBLIC', v_kind, fn);
    FOR v_statement IN SELECT g FROM pymem._grants_of(acl, owner, v_kind, fn::text) AS g LOOP
        EXECUTE v_statement;
    END LOOP;
END;
$$;

-- Every function of the store on every node, the delegated ones by their
-- first argument: run by distribute_by_user and by every `pymem migrate`
-- of a distributed store, after sql/ re-created the functions.
CREATE OR REPLACE FUNCTION pymem._citus_distribute_functions(regrant_all boolean)
RETURNS TABLE (object_name text, object_type text, distribution text, converted boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_fn record;
    v_copy regprocedure;
    v_definition text;
    v_new boolean;
BEGIN
    IF to_regnamespace('pymem_citus') IS NULL THEN
        CREATE SCHEMA pymem_citus;
        COMMENT ON SCHEMA pymem_citus IS
        'pymem on Citus: the bodies of the functions that run on the worker of their user';
    END IF;
    GRANT USAGE ON SCHEMA pymem_citus TO pymem_app;
    FOR v_fn IN SELECT d.* FROM pymem._citus_delegated() AS d LOOP
        v_new := FALSE;
        IF v_fn.wrapped THEN
            -- a body fresh from sql/ (not yet the wrapper) moves to the copy
            IF (SELECT p.prosrc FROM pg_proc AS p WHERE p.oid = v_fn.fn)
                NOT LIKE E'%-- pymem: delegated to pymem\\_citus.%' THEN
                v_definition := regexp_replace(
                    pg_get_functiondef(v_fn.fn),
                    '^CREATE OR REPLACE FUNCTION pymem\.',
                    'CREATE OR REPLACE FUNCTION pymem_citus.'
                );
                v_copy := to_regprocedure(format(
                    'pymem_citus.%I(%s)', v_fn.name, (SELECT oidvectortypes(p.proargtypes) FROM pg_proc AS p WHERE p.oid = v_fn.fn)
                ));
                -- a copy whose columns changed cannot be replaced, only made again
                IF pg_get_function_result(v_copy) <> pg_get_function_result(v_fn.fn) THEN
                    EXECUTE format('DROP FUNCTION %s', v_copy);
                    v_copy := NULL;
                END IF;
                v_new := v_copy IS NULL;
                EXECUTE v_definition;
                v_copy := format(
                    'pymem_citus.%I(%s)', v_fn.name, (SELECT oidvectortypes(p.proargtypes) FROM pg_proc AS p WHERE p.oid = v_fn.fn)
                )::regprocedure;
                EXECUTE format(
                    'ALTER FUNCTION %s OWNER TO %I', v_copy,
                    (SELECT p.proowner::regrole FROM pg_proc AS p WHERE p.oid = v_fn.fn)
                );
                PERFORM pymem._citus_regrant(v_copy, p.proacl, p.proowner)
                FROM pg_proc AS p WHERE p.oid = v_fn.fn;
                EXECUTE pymem._citus_wrapper(v_fn.fn);
            END IF;
            v_copy := format(
                'pymem_citus.%I(%s)', v_fn.name, (SELECT oidvectortypes(p.proargtypes) FROM pg_proc AS p WHERE p.oid = v_fn.fn)
            )::regprocedure;
            -- the wrapper too, so that a call on a worker finds it
            IF NOT EXISTS (
                SELECT FROM pg_catalog.pg_dist_object AS o
                WHERE o.classid = 'pg_proc'::regclass AND o.objid = v_fn.fn
            ) THEN
                PERFORM create_distributed_function(v_fn.fn::regprocedure);
            END IF;
        ELSE
            v_copy := v_fn.fn::regprocedure;
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_catalog.pg_dist_object AS o
            WHERE o.classid = 'pg_proc'::regclass AND o.objid = v_copy
                AND o.distribution_argument_index = 0 AND o.force_delegation
        ) THEN
            PERFORM create_distributed_function(
                v_copy, '$1', colocate_with => 'pymem.memories', force_delegation => TRUE
            );
            v_new := TRUE;
        END IF;
        IF v_new THEN
            object_name := v_copy::text;
            object_type := 'function';
            distribution := CASE WHEN v_fn.wrapped THEN 'delegated by user_id'
                ELSE 'delegated by shard key' END;
            converted := TRUE;
            RETURN NEXT;
        END IF;
    END LOOP;
    -- copies whose public function is gone, or no longer takes a user
    FOR v_fn IN
        SELECT p.oid::regprocedure AS sig FROM pg_proc AS p
        WHERE p.pronamespace = to_regnamespace('pymem_citus')
            AND NOT EXISTS (
                SELECT FROM pymem._citus_delegated() AS d
                INNER JOIN pg_proc AS q ON q.oid = d.fn
                WHERE d.wrapped AND d.name = p.proname AND q.proargtypes = p.proargtypes
            )
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn.sig);
    END LOOP;
    -- every other function and procedure, on every node; one whose
    -- SQL-standard body calls another after that one (a worker checks the
    -- body when it is made)
    LOOP
        SELECT p.oid::regprocedure INTO v_copy FROM pg_proc AS p
        WHERE p.pronamespace = 'pymem'::regnamespace
            AND NOT EXISTS (SELECT FROM pymem._citus_delegated() AS d WHERE d.fn = p.oid)
            AND NOT EXISTS (
                SELECT FROM pg_catalog.pg_dist_object AS o
                WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid
            )
            AND NOT EXISTS (
                SELECT FROM pg_depend AS d
                INNER JOIN pg_proc AS q ON q.oid = d.refobjid
                WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                    AND d.refclassid = 'pg_proc'::regclass AND d.refobjid <> p.oid
                    AND q.pronamespace = 'pymem'::regnamespace
                    AND NOT EXISTS (
                        SELECT FROM pg_catalog.pg_dist_object AS o
                        WHERE o.classid = 'pg_proc'::regclass AND o.objid = q.oid
                    )
            )
        ORDER BY p.oid
        LIMIT 1;
        EXIT WHEN v_copy IS NULL;
        PERFORM create_distributed_function(v_copy);
    END LOOP;
    -- create_distributed_function sends a definition, not its grants
    IF regrant_all THEN
        PERFORM pymem._citus_regrant(p.oid::regprocedure, p.proacl, p.proowner)
        FROM pg_proc AS p
        WHERE p.pronamespace IN ('pymem'::regnamespace, to_regnamespace('pymem_citus'));
    END IF;
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

-- Recall's ranking statement is planned once per session (one generic plan,
-- whose leaves a partitioned store prunes when it runs), except on a store
-- distributed with Citus: Citus cannot make a distributed plan of it with its
-- parameters unresolved (PM060's "could not create distributed plan"). Left to
-- the plan cache, a partitioned store's custom plans were made again for every
-- call: 1.67 ms against 1.12 ms for a user with 300 memories (docs/scaling.md).
-- Run after sql/ is loaded, and by distribute_by_user before it copies the
-- functions to the workers.
CREATE OR REPLACE FUNCTION pymem._fit_recall_plans()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_recall regprocedure := 'pymem.recall'::regproc::regprocedure;
    v_generic boolean := pymem.store_shards() IS NULL;
BEGIN
    IF v_generic IS DISTINCT FROM coalesce((
        SELECT 'plan_cache_mode=force_generic_plan' = ANY(p.proconfig)
        FROM pg_proc AS p WHERE p.oid = v_recall
    ), FALSE) THEN
        EXECUTE format(
            'ALTER FUNCTION %s %s', v_recall,
            CASE WHEN v_generic THEN 'SET plan_cache_mode = force_generic_plan'
                ELSE 'RESET plan_cache_mode' END
        );
    END IF;
END;
$$;

SELECT pymem._fit_recall_plans();
