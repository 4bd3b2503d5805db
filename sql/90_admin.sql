-- Store administration: schema version, dimension, embedder.

-- The number of the newest applied migration (each one records it in
-- pymem.schema_info); the Python package refuses to run against a
-- store older or newer than the migrations it ships ("run pymem migrate").
CREATE OR REPLACE FUNCTION pymem.schema_version()
RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT i.version FROM pymem.schema_info AS i
$$;

-- Fixes the embedding dimension. Only an empty store can change it:
-- vectors of two lengths can never be compared.
CREATE OR REPLACE FUNCTION pymem._set_dimensions(dimensions integer)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_current integer := (SELECT s.embedding_dimensions FROM pymem.settings AS s);
BEGIN
    IF dimensions IS NULL OR dimensions < 1 OR dimensions > 16000 THEN
        RAISE EXCEPTION 'dimensions must be between 1 and 16000, got %', dimensions
            USING ERRCODE = 'PM006';
    END IF;
    IF dimensions = v_current THEN
        RETURN v_current;
    END IF;
    -- (SELECT 1: Citus cannot run an empty target list over every shard)
    IF EXISTS (SELECT 1 FROM pymem.memories) OR EXISTS (SELECT 1 FROM pymem.memory_versions)
        OR EXISTS (SELECT 1 FROM pymem.memory_wordings) THEN
        RAISE EXCEPTION 'this store holds % dimensional embeddings; it cannot change to %',
            v_current, dimensions
            USING ERRCODE = 'PM013',
                HINT = 'Create a new store (another database or a rollback) for another embedder.';
    END IF;
    -- the column's type cannot change under Citus (its ALTER is refused, and so is
    -- the history trigger made again): the store's dimensions come with its creation
    IF pymem.store_shards() IS NOT NULL THEN
        PERFORM pymem._citus_refuse(
            'changing the embedding dimensions',
            'Pass --dimensions to the pymem migrate --citus that creates the store.'
        );
    END IF;
    -- the history trigger reads the column: dropped, then re-created below
    DROP TRIGGER IF EXISTS memories_version_on_change ON pymem.memories;
    -- A new type brings its default storage (EXTERNAL: toasted past ~2 kB).
    -- The vector stays inline (PLAIN), as migration 0001 set it, while it
    -- fits in a page beside the rest of the row (up to 1600 dimensions,
    -- 6.4 kB): a toasted vector is detoasted by every scan. Wider vectors
    -- cannot be PLAIN (a row must fit in 8 kB) and stay EXTERNAL.
    EXECUTE format(
        'ALTER TABLE pymem.memories ALTER COLUMN embedding TYPE vector(%s),'
        ' ALTER COLUMN embedding SET STORAGE %s',
        dimensions, CASE WHEN dimensions <= 1600 THEN 'PLAIN' ELSE 'EXTERNAL' END
    );
    -- the earlier values and the wordings are scanned by vector too (a write
    -- with a reviewer, recall), as migration 0025 set them
    EXECUTE format(
        'ALTER TABLE pymem.memory_versions ALTER COLUMN embedding TYPE vector(%s),'
        ' ALTER COLUMN embedding SET STORAGE %s',
        dimensions, CASE WHEN dimensions <= 1600 THEN 'PLAIN' ELSE 'EXTERNAL' END
    );
    EXECUTE format(
        'ALTER TABLE pymem.memory_wordings ALTER COLUMN embedding TYPE vector(%s),'
        ' ALTER COLUMN embedding SET STORAGE %s',
        dimensions, CASE WHEN dimensions <= 1600 THEN 'PLAIN' ELSE 'EXTERNAL' END
    );
    PERFORM pymem._create_history_triggers();
    UPDATE pymem.settings SET embedding_dimensions = dimensions;
    RETURN dimensions;
END;
$$;

-- Records which model writes the store's vectors and the thresholds
-- calibrated for it. The first call for a model records its thresholds;
-- later calls keep what is recorded (a DBA may have tuned it) unless
-- overwrite. A store holding vectors of one model refuses another:
-- their cosines mean different things.
CREATE OR REPLACE FUNCTION pymem.configure_embedder(
    model text,
    dedup_threshold double precision,
    supersede_threshold double precision,
    topic_supersede_threshold double precision DEFAULT NULL,
    overwrite boolean DEFAULT FALSE,
    dedup_term_change double precision DEFAULT NULL,
    cjk_dedup_threshold double precision DEFAULT NULL,
    cjk_dedup_term_change double precision DEFAULT NULL
)
RETURNS pymem.settings
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_settings pymem.settings;
BEGIN
    PERFORM pymem._check_content(model, 200, 'model');
    PERFORM pymem._check_thresholds(dedup_threshold, supersede_threshold);
    PERFORM pymem._check_fraction(topic_supersede_threshold, 'topic_supersede_threshold');
    PERFORM pymem._check_fraction(dedup_term_change, 'dedup_term_change');
    PERFORM pymem._check_fraction(cjk_dedup_term_change, 'cjk_dedup_term_change');
    IF cjk_dedup_threshold IS NOT NULL THEN
        PERFORM pymem._check_thresholds(cjk_dedup_threshold, supersede_threshold);
    END IF;
    SELECT * INTO v_settings FROM pymem.settings FOR UPDATE;
    IF v_settings.embedding_model = model AND NOT coalesce(overwrite, false) THEN
        RETURN v_settings;
    END IF;
    IF v_settings.embedding_model IS DISTINCT FROM model
        AND v_settings.embedding_model IS NOT NULL
        AND EXISTS (SELECT 1 FROM pymem.memories) THEN
        RAISE EXCEPTION 'this store''s vectors were written by %, not %',
            v_settings.embedding_model, model
            USING ERRCODE = 'PM012',
                HINT = 'Use the same embedder, or a new store for the new one.';
    END IF;
    UPDATE pymem.settings AS s
    SET embedding_model = configure_embedder.model,
        dedup_threshold = configure_embedder.dedup_threshold,
        supersede_threshold = configure_embedder.supersede_threshold,
        topic_supersede_threshold = coalesce(
            configure_embedder.topic_supersede_threshold, s.topic_supersede_threshold
        ),
        dedup_term_change = coalesce(configure_embedder.dedup_term_change, s.dedup_term_change),
        -- Chinese text: its own thresholds, or the others' when none are given
        cjk_dedup_threshold = coalesce(
            configure_embedder.cjk_dedup_threshold, configure_embedder.dedup_threshold
        ),
        cjk_dedup_term_change = coalesce(
            configure_embedder.cjk_dedup_term_change, configure_embedder.dedup_term_change,
            s.cjk_dedup_term_change
        )
    RETURNING * INTO v_settings;
    RETURN v_settings;
END;
$$;

CREATE OR REPLACE FUNCTION pymem.get_settings()
RETURNS pymem.settings
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN pymem._settings();
