-- A write's items: one checked and completed with its defaults (every
-- write), and a batch's JSON array read as pymem.memory_item values.

-- An item checked and completed with its defaults: the one place where
-- a write's fields are validated and defaulted, for upsert_memory and for
-- every batch item. label prefixes messages ("item 3: ...").
CREATE OR REPLACE FUNCTION pymem._prepare_item(
    item pymem.memory_item, cfg pymem.settings, label text DEFAULT ''
)
RETURNS pymem.memory_item
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_kind pymem.kinds;
BEGIN
    PERFORM pymem._check_content(item.content, cfg.max_content_chars, label || 'content');
    PERFORM pymem._check_embedding(item.embedding, cfg.embedding_dimensions, label || 'embedding');
    item.kind := coalesce(pymem._word(item.kind), 'fact');
    v_kind := pymem._kind(item.kind, label);
    item.importance := coalesce(item.importance, 0.5);
    PERFORM pymem._check_fraction(item.importance, label || 'importance');
    item.source := coalesce(pymem._word(item.source), 'stated');
    PERFORM pymem._check_source(item.source, label);
    item.pinned := coalesce(item.pinned, false);
    item.metadata := coalesce(item.metadata, '{}');
    item.details := coalesce(item.details, '{}');
    IF jsonb_typeof(item.details) <> 'object' OR jsonb_typeof(item.metadata) <> 'object' THEN
        RAISE EXCEPTION '%details and metadata must be JSON objects, got % and %', label,
            jsonb_typeof(item.details), jsonb_typeof(item.metadata)
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_json_size(item.metadata, label || 'metadata');
    PERFORM pymem._check_json_size(item.details, label || 'details');
    IF item.decay_rate IS NOT NULL
        AND NOT (item.decay_rate >= 0 AND item.decay_rate < 'infinity') THEN
        RAISE EXCEPTION '%decay_rate must be a finite number >= 0, got %', label, item.decay_rate
            USING ERRCODE = 'PM006';
    END IF;
    IF item.canonical IS NOT NULL THEN
        PERFORM pymem._check_content(item.canonical, cfg.max_content_chars, label || 'canonical');
    END IF;
    -- a blank topic is none ('' made every memory sent with it one subject, and a
    -- write superseded an unrelated fact), and "city " is "city"
    item.topic := nullif(btrim(item.topic, pymem._blank_characters()), '');
    -- indexed with user_id: a btree entry must fit a third of a page
    IF length(item.topic) > 200 THEN
        RAISE EXCEPTION '%topic is % characters long, the maximum is 200', label,
            length(item.topic)
            USING ERRCODE = 'PM006', HINT = 'A topic is a short key: ''city'', ''employer''.';
    END IF;
    item.dedup_threshold := coalesce(item.dedup_threshold, cfg.dedup_threshold);
    item.supersede_threshold := coalesce(item.supersede_threshold, cfg.supersede_threshold);
    PERFORM pymem._check_thresholds(item.dedup_threshold, item.supersede_threshold);
    item.on_related := coalesce(pymem._word(item.on_related), cfg.on_related);
    item.review_floor := coalesce(item.review_floor, cfg.review_floor);
    IF item.review_floor IS NOT NULL THEN
        PERFORM pymem._check_fraction(item.review_floor, label || 'review_floor');
    END IF;
    IF item.on_related NOT IN ('review', 'supersede', 'insert') THEN
        RAISE EXCEPTION '%on_related must be review, supersede or insert, got %', label,
            quote_literal(item.on_related)
            USING ERRCODE = 'PM006';
    END IF;
    -- a temporary memory holds as long as its text says ("until the end of the
    -- month", "today": sql/08_stated_time.sql), or, when it says nothing of
    -- its end, as long as its kind says
    IF item.valid_until IS NULL AND v_kind.default_lifetime IS NOT NULL THEN
        item.valid_until := coalesce(
            pymem._stated_until(item.content, now()), now() + v_kind.default_lifetime
        );
    END IF;
    -- as set_fact: a memory that has already ended would still supersede or
    -- merge with the live one of its slot, and hide it from recall
    IF NOT item.valid_until > now() THEN
        RAISE EXCEPTION '%valid_until must be after now, got %', label, item.valid_until
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_one_dimension(item.contacts, label || 'contacts');
    -- names of people the memory is about: blanks dropped, each name once
    item.contacts := array(
        SELECT DISTINCT btrim(c) FROM unnest(item.contacts) AS c WHERE btrim(c) <> ''
    );
    -- each name is resolved and linked under the user's lock
    IF cardinality(item.contacts) > 50 THEN
        RAISE EXCEPTION '%contacts names % people, the maximum is 50', label,
            cardinality(item.contacts)
            USING ERRCODE = 'PM006',
                HINT = 'Name the people the memory is about; link more with sync_contact.';
    END IF;
    RETURN item;
END;
$$;

-- A JSON array of item objects as pymem.memory_item values, in one
-- statement. The keys and their JSON types come from the type itself, so
-- an item key is defined once; the first item at fault is named.
CREATE OR REPLACE FUNCTION pymem._parse_items(items jsonb)
RETURNS pymem.memory_item[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_bad record;
BEGIN
    IF items IS NULL OR jsonb_typeof(items) <> 'array' THEN
        RAISE EXCEPTION 'items must be a JSON array of objects, got %',
            coalesce(jsonb_typeof(items), 'NULL')
            USING ERRCODE = 'PM010';
    END IF;
    PERFORM pymem._check_batch_size(jsonb_array_length(items));
    WITH keys AS (
        SELECT a.attname::text AS key,
            CASE format_type(a.atttypid, NULL)
                WHEN 'text' THEN 'string'
                WHEN 'timestamp with time zone' THEN 'string'
                WHEN 'double precision' THEN 'number'
                WHEN 'boolean' THEN 'boolean'
                WHEN 'jsonb' THEN 'object'
                ELSE 'array'
            END AS json_type,
            -- what an array of text holds: strings (a null is dropped, as on the
            -- single path), not numbers or booleans to cast
            CASE format_type(a.atttypid, NULL) WHEN 'text[]' THEN 'string' END AS element_type
        FROM pg_catalog.pg_attribute AS a
        WHERE a.attrelid = 'pymem.memory_item'::regclass AND a.attnum > 0
            AND NOT a.attisdropped
    )
    SELECT e.ordinality AS n, jsonb_typeof(e.value) AS type, kv.key,
        jsonb_typeof(kv.value) AS value_type, k.json_type, k.element_type,
        (SELECT x.t FROM (
            SELECT jsonb_typeof(v) AS t FROM jsonb_array_elements(
                CASE WHEN jsonb_typeof(kv.value) = 'array' THEN kv.value ELSE '[]' END
            ) AS v
        ) AS x WHERE x.t NOT IN (k.element_type, 'null') LIMIT 1) AS bad_element,
        (SELECT string_agg(k2.key, ', ' ORDER BY k2.key) FROM keys AS k2) AS known
    INTO v_bad
    FROM jsonb_array_elements(items) WITH ORDINALITY AS e
    LEFT JOIN LATERAL jsonb_each(
        CASE WHEN jsonb_typeof(e.value) = 'object' THEN e.value ELSE '{}' END
    ) AS kv ON TRUE
    LEFT JOIN keys AS k ON k.key = kv.key
    WHERE jsonb_typeof(e.value) <> 'object'
        OR (kv.key IS NOT NULL AND k.key IS NULL)
        OR jsonb_typeof(kv.value) NOT IN (k.json_type, 'null')
        OR (k.element_type IS NOT NULL AND jsonb_typeof(kv.value) = 'array'
            AND EXISTS (
                SELECT FROM jsonb_array_elements(kv.value) AS v
                WHERE jsonb_typeof(v) NOT IN (k.element_type, 'null')
            ))
    ORDER BY e.ordinality, kv.key
    LIMIT 1;
    IF NOT found THEN
        BEGIN
            RETURN array(
                SELECT i FROM jsonb_populate_recordset(NULL::pymem.memory_item, items) AS i
            );
        EXCEPTION WHEN data_exception OR invalid_text_representation OR datatype_mismatch THEN
            PERFORM pymem._raise_item_type_error(items);
            RAISE;
        END;
    ELSIF v_bad.type <> 'object' THEN
        RAISE EXCEPTION 'item %: must be a JSON object, got %', v_bad.n, v_bad.type
            USING ERRCODE = 'PM010';
    ELSIF v_bad.json_type IS NULL THEN
        RAISE EXCEPTION 'item %: unknown key %', v_bad.n, v_bad.key
            USING ERRCODE = 'PM010', HINT = 'Item keys: ' || v_bad.known || '.';
    ELSIF v_bad.bad_element IS NOT NULL THEN
        RAISE EXCEPTION 'item %: % must be an array of JSON %s, got a JSON % in it',
            v_bad.n, v_bad.key, v_bad.element_type, v_bad.bad_element
            USING ERRCODE = 'PM010';
    ELSIF v_bad.key = 'embedding' THEN
        RAISE EXCEPTION 'item %: embedding must be an array of numbers, got a JSON %',
            v_bad.n, v_bad.value_type
            USING ERRCODE = 'PM005';
    ELSE
        RAISE EXCEPTION 'item %: % must be a JSON %, got a JSON %',
            v_bad.n, v_bad.key, v_bad.json_type, v_bad.value_type
            USING ERRCODE = 'PM010';
    END IF;
END;
$$;

-- The slow path of a batch whose keys all have the right JSON types but a
-- value that does not convert (an embedding with a non-number, a bad
-- timestamp): finds the first such item and key and names them.
CREATE OR REPLACE FUNCTION pymem._raise_item_type_error(items jsonb)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_item jsonb;
    v_n bigint;
    v_key text;
BEGIN
    FOR v_item, v_n IN
        SELECT e.value, e.ordinality FROM jsonb_array_elements(items) WITH ORDINALITY AS e
    LOOP
        FOR v_key IN SELECT k FROM jsonb_object_keys(v_item) AS k ORDER BY k LOOP
            BEGIN
                PERFORM jsonb_populate_record(
                    NULL::pymem.memory_item, jsonb_build_object(v_key, v_item -> v_key)
                );
            EXCEPTION WHEN data_exception OR invalid_text_representation
                OR datatype_mismatch THEN
                IF v_key = 'embedding' THEN
                    RAISE EXCEPTION 'item %: embedding must be an array of numbers: %',
                        v_n, SQLERRM
                        USING ERRCODE = 'PM005';
                END IF;
                RAISE EXCEPTION 'item %: % is not valid: %', v_n, v_key, SQLERRM
                    USING ERRCODE = 'PM010';
            END;
        END LOOP;
    END LOOP;
END;
$$;
