-- The write path: store a fact unless the user already has it. What is
-- decided is sql/19_decision.sql's; here the decision is written
-- (pymem._apply) under the user's lock, and the entry points call it.

-- Writes what _match decided, under the caller's per-user lock.
-- Returns the memory that now holds the fact.
CREATE OR REPLACE FUNCTION pymem._apply(
    user_id text,
    item pymem.memory_item,
    action text,
    target_id uuid,
    similarity double precision,
    rule text
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id uuid;
BEGIN
    -- called from the API under the lock already; taken again (it nests) so
    -- that a direct call cannot skip it
    PERFORM pymem._lock_user(user_id);
    IF action = 'duplicate' THEN
        -- new detail keys are a recorded change, not a hand edit; the history says
        -- which rule took the text for this memory
        PERFORM pymem._set_change_reason(format(
            'duplicate: %s, similarity %s; details merged', rule, round(similarity::numeric, 4)
        ));
        PERFORM pymem._reinforce(
            user_id, ARRAY[target_id], true, item.importance, item.source, item.pinned,
            item.details, item.metadata, item.valid_until, item.topic, item.canonical,
            item.decay_rate
        );
        PERFORM pymem._set_change_reason(NULL);
        -- its words stay a way to find the memory (sql/21_wordings.sql)
        PERFORM pymem._add_wording(user_id, target_id, item.content, item.embedding);
        RETURN target_id;
    END IF;
    IF action = 'superseded' THEN
        PERFORM pymem._set_change_reason(format(
            'superseded: %s, similarity %s to the new content',
            rule, round(similarity::numeric, 4)
        ));
        PERFORM pymem._supersede(user_id, target_id, item);
        PERFORM pymem._set_change_reason(NULL);
        RETURN target_id;
    END IF;
    INSERT INTO pymem.memories AS m (
        user_id, kind, content, canonical, topic, embedding, importance,
        decay_rate, source, pinned, details, metadata, valid_until
    ) VALUES (
        user_id, item.kind, item.content, item.canonical, item.topic, item.embedding,
        item.importance, item.decay_rate, item.source, item.pinned, item.details,
        item.metadata, item.valid_until
    )
    RETURNING m.id INTO v_id;
    RETURN v_id;
END;
$$;

-- A memory takes a new statement in place (same id, links survive); the
-- history trigger keeps the old one. Shared by upsert and resolve_review.
CREATE OR REPLACE FUNCTION pymem._supersede(
    user_id text, memory_id uuid, item pymem.memory_item
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    -- called from the API under the lock already; taken again (it nests) so
    -- that a direct call cannot skip it
    PERFORM pymem._lock_user(user_id);
    UPDATE pymem.memories AS m
    SET content = item.content,
        embedding = item.embedding,
        -- a reviewer's supersede of a pair of two kinds (an event queued
        -- against a preference) gives the survivor the newer one's kind
        kind = coalesce(item.kind, m.kind),
        -- the old canonical statement described the old content
        canonical = item.canonical,
        topic = coalesce(item.topic, m.topic),
        -- structured facts only grow; a new value of a key wins
        details = m.details || item.details,
        metadata = m.metadata || item.metadata,
        importance = greatest(m.importance, item.importance),
        source = pymem._stronger_source(m.source, item.source),
        pinned = m.pinned OR item.pinned,
        valid_until = item.valid_until,
        decay_rate = coalesce(item.decay_rate, m.decay_rate),
        last_access_at = greatest(m.last_access_at, now()),
        mention_count = m.mention_count + 1,
        tier = 'hot'
    WHERE m.user_id = _supersede.user_id AND m.id = _supersede.memory_id;
    IF item.details <> '{}' OR item.metadata <> '{}' THEN
        PERFORM pymem._check_json_size(m.details, 'details merged into the memory'),
            pymem._check_json_size(m.metadata, 'metadata merged into the memory')
        FROM pymem.memories AS m
        WHERE m.user_id = _supersede.user_id AND m.id = _supersede.memory_id;
    END IF;
END;
$$;

-- One prepared item, under the user's lock: decide, write, queue a
-- related pair for review, link the people it names.
SELECT pymem._drop_if_result_differs(
    'pymem._upsert_item(text, pymem.memory_item, pymem.settings)', 'pymem.write_result'
);

CREATE OR REPLACE FUNCTION pymem._upsert_item(
    user_id text,
    item pymem.memory_item,
    cfg pymem.settings
)
RETURNS pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_match record;
    v_result pymem.write_result;
BEGIN
    -- called from the API under the lock already; taken again (it nests) so
    -- that a direct call cannot skip it
    PERFORM pymem._lock_user(user_id);
    v_match := pymem._match(user_id, item, cfg);
    v_result.memory_id := pymem._apply(
        user_id, item, v_match.action, v_match.target_id, v_match.similarity, v_match.rule
    );
    v_result.action := v_match.action;
    v_result.similarity := v_match.similarity;
    v_result.matched_id := v_match.matched_id;
    v_result.rule := v_match.rule;
    IF v_result.action = 'inserted' AND v_result.matched_id IS NOT NULL
        AND item.on_related = 'review' THEN
        -- the note says why it waits: the rule, and what kept the pair from a duplicate
        INSERT INTO pymem.reviews (user_id, cause, memory_id, matched_id, similarity, note)
        VALUES (
            user_id, 'related', v_result.memory_id, v_result.matched_id, v_result.similarity,
            v_result.rule
        )
        ON CONFLICT DO NOTHING;
        -- with the below-band queue, the next related neighbour too (pymem._match)
        IF v_match.also_id IS NOT NULL THEN
            INSERT INTO pymem.reviews (
                user_id, cause, memory_id, matched_id, similarity, note
            )
            VALUES (
                user_id, 'related', v_result.memory_id, v_match.also_id,
                v_match.also_similarity, v_match.also_rule
            )
            ON CONFLICT DO NOTHING;
        END IF;
    END IF;
    IF cardinality(item.contacts) > 0 THEN
        PERFORM pymem._link_memory_contacts(user_id, v_result.memory_id, item.contacts);
    END IF;
    RETURN v_result;
END;
$$;

-- One item. Its options are the fields of pymem.memory_item, by the same
-- names; NULL (the default of each) is the store's default, which
-- _prepare_item alone knows (kind fact, importance 0.5, source stated, ...).
CREATE OR REPLACE FUNCTION pymem.upsert_memory(
    user_id text,
    content text,
    embedding vector,
    kind text DEFAULT NULL,
    importance double precision DEFAULT NULL,
    source text DEFAULT NULL,
    pinned boolean DEFAULT NULL,
    metadata jsonb DEFAULT NULL,
    details jsonb DEFAULT NULL,
    topic text DEFAULT NULL,
    canonical text DEFAULT NULL,
    valid_until timestamptz DEFAULT NULL,
    decay_rate double precision DEFAULT NULL,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL,
    on_related text DEFAULT NULL,
    contacts text[] DEFAULT NULL,
    review_floor double precision DEFAULT NULL
)
RETURNS TABLE (
    memory_id uuid, action text, similarity double precision, matched_id uuid, rule text
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_cfg pymem.settings := pymem._settings();
    v_item pymem.memory_item;
    v_result pymem.write_result;
BEGIN
    PERFORM pymem._check_user(user_id);
    v_item.content := content;
    v_item.embedding := embedding;
    v_item.kind := kind;
    v_item.importance := importance;
    v_item.source := source;
    v_item.pinned := pinned;
    v_item.metadata := metadata;
    v_item.details := details;
    v_item.topic := topic;
    v_item.canonical := canonical;
    v_item.valid_until := valid_until;
    v_item.decay_rate := decay_rate;
    v_item.contacts := contacts;
    v_item.dedup_threshold := dedup_threshold;
    v_item.supersede_threshold := supersede_threshold;
    v_item.on_related := on_related;
    v_item.review_floor := review_floor;
    v_item := pymem._prepare_item(v_item, v_cfg);
    PERFORM pymem._lock_user(user_id);
    v_result := pymem._upsert_item(user_id, v_item, v_cfg);
    RETURN QUERY SELECT
        v_result.memory_id, v_result.action, v_result.similarity, v_result.matched_id,
        v_result.rule;
END;
$$;

-- A batch in one call and one lock. Items are compared with the store
-- and with each other (the first of two duplicates wins); every row
-- carries the item's 1-based ordinal. Call-level thresholds and
-- on_related apply to the items that do not set their own. Every item is
-- checked before the lock is taken and anything is written.
SELECT pymem._drop_if_result_differs(
    'pymem._upsert_items(text, pymem.memory_item[], double precision, double precision, text)', 'pymem.write_result'
);

CREATE OR REPLACE FUNCTION pymem._upsert_items(
    user_id text,
    items pymem.memory_item[],
    dedup_threshold double precision,
    supersede_threshold double precision,
    on_related text
)
RETURNS SETOF pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_cfg pymem.settings := pymem._settings();
    v_item pymem.memory_item;
    v_ordinal integer := 0;
    v_result pymem.write_result;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_batch_size(cardinality(items));
    FOR v_ordinal IN 1..coalesce(cardinality(items), 0) LOOP
        v_item := items[v_ordinal];
        v_item.dedup_threshold := coalesce(v_item.dedup_threshold, dedup_threshold);
        v_item.supersede_threshold := coalesce(v_item.supersede_threshold, supersede_threshold);
        v_item.on_related := coalesce(v_item.on_related, on_related);
        items[v_ordinal] := pymem._prepare_item(v_item, v_cfg, format('item %s: ', v_ordinal));
    END LOOP;
    PERFORM pymem._lock_user(user_id);
    FOR v_ordinal IN 1..coalesce(cardinality(items), 0) LOOP
        v_result := pymem._upsert_item(user_id, items[v_ordinal], v_cfg);
        v_result.ordinal := v_ordinal;
        RETURN NEXT v_result;
    END LOOP;
END;
$$;

SELECT pymem._drop_if_result_differs(
    'pymem.upsert_memories(text, jsonb, double precision, double precision, text)', 'pymem.write_result'
);

-- The batch as JSON: an array of objects whose keys are the attributes of
-- pymem.memory_item.
CREATE OR REPLACE FUNCTION pymem.upsert_memories(
    user_id text,
    items jsonb,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL,
    on_related text DEFAULT NULL
)
RETURNS SETOF pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN QUERY SELECT * FROM pymem._upsert_items(
        user_id, pymem._parse_items(items), dedup_threshold, supersede_threshold, on_related
    );
END;
$$;

-- The same batch with typed arrays: contents and embeddings side by side
-- (a driver sends vector[] in binary, with no JSON to parse), and the
-- other item keys, if any, as a JSON array of objects in the same order.
-- A name of its own: as an overload of upsert_memories, a call with
-- untyped parameters ($1, $2, $3 from node-pg or pgx) could not be told
-- from the JSON form with a threshold (42725).
SELECT pymem._drop_if_result_differs(
    'pymem.upsert_memory_arrays(text, text[], vector[], jsonb, double precision, double precision, text)', 'pymem.write_result'
);

CREATE OR REPLACE FUNCTION pymem.upsert_memory_arrays(
    user_id text,
    contents text[],
    embeddings vector[],
    options jsonb DEFAULT NULL,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL,
    on_related text DEFAULT NULL
)
RETURNS SETOF pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_items pymem.memory_item[];
    v_n integer := coalesce(cardinality(contents), 0);
BEGIN
    PERFORM pymem._check_user(user_id);
    IF contents IS NULL OR embeddings IS NULL
        OR v_n <> coalesce(cardinality(embeddings), 0)
        OR (options IS NOT NULL AND jsonb_typeof(options) = 'array'
            AND jsonb_array_length(options) <> v_n) THEN
        RAISE EXCEPTION 'contents, embeddings and options must be arrays of one length, got %, % and %',
            coalesce(cardinality(contents)::text, 'NULL'),
            coalesce(cardinality(embeddings)::text, 'NULL'),
            CASE WHEN jsonb_typeof(options) = 'array'
                THEN jsonb_array_length(options)::text ELSE coalesce(jsonb_typeof(options), 'none') END
            USING ERRCODE = 'PM010';
    END IF;
    -- items are read as contents[1..n]: another shape would read as NULLs
    IF array_ndims(contents) > 1 OR array_ndims(embeddings) > 1
        OR array_lower(contents, 1) <> 1 OR array_lower(embeddings, 1) <> 1 THEN
        RAISE EXCEPTION 'contents and embeddings must be one-dimensional arrays indexed from 1,'
            ' got dimensions % and %', array_dims(contents), array_dims(embeddings)
            USING ERRCODE = 'PM010';
    END IF;
    IF options IS NULL THEN
        v_items := array_fill(NULL::pymem.memory_item, ARRAY[v_n]);
    ELSE
        v_items := pymem._parse_items(options);
    END IF;
    FOR i IN 1..v_n LOOP
        IF v_items[i].content IS NOT NULL OR v_items[i].embedding IS NOT NULL THEN
            RAISE EXCEPTION 'item %: content and embedding go in their own arrays, not in options', i
                USING ERRCODE = 'PM010';
        END IF;
        v_items[i].content := contents[i];
        v_items[i].embedding := embeddings[i];
    END LOOP;
    RETURN QUERY SELECT * FROM pymem._upsert_items(
        user_id, v_items, dedup_threshold, supersede_threshold, on_related
    );
END;
$$;

SELECT pymem._drop_if_result_differs(
    'pymem.upsert_memories(text, text[], vector[], jsonb, double precision, double precision, text)',
    'pymem.write_result'
);

-- The typed batch's former name, kept for callers that cast their
-- parameters ($2::text[], $3::vector[]); untyped, it is ambiguous with the
-- JSON form above, so new code calls upsert_memory_arrays. PL/pgSQL, not SQL:
-- a SQL function's frame never vouches for a history reason (_pymem_stack), and
-- its supersedes were recorded as a bare "update".
CREATE OR REPLACE FUNCTION pymem.upsert_memories(
    user_id text,
    contents text[],
    embeddings vector[],
    options jsonb DEFAULT NULL,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL,
    on_related text DEFAULT NULL
)
RETURNS SETOF pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RETURN QUERY SELECT * FROM pymem.upsert_memory_arrays(
        user_id, contents, embeddings, options, dedup_threshold, supersede_threshold, on_related
    );
END;
$$;
