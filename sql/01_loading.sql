-- What loading sql/ itself needs. Every file runs in the one transaction of
-- `pymem migrate` (and of yoyo's post-apply hook), so a function that must be
-- dropped to change is dropped and made again atomically: a writer never
-- finds the API missing halfway through an upgrade.

-- CREATE OR REPLACE cannot change a function's result type: drop the function
-- of this signature when it returns another type than `result`, just before
-- the file that defines it makes it again.
CREATE OR REPLACE FUNCTION pymem._drop_if_result_differs(signature text, result regtype)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_function regprocedure := to_regprocedure(signature);
BEGIN
    IF v_function IS NOT NULL
        AND (SELECT p.prorettype FROM pg_proc AS p WHERE p.oid = v_function) <> result THEN
        EXECUTE format('DROP FUNCTION %s', v_function);
    END IF;
END;
$$;

-- The same for a function whose columns (OUT parameters, RETURNS TABLE)
-- change: its result type stays `record`, so the columns are compared, as
-- pg_get_function_result() spells them.
CREATE OR REPLACE FUNCTION pymem._drop_if_columns_differ(signature text, result text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_function regprocedure := to_regprocedure(signature);
BEGIN
    IF v_function IS NOT NULL AND pg_get_function_result(v_function) <> result THEN
        EXECUTE format('DROP FUNCTION %s', v_function);
    END IF;
END;
$$;
