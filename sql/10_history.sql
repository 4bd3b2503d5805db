-- Invariants for every writer, the API or a hand-written UPDATE: any
-- change of a memory's content, embedding or structure keeps the earlier
-- state in memory_versions, bumps version and updated_at. Touches and
-- decay (counters, last_access_at, tier) do not fire these triggers, so
-- they stay cheap HOT updates.

-- Who called: true when every function on the call stack (a PL/pgSQL
-- context as GET DIAGNOSTICS PG_CONTEXT reports it) is a pymem function and
-- there are at least min_frames of them. A frame names a function by
-- signature; it is trusted only when exactly one function in the database
-- has that name and argument types and it lives in schema pymem (a
-- look-alike planted in another schema makes the frame untrusted: fail
-- closed). Text of SQL statements in the context can imitate frame lines,
-- but only text written by the caller's own code: a caller that is not
-- pymem is itself a real frame, so it is always seen.
CREATE OR REPLACE FUNCTION pymem._pymem_stack(context text, min_frames integer)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_line text;
    v_sig text[];
    v_frames integer := 0;
BEGIN
    FOREACH v_line IN ARRAY pg_catalog.string_to_array(context, E'\n') LOOP
        IF pg_catalog.starts_with(v_line, 'PL/pgSQL function ') THEN
            v_sig := pg_catalog.regexp_match(
                v_line, '^PL/pgSQL function (?:pymem\.)?([a-z_][a-z0-9_]*)\(([^()]*)\)'
            );
            IF v_sig IS NULL OR (
                SELECT pg_catalog.count(*) OPERATOR(pg_catalog.<>) 1
                    OR NOT pg_catalog.bool_and(
                        p.pronamespace OPERATOR(pg_catalog.=) 'pymem'::pg_catalog.regnamespace
                    )
                FROM pg_catalog.pg_proc AS p
                WHERE p.proname OPERATOR(pg_catalog.=) v_sig[1]::pg_catalog.name
                    AND pg_catalog.replace(pg_catalog.oidvectortypes(p.proargtypes), ', ', ',')
                    OPERATOR(pg_catalog.=) v_sig[2]
            ) THEN
                RETURN false;
            END IF;
            v_frames := v_frames + 1;
        ELSIF pg_catalog.starts_with(v_line, 'SQL function ') THEN
            v_sig := pg_catalog.regexp_match(v_line, '^SQL function "([a-z_][a-z0-9_]*)"');
            IF v_sig IS NULL OR (
                SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 0
                    OR NOT pg_catalog.bool_and(
                        p.pronamespace OPERATOR(pg_catalog.=) 'pymem'::pg_catalog.regnamespace
                    )
                FROM pg_catalog.pg_proc AS p
                WHERE p.proname OPERATOR(pg_catalog.=) v_sig[1]::pg_catalog.name
            ) THEN
                RETURN false;
            END IF;
            v_frames := v_frames + 1;
        END IF;
    END LOOP;
    RETURN v_frames >= min_frames;
END;
$$;

-- The signature of a history reason: only the owner can read the key
-- (migrations/0008), so only SECURITY DEFINER functions can sign or check.
CREATE OR REPLACE FUNCTION pymem._reason_mac(reason text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
RETURN pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(
    pg_catalog.concat_ws(
        ':',
        (SELECT k.key FROM pymem.history_key AS k),
        pg_catalog.pg_current_xact_id(),
        reason
    ),
    'UTF8'
)), 'hex');

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
DECLARE
    v_reason text := nullif(pg_catalog.current_setting('pymem.change_reason', true), '');
BEGIN
    -- The API says why through a transaction-local setting signed by
    -- pymem._set_change_reason; an unsigned or forged reason, and a
    -- plain UPDATE or DELETE, are recorded as the statement's verb.
    IF v_reason IS NOT NULL
        AND pg_catalog.current_setting('pymem.change_reason_mac', true)
        IS DISTINCT FROM pymem._reason_mac(v_reason) THEN
        v_reason := NULL;
    END IF;
    INSERT INTO pymem.memory_versions
        (user_id, memory_id, version, content, embedding, previous, reason)
    VALUES (
        OLD.user_id, OLD.id, OLD.version, OLD.content, OLD.embedding,
        pg_catalog.to_jsonb(OLD) OPERATOR(pg_catalog.-) 'embedding',
        coalesce(v_reason, pg_catalog.lower(TG_OP))
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
-- changes (NULL or '' restores the default: the statement's own verb).
-- SECURITY DEFINER to sign the reason with the owner's key. Only pymem's
-- functions set reasons: a direct call is refused (PM050); called from a
-- stack that holds any function outside pymem (an app's own PL/pgSQL
-- wrapping a pymem call), the reason is dropped and history records the
-- verb. Setting pymem.change_reason by hand records the verb too (no
-- signature).
CREATE OR REPLACE FUNCTION pymem._set_change_reason(reason text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_context text;
    v_reason text := coalesce(reason, '');
BEGIN
    GET DIAGNOSTICS v_context = PG_CONTEXT;
    IF pg_catalog.strpos(v_context, E'\n') OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'pymem._set_change_reason is internal to pymem''s functions'
            USING ERRCODE = 'PM050',
                HINT = 'History reasons are set by pymem''s API; a plain UPDATE is '
                    'recorded as update.';
    END IF;
    IF v_reason OPERATOR(pg_catalog.<>) '' AND NOT pymem._pymem_stack(v_context, 2) THEN
        v_reason := '';
    END IF;
    PERFORM pg_catalog.set_config('pymem.change_reason', v_reason, true);
    PERFORM pg_catalog.set_config(
        'pymem.change_reason_mac',
        CASE WHEN v_reason OPERATOR(pg_catalog.=) '' THEN '' ELSE pymem._reason_mac(v_reason) END,
        true
    );
END;
$$;
