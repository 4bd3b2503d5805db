-- Invariants for every writer, the API or a hand-written UPDATE: any
-- change of a memory's content, embedding or structure keeps the earlier
-- state in memory_versions, bumps version and updated_at. Touches and
-- decay (counters, last_access_at, tier) do not fire these triggers, so
-- they stay cheap HOT updates.

-- Who called: true when every function on the call stack (a PL/pgSQL
-- context as GET DIAGNOSTICS PG_CONTEXT reports it) is a pymem function,
-- there are at least min_frames of them, and the outermost one is part of
-- the API: a private helper called directly (pymem._consolidate with a
-- reason of the caller's) is not pymem deciding why. A frame names a function by
-- signature; it is trusted only when every function in the database with
-- that name and argument types lives in schema pymem, or in pymem_citus
-- (the owner's copies of pymem's bodies on a store distributed with Citus,
-- sql/96_citus_functions.sql): a look-alike planted in another schema makes the
-- frame untrusted (fail closed). Text of SQL statements in the context can imitate frame lines,
-- but only text written by the caller's own code: a caller that is not
-- pymem is itself a real frame, so it is always seen. A SQL-language
-- function's frame is never trusted: it prints the name unquoted, so a
-- function named 'undo" x' (or one holding a line break and a frame line)
-- passed for pymem's, and none of pymem's SQL functions calls a writer (a
-- catalog test holds it: the typed upsert_memories overload was one).
CREATE OR REPLACE FUNCTION pymem._pymem_stack(context text, min_frames integer)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_line text;
    v_sig text[];
    v_frames integer := 0;
    v_outermost text;
    v_citus regnamespace := coalesce(
        pg_catalog.to_regnamespace('pymem_citus'), 'pymem'::pg_catalog.regnamespace
    );
BEGIN
    FOREACH v_line IN ARRAY pg_catalog.string_to_array(context, E'\n') LOOP
        IF pg_catalog.starts_with(v_line, 'PL/pgSQL function ') THEN
            v_sig := pg_catalog.regexp_match(
                v_line,
                '^PL/pgSQL function (?:(pymem|pymem_citus)\.)?([a-z_][a-z0-9_]*)\(([^()]*)\)'
            );
            IF v_sig IS NULL OR (
                SELECT pg_catalog.count(*) OPERATOR(pg_catalog.=) 0
                    OR NOT pg_catalog.bool_and(
                        p.pronamespace OPERATOR(pg_catalog.=) 'pymem'::pg_catalog.regnamespace
                        OR p.pronamespace OPERATOR(pg_catalog.=) v_citus
                    )
                FROM pg_catalog.pg_proc AS p
                WHERE p.proname OPERATOR(pg_catalog.=) v_sig[2]::pg_catalog.name
                    AND pg_catalog.replace(pg_catalog.oidvectortypes(p.proargtypes), ', ', ',')
                    OPERATOR(pg_catalog.=) v_sig[3]
            ) THEN
                RETURN false;
            END IF;
            v_frames := v_frames + 1;
            -- the context lists the innermost frame first
            v_outermost := v_sig[2];
        ELSIF pg_catalog.starts_with(v_line, 'SQL function ') THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN v_frames >= min_frames AND NOT pg_catalog.starts_with(v_outermost, '_');
END;
$$;

-- The signature of a history reason: only the owner can read the key
-- (migrations/0008), so only SECURITY DEFINER functions can sign or check.
CREATE OR REPLACE FUNCTION pymem._reason_mac(reason text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(
        pg_catalog.concat_ws(
            ':',
            (SELECT k.key FROM pymem.history_key AS k),
            pg_catalog.pg_current_xact_id(),
            reason
        ),
        'UTF8'
    )), 'hex')
$$;

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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    CREATE OR REPLACE TRIGGER memories_version_on_change
    BEFORE UPDATE ON pymem.memories
    FOR EACH ROW
    WHEN (
        old.content IS DISTINCT FROM new.content
        -- <>, not IS DISTINCT FROM: pg_dump prints IS DISTINCT FROM without the
        -- operator's schema, and a restore (whose search_path is empty) could not
        -- find pgvector's = and lost the trigger; an operator it prints qualified.
        -- The column is NOT NULL, so the two agree.
        OR old.embedding <> new.embedding
        OR old.kind IS DISTINCT FROM new.kind
        OR old.canonical IS DISTINCT FROM new.canonical
        OR old.topic IS DISTINCT FROM new.topic
        OR old.details IS DISTINCT FROM new.details
        OR old.consolidated_into IS DISTINCT FROM new.consolidated_into
        OR old.deleted_at IS DISTINCT FROM new.deleted_at
        -- a hand-written version is the trigger's to set: version 1 again made the
        -- next change's history row collide with the first one's (23505), for good
        OR old.version IS DISTINCT FROM new.version
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

-- Undo: the memory takes the state of an earlier version again
-- (by default the one before its latest change), and the state it leaves
-- is recorded as a version like any change (reason 'undo: ...'). So the
-- next undo restores what this one undid: undo twice = redo. Restored:
-- content, embedding, canonical, topic, details, kind, consolidated_into,
-- deleted_at (what versions track), importance and valid_until;
-- counters, source, pinned, tier and metadata stay as they are.
-- Returns the version whose state was restored.
CREATE OR REPLACE FUNCTION pymem.undo(
    user_id text, memory_id uuid, to_version integer DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_mem record;
    v_ver pymem.memory_versions;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._lock_user(user_id);
    -- a deleted memory too: undo brings it back
    PERFORM pymem._check_live_memories(user_id, ARRAY[memory_id], include_deleted => true);
    SELECT m.id, m.version, m.consolidated_into INTO v_mem
    FROM pymem.memories AS m
    WHERE m.user_id = undo.user_id AND m.id = undo.memory_id
    FOR UPDATE;
    IF to_version IS NOT NULL AND to_version >= v_mem.version THEN
        RAISE EXCEPTION 'memory % is at version %: to_version % is not an earlier one',
            memory_id, v_mem.version, to_version
            USING ERRCODE = 'PM026';
    END IF;
    SELECT v.* INTO v_ver
    FROM pymem.memory_versions AS v
    WHERE v.user_id = undo.user_id AND v.memory_id = undo.memory_id
        AND v.version = coalesce(undo.to_version, v_mem.version - 1);
    IF NOT found THEN
        RAISE EXCEPTION 'memory % has no version % to restore (it is at version %)',
            memory_id, coalesce(to_version, v_mem.version - 1), v_mem.version
            USING ERRCODE = 'PM026',
                HINT = 'A memory that was never changed has nothing to undo.';
    END IF;
    -- Membership of a consolidation has its own undo, which also restores
    -- the fragments' importance and links and keeps pymem.consolidations true.
    IF (v_ver.previous ->> 'consolidated_into')::uuid IS DISTINCT FROM v_mem.consolidated_into THEN
        RAISE EXCEPTION 'undo of memory % would % the consolidation %', memory_id,
            CASE WHEN v_mem.consolidated_into IS NULL THEN 'put it back into' ELSE 'take it out of' END,
            coalesce(v_mem.consolidated_into, (v_ver.previous ->> 'consolidated_into')::uuid)
            USING ERRCODE = 'PM046',
                HINT = 'pymem.unconsolidate(user_id, <the consolidation>) undoes a consolidation.';
    END IF;
    -- The record of an undone consolidation: restored, it would stand live
    -- beside the fragments unconsolidate gave back; they are consolidated
    -- again with consolidate, which makes a new record.
    IF (v_ver.previous ->> 'deleted_at') IS NULL AND EXISTS (
        SELECT FROM pymem.consolidations AS c
        WHERE c.user_id = undo.user_id AND c.id = undo.memory_id AND c.undone_at IS NOT NULL
    ) THEN
        RAISE EXCEPTION 'memory % is a consolidation that unconsolidate undid; undo cannot '
            'bring it back beside its fragments', memory_id
            USING ERRCODE = 'PM046',
                HINT = 'Consolidate the fragments again with pymem.consolidate.';
    END IF;
    PERFORM pymem._set_change_reason(format('undo: restored version %s (%s)',
        v_ver.version, v_ver.reason));
    UPDATE pymem.memories AS m
    SET content = v_ver.content,
        embedding = v_ver.embedding,
        canonical = v_ver.previous ->> 'canonical',
        topic = v_ver.previous ->> 'topic',
        details = coalesce(v_ver.previous -> 'details', '{}'),
        kind = v_ver.previous ->> 'kind',
        consolidated_into = (v_ver.previous ->> 'consolidated_into')::uuid,
        deleted_at = (v_ver.previous ->> 'deleted_at')::timestamptz,
        importance = coalesce((v_ver.previous ->> 'importance')::double precision, m.importance),
        valid_until = (v_ver.previous ->> 'valid_until')::timestamptz
    WHERE m.user_id = undo.user_id AND m.id = undo.memory_id;
    PERFORM pymem._set_change_reason(NULL);
    RETURN v_ver.version;
END;
$$;
