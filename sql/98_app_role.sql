-- The application role pymem_app and the row-level security that confines
-- it to one user's rows (grants: 99_grants.sql).

-- Roles are cluster-wide, outside any dump of the database: a store
-- restored into a new cluster comes back without pymem_app, its policies
-- and its grants (each statement naming the role failed). The role is made
-- here, as migration 0002 made it first, so that every migrate (and
-- pymem.setup(), for a store installed as an extension) repairs such a
-- store; a role that may not create roles is told what to run instead.
CREATE OR REPLACE FUNCTION pymem._create_app_role()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pymem_app') THEN
        CREATE ROLE pymem_app NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- another database's migrate made it meanwhile: roles are cluster-wide
    WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the role pymem_app does not exist, and % may not create it', current_user
        USING ERRCODE = 'PM052',
            HINT = 'As a superuser: CREATE ROLE pymem_app NOLOGIN (or restore the roles first: '
                'pg_dumpall --roles-only), then run pymem migrate (or pymem.setup()) again.';
END;
$$;

SELECT pymem._create_app_role();

-- Every table of users' rows has row-level security and the policy
-- <table>_of_current_user: pymem_app sees and changes only the rows of the
-- user in pymem.user_id. The migration that made each table made its
-- policy; this re-creates one that is missing (a restore before the role
-- existed, a policy dropped by hand) or no longer as made (a USING (true)
-- would show every user's rows), and leaves one as made alone, so a migrate
-- takes no table lock when nothing is wrong. Another policy on these tables
-- is reported by pymem check, not dropped: it may be yours. The tables are
-- named: a table of yours in schema pymem is not pymem's to change.
-- (A migration that adds a table of users' rows adds it here too:
-- tests/test_backup.py drops every policy and expects migrate to restore
-- what a fresh install has.)
CREATE OR REPLACE FUNCTION pymem._secure_user_tables()
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_table record;
    -- the rule as PostgreSQL prints it back
    v_rule text := '(user_id = current_setting(''pymem.user_id''::text, true))';
    v_app oid := (SELECT r.oid FROM pg_roles AS r WHERE r.rolname = 'pymem_app');
BEGIN
    FOR v_table IN
        SELECT c.oid::regclass AS name, c.relname, c.relrowsecurity, p.polname IS NOT NULL AS has_policy,
            p.polname IS NOT NULL AND NOT (
                p.polcmd = '*' AND p.polpermissive AND p.polroles = ARRAY[v_app]
                AND pg_get_expr(p.polqual, p.polrelid) IS NOT DISTINCT FROM v_rule
                AND pg_get_expr(p.polwithcheck, p.polrelid) IS NOT DISTINCT FROM v_rule
            ) AS policy_changed
        FROM pg_class AS c
        LEFT JOIN pg_policy AS p
            ON p.polrelid = c.oid AND p.polname = c.relname || '_of_current_user'
        WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind IN ('r', 'p')
            AND c.relname IN (SELECT t.table_name FROM pymem._user_tables() AS t)
        ORDER BY c.relname
    LOOP
        IF NOT v_table.relrowsecurity THEN
            EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_table.name);
            RETURN NEXT format('row level security enabled on pymem.%s', v_table.relname);
        END IF;
        IF v_table.policy_changed THEN
            EXECUTE format('DROP POLICY %I ON %s', v_table.relname || '_of_current_user', v_table.name);
        END IF;
        IF NOT v_table.has_policy OR v_table.policy_changed THEN
            EXECUTE format(
                'CREATE POLICY %I ON %s FOR ALL TO pymem_app'
                ' USING (user_id = current_setting(''pymem.user_id'', TRUE))'
                ' WITH CHECK (user_id = current_setting(''pymem.user_id'', TRUE))',
                v_table.relname || '_of_current_user', v_table.name
            );
            RETURN NEXT format('policy %s_of_current_user made again', v_table.relname);
        END IF;
    END LOOP;
END;
$$;

SELECT pymem._secure_user_tables();
