-- How recall's statements are planned (sql/30_recall.sql, sql/30_recall_plain.sql).

-- Recall's ranking statements are planned once per session (one generic plan,
-- whose leaves a partitioned store prunes when it runs), except on a store
-- distributed with Citus: Citus cannot make a distributed plan of them with their
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
    v_generic boolean := pymem.store_shards() IS NULL;
    v_function regprocedure;
BEGIN
    -- recall and the plain question's pass (sql/30_recall_plain.sql)
    FOR v_function IN
        SELECT p.oid::regprocedure FROM pg_proc AS p
        WHERE p.pronamespace = 'pymem'::regnamespace
            AND p.proname IN ('recall', '_plain_recall_pass')
            AND v_generic IS DISTINCT FROM coalesce(
                'plan_cache_mode=force_generic_plan' = ANY(p.proconfig), FALSE
            )
    LOOP
        EXECUTE format(
            'ALTER FUNCTION %s %s', v_function,
            CASE WHEN v_generic THEN 'SET plan_cache_mode = force_generic_plan'
                ELSE 'RESET plan_cache_mode' END
        );
    END LOOP;
END;
$$;

SELECT pymem._fit_recall_plans();
