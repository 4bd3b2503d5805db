-- Grants for the application role (the role and its row-level security:
-- 98_app_role.sql). Kept last so that every function above exists.
-- Functions are SECURITY INVOKER: they run with pymem_app's rights, under
-- its policies.

-- pymem.setup() (an extension's install) and every load of sql/ (pymem
-- migrate) grant through this one function.
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

SELECT pymem._grant_app_role();

-- The leaves of a partitioned store get their parents' policies and
-- privileges (sql/95_partitions.sql); nothing to do on a plain store.
SELECT pymem._sync_partition_security();
