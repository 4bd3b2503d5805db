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

-- Grants for the application role.
-- Functions are SECURITY INVOKER: they run with pymem_app's rights, under
-- its policies.

-- pymem.setup() (an extension's install) and every load of sql/ (pymem
-- migrate, 99_grants.sql) grant through this one function. Defined here,
-- before the last file: migrate drops the functions the files before the
-- last one did not make again.
CREATE OR REPLACE FUNCTION pymem._grant_app_role()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    f regprocedure;
BEGIN
    GRANT USAGE ON SCHEMA pymem TO pymem_app;
    GRANT SELECT, INSERT, UPDATE ON pymem.memories, pymem.reviews TO pymem_app;
    -- consolidation: records are undone (undone_at), announcements cleared
    GRANT SELECT, INSERT, UPDATE ON pymem.consolidations TO pymem_app;
    GRANT SELECT, INSERT, DELETE ON pymem.consolidation_announcements TO pymem_app;
    -- wordings (0022): written by the invoker write path, never changed
    GRANT SELECT, INSERT ON pymem.memory_wordings TO pymem_app;
    -- history is written only by the SECURITY DEFINER trigger
    GRANT SELECT ON pymem.memory_versions TO pymem_app;
    REVOKE INSERT ON pymem.memory_versions FROM pymem_app;
    GRANT SELECT, INSERT, UPDATE, DELETE ON pymem.contacts, pymem.contact_aliases, pymem.contact_links
    TO pymem_app;
    GRANT SELECT, INSERT, UPDATE ON pymem.contact_history TO pymem_app;
    GRANT SELECT ON pymem.settings, pymem.kinds, pymem.goal_metrics, pymem.schema_info TO pymem_app;
    -- facts (0005): fact history is written by the invoker functions, so the
    -- app may insert it (its own user's rows only, RLS); policies are global
    GRANT SELECT, INSERT, UPDATE ON pymem.facts TO pymem_app;
    GRANT SELECT, INSERT ON pymem.fact_history TO pymem_app;
    GRANT SELECT ON pymem.fact_policies TO pymem_app;
    -- import (0011): a batch and how far its file got commit together
    GRANT SELECT, INSERT, UPDATE ON pymem.import_progress TO pymem_app;
    -- the worker's jobs (0023): claims come and go, reflections are recorded
    GRANT SELECT, INSERT, UPDATE, DELETE ON pymem.job_claims TO pymem_app;
    GRANT SELECT, INSERT, UPDATE ON pymem.reflections TO pymem_app;
    GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pymem TO pymem_app;
    GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA pymem TO pymem_app;

    -- Store administration stays with the owner.
    REVOKE EXECUTE ON FUNCTION pymem.configure_embedder(
        text, double precision, double precision, double precision, boolean, double precision,
        double precision, double precision
    ) FROM pymem_app, public;
    REVOKE EXECUTE ON FUNCTION pymem._set_dimensions(integer) FROM pymem_app, public;
    REVOKE EXECUTE ON FUNCTION pymem.set_fact_policy(text, text) FROM pymem_app, public;
    REVOKE EXECUTE ON FUNCTION pymem.partition_by_user(integer) FROM pymem_app, public;
    REVOKE EXECUTE ON FUNCTION pymem.distribute_by_user(integer) FROM pymem_app, public;
    -- Helpers that no invoker path needs (docs/sql-api.md, "Security"): the
    -- trigger functions (a trigger fires without an EXECUTE check), the
    -- history-reason signature and the stack check (called only by SECURITY
    -- DEFINER functions, as the owner), the DDL helpers of migrate. Every
    -- other private helper is called by the API functions as the app role, so
    -- it keeps EXECUTE; the ones that write take the per-user lock themselves
    -- or only run inside a public function's lock.
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_proc AS p
        WHERE p.pronamespace = 'pymem'::regnamespace
            AND (
                p.prorettype = 'trigger'::regtype
                OR p.proname IN (
                    '_reason_mac', '_pymem_stack', '_create_history_triggers', '_secure_user_tables',
                    '_sync_partition_security', '_table_dependents',
                    '_citus_create_outbox', '_citus_distribute_tables',
                    '_citus_distribute_functions', '_citus_distribute_types', '_citus_regrant',
                    '_fit_recall_plans', '_create_app_role', '_grant_app_role',
                    '_seed_configuration', 'setup'
                )
            )
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM pymem_app, public', f);
    END LOOP;
END;
$$;
