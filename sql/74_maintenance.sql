-- A reviewer's maintenance plan (DESIGN: "Consolidation", docs/sql-api.md
-- "apply_maintenance"): merge, update, delete and no-change ops, every op
-- checked before any is applied, all applied in one transaction.

-- The target of an update, delete or no-change op: a live memory of this
-- user; update and delete also refuse a consolidated fragment.
CREATE OR REPLACE FUNCTION pymem._maintenance_target(
    user_id text, memory_id uuid, writes boolean, label text
)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_into uuid;
BEGIN
    PERFORM pymem._check_live_memories(user_id, ARRAY[memory_id], label => label);
    SELECT m.consolidated_into INTO v_into
    FROM pymem.memories AS m
    WHERE m.user_id = _maintenance_target.user_id AND m.id = _maintenance_target.memory_id;
    IF writes AND v_into IS NOT NULL THEN
        RAISE EXCEPTION '%memory % is consolidated into %', label, memory_id, v_into
            USING ERRCODE = 'PM041',
                HINT = 'Change the consolidated record, or unconsolidate it first.';
    END IF;
END;
$$;

-- A reviewer's plan: a JSON array of at most 100 ops, checked whole before
-- any is applied, applied in order in this transaction; any error names
-- the op's 1-based index and applies nothing.
CREATE OR REPLACE FUNCTION pymem.apply_maintenance(user_id text, ops jsonb)
RETURNS TABLE (op_index integer, op text, memory_id uuid, result text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    c_max_ops constant integer := 100;
    v_cfg pymem.settings := pymem._settings();
    v_op jsonb;
    v_i integer;
    v_label text;
    v_name text;
    v_bad text;
    v_required text[];
    v_allowed text[];
    v_id uuid;
    v_res record;
BEGIN
    PERFORM pymem._check_user(user_id);
    IF ops IS NULL OR jsonb_typeof(ops) <> 'array' THEN
        RAISE EXCEPTION 'ops must be a JSON array of objects, got %',
            coalesce(jsonb_typeof(ops), 'NULL')
            USING ERRCODE = 'PM043';
    END IF;
    IF jsonb_array_length(ops) > c_max_ops THEN
        RAISE EXCEPTION 'a maintenance plan holds at most % ops, got %',
            c_max_ops, jsonb_array_length(ops)
            USING ERRCODE = 'PM044',
                HINT = 'Split the plan into several calls.';
    END IF;

    -- 1. Every op's shape, before anything is applied.
    FOR v_op, v_i IN
        SELECT e.value, e.ordinality::integer
        FROM jsonb_array_elements(ops) WITH ORDINALITY AS e
    LOOP
        v_label := format('op %s: ', v_i);
        IF jsonb_typeof(v_op) <> 'object' THEN
            RAISE EXCEPTION '%must be a JSON object, got %', v_label, jsonb_typeof(v_op)
                USING ERRCODE = 'PM043';
        END IF;
        v_name := CASE WHEN jsonb_typeof(v_op -> 'op') = 'string' THEN v_op ->> 'op' END;
        v_required := CASE v_name
            WHEN 'merge' THEN ARRAY['op', 'ids', 'content', 'embedding']
            WHEN 'update' THEN ARRAY['op', 'id', 'content', 'embedding']
            WHEN 'delete' THEN ARRAY['op', 'id']
            WHEN 'no-change' THEN ARRAY['op', 'id']
        END;
        IF v_required IS NULL THEN
            RAISE EXCEPTION '%unknown op %', v_label, coalesce((v_op -> 'op')::text, 'NULL')
                USING ERRCODE = 'PM043',
                    HINT = 'Ops: merge, update, delete, no-change.';
        END IF;
        -- reason: why (a reviewer's or a model's words), kept in the history
        v_allowed := v_required || ARRAY['reason']
            || CASE WHEN v_name = 'merge' THEN ARRAY['details'] END;
        SELECT string_agg(k, ', ' ORDER BY k) INTO v_bad
        FROM unnest(v_required) AS k
        WHERE jsonb_typeof(v_op -> k) IS NULL OR jsonb_typeof(v_op -> k) = 'null';
        IF v_bad IS NOT NULL THEN
            RAISE EXCEPTION '%', format('%s%s needs %s', v_label, v_name, v_bad)
                USING ERRCODE = 'PM043';
        END IF;
        SELECT string_agg(k, ', ' ORDER BY k) INTO v_bad
        FROM jsonb_object_keys(v_op) AS k
        WHERE k <> ALL(v_allowed);
        IF v_bad IS NOT NULL THEN
            RAISE EXCEPTION '%unknown key(s) % for %', v_label, v_bad, v_name
                USING ERRCODE = 'PM043',
                    HINT = format('%s takes %s.', v_name, array_to_string(v_allowed, ', '));
        END IF;
        SELECT string_agg(format('%s must be a JSON %s', spec.key, spec.type), ', ')
        INTO v_bad
        FROM (VALUES
            ('ids', 'array'), ('id', 'string'), ('content', 'string'),
            ('embedding', 'array'), ('details', 'object'), ('reason', 'string')
        ) AS spec (key, type)
        WHERE v_op ? spec.key AND jsonb_typeof(v_op -> spec.key) <> spec.type;
        IF v_bad IS NOT NULL THEN
            RAISE EXCEPTION '%', v_label || v_bad USING ERRCODE = 'PM043';
        END IF;
        IF jsonb_path_exists(
            coalesce(v_op -> 'ids', '[]')
            || CASE WHEN v_op ? 'id' THEN jsonb_build_array(v_op -> 'id') ELSE '[]' END,
            'strict $[*] ? (@.type() != "string" || !(@ like_regex '
            '"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"))'
        ) THEN
            RAISE EXCEPTION '%memory ids must be uuid strings', v_label
                USING ERRCODE = 'PM043';
        END IF;
        IF v_op ? 'embedding' THEN
            IF jsonb_path_exists(v_op -> 'embedding', 'strict $[*] ? (@.type() != "number")') THEN
                RAISE EXCEPTION '%embedding must be an array of numbers', v_label
                    USING ERRCODE = 'PM005';
            END IF;
            IF jsonb_array_length(v_op -> 'embedding') <> v_cfg.embedding_dimensions THEN
                RAISE EXCEPTION '%embedding has % dimensions, this store expects %', v_label,
                    jsonb_array_length(v_op -> 'embedding'), v_cfg.embedding_dimensions
                    USING ERRCODE = 'PM004';
            END IF;
        END IF;
    END LOOP;

    PERFORM pymem._lock_user(user_id);
    -- 2. Apply in order; an error (an unknown id, a guard) undoes it all.
    FOR v_op, v_i IN
        SELECT e.value, e.ordinality::integer
        FROM jsonb_array_elements(ops) WITH ORDINALITY AS e
    LOOP
        v_label := format('op %s: ', v_i);
        v_name := v_op ->> 'op';
        v_id := (v_op ->> 'id')::uuid;
        op_index := v_i;
        op := v_name;
        IF v_name = 'merge' THEN
            SELECT * INTO STRICT v_res FROM pymem._consolidate(
                user_id,
                array(SELECT x::uuid FROM jsonb_array_elements_text(v_op -> 'ids') AS x),
                v_op ->> 'content',
                (v_op ->> 'embedding')::vector,
                coalesce(v_op -> 'details', '{}'),
                v_cfg,
                v_label,
                -- the sources' history: 'consolidated into <record>', or the op's reason
                reason => 'maintenance: merge: ' || left(v_op ->> 'reason', 500)
            );
            memory_id := v_res.memory_id;
            result := CASE v_res.action WHEN 'existing' THEN 'already merged' ELSE 'merged' END;
        ELSIF v_name = 'update' THEN
            PERFORM pymem._maintenance_target(user_id, v_id, true, v_label);
            PERFORM pymem._check_content(
                v_op ->> 'content', v_cfg.max_content_chars, v_label || 'content'
            );
            PERFORM pymem._check_embedding(
                (v_op ->> 'embedding')::vector, v_cfg.embedding_dimensions,
                v_label || 'embedding'
            );
            PERFORM pymem._set_change_reason(
                'maintenance: update' || coalesce(': ' || left(v_op ->> 'reason', 500), '')
            );
            UPDATE pymem.memories AS m
            SET content = v_op ->> 'content',
                embedding = (v_op ->> 'embedding')::vector,
                -- the old canonical statement described the old content
                canonical = NULL
            WHERE m.user_id = apply_maintenance.user_id AND m.id = v_id;
            PERFORM pymem._set_change_reason(NULL);
            memory_id := v_id;
            result := 'updated';
        ELSIF v_name = 'delete' THEN
            PERFORM pymem._maintenance_target(user_id, v_id, true, v_label);
            PERFORM pymem._set_change_reason(
                'maintenance: delete' || coalesce(': ' || left(v_op ->> 'reason', 500), '')
            );
            UPDATE pymem.memories AS m
            SET deleted_at = now()
            WHERE m.user_id = apply_maintenance.user_id AND m.id = v_id;
            PERFORM pymem._set_change_reason(NULL);
            memory_id := v_id;
            result := 'deleted';
        ELSE
            PERFORM pymem._maintenance_target(user_id, v_id, false, v_label);
            memory_id := v_id;
            result := 'unchanged';
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
