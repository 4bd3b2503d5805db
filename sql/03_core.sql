-- What every function leans on: the store's settings row, the per-user
-- lock that serializes one user's writers, and the stronger of two
-- sources (a restatement never weakens a memory's or a fact's source).

CREATE OR REPLACE FUNCTION pymem._settings()
RETURNS pymem.settings
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN (SELECT s FROM pymem.settings AS s);

-- Serializes one user's writers: dedup reads then writes, and two
-- concurrent transactions must not both decide "inserted". Under
-- REPEATABLE READ the snapshot predates the lock, so the second writer
-- would not see the first one's row: refused. (SERIALIZABLE is safe:
-- one of two conflicting writers gets a serialization failure.)
CREATE OR REPLACE FUNCTION pymem._lock_user(user_id text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    IF current_setting('transaction_isolation') = 'repeatable read' THEN
        RAISE EXCEPTION 'pymem writes need READ COMMITTED or SERIALIZABLE isolation, '
            'this transaction is REPEATABLE READ'
            USING ERRCODE = 'PM014',
                HINT = 'Its snapshot predates the per-user lock: two writers could both '
                    'store the same fact.';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('pymem.user:' || user_id, 0));
END;
$$;

CREATE OR REPLACE FUNCTION pymem._stronger_source(a text, b text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN CASE
    WHEN 'confirmed' IN (a, b) THEN 'confirmed'
    WHEN 'stated' IN (a, b) THEN 'stated'
    ELSE coalesce(a, b)
END;
