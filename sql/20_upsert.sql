-- The write path: store a fact unless the user already has it.
-- Decision (docs/sql-api.md, "How upsert decides"):
--   duplicate  same normalized text or canonical statement, or a close
--              embedding / near-identical text with the same numbers and
--              negations: the existing memory is reinforced;
--   superseded a weaker match on the same subject: the memory takes the
--              new content in place, the old one goes to memory_versions;
--   inserted   otherwise.

-- Reinforce memories that were mentioned again: the one code path for
-- touch() and for a duplicate upsert. Resets the decay clock, revives
-- cold memories, never lowers importance or source, never unpins.
CREATE OR REPLACE FUNCTION pymem._reinforce(
    user_id text,
    memory_ids uuid[],
    mentioned boolean,
    importance double precision DEFAULT NULL,
    source text DEFAULT NULL,
    pinned boolean DEFAULT FALSE,
    details jsonb DEFAULT '{}',
    metadata jsonb DEFAULT '{}',
    valid_until timestamptz DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_count integer;
BEGIN
    UPDATE pymem.memories AS m
    SET last_access_at = greatest(m.last_access_at, now()),
        tier = 'hot',
        mention_count = m.mention_count + _reinforce.mentioned::integer,
        access_count = m.access_count + (NOT _reinforce.mentioned)::integer,
        importance = greatest(m.importance, _reinforce.importance),
        source = pymem._stronger_source(m.source, _reinforce.source),
        pinned = m.pinned OR coalesce(_reinforce.pinned, false),
        -- new keys are added; values already known are kept
        details = _reinforce.details || m.details,
        metadata = _reinforce.metadata || m.metadata,
        valid_until = CASE
            WHEN m.valid_until IS NULL THEN NULL
            ELSE greatest(m.valid_until, _reinforce.valid_until)
        END
    WHERE m.user_id = _reinforce.user_id
        AND m.id = ANY(_reinforce.memory_ids)
        AND m.deleted_at IS NULL;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END;
$$;

-- The live record a memory stands for: itself, or the record it was
-- consolidated into (followed through at most 16 consolidations). NULL
-- when that record is deleted or the chain does not end: the caller then
-- treats the fact as new rather than reinforcing nothing.
CREATE OR REPLACE FUNCTION pymem._live_record(user_id text, memory_id uuid)
RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_id uuid := memory_id;
    v_row record;
BEGIN
    FOR step IN 1..16 LOOP
        SELECT m.consolidated_into, m.deleted_at INTO v_row
        FROM pymem.memories AS m
        WHERE m.user_id = _live_record.user_id AND m.id = v_id;
        IF NOT found OR v_row.deleted_at IS NOT NULL THEN
            RETURN NULL;
        END IF;
        IF v_row.consolidated_into IS NULL THEN
            RETURN v_id;
        END IF;
        v_id := v_row.consolidated_into;
    END LOOP;
    RETURN NULL;
END;
$$;

-- One item, already under the user's lock. label prefixes error
-- messages ("item 3: ...") so a batch names the item at fault.
CREATE OR REPLACE FUNCTION pymem._upsert(
    user_id text,
    content text,
    embedding vector,
    kind text,
    importance double precision,
    source text,
    pinned boolean,
    metadata jsonb,
    details jsonb,
    topic text,
    canonical text,
    valid_until timestamptz,
    decay_rate double precision,
    dedup_threshold double precision,
    supersede_threshold double precision,
    cfg pymem.settings,
    label text DEFAULT '',
    OUT memory_id uuid,
    OUT action text,
    OUT similarity double precision,
    OUT matched_id uuid
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_kind pymem.kinds;
    v_dedup double precision := coalesce(dedup_threshold, cfg.dedup_threshold);
    v_supersede double precision := coalesce(supersede_threshold, cfg.supersede_threshold);
    v_fingerprint uuid;
    v_canonical_fingerprint uuid;
    v_markers text [];
    v_valid_until timestamptz := valid_until;
    v_target uuid;
    v_candidate record;
    v_same_markers boolean;
    v_near_text boolean;
    v_same_topic boolean;
    v_dup_id uuid;
    v_dup_sim double precision;
    v_sup_id uuid;
    v_sup_sim double precision;
    v_sup_reason text;
BEGIN
    PERFORM pymem._check_content(content, cfg.max_content_chars, label || 'content');
    PERFORM pymem._check_embedding(embedding, cfg.embedding_dimensions, label || 'embedding');
    v_kind := pymem._kind(kind, label);
    IF importance IS NULL THEN
        RAISE EXCEPTION '%importance must be between 0 and 1, got NULL', label
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_fraction(importance, label || 'importance');
    IF jsonb_typeof(details) IS DISTINCT FROM 'object'
        OR jsonb_typeof(metadata) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION '%details and metadata must be JSON objects, got % and %', label,
            coalesce(jsonb_typeof(details), 'NULL'), coalesce(jsonb_typeof(metadata), 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_source(source, label);
    PERFORM pymem._check_thresholds(v_dedup, v_supersede);
    IF decay_rate IS NOT NULL AND NOT (decay_rate >= 0 AND decay_rate < 'infinity') THEN
        RAISE EXCEPTION '%decay_rate must be a finite number >= 0, got %', label, decay_rate
            USING ERRCODE = 'PM006';
    END IF;
    IF canonical IS NOT NULL THEN
        PERFORM pymem._check_content(canonical, cfg.max_content_chars, label || 'canonical');
    END IF;
    IF v_valid_until IS NULL AND v_kind.default_lifetime IS NOT NULL THEN
        v_valid_until := now() + v_kind.default_lifetime;
    END IF;

    v_fingerprint := pymem._fingerprint(content);
    v_canonical_fingerprint := pymem._fingerprint(canonical);

    -- 1. The same canonical statement, or the same normalized text with
    -- the same markers (normalizing drops the point of "3.5 kg"). Consolidated
    -- fragments count: a fact already absorbed is not stored again; it
    -- reinforces the live record it was consolidated into.
    SELECT m.id, 1 - (m.embedding <=> _upsert.embedding) AS sim
    INTO v_candidate
    FROM pymem.memories AS m
    WHERE m.user_id = _upsert.user_id
        AND m.kind = _upsert.kind
        AND m.deleted_at IS NULL
        AND (
            m.canonical_fingerprint = v_canonical_fingerprint
            OR (
                m.fingerprint = v_fingerprint
                AND pymem._fact_markers(m.content) = pymem._fact_markers(_upsert.content)
            )
        )
    ORDER BY m.consolidated_into IS NULL DESC, m.created_at
    LIMIT 1;
    IF found THEN
        v_target := pymem._live_record(user_id, v_candidate.id);
    END IF;
    IF v_target IS NOT NULL THEN
        memory_id := v_target;
        matched_id := v_candidate.id;
        action := 'duplicate';
        similarity := v_candidate.sim;
    ELSIF kind = 'goal' THEN
        -- 2a. Goals: the same metric with enough word overlap is one goal
        -- (sql/35_goals.sql); no metric, no match beyond exact text.
        SELECT * INTO v_candidate
        FROM pymem._same_goal(user_id, content, embedding, topic, cfg.goal_overlap_threshold);
        IF v_candidate.memory_id IS NOT NULL THEN
            v_sup_id := v_candidate.memory_id;
            v_sup_sim := v_candidate.similarity;
            v_sup_reason := format(
                'superseded: the same goal (%s)', array_to_string(v_candidate.metrics, ', ')
            );
        END IF;
    ELSE
        -- 2. Exact nearest neighbours among the live memories of this user
        -- and kind (btree on user_id: no ANN misses). Only the closest
        -- candidates get the lexical and marker checks.
        FOR v_candidate IN
            SELECT m.id, m.content, m.topic, 1 - (m.embedding <=> _upsert.embedding) AS sim
            FROM pymem.memories AS m
            WHERE m.user_id = _upsert.user_id
                AND m.kind = _upsert.kind
                AND m.consolidated_into IS NULL
                AND m.deleted_at IS NULL
                -- different topics are different subjects, whatever the vectors say
                AND (m.topic IS NULL OR _upsert.topic IS NULL OR m.topic = _upsert.topic)
            ORDER BY m.embedding <=> _upsert.embedding
            LIMIT 8
        LOOP
            v_same_topic := v_candidate.topic = topic;
            -- pg_trgm ignores case and punctuation itself
            v_near_text := similarity(content, v_candidate.content) >= cfg.trigram_threshold;
            -- the regex work below only for candidates that could decide
            CONTINUE WHEN NOT v_near_text
                AND v_candidate.sim < v_supersede
                AND NOT (v_same_topic AND v_candidate.sim >= cfg.topic_supersede_threshold);
            v_markers := coalesce(v_markers, pymem._fact_markers(content));
            v_same_markers := pymem._fact_markers(v_candidate.content) = v_markers;
            -- Under one topic, a close but differently worded statement is
            -- the slot's new value: it supersedes (the old text is kept in
            -- memory_versions) instead of being dropped as a duplicate.
            IF v_dup_id IS NULL AND v_same_markers AND (
                (v_candidate.sim >= v_dedup AND v_same_topic IS NOT TRUE) OR v_near_text
            ) THEN
                v_dup_id := v_candidate.id;
                v_dup_sim := v_candidate.sim;
            ELSIF v_sup_id IS NULL AND (
                (v_same_markers AND v_candidate.sim >= v_supersede)
                OR (v_same_topic AND v_candidate.sim >= cfg.topic_supersede_threshold)
            ) THEN
                v_sup_id := v_candidate.id;
                v_sup_sim := v_candidate.sim;
            END IF;
        END LOOP;

        IF v_dup_id IS NOT NULL THEN
            memory_id := v_dup_id;
            matched_id := v_dup_id;
            action := 'duplicate';
            similarity := v_dup_sim;
        END IF;
    END IF;

    IF action = 'duplicate' THEN
        -- new detail keys are a recorded change, not a hand edit
        PERFORM pymem._set_change_reason('duplicate: details merged');
        PERFORM pymem._reinforce(
            user_id, ARRAY[memory_id], true, importance, source, pinned,
            details, metadata, v_valid_until
        );
        PERFORM pymem._set_change_reason(NULL);
        RETURN;
    END IF;

    IF v_sup_id IS NOT NULL THEN
        PERFORM pymem._set_change_reason(coalesce(v_sup_reason, format(
            'superseded: similarity %s to the new content', round(v_sup_sim::numeric, 4)
        )));
        UPDATE pymem.memories AS m
        SET content = _upsert.content,
            embedding = _upsert.embedding,
            -- the old canonical statement described the old content
            canonical = _upsert.canonical,
            topic = coalesce(_upsert.topic, m.topic),
            -- structured facts only grow; a new value of a key wins
            details = m.details || _upsert.details,
            metadata = m.metadata || _upsert.metadata,
            importance = greatest(m.importance, _upsert.importance),
            source = pymem._stronger_source(m.source, _upsert.source),
            pinned = m.pinned OR _upsert.pinned,
            valid_until = v_valid_until,
            decay_rate = coalesce(_upsert.decay_rate, m.decay_rate),
            last_access_at = greatest(m.last_access_at, now()),
            mention_count = m.mention_count + 1,
            tier = 'hot'
        WHERE m.user_id = _upsert.user_id AND m.id = v_sup_id;
        PERFORM pymem._set_change_reason(NULL);
        memory_id := v_sup_id;
        matched_id := v_sup_id;
        action := 'superseded';
        similarity := v_sup_sim;
        RETURN;
    END IF;

    INSERT INTO pymem.memories AS m (
        user_id, kind, content, canonical, topic, embedding, importance,
        decay_rate, source, pinned, details, metadata, valid_until
    ) VALUES (
        user_id, kind, content, canonical, topic, embedding, importance,
        decay_rate, source, pinned, details, metadata, v_valid_until
    )
    RETURNING m.id INTO memory_id;
    action := 'inserted';
    similarity := NULL;
    matched_id := NULL;
END;
$$;

CREATE OR REPLACE FUNCTION pymem.upsert_memory(
    user_id text,
    content text,
    embedding vector,
    kind text DEFAULT 'fact',
    importance double precision DEFAULT 0.5,
    source text DEFAULT 'stated',
    pinned boolean DEFAULT FALSE,
    metadata jsonb DEFAULT '{}',
    details jsonb DEFAULT '{}',
    topic text DEFAULT NULL,
    canonical text DEFAULT NULL,
    valid_until timestamptz DEFAULT NULL,
    decay_rate double precision DEFAULT NULL,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL
)
RETURNS TABLE (memory_id uuid, action text, similarity double precision, matched_id uuid)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._lock_user(user_id);
    RETURN QUERY SELECT * FROM pymem._upsert(
        user_id, content, embedding, kind, importance, source,
        coalesce(pinned, false), coalesce(metadata, '{}'), coalesce(details, '{}'),
        topic, canonical, valid_until, decay_rate,
        dedup_threshold, supersede_threshold, pymem._settings()
    );
END;
$$;

-- A batch in one call and one lock. Items are compared with the store
-- and with each other (the first of two duplicates wins); every row
-- carries the item's 1-based ordinal.
CREATE OR REPLACE FUNCTION pymem.upsert_memories(
    user_id text,
    items jsonb,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL
)
RETURNS TABLE (
    ordinal integer, memory_id uuid, action text, similarity double precision, matched_id uuid
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_cfg pymem.settings := pymem._settings();
    v_item jsonb;
    v_ordinal integer;
    v_result record;
    v_unknown text;
    v_label text;
BEGIN
    PERFORM pymem._check_user(user_id);
    IF items IS NULL OR jsonb_typeof(items) <> 'array' THEN
        RAISE EXCEPTION 'items must be a JSON array of objects, got %',
            coalesce(jsonb_typeof(items), 'NULL')
            USING ERRCODE = 'PM010';
    END IF;
    PERFORM pymem._lock_user(user_id);
    FOR v_item, v_ordinal IN
        SELECT e.value, e.ordinality::integer
        FROM jsonb_array_elements(items) WITH ORDINALITY AS e
    LOOP
        v_label := format('item %s: ', v_ordinal);
        IF jsonb_typeof(v_item) <> 'object' THEN
            RAISE EXCEPTION '%must be a JSON object, got %', v_label, jsonb_typeof(v_item)
                USING ERRCODE = 'PM010';
        END IF;
        SELECT string_agg(k, ', ' ORDER BY k) INTO v_unknown
        FROM jsonb_object_keys(v_item) AS k
        WHERE k NOT IN (
            'content', 'embedding', 'kind', 'importance', 'source', 'pinned', 'metadata',
            'details', 'topic', 'canonical', 'valid_until', 'decay_rate'
        );
        IF v_unknown IS NOT NULL THEN
            RAISE EXCEPTION '%unknown key(s) %', v_label, v_unknown
                USING ERRCODE = 'PM010',
                    HINT = 'Item keys: content, embedding, kind, importance, source, pinned, '
                        || 'metadata, details, topic, canonical, valid_until, decay_rate.';
        END IF;
        IF jsonb_typeof(v_item -> 'embedding') IS DISTINCT FROM 'array'
            OR jsonb_path_exists(v_item -> 'embedding', '$[*] ? (@.type() != "number")') THEN
            RAISE EXCEPTION '%embedding must be an array of numbers', v_label
                USING ERRCODE = 'PM005';
        END IF;
        IF jsonb_array_length(v_item -> 'embedding') <> v_cfg.embedding_dimensions THEN
            RAISE EXCEPTION '%embedding has % dimensions, this store expects %', v_label,
                jsonb_array_length(v_item -> 'embedding'), v_cfg.embedding_dimensions
                USING ERRCODE = 'PM004';
        END IF;
        SELECT string_agg(format('%s must be a JSON %s', spec.key, spec.type), ', ')
        INTO v_unknown
        FROM (VALUES
            ('content', 'string'), ('embedding', 'array'), ('kind', 'string'),
            ('importance', 'number'), ('source', 'string'), ('pinned', 'boolean'),
            ('metadata', 'object'), ('details', 'object'), ('topic', 'string'),
            ('canonical', 'string'), ('valid_until', 'string'), ('decay_rate', 'number')
        ) AS spec (key, type)
        WHERE jsonb_typeof(v_item -> spec.key) NOT IN (spec.type, 'null');
        IF v_unknown IS NOT NULL THEN
            RAISE EXCEPTION '%s%', v_label, v_unknown USING ERRCODE = 'PM010';
        END IF;
        SELECT * INTO STRICT v_result FROM pymem._upsert(
                user_id,
                v_item ->> 'content',
                (v_item ->> 'embedding')::vector,
                coalesce(v_item ->> 'kind', 'fact'),
                coalesce((v_item ->> 'importance')::double precision, 0.5),
                coalesce(v_item ->> 'source', 'stated'),
                coalesce((v_item ->> 'pinned')::boolean, false),
                coalesce(v_item -> 'metadata', '{}'),
                coalesce(v_item -> 'details', '{}'),
                v_item ->> 'topic',
                v_item ->> 'canonical',
                (v_item ->> 'valid_until')::timestamptz,
                (v_item ->> 'decay_rate')::double precision,
                dedup_threshold,
                supersede_threshold,
                v_cfg,
                v_label
            );
        ordinal := v_ordinal;
        memory_id := v_result.memory_id;
        action := v_result.action;
        similarity := v_result.similarity;
        matched_id := v_result.matched_id;
        RETURN NEXT;
    END LOOP;
END;
$$;
