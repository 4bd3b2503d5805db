-- Invariants for every writer, the API or a hand-written UPDATE: any
-- change of a memory's content, embedding or structure keeps the earlier
-- state in memory_versions, bumps version and updated_at. Touches and
-- decay (counters, last_access_at, tier) do not fire these triggers, so
-- they stay cheap HOT updates.

-- SECURITY DEFINER: the application role may not write history itself
-- (no INSERT grant on memory_versions), only through this trigger. So
-- its search_path holds no schema another role can create objects in:
-- a function planted in public (to_jsonb(pymem.memories), say) would
-- otherwise run with the owner's rights. Everything here is pg_catalog
-- or qualified.
CREATE OR REPLACE FUNCTION pymem._record_memory_version()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- The API says why through a transaction-local setting; a plain
    -- UPDATE or DELETE is recorded as such.
    INSERT INTO pymem.memory_versions
        (user_id, memory_id, version, content, embedding, previous, reason)
    VALUES (
        OLD.user_id, OLD.id, OLD.version, OLD.content, OLD.embedding,
        pg_catalog.to_jsonb(OLD) OPERATOR(pg_catalog.-) 'embedding',
        coalesce(
            nullif(pg_catalog.current_setting('pymem.change_reason', true), ''),
            pg_catalog.lower(TG_OP)
        )
    );
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.version := OLD.version + 1;
    NEW.updated_at := now();
    RETURN NEW;
END;
$$;

-- The triggers, in a function because a change of the embedding
-- column's type must drop the one that reads it (pymem._set_dimensions).
CREATE OR REPLACE FUNCTION pymem._create_history_triggers()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    CREATE OR REPLACE TRIGGER memories_version_on_change
    BEFORE UPDATE ON pymem.memories
    FOR EACH ROW
    WHEN (
        old.content IS DISTINCT FROM new.content
        OR old.embedding IS DISTINCT FROM new.embedding
        OR old.kind IS DISTINCT FROM new.kind
        OR old.canonical IS DISTINCT FROM new.canonical
        OR old.topic IS DISTINCT FROM new.topic
        OR old.details IS DISTINCT FROM new.details
        OR old.consolidated_into IS DISTINCT FROM new.consolidated_into
        OR old.deleted_at IS DISTINCT FROM new.deleted_at
    )
    EXECUTE FUNCTION pymem._record_memory_version();

    CREATE OR REPLACE TRIGGER memories_version_on_delete
    BEFORE DELETE ON pymem.memories
    FOR EACH ROW
    EXECUTE FUNCTION pymem._record_memory_version();
END;
$$;

SELECT pymem._create_history_triggers();

-- The reason the history trigger records for this transaction's next
-- changes ('' restores the default: the statement's own verb).
CREATE OR REPLACE FUNCTION pymem._set_change_reason(reason text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    PERFORM set_config('pymem.change_reason', coalesce(reason, ''), true);
END;
$$;
