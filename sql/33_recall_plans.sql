-- How recall's statement is planned (sql/30_recall.sql).

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
