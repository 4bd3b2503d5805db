-- Bulk import (`pymem import`): a file's lines through the write path, resumable.
-- A batch and the progress it makes commit together, so a re-run of an interrupted
-- import skips exactly the lines that were committed: a restart is not a re-mention.

-- How far an import of `source` got for this user: the last line committed (0: none).
CREATE OR REPLACE FUNCTION pymem.import_lines_done(user_id text, source text)
RETURNS integer
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN coalesce((
        SELECT p.lines_done FROM pymem.import_progress AS p
        WHERE p.user_id = import_lines_done.user_id AND p.source = import_lines_done.source
    ), 0);
END;
$$;

-- The digest an import of `source` recorded with its last committed line for this
-- user (NULL: none, or an import made before migration 0017).
CREATE OR REPLACE FUNCTION pymem.import_digest(user_id text, source text)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN (
        SELECT p.digest FROM pymem.import_progress AS p
        WHERE p.user_id = import_digest.user_id AND p.source = import_digest.source
    );
END;
$$;

-- Every import of this user: its source, the last line committed and the digest
-- recorded with it. `pymem import` reads them before a first run under a source
-- named by the file's digest: a file that only grew since a killed (or finished)
-- run has another digest, and its committed lines would go in again.
CREATE OR REPLACE FUNCTION pymem.import_sources(user_id text)
RETURNS TABLE (source text, lines_done integer, digest text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN QUERY
    SELECT p.source, p.lines_done, p.digest FROM pymem.import_progress AS p
    WHERE p.user_id = import_sources.user_id
    ORDER BY p.source;
END;
$$;

SELECT pymem._drop_if_result_differs(
    'pymem.import_memories(text, text, integer[], text[], vector[], jsonb)', 'pymem.write_result'
);

-- upsert_memory_arrays' batch, each item with its line of the file. Lines the
-- source's earlier runs committed are skipped (under the user's lock, so two
-- runs at once cannot both apply a line); `ordinal` of each row is its line.
-- digest: the caller's digest of the user's lines through the batch's last one,
-- recorded with it (import_digest), so that a re-run can tell its file is the one
-- that was committed.
CREATE OR REPLACE FUNCTION pymem.import_memories(
    user_id text,
    source text,
    lines integer[],
    contents text[],
    embeddings vector[],
    options jsonb DEFAULT NULL,
    digest text DEFAULT NULL
)
RETURNS SETOF pymem.write_result
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_done integer;
    -- positions (from 1) of the lines not committed yet
    v_new integer[];
BEGIN
    PERFORM pymem._check_user(user_id);
    IF source IS NULL OR char_length(btrim(source)) = 0 OR char_length(source) > 200 THEN
        RAISE EXCEPTION 'source must be 1 to 200 characters, got %',
            coalesce(quote_literal(left(source, 40)), 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    IF lines IS NULL OR array_ndims(lines) > 1 OR array_lower(lines, 1) <> 1
        OR cardinality(lines) <> coalesce(cardinality(contents), 0)
        OR array_position(lines, NULL) IS NOT NULL
        OR EXISTS (
            SELECT FROM unnest(lines) WITH ORDINALITY AS t (line, pos)
            WHERE t.line < 1 OR t.line <= lines[t.pos - 1]
        ) THEN
        RAISE EXCEPTION 'lines must be increasing line numbers from 1, one for each content'
            USING ERRCODE = 'PM010',
                DETAIL = format('%s lines, %s contents', coalesce(cardinality(lines)::text, 'NULL'),
                    coalesce(cardinality(contents)::text, 'NULL'));
    END IF;
    PERFORM pymem._lock_user(user_id);
    v_done := coalesce((
        SELECT p.lines_done FROM pymem.import_progress AS p
        WHERE p.user_id = import_memories.user_id AND p.source = import_memories.source
    ), 0);
    v_new := ARRAY(
        SELECT t.pos::integer FROM unnest(lines) WITH ORDINALITY AS t (line, pos)
        WHERE t.line > v_done ORDER BY t.pos
    );
    IF cardinality(v_new) = 0 THEN
        RETURN;
    END IF;
    IF cardinality(v_new) < cardinality(lines) THEN
        contents := ARRAY(SELECT contents[k] FROM unnest(v_new) AS k ORDER BY k);
        embeddings := ARRAY(SELECT embeddings[k] FROM unnest(v_new) AS k ORDER BY k);
        IF jsonb_typeof(options) = 'array' THEN
            options := (SELECT jsonb_agg(options -> (k - 1) ORDER BY k) FROM unnest(v_new) AS k);
        END IF;
    END IF;
    RETURN QUERY
    SELECT lines[v_new[r.ordinal]], r.memory_id, r.action, r.similarity, r.matched_id, r.rule
    FROM pymem.upsert_memory_arrays(import_memories.user_id, contents, embeddings, options) AS r;
    INSERT INTO pymem.import_progress AS p (user_id, source, lines_done, digest)
    VALUES (
        import_memories.user_id, import_memories.source, lines[cardinality(lines)],
        import_memories.digest
    )
    -- excluded.updated_at is now() (the column's default): Citus refuses a
    -- function that is not immutable in DO UPDATE SET
    ON CONFLICT ON CONSTRAINT import_progress_pkey DO UPDATE
        SET lines_done = greatest(p.lines_done, excluded.lines_done),
            digest = CASE WHEN excluded.lines_done >= p.lines_done
                THEN excluded.digest ELSE p.digest END,
            updated_at = excluded.updated_at;
END;
$$;
