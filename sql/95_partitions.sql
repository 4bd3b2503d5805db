-- Hash partitions by user_id: every table holding users' rows becomes
-- HASH (user_id) partitioned, so one user's reads and writes stay in one
-- leaf and maintenance (vacuum, decay, a dump) works leaf by leaf. Every
-- primary, unique and foreign key already includes user_id, which is what
-- both partitions and Citus co-location need (docs/scaling.md).

-- A role as GRANT and REVOKE name it (0 is PUBLIC in an ACL).
CREATE OR REPLACE FUNCTION pymem._grantee(role oid)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN role = 0 THEN 'PUBLIC'
    ELSE (
        SELECT quote_ident(r.rolname)
        FROM pg_roles AS r
        WHERE r.oid = role
    )
END;

-- Each leaf partition carries its parent's row security and privileges:
-- maintenance (apply_decay) reads leaves directly, and a leaf queried on
-- its own must not show more than its parent would. Idempotent; run by
-- partition_by_user and by every `pymem migrate` (sql/99_grants.sql), so
-- a policy or grant a later migration adds to a parent reaches its leaves.
CREATE OR REPLACE FUNCTION pymem._sync_partition_security()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_leaf record;
    v_statement text;
BEGIN
    -- A leaf is changed only where it differs from its parent: each change
    -- takes an exclusive lock, and a migrate must not queue behind readers.
    FOR v_leaf IN
        SELECT
            i.inhrelid::regclass AS leaf,
            i.inhparent::regclass AS parent,
            p.relrowsecurity <> l.relrowsecurity AS rls_differs,
            p.relforcerowsecurity <> l.relforcerowsecurity AS force_differs,
            p.relrowsecurity,
            p.relforcerowsecurity,
            (
                SELECT array_agg(pymem._policy_definition(pol.oid, l.oid) ORDER BY pol.polname)
                FROM pg_policy AS pol WHERE pol.polrelid = p.oid
            ) IS DISTINCT FROM (
                SELECT array_agg(pymem._policy_definition(pol.oid, l.oid) ORDER BY pol.polname)
                FROM pg_policy AS pol WHERE pol.polrelid = l.oid
            ) AS policies_differ,
            ARRAY(
                SELECT pymem._grants_of(p.relacl, p.relowner, 'TABLE', l.oid::regclass::text)
            ) <> ARRAY(
                SELECT pymem._grants_of(l.relacl, l.relowner, 'TABLE', l.oid::regclass::text)
            ) AS grants_differ
        FROM pg_inherits AS i
        INNER JOIN pg_class AS p ON p.oid = i.inhparent
        INNER JOIN pg_class AS l ON l.oid = i.inhrelid
        WHERE p.relnamespace = 'pymem'::regnamespace AND p.relkind = 'p'
        ORDER BY 1
    LOOP
        IF v_leaf.rls_differs THEN
            EXECUTE format(
                'ALTER TABLE %s %s ROW LEVEL SECURITY', v_leaf.leaf,
                CASE WHEN v_leaf.relrowsecurity THEN 'ENABLE' ELSE 'DISABLE' END
            );
        END IF;
        IF v_leaf.force_differs THEN
            EXECUTE format(
                'ALTER TABLE %s %s ROW LEVEL SECURITY', v_leaf.leaf,
                CASE WHEN v_leaf.relforcerowsecurity THEN 'FORCE' ELSE 'NO FORCE' END
            );
        END IF;
        IF v_leaf.policies_differ THEN
            FOR v_statement IN
                SELECT format('DROP POLICY %I ON %s', pol.polname, v_leaf.leaf)
                FROM pg_policy AS pol WHERE pol.polrelid = v_leaf.leaf
            LOOP
                EXECUTE v_statement;
            END LOOP;
            FOR v_statement IN
                SELECT pymem._policy_definition(pol.oid, v_leaf.leaf)
                FROM pg_policy AS pol WHERE pol.polrelid = v_leaf.parent
            LOOP
                EXECUTE v_statement;
            END LOOP;
        END IF;
        IF v_leaf.grants_differ THEN
            FOR v_statement IN
                SELECT DISTINCT format(
                    'REVOKE ALL ON %s FROM %s', v_leaf.leaf, pymem._grantee(a.grantee)
                )
                FROM pg_class AS c
                CROSS JOIN LATERAL aclexplode(c.relacl) AS a
                WHERE c.oid = v_leaf.leaf AND a.grantee <> c.relowner
            LOOP
                EXECUTE v_statement;
            END LOOP;
            FOR v_statement IN
                SELECT pymem._grants_of(c.relacl, c.relowner, 'TABLE', v_leaf.leaf::text)
                FROM pg_class AS c WHERE c.oid = v_leaf.parent
            LOOP
                EXECUTE v_statement;
            END LOOP;
        END IF;
    END LOOP;
END;
$$;

-- CREATE POLICY for an existing policy, on another table.
CREATE OR REPLACE FUNCTION pymem._policy_definition(policy oid, target regclass)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT format(
        'CREATE POLICY %I ON %s AS %s FOR %s TO %s%s%s',
        p.policyname, target, p.permissive, p.cmd,
        (
            SELECT string_agg(
                CASE WHEN r.name = 'public' THEN 'PUBLIC' ELSE quote_ident(r.name) END, ', '
            )
            FROM unnest(p.roles) AS r (name)
        ),
        ' USING (' || p.qual || ')',
        ' WITH CHECK (' || p.with_check || ')'
    )
    FROM pg_policy AS pol
    INNER JOIN pg_class AS c ON c.oid = pol.polrelid
    INNER JOIN pg_policies AS p
        ON p.schemaname = 'pymem' AND p.tablename = c.relname AND p.policyname = pol.polname
    WHERE pol.oid = policy
$$;

-- GRANT statements re-creating an ACL (other than the owner's own rights)
-- on an object of the given kind ('TABLE', 'FUNCTION', 'PROCEDURE').
CREATE OR REPLACE FUNCTION pymem._grants_of(acl aclitem[], owner oid, kind text, target text)
RETURNS SETOF text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT format(
        'GRANT %s ON %s %s TO %s%s', a.privilege_type, kind, target, pymem._grantee(a.grantee),
        CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END
    )
    FROM aclexplode(acl) AS a
    WHERE a.grantee <> owner
    ORDER BY 1
$$;

-- Turns every plain table of pymem holding users' rows (a user_id column)
-- into a table HASH partitioned by user_id in `partitions` leaves, rows
-- kept. Keys, indexes, triggers, policies, grants, comments, storage
-- options (fillfactor goes to the leaves) and the functions that depend
-- on a table's row type are re-created as they were. Tables already
-- partitioned are kept, so it also partitions a table a later migration
-- adds (`pymem migrate` calls it on a partitioned store). Takes an
-- ACCESS EXCLUSIVE lock on every table and copies every row: on a big
-- store that is a maintenance window (docs/scaling.md). Owner only.
CREATE OR REPLACE FUNCTION pymem.partition_by_user(partitions integer)
RETURNS TABLE (table_name text, partition_count integer, rows_moved bigint, converted boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_current integer;
    v_tables regclass [];
    v_names text [] := '{}';
    v_table regclass;
    v_name text;
    v_old text;
    v_blocker text;
    v_foreign_keys text [];
    v_functions text [];
    v_after text [];
    v_options text;
    v_columns text;
    v_rows bigint;
    v_statement text;
    v_owner text;
    v_leaf text;
    v_identities text [];
    v_last bigint;
    v_called boolean;
    v_serials text [];
BEGIN
    IF pymem.store_shards() IS NOT NULL THEN
        PERFORM pymem._citus_refuse(
            'pymem.partition_by_user',
            'Citus shards every table of users'' rows by user_id already (docs/scaling.md).'
        );
    END IF;
    IF partitions IS NULL OR partitions < 2 OR partitions > 1024 THEN
        RAISE EXCEPTION 'partitions must be between 2 and 1024, got %', partitions
            USING ERRCODE = 'PM006';
    END IF;
    -- one conversion at a time, and what it reads read after the lock: a second
    -- call waited on the first's locks holding the ids of tables the first had
    -- dropped, and failed with a raw syntax error (42601) on their bare numbers.
    -- An advisory lock of its own: no reader waits for it (every `pymem migrate`
    -- of a partitioned store calls this), nor does it meet migrate's own lock.
    PERFORM pg_advisory_xact_lock(hashtextextended('pymem.partition_by_user', 0));
    v_current := pymem.store_partitions();
    IF v_current IS NOT NULL AND v_current <> partitions THEN
        RAISE EXCEPTION 'this store is partitioned in % leaves; it cannot change to %',
            v_current, partitions
            USING ERRCODE = 'PM013',
                HINT = 'Changing the partition count means a dump and a reload into a new store.';
    END IF;
    v_tables := ARRAY(
        SELECT c.oid::regclass FROM pg_class AS c
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
            AND EXISTS (
                SELECT FROM pg_attribute AS a
                WHERE a.attrelid = c.oid AND a.attname = 'user_id' AND NOT a.attisdropped
            )
        ORDER BY c.relname
    );
    IF cardinality(v_tables) > 0 THEN
        FOREACH v_table IN ARRAY v_tables LOOP
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', v_table);
        END LOOP;

        -- A view or a column of another table built on one of these tables
        -- would be dropped with it: refuse instead.
        SELECT string_agg(DISTINCT pg_describe_object(d.classid, d.objid, d.objsubid), ', ')
        INTO v_blocker
        FROM pg_depend AS d
        INNER JOIN pg_class AS t ON t.oid = ANY(v_tables)
        LEFT JOIN pg_rewrite AS rw ON d.classid = 'pg_rewrite'::regclass AND rw.oid = d.objid
        LEFT JOIN pg_attribute AS col
            ON d.classid = 'pg_class'::regclass AND col.attrelid = d.objid
            AND col.attnum = d.objsubid
        WHERE d.refobjid IN (t.oid, t.reltype)
            AND (
                (rw.oid IS NOT NULL AND rw.ev_class <> t.oid)
                OR (col.attrelid IS NOT NULL AND col.attrelid <> t.oid)
            );
        -- Publication membership and rules are not carried over either.
        SELECT concat_ws(', ', v_blocker, (
            SELECT string_agg(DISTINCT format('publication %s', pub.pubname), ', ')
            FROM pg_publication_rel AS pr
            INNER JOIN pg_publication AS pub ON pub.oid = pr.prpubid
            WHERE pr.prrelid = ANY(v_tables)
        ), (
            SELECT string_agg(DISTINCT format('rule %s', rw.rulename), ', ')
            FROM pg_rewrite AS rw
            WHERE rw.ev_class = ANY(v_tables) AND rw.rulename <> '_RETURN'
        ))
        INTO v_blocker;
        IF v_blocker <> '' THEN
            RAISE EXCEPTION 'cannot partition: % depend on the tables to be partitioned', v_blocker
                USING ERRCODE = 'PM013',
                    HINT = 'Drop them, partition, then create them again.';
        END IF;

        -- Foreign keys touching these tables come off first and back last.
        SELECT coalesce(array_agg(format(
            'ALTER TABLE %s ADD CONSTRAINT %I %s',
            k.conrelid::regclass, k.conname, pg_get_constraintdef(k.oid)
        ) ORDER BY k.conrelid::regclass::text, k.conname), '{}')
        INTO v_foreign_keys
        FROM pg_constraint AS k
        -- a key to a partitioned table has a child per leaf (conparentid): they
        -- come and go with the key itself
        WHERE k.contype = 'f' AND k.conparentid = 0
            AND (k.conrelid = ANY(v_tables) OR k.confrelid = ANY(v_tables));
        FOR v_statement IN
            SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', k.conrelid::regclass, k.conname)
            FROM pg_constraint AS k
            WHERE k.contype = 'f' AND k.conparentid = 0
                AND (k.conrelid = ANY(v_tables) OR k.confrelid = ANY(v_tables))
        LOOP
            EXECUTE v_statement;
        END LOOP;

        -- Functions on a table's row type (or with it in their body) go with
        -- the old table; their definitions, grants and owner are kept to
        -- re-create.
        SELECT coalesce(array_agg(s.statement ORDER BY s.step, s.statement), '{}')
        INTO v_functions
        FROM pymem._table_dependents(v_tables) AS f
        CROSS JOIN LATERAL (
            SELECT 1 AS step, pg_get_functiondef(f.fn) AS statement
            UNION ALL
            SELECT 2, format('REVOKE ALL ON %s %s FROM PUBLIC', f.kind, f.signature)
            WHERE f.acl IS NOT NULL
            UNION ALL
            SELECT 3, g.statement
            FROM pymem._grants_of(f.acl, f.owner, f.kind, f.signature) AS g (statement)
            UNION ALL
            SELECT 4, format('ALTER %s %s OWNER TO %I', f.kind, f.signature, f.owner::regrole)
        ) AS s;
        -- Dropped here, RESTRICT: a view, a default or a policy using one of
        -- them makes the whole conversion fail instead of vanishing with it.
        FOR v_statement IN
            SELECT format('DROP %s %s', f.kind, f.signature)
            FROM pymem._table_dependents(v_tables) AS f
        LOOP
            EXECUTE v_statement;
        END LOOP;
    END IF;

    v_after := '{}';
    FOREACH v_table IN ARRAY v_tables LOOP
        SELECT c.relname INTO v_name FROM pg_class AS c WHERE c.oid = v_table;
        -- Everything to re-create on the new table, read while the old one
        -- still carries the name (the definitions name pymem.<table>).
        SELECT v_after || coalesce(array_agg(s.statement ORDER BY s.step, s.statement), '{}')
        INTO v_after
        FROM (
            SELECT 1 AS step, format(
                'ALTER TABLE %s ADD CONSTRAINT %I %s', v_table, k.conname, pg_get_constraintdef(k.oid)
            ) AS statement
            FROM pg_constraint AS k
            WHERE k.conrelid = v_table AND k.contype IN ('p', 'u', 'x')
            UNION ALL
            SELECT 2, pg_get_indexdef(x.indexrelid)
            FROM pg_index AS x
            WHERE x.indrelid = v_table
                AND NOT EXISTS (SELECT FROM pg_constraint AS k WHERE k.conindid = x.indexrelid)
            UNION ALL
            SELECT 3, pg_get_triggerdef(t.oid)
            FROM pg_trigger AS t WHERE t.tgrelid = v_table AND NOT t.tgisinternal
            UNION ALL
            SELECT 4, format(
                'ALTER TABLE %s %s TRIGGER %I', v_table,
                CASE t.tgenabled WHEN 'D' THEN 'DISABLE' WHEN 'R' THEN 'ENABLE REPLICA'
                    ELSE 'ENABLE ALWAYS' END,
                t.tgname
            )
            FROM pg_trigger AS t
            WHERE t.tgrelid = v_table AND NOT t.tgisinternal AND t.tgenabled <> 'O'
            UNION ALL
            SELECT 6, format(
                'GRANT %s (%I) ON TABLE %s TO %s%s', g.privilege_type, a.attname, v_table,
                pymem._grantee(g.grantee),
                CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END
            )
            FROM pg_attribute AS a
            CROSS JOIN LATERAL aclexplode(a.attacl) AS g
            WHERE a.attrelid = v_table AND a.attacl IS NOT NULL
            UNION ALL
            SELECT 4, format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_table)
            FROM pg_class AS c WHERE c.oid = v_table AND c.relrowsecurity
            UNION ALL
            SELECT 4, format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', v_table)
            FROM pg_class AS c WHERE c.oid = v_table AND c.relforcerowsecurity
            UNION ALL
            SELECT 5, pymem._policy_definition(pol.oid, v_table)
            FROM pg_policy AS pol WHERE pol.polrelid = v_table
            UNION ALL
            SELECT 6, g.statement
            FROM pg_class AS c
            CROSS JOIN LATERAL pymem._grants_of(c.relacl, c.relowner, 'TABLE', v_table::text) AS g (statement)
            WHERE c.oid = v_table
            UNION ALL
            SELECT 6, format('COMMENT ON TABLE %s IS %L', v_table, obj_description(v_table, 'pg_class'))
            WHERE obj_description(v_table, 'pg_class') IS NOT NULL
        ) AS s;
        SELECT
            CASE
                WHEN c.reloptions IS NOT NULL THEN format(' WITH (%s)', array_to_string(c.reloptions, ', '))
                ELSE ''
            END
        INTO v_options
        FROM pg_class AS c WHERE c.oid = v_table;
        SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO v_columns
        FROM pg_attribute AS a
        WHERE a.attrelid = v_table AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';

        SELECT c.relowner::regrole::text INTO v_owner FROM pg_class AS c WHERE c.oid = v_table;
        -- where each identity stands, to continue from there (not from the
        -- highest copied value: deleted ids are never handed out again)
        v_identities := '{}';
        FOR v_statement, v_leaf IN
            SELECT pg_get_serial_sequence(v_table::text, a.attname), a.attname
            FROM pg_attribute AS a
            WHERE a.attrelid = v_table AND a.attidentity <> ''
        LOOP
            EXECUTE format('SELECT last_value, is_called FROM %s', v_statement)
            INTO v_last, v_called;
            v_identities := v_identities || format(
                'SELECT setval(pg_get_serial_sequence(%L, %L), %s, %L)',
                'pymem.' || quote_ident(v_name), v_leaf, v_last, v_called
            );
        END LOOP;
        -- a serial column's sequence belongs to the old table: it moves to
        -- the new one (the copied default goes on using it)
        v_serials := ARRAY(
            SELECT format(
                'ALTER SEQUENCE %s OWNED BY pymem.%I.%I', d.objid::regclass, v_name, a.attname
            )
            FROM pg_depend AS d
            INNER JOIN pg_attribute AS a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
            WHERE d.classid = 'pg_class'::regclass AND d.refobjid = v_table
                AND d.deptype = 'a' AND a.attidentity = ''
                AND (SELECT c.relkind FROM pg_class AS c WHERE c.oid = d.objid) = 'S'
        );
        -- the old identity sequences step aside: the new ones take their names
        FOR v_statement IN
            SELECT format('ALTER SEQUENCE %s RENAME TO %I', q.seq, q.name || '_unpartitioned')
            FROM pg_attribute AS a
            CROSS JOIN LATERAL (
                SELECT
                    pg_get_serial_sequence(v_table::text, a.attname)::regclass AS seq,
                    c.relname::text AS name
                FROM pg_class AS c
                WHERE c.oid = pg_get_serial_sequence(v_table::text, a.attname)::regclass
            ) AS q
            WHERE a.attrelid = v_table AND a.attidentity <> ''
        LOOP
            EXECUTE v_statement;
        END LOOP;
        v_old := v_name || '_unpartitioned';
        -- the owner copies every user's rows, whatever the policies say
        EXECUTE format('ALTER TABLE %s NO FORCE ROW LEVEL SECURITY', v_table);
        EXECUTE format('ALTER TABLE %s RENAME TO %I', v_table, v_old);
        EXECUTE format(
            'CREATE TABLE pymem.%I (LIKE pymem.%I INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY'
            ' INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS INCLUDING COMPRESSION'
            ' INCLUDING STATISTICS) PARTITION BY HASH (user_id)',
            v_name, v_old
        );
        EXECUTE format('ALTER TABLE pymem.%I OWNER TO %I', v_name, v_owner);
        FOR i IN 0 .. partitions - 1 LOOP
            v_leaf := format('%s_p%s', v_name, lpad(i::text, length((partitions - 1)::text), '0'));
            EXECUTE format(
                'CREATE TABLE pymem.%I PARTITION OF pymem.%I'
                ' FOR VALUES WITH (MODULUS %s, REMAINDER %s)%s',
                v_leaf, v_name, partitions, i, v_options
            );
            EXECUTE format('ALTER TABLE pymem.%I OWNER TO %I', v_leaf, v_owner);
        END LOOP;
        EXECUTE format(
            'INSERT INTO pymem.%I (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM pymem.%I',
            v_name, v_columns, v_columns, v_old
        );
        GET DIAGNOSTICS v_rows = ROW_COUNT;
        FOREACH v_statement IN ARRAY v_identities || v_serials LOOP
            EXECUTE v_statement;
        END LOOP;
        v_names := v_names || v_name;
        -- RESTRICT: whatever still depends on the old table (a policy of
        -- another table, say) would be lost with it; the conversion fails whole
        BEGIN
            EXECUTE format('DROP TABLE pymem.%I', v_old);
        EXCEPTION WHEN dependent_objects_still_exist THEN
            GET STACKED DIAGNOSTICS v_blocker = PG_EXCEPTION_DETAIL;
            RAISE EXCEPTION 'cannot partition pymem.%: other objects depend on it', v_name
                USING ERRCODE = 'PM013', DETAIL = v_blocker,
                    HINT = 'Drop them, partition, then create them again.';
        END;
        table_name := v_name;
        partition_count := partitions;
        rows_moved := v_rows;
        converted := TRUE;
        RETURN NEXT;
    END LOOP;

    FOREACH v_statement IN ARRAY v_after || v_foreign_keys || v_functions LOOP
        EXECUTE v_statement;
    END LOOP;
    PERFORM pymem._sync_partition_security();

    -- the tables partitioned before, unchanged
    RETURN QUERY
    SELECT c.relname::text, count(i.inhrelid)::integer, 0::bigint, FALSE
    FROM pg_class AS c
    INNER JOIN pg_inherits AS i ON i.inhparent = c.oid
    WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind = 'p'
        AND c.relname <> ALL(v_names)
    GROUP BY c.relname
    ORDER BY c.relname;
END;
$$;

-- Functions that depend on one of the tables or on its row type, with
-- what re-creating them takes.
CREATE OR REPLACE FUNCTION pymem._table_dependents(tables regclass[])
RETURNS TABLE (fn oid, kind text, signature text, acl aclitem[], owner oid)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT
        f.oid,
        CASE f.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
        f.oid::regprocedure::text,
        f.proacl,
        f.proowner
    FROM pg_proc AS f
    WHERE f.oid IN (
        SELECT d.objid
        FROM pg_depend AS d
        INNER JOIN pg_class AS t ON t.oid = ANY(tables)
        LEFT JOIN pg_type AS rowtype ON rowtype.oid = t.reltype
        WHERE d.classid = 'pg_proc'::regclass
            AND d.refobjid IN (t.oid, t.reltype, rowtype.typarray)
    )
    ORDER BY f.oid
$$;

-- The number of hash partitions of pymem.memories, NULL for a plain table.
CREATE OR REPLACE FUNCTION pymem.store_partitions()
RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT nullif(count(i.inhrelid), 0)::integer
    FROM pg_inherits AS i
    WHERE i.inhparent = to_regclass('pymem.memories')
$$;
