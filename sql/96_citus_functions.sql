-- Citus: the public functions of a distributed store run on the worker of
-- their user (sql/97_citus.sql): each body copied to schema pymem_citus and
-- distributed by its user argument, the public function a wrapper that
-- hands the call over, and every function on every node with its grants.

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
        ),
        (
            'claim_jobs',
            'SELECT m.user_id FROM pymem.memories AS m GROUP BY m.user_id ORDER BY m.user_id',
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
