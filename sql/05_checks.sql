-- Input checks shared by every API function. Each raises a documented
-- SQLSTATE (docs/sql-api.md, "Errors") and names what was wrong.

-- What a blank text is made of, trimmed at both ends before "is it empty?":
-- spaces and breaks of every script (no-break, em, ideographic) and the
-- invisible ones (zero-width space and joiners, word joiner, byte order mark).
-- A text of only these stores nothing a person could read.
CREATE OR REPLACE FUNCTION pymem._blank_characters()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN E' \t\r\n\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008'
|| E'\u2009\u200a\u200b\u200c\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff';

-- The one rule for the enumerated words of every parameter (kind, source,
-- scope, on_related, confidence_level, a review's decision, a fact policy):
-- case and surrounding spaces do not matter ('FACT', ' Fact ' and 'fact'
-- are one kind), and the word is kept in lowercase, as documented. An
-- extractor's or a model's capitals are not a reason to refuse a write.
-- (No SET clause: an inlinable SQL function, every name qualified.)
CREATE OR REPLACE FUNCTION pymem._word(word text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN pg_catalog.lower(pg_catalog.btrim(word) COLLATE "C");

-- The most a write's JSON objects (metadata, details, a fact's value) may
-- take, in bytes of their JSON text (a stored size would let a compressible
-- megabyte through): they are read
-- back whole by every recall that returns the memory, so a megabyte in one
-- of them is a megabyte in each prompt built from it.
CREATE OR REPLACE FUNCTION pymem._max_json_bytes()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 65536;

-- The longest recall query_text, in characters.
CREATE OR REPLACE FUNCTION pymem._max_query_chars()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 10000;

-- The most items one batch write takes. A batch holds its user's lock from
-- its first item to its last (docs/sql-api.md, "Limits": 0.7-1.1 s at
-- the maximum here), and every other write of that user waits for it.
CREATE OR REPLACE FUNCTION pymem._max_batch_items()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 1000;

CREATE OR REPLACE FUNCTION pymem._check_batch_size(items integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF items > pymem._max_batch_items() THEN
        RAISE EXCEPTION 'a batch holds at most % items, got %', pymem._max_batch_items(), items
            USING ERRCODE = 'PM010',
                HINT = 'Split it: each call holds the user''s lock until its last item is written.';
    END IF;
END;
$$;

-- PM006 (or the caller's code) unless the JSON value fits _max_json_bytes().
CREATE OR REPLACE FUNCTION pymem._check_json_size(
    value jsonb, what text, errcode text DEFAULT 'PM006'
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_bytes integer := octet_length(value::text);
BEGIN
    IF v_bytes > pymem._max_json_bytes() THEN
        RAISE EXCEPTION '% takes % bytes, the maximum is %', what, v_bytes,
            pymem._max_json_bytes()
            USING ERRCODE = errcode,
                HINT = 'Keep large documents outside the store and put their reference here.';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_user(user_id text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    -- blank: the whitespace _check_content trims (a tab-only id is blank too)
    IF user_id IS NULL OR btrim(user_id, pymem._blank_characters()) = '' THEN
        RAISE EXCEPTION 'user_id must be a non-empty string, got %',
            coalesce(quote_literal(user_id), 'NULL')
            USING ERRCODE = 'PM001', HINT = 'Pass the id of the user the memory belongs to.';
    END IF;
    -- keys of every index start with user_id: a btree entry must fit a third
    -- of a page, which a longer id (or one with a long name or topic) breaks
    IF length(user_id) > 256 THEN
        RAISE EXCEPTION 'user_id is % characters long, the maximum is 256', length(user_id)
            USING ERRCODE = 'PM001', HINT = 'Use a short, stable id (a uuid, a number, an email).';
    END IF;
END;
$$;

-- An array argument is a list: one with more dimensions ('{{Dan},{Eve}}') was
-- read flattened by some functions and by position (NULL) by others.
CREATE OR REPLACE FUNCTION pymem._check_one_dimension(items anyarray, what text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF array_ndims(items) > 1 THEN
        RAISE EXCEPTION '% must be a one-dimensional array, got %', what, array_dims(items)
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_content(
    content text, max_chars integer, what text DEFAULT 'content'
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF content IS NULL OR btrim(content, pymem._blank_characters()) = '' THEN
        RAISE EXCEPTION '% must contain text, got %', what,
            coalesce(quote_literal(content), 'NULL')
            USING ERRCODE = 'PM002', HINT = CASE
                WHEN what = 'content' THEN 'Empty and whitespace-only memories are refused.'
                -- a query, a label, a record: say what it is, not "memories"
                ELSE format('Give the %s some words: an empty or whitespace-only one is refused.', what)
            END;
    END IF;
    IF length(content) > max_chars THEN
        RAISE EXCEPTION '% is % characters long, the maximum is %',
            what, length(content), max_chars
            USING ERRCODE = 'PM003',
                HINT = 'Store a shorter statement, or raise pymem.settings.max_content_chars.';
    END IF;
END;
$$;

-- What a write would refuse in its texts (PM002, PM003), and in its user (PM001) and
-- kind (PM008) when given, asked before the caller spends an embedder on them: a
-- megabyte of text embeds for half a minute, then is refused.
DROP FUNCTION IF EXISTS pymem.check_contents(text[], text[]);
CREATE OR REPLACE FUNCTION pymem.check_contents(
    contents text[], labels text[] DEFAULT NULL, user_id text DEFAULT NULL,
    kind text DEFAULT NULL
)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_max integer := (pymem._settings()).max_content_chars;
BEGIN
    IF user_id IS NOT NULL THEN
        PERFORM pymem._check_user(user_id);
    END IF;
    IF kind IS NOT NULL THEN
        PERFORM pymem._kind(kind);
    END IF;
    PERFORM pymem._check_one_dimension(contents, 'contents');
    PERFORM pymem._check_one_dimension(labels, 'labels');
    IF labels IS NOT NULL AND cardinality(labels) <> coalesce(cardinality(contents), 0) THEN
        RAISE EXCEPTION 'labels has % elements, contents %',
            cardinality(labels), coalesce(cardinality(contents), 0)
            USING ERRCODE = 'PM006';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(contents), 0) LOOP
        PERFORM pymem._check_content(
            contents[array_lower(contents, 1) + i - 1], v_max,
            coalesce(labels[array_lower(labels, 1) + i - 1], 'item ' || i || ': content')
        );
    END LOOP;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_embedding(
    embedding vector, dimensions integer, what text DEFAULT 'embedding'
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF embedding IS NULL THEN
        RAISE EXCEPTION '% must not be null', what
            USING ERRCODE = 'PM005';
    END IF;
    IF vector_dims(embedding) <> dimensions THEN
        RAISE EXCEPTION '% has % dimensions, this store expects %',
            what, vector_dims(embedding), dimensions
            USING ERRCODE = 'PM004',
                HINT = 'Use the embedder the store was created for (pymem.settings).';
    END IF;
    -- NaN and infinity cannot reach here: pgvector refuses them on input.
    IF vector_norm(embedding) = 0 THEN
        RAISE EXCEPTION '% is the zero vector, which has no direction', what
            USING ERRCODE = 'PM005';
    END IF;
    -- a length that under- or overflows single precision (components of 1e-30
    -- or 1e38): pgvector's cosine is then NaN, which compares above every
    -- threshold, or plain wrong
    IF (embedding <=> embedding) = 'NaN' THEN
        RAISE EXCEPTION '% has a length of %, too small or too large for single precision',
            what, vector_norm(embedding)
            USING ERRCODE = 'PM005', HINT = 'Send the vector scaled to unit length.';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_fraction(val double precision, name text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    -- NOT (a AND b) also catches NaN, which compares greater than 1.
    IF val IS NOT NULL AND NOT (val >= 0 AND val <= 1) THEN
        RAISE EXCEPTION '% must be between 0 and 1, got %', name, val
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_thresholds(
    dedup_threshold double precision, supersede_threshold double precision
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    -- NULL too: NOT of a comparison with NULL is NULL, which IF reads as false
    IF NOT coalesce(dedup_threshold >= 0 AND dedup_threshold <= 1, false)
        OR NOT coalesce(supersede_threshold >= 0 AND supersede_threshold <= 1, false) THEN
        RAISE EXCEPTION 'thresholds must be between 0 and 1, got dedup % and supersede %',
            dedup_threshold, supersede_threshold
            USING ERRCODE = 'PM007';
    END IF;
    IF supersede_threshold > dedup_threshold THEN
        RAISE EXCEPTION 'supersede_threshold % is above dedup_threshold %',
            supersede_threshold, dedup_threshold
            USING ERRCODE = 'PM007',
                HINT = 'A supersede is a weaker match than a duplicate: keep supersede <= dedup.';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_source(source text, label text DEFAULT '')
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF source IS NULL OR source NOT IN ('inferred', 'stated', 'confirmed') THEN
        RAISE EXCEPTION '%source must be inferred, stated or confirmed, got %',
            label, coalesce(quote_literal(source), 'NULL')
            USING ERRCODE = 'PM009';
    END IF;
END;
$$;

-- PM011 unless every id is a live memory of this user. Live: not deleted
-- (what the API may change or link); without include_consolidated, not
-- consolidated either (a fragment is represented by its record); with
-- include_deleted, any memory of the user (undo brings deleted ones back).
-- A NULL id is no memory: a caller that ignores NULLs removes them first.
-- label prefixes the message ("op 3: ") and every missing id is named.
CREATE OR REPLACE FUNCTION pymem._check_live_memories(
    user_id text,
    memory_ids uuid[],
    include_deleted boolean DEFAULT FALSE,
    include_consolidated boolean DEFAULT TRUE,
    label text DEFAULT ''
)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_missing text;
BEGIN
    SELECT string_agg(coalesce(i.id::text, 'NULL'), ', ' ORDER BY i.n) INTO v_missing
    FROM unnest(memory_ids) WITH ORDINALITY AS i (id, n)
    WHERE NOT EXISTS (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = _check_live_memories.user_id AND m.id = i.id
            AND (include_deleted OR m.deleted_at IS NULL)
            AND (include_consolidated OR m.consolidated_into IS NULL)
    );
    IF v_missing IS NOT NULL THEN
        RAISE EXCEPTION '%no memory % for user %', label, v_missing, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Memories of other users are invisible' || CASE
                    WHEN include_deleted THEN '.'
                    WHEN include_consolidated
                        THEN '; a deleted memory is gone until pymem.undo restores it.'
                    ELSE '; deleted and consolidated memories are not live (a fragment is '
                        'represented by its record).'
                END;
    END IF;
END;
$$;

-- The kind's row, or PM008 naming the kinds that exist.
CREATE OR REPLACE FUNCTION pymem._kind(kind text, label text DEFAULT '')
RETURNS pymem.kinds
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_kind pymem.kinds;
BEGIN
    SELECT k.* INTO v_kind FROM pymem.kinds AS k WHERE k.kind = _kind.kind;
    IF NOT found THEN
        RAISE EXCEPTION '%unknown kind %', label, coalesce(quote_literal(kind), 'NULL')
            USING ERRCODE = 'PM008',
                DETAIL = format('Known kinds: %s.',
                    (SELECT string_agg(k.kind, ', ' ORDER BY k.kind) FROM pymem.kinds AS k)),
                HINT = 'Add a row to pymem.kinds to define a new kind.';
    END IF;
    RETURN v_kind;
END;
$$;

-- recall's filters, refused with PM006 (PM009 for an unknown source).
CREATE OR REPLACE FUNCTION pymem._check_recall_filter(
    filter jsonb, created_after timestamptz, created_before timestamptz, sources text[]
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF filter IS NOT NULL AND jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION 'filter must be a JSON object of the metadata to match, got %',
            jsonb_typeof(filter)
            USING ERRCODE = 'PM006',
                HINT = 'Containment: {"project": "apollo"} matches metadata holding that pair.';
    END IF;
    IF NOT isfinite(created_after) OR NOT isfinite(created_before) THEN
        RAISE EXCEPTION 'created_after and created_before must be finite times or NULL'
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_one_dimension(sources, 'sources');
    IF EXISTS (
        SELECT FROM unnest(sources) AS x (source)
        WHERE x.source IS NULL OR x.source NOT IN ('inferred', 'stated', 'confirmed')
    ) THEN
        RAISE EXCEPTION 'sources must name inferred, stated or confirmed, got %', sources
            USING ERRCODE = 'PM009';
    END IF;
END;
$$;
