-- Consolidation, the fold (DESIGN: "Consolidation", docs/sql-api.md
-- "Consolidation"): consolidate with its guards, and unconsolidate. Groups
-- to fold: sql/70_candidates.sql; a reviewer's plan: sql/74_maintenance.sql.
--
-- Reserved details key: details->'alternatives' is an object of arrays
-- ({"drink": ["tea"]}) holding the other values a key has had among
-- consolidated sources. A details object whose 'alternatives' is not an
-- object of arrays treats it as a plain key.

-- details->'alternatives' when it has the reserved shape, else NULL.
CREATE OR REPLACE FUNCTION pymem._alternatives(details jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN
        jsonb_typeof(details -> 'alternatives') = 'object'
        AND NOT jsonb_path_exists(details -> 'alternatives', 'strict $.* ? (@.type() != "array")')
        THEN details -> 'alternatives'
END;

-- The plain keys of details (everything but the reserved alternatives).
CREATE OR REPLACE FUNCTION pymem._plain_details(details jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN pymem._alternatives(details) IS NULL THEN coalesce(details, '{}')
    ELSE details - 'alternatives'
END;

-- newer's plain values win over base's; alternatives are the union of
-- both (older first), minus each key's current value. With
-- keep_replaced, a base value that newer replaces becomes an alternative
-- (the fold over sources); without, the caller must keep it explicitly
-- (checked by pymem._details_dropped).
CREATE OR REPLACE FUNCTION pymem._details_merge(base jsonb, newer jsonb, keep_replaced boolean)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_plain jsonb := pymem._plain_details(base) || pymem._plain_details(newer);
    v_base_alts jsonb := coalesce(pymem._alternatives(base), '{}');
    v_new_alts jsonb := coalesce(pymem._alternatives(newer), '{}');
    v_alts jsonb := '{}';
    v_key text;
    v_values jsonb;
BEGIN
    FOR v_key IN
        SELECT k FROM jsonb_object_keys(v_base_alts) AS k
        UNION
        SELECT k FROM jsonb_object_keys(v_new_alts) AS k
        UNION
        SELECT k FROM jsonb_object_keys(pymem._plain_details(base)) AS k WHERE keep_replaced
        ORDER BY 1
    LOOP
        SELECT jsonb_agg(v.value ORDER BY v.ord) INTO v_values
        FROM (
            SELECT DISTINCT ON (c.value) c.value, c.ord
            FROM (
                SELECT pymem._plain_details(base) -> v_key AS value, 50000 AS ord
                WHERE keep_replaced AND pymem._plain_details(base) ? v_key
                UNION ALL
                SELECT e.value, e.n
                FROM jsonb_array_elements(v_base_alts -> v_key) WITH ORDINALITY AS e (value, n)
                WHERE v_base_alts ? v_key
                UNION ALL
                SELECT e.value, 100000 + e.n
                FROM jsonb_array_elements(v_new_alts -> v_key) WITH ORDINALITY AS e (value, n)
                WHERE v_new_alts ? v_key
            ) AS c
            WHERE c.value IS DISTINCT FROM v_plain -> v_key
            ORDER BY c.value, c.ord
        ) AS v;
        IF v_values IS NOT NULL THEN
            v_alts := v_alts || jsonb_build_object(v_key, v_values);
        END IF;
    END LOOP;
    IF v_alts = '{}' THEN
        RETURN v_plain;
    END IF;
    RETURN v_plain || jsonb_build_object('alternatives', v_alts);
END;
$$;

-- 'key = value' of every detail of source that result does not keep,
-- either as the key's value or among its alternatives.
CREATE OR REPLACE FUNCTION pymem._details_dropped(source jsonb, result jsonb)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RETURN array(
        SELECT format('%s = %s', d.key, d.value::text)
        FROM (
            SELECT e.key, e.value FROM jsonb_each(pymem._plain_details(source)) AS e
            UNION ALL
            SELECT a.key, x.value
            FROM jsonb_each(coalesce(pymem._alternatives(source), '{}')) AS a,
                jsonb_array_elements(a.value) AS x (value)
        ) AS d
        WHERE
            pymem._plain_details(result) -> d.key IS DISTINCT FROM d.value
            AND NOT EXISTS (
                SELECT
                FROM jsonb_array_elements(
                    coalesce(pymem._alternatives(result) -> d.key, '[]')
                ) AS y (value)
                WHERE y.value = d.value
            )
        ORDER BY d.key, d.value::text
    );
END;
$$;

-- The consolidation itself, already under the user's lock: consolidate, a
-- plan's merge ops and consolidate_contact. label prefixes error messages
-- ("op 3: ...") so a maintenance plan names the op. With record_id, that
-- record (a live memory, not consolidated) absorbs the sources instead of a
-- new one: it counts as one more source for the details and what the
-- record inherits, keeps its id, and its pymem.consolidations row grows (a
-- person's profile memory as fragments come). kind: the record's kind
-- (default: its own, or the kind most sources share). reason: the history
-- reason of the changes (default 'consolidated into <record>').
-- min_sources: one source is a rewrite (an update op), except for a
-- profile, which may start from one fragment.
CREATE OR REPLACE FUNCTION pymem._consolidate(
    user_id text,
    source_ids uuid[],
    content text,
    embedding vector,
    details jsonb,
    cfg pymem.settings,
    label text DEFAULT '',
    record_id uuid DEFAULT NULL,
    kind text DEFAULT NULL,
    reason text DEFAULT NULL,
    min_sources integer DEFAULT 2,
    OUT memory_id uuid,
    OUT action text
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_ids uuid[];
    -- the sources and the record that absorbs them, if any
    v_members uuid[];
    v_bad text;
    v_details jsonb := '{}';
    v_metadata jsonb := '{}';
    v_src record;
    v_dropped text[];
    v_agg record;
    v_kind text;
    v_topic text;
    v_links jsonb := '[]';
    v_all uuid[];
    v_previous jsonb;
BEGIN
    -- the public callers hold it already (re-entrant); a direct call takes it
    PERFORM pymem._lock_user(user_id);
    -- array_position refuses a multidimensional array with a raw 0A000
    IF source_ids IS NULL OR array_ndims(source_ids) > 1
        OR array_position(source_ids, NULL) IS NOT NULL THEN
        RAISE EXCEPTION '%source_ids must be a one-dimensional array of memory ids without NULLs',
            label
            USING ERRCODE = 'PM040';
    END IF;
    v_ids := array(SELECT DISTINCT x FROM unnest(source_ids) AS x ORDER BY x);
    IF cardinality(v_ids) < min_sources THEN
        RAISE EXCEPTION '%a consolidation needs at least % distinct sources, got %',
            label, min_sources, cardinality(v_ids)
            USING ERRCODE = 'PM040',
                HINT = 'To rewrite one memory, use an update op of apply_maintenance.';
    END IF;
    IF record_id = ANY(v_ids) THEN
        RAISE EXCEPTION '%memory % cannot absorb itself', label, record_id
            USING ERRCODE = 'PM040';
    END IF;
    v_members := v_ids || array_remove(ARRAY[record_id], NULL);
    PERFORM pymem._check_content(content, cfg.max_content_chars, label || 'content');
    PERFORM pymem._check_embedding(embedding, cfg.embedding_dimensions, label || 'embedding');
    IF jsonb_typeof(details) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION '%details must be a JSON object, got %',
            label, coalesce(jsonb_typeof(details), 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_json_size(details, label || 'details');
    IF details ? 'alternatives' AND pymem._alternatives(details) IS NULL THEN
        RAISE EXCEPTION '%details.alternatives must be an object of arrays ({"key": [values]})',
            label
            USING ERRCODE = 'PM006';
    END IF;

    -- 1. The same source set again: its record, never a second copy; unless the
    -- record was deleted since (answering it would hide every source).
    IF record_id IS NULL THEN
        SELECT c.id INTO memory_id
        FROM pymem.consolidations AS c
        WHERE c.user_id = _consolidate.user_id AND c.source_ids = v_ids AND c.undone_at IS NULL;
        IF found THEN
            IF EXISTS (
                SELECT FROM pymem.memories AS m
                WHERE m.user_id = _consolidate.user_id AND m.id = memory_id
                    AND m.deleted_at IS NOT NULL
            ) THEN
                RAISE EXCEPTION '%', format(
                    '%sthese memories are consolidated into %s, which is deleted', label, memory_id
                )
                    USING ERRCODE = 'PM041',
                        HINT = 'undo(user_id, record) brings the record back; '
                            'unconsolidate(user_id, record) then frees its fragments.';
            END IF;
            action := 'existing';
            RETURN;
        END IF;
    END IF;

    -- 2. Every source (and the record) is a live (not deleted) memory of this user.
    PERFORM pymem._check_live_memories(user_id, v_members, label => label);

    -- 3. None is consolidated already (an overlapping, different set).
    SELECT string_agg(format('%s (into %s)', m.id, m.consolidated_into), ', ' ORDER BY m.id)
    INTO v_bad
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_members)
        AND m.consolidated_into IS NOT NULL;
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION '%already consolidated: %', label, v_bad
            USING ERRCODE = 'PM041',
                HINT = 'A fragment is consolidated once. Consolidate its record with the new '
                    'fragments instead, or unconsolidate the record first.';
    END IF;

    -- 4. Details only grow: the sources' details folded oldest first (a newer
    -- value wins, the older one becomes an alternative), then the caller's.
    FOR v_src IN
        SELECT m.details, m.metadata
        FROM pymem.memories AS m
        WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_members)
        ORDER BY m.created_at, m.id
    LOOP
        v_details := pymem._details_merge(v_details, v_src.details, true);
        v_metadata := v_metadata || v_src.metadata;
    END LOOP;
    v_details := pymem._details_merge(v_details, details, false);
    PERFORM pymem._check_json_size(v_details, label || 'details of the record');
    PERFORM pymem._check_json_size(v_metadata, label || 'metadata of the record');
    FOR v_src IN
        SELECT m.id, m.details
        FROM pymem.memories AS m
        WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_members)
        ORDER BY m.created_at, m.id
    LOOP
        v_dropped := pymem._details_dropped(v_src.details, v_details);
        IF cardinality(v_dropped) > 0 THEN
            RAISE EXCEPTION '%details would drop % of memory %',
                label, array_to_string(v_dropped, ', '), v_src.id
                USING ERRCODE = 'PM042',
                    HINT = 'Structured details only grow: leave the key out (the sources'' '
                        'value is kept), or keep the old value in details.alternatives.<key>.';
        END IF;
    END LOOP;

    -- 4b. The record's text keeps every value of every source's text (a
    -- number, a time, a weekday, a count), in its text or its details: a
    -- record that leaves one out loses what made the fragment true and
    -- findable. A person's profile is exempt: its text is the card's header
    -- that pymem writes, and the fragments stay its history.
    IF _consolidate.kind IS DISTINCT FROM 'profile' THEN
        SELECT m.id, v.value AS dropped INTO v_src
        FROM pymem.memories AS m
        CROSS JOIN LATERAL unnest(pymem._values_in_order(m.content)) AS v (value)
        WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_members)
            AND v.value <> ALL(
                pymem._values_in_order(_consolidate.content)
                || pymem._values_in_order(v_details::text)
            )
        ORDER BY m.created_at, m.id
        LIMIT 1;
        IF found THEN
            RAISE EXCEPTION '%the text would drop % of memory %', label, v_src.dropped, v_src.id
                USING ERRCODE = 'PM042',
                    HINT = 'A record keeps every value its sources state (numbers, times, '
                        'days, counts): write it into the text.';
        END IF;
    END IF;

    -- 5. The record inherits the strongest source, the highest importance,
    -- pinning, and the kind and topic most sources share (a record that
    -- absorbs keeps its own).
    SELECT
        max(m.importance) AS importance,
        CASE
            WHEN bool_or(m.source = 'confirmed') THEN 'confirmed'
            WHEN bool_or(m.source = 'stated') THEN 'stated'
            ELSE 'inferred'
        END AS source,
        bool_or(m.pinned) AS pinned,
        CASE WHEN bool_and(m.valid_until IS NOT NULL) THEN max(m.valid_until) END AS valid_until,
        sum(m.mention_count)::integer AS mentions,
        jsonb_object_agg(m.id::text, m.importance) FILTER (WHERE m.id = ANY(v_ids)) AS previous,
        max(m.kind) FILTER (WHERE m.id = _consolidate.record_id) AS record_kind
    INTO v_agg
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_members);
    SELECT m.kind INTO v_kind
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
    GROUP BY m.kind
    ORDER BY count(*) DESC, max(m.importance) DESC, m.kind
    LIMIT 1;
    v_kind := coalesce(_consolidate.kind, v_agg.record_kind, v_kind);
    SELECT m.topic INTO v_topic
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids) AND m.topic IS NOT NULL
    GROUP BY m.topic
    ORDER BY count(*) DESC, m.topic
    LIMIT 1;

    IF record_id IS NULL THEN
        -- the record is not a new fragment of its topic: no consolidation_due
        PERFORM set_config('pymem.consolidating', 'on', true);
        INSERT INTO pymem.memories AS m (
            user_id, kind, content, topic, embedding, importance, source, pinned,
            details, metadata, valid_until, mention_count
        ) VALUES (
            user_id, v_kind, content, v_topic, embedding, v_agg.importance, v_agg.source,
            v_agg.pinned, v_details, v_metadata, v_agg.valid_until, v_agg.mentions
        )
        RETURNING m.id INTO memory_id;
        PERFORM set_config('pymem.consolidating', '', true);
    ELSE
        memory_id := record_id;
        PERFORM pymem._set_change_reason(
            coalesce(reason, format('consolidated %s more', cardinality(v_ids)))
        );
        UPDATE pymem.memories AS m
        SET kind = v_kind,
            content = _consolidate.content,
            embedding = _consolidate.embedding,
            details = v_details,
            importance = v_agg.importance,
            source = v_agg.source,
            pinned = v_agg.pinned,
            valid_until = v_agg.valid_until,
            mention_count = v_agg.mentions,
            metadata = v_metadata
        WHERE m.user_id = _consolidate.user_id AND m.id = _consolidate.memory_id;
    END IF;

    PERFORM pymem._set_change_reason(coalesce(reason, format('consolidated into %s', memory_id)));
    UPDATE pymem.memories AS m
    SET consolidated_into = _consolidate.memory_id,
        importance = 0.05
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids);
    PERFORM pymem._set_change_reason(NULL);

    -- 6. Contact links move to the record (pymem.contact_links, migration
    -- 0006; resolved at run time, skipped on a store without it).
    IF to_regclass('pymem.contact_links') IS NOT NULL THEN
        SELECT coalesce(jsonb_agg(jsonb_build_object(
            'contact_id', l.contact_id, 'memory_id', l.memory_id,
            'found_by', l.found_by, 'linked_at', l.linked_at
        ) ORDER BY l.memory_id, l.contact_id), '[]')
        INTO v_links
        FROM pymem.contact_links AS l
        WHERE l.user_id = _consolidate.user_id AND l.memory_id = ANY(v_ids);
        -- from the links read above: on Citus an INSERT that selects from a
        -- distributed table cannot run in a function delegated to a worker
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT DISTINCT _consolidate.user_id, s.contact_id, _consolidate.memory_id, 'moved'
        FROM jsonb_to_recordset(v_links) AS s (contact_id uuid)
        ON CONFLICT DO NOTHING;
        DELETE FROM pymem.contact_links AS l
        WHERE l.user_id = _consolidate.user_id AND l.memory_id = ANY(v_ids);
    END IF;

    -- 7. The sources' open reviews (a flagged conflict, a related pair) concern the
    -- record now; one between two sources has nothing left to decide. They stayed on
    -- the hidden fragments, where resolve_review could only keep both.
    PERFORM pymem._move_open_reviews(user_id, v_ids, memory_id);

    -- 8. What unconsolidate reverses.
    IF record_id IS NULL THEN
        INSERT INTO pymem.consolidations AS c (
            user_id, id, source_ids, previous_importance, moved_links
        ) VALUES (user_id, memory_id, v_ids, v_agg.previous, v_links);
    ELSE
        UPDATE pymem.consolidations AS c
        SET source_ids = array(SELECT DISTINCT x FROM unnest(c.source_ids || v_ids) AS x ORDER BY x),
            previous_importance = c.previous_importance || v_agg.previous,
            moved_links = c.moved_links || v_links
        WHERE c.user_id = _consolidate.user_id AND c.id = _consolidate.memory_id
            AND c.undone_at IS NULL;
        IF NOT found THEN
            -- a record without its row (a profile consolidate_contact wrote
            -- before it recorded them): the row covers every memory
            -- consolidated into it, with the importance its history kept
            -- (read first, then written: on Citus an INSERT that selects
            -- from a distributed table cannot run in a delegated function)
            SELECT
                array_agg(m.id ORDER BY m.id),
                coalesce(
                    jsonb_object_agg(m.id::text, h.importance)
                    FILTER (WHERE h.importance IS NOT NULL AND m.id <> ALL(v_ids)),
                    '{}'
                ) || v_agg.previous
            INTO v_all, v_previous
            FROM pymem.memories AS m
            LEFT JOIN LATERAL (
                SELECT (v.previous ->> 'importance')::double precision AS importance
                FROM pymem.memory_versions AS v
                WHERE v.user_id = m.user_id AND v.memory_id = m.id
                    AND v.previous ->> 'consolidated_into' IS NULL
                ORDER BY v.version DESC
                LIMIT 1
            ) AS h ON true
            WHERE m.user_id = _consolidate.user_id
                AND m.consolidated_into = _consolidate.memory_id;
            INSERT INTO pymem.consolidations AS c (
                user_id, id, source_ids, previous_importance, moved_links
            ) VALUES (_consolidate.user_id, _consolidate.memory_id, v_all, v_previous, v_links);
        END IF;
    END IF;

    -- the topics of the sources may be announced again once they refill
    DELETE FROM pymem.consolidation_announcements AS a
    WHERE a.user_id = _consolidate.user_id
        AND a.topic IN (
            SELECT m.topic FROM pymem.memories AS m
            WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
        );
    action := 'consolidated';
END;
$$;

CREATE OR REPLACE FUNCTION pymem.consolidate(
    user_id text,
    source_ids uuid[],
    content text,
    embedding vector,
    details jsonb DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._lock_user(user_id);
    RETURN (
        SELECT c.memory_id
        FROM pymem._consolidate(
            user_id, source_ids, content, embedding, coalesce(details, '{}'),
            pymem._settings()
        ) AS c
    );
END;
$$;

-- Reverses a consolidation: the sources are live again with their former
-- importance and contact links, the record is soft-deleted. Returns how
-- many sources were restored (a source deleted since stays deleted).
CREATE OR REPLACE FUNCTION pymem.unconsolidate(user_id text, consolidated_id uuid)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_into uuid;
    v_c pymem.consolidations;
    v_count integer;
    v_rows jsonb;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._lock_user(user_id);
    -- a deleted record has no sources to restore
    PERFORM pymem._check_live_memories(user_id, ARRAY[consolidated_id]);
    SELECT m.consolidated_into INTO v_into
    FROM pymem.memories AS m
    WHERE m.user_id = unconsolidate.user_id AND m.id = consolidated_id;
    SELECT * INTO v_c
    FROM pymem.consolidations AS c
    WHERE c.user_id = unconsolidate.user_id AND c.id = consolidated_id AND c.undone_at IS NULL;
    IF NOT found THEN
        RAISE EXCEPTION 'memory % is not a consolidated record', consolidated_id
            USING ERRCODE = 'PM045',
                HINT = 'Pass the id consolidate returned, not a source''s.';
    END IF;
    IF v_into IS NOT NULL THEN
        RAISE EXCEPTION 'record % was consolidated again, into %', consolidated_id, v_into
            USING ERRCODE = 'PM045',
                HINT = 'Unconsolidate the newer record first.';
    END IF;

    PERFORM pymem._set_change_reason(format('unconsolidated from %s', consolidated_id));
    UPDATE pymem.memories AS m
    SET consolidated_into = NULL,
        importance = coalesce(
            (v_c.previous_importance ->> m.id::text)::double precision, m.importance
        )
    WHERE m.user_id = unconsolidate.user_id AND m.id = ANY(v_c.source_ids)
        AND m.consolidated_into = unconsolidate.consolidated_id AND m.deleted_at IS NULL;
    GET DIAGNOSTICS v_count = ROW_COUNT;

    IF to_regclass('pymem.contact_links') IS NOT NULL THEN
        -- links go back to their fragments; a fragment deleted meanwhile (a
        -- review retired it) leaves its links to every restored source. The
        -- links are read first, then written: on Citus an INSERT that selects
        -- from a distributed table cannot run in a delegated function.
        v_rows := (
            SELECT coalesce(jsonb_agg(jsonb_build_object(
                'contact_id', (x ->> 'contact_id')::uuid,
                'memory_id', src.id,
                'found_by', CASE WHEN src.id = (x ->> 'memory_id')::uuid
                    THEN x ->> 'found_by' ELSE 'moved' END,
                'linked_at', (x ->> 'linked_at')::timestamptz
            )), '[]')
            FROM jsonb_array_elements(v_c.moved_links) AS x
            INNER JOIN pymem.memories AS src
                ON src.user_id = unconsolidate.user_id AND src.deleted_at IS NULL
                AND (
                    src.id = (x ->> 'memory_id')::uuid
                    OR (src.id = ANY(v_c.source_ids) AND NOT EXISTS (
                        SELECT FROM pymem.memories AS f
                        WHERE f.user_id = unconsolidate.user_id
                            AND f.id = (x ->> 'memory_id')::uuid AND f.deleted_at IS NULL
                    ))
                )
            WHERE EXISTS (
                SELECT FROM pymem.contacts AS k
                WHERE k.user_id = unconsolidate.user_id AND k.id = (x ->> 'contact_id')::uuid
            )
        );
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by, linked_at)
        SELECT unconsolidate.user_id, r.contact_id, r.memory_id, r.found_by, r.linked_at
        FROM jsonb_to_recordset(v_rows)
            AS r (contact_id uuid, memory_id uuid, found_by text, linked_at timestamptz)
        ON CONFLICT DO NOTHING;
        -- links made to the record after it was written (a duplicate of one
        -- of its fragments) concern what it stood for: every restored source
        v_rows := (
            SELECT coalesce(jsonb_agg(jsonb_build_object(
                'contact_id', r.contact_id, 'memory_id', src.id
            )), '[]')
            FROM pymem.contact_links AS r
            INNER JOIN pymem.memories AS src
                ON src.user_id = r.user_id AND src.id = ANY(v_c.source_ids)
                AND src.deleted_at IS NULL
            WHERE r.user_id = unconsolidate.user_id AND r.memory_id = consolidated_id
                AND NOT (r.found_by = 'moved' AND r.contact_id IN (
                    SELECT (x ->> 'contact_id')::uuid FROM jsonb_array_elements(v_c.moved_links) AS x
                ))
        );
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT unconsolidate.user_id, r.contact_id, r.memory_id, 'moved'
        FROM jsonb_to_recordset(v_rows) AS r (contact_id uuid, memory_id uuid)
        ON CONFLICT DO NOTHING;
        DELETE FROM pymem.contact_links AS l
        WHERE l.user_id = unconsolidate.user_id AND l.memory_id = consolidated_id;
        -- a person whose profile memory this was has none now
        -- (consolidate_contact makes a new one)
        UPDATE pymem.contacts AS k SET consolidated_into = NULL, updated_at = now()
        WHERE k.user_id = unconsolidate.user_id AND k.consolidated_into = consolidated_id;
    END IF;

    PERFORM pymem._set_change_reason('unconsolidated');
    UPDATE pymem.memories AS m
    SET deleted_at = now()
    WHERE m.user_id = unconsolidate.user_id AND m.id = consolidated_id;
    PERFORM pymem._set_change_reason(NULL);
    UPDATE pymem.consolidations AS c
    SET undone_at = now()
    WHERE c.user_id = unconsolidate.user_id AND c.id = consolidated_id;
    RETURN v_count;
END;
$$;
