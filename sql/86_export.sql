-- Export and restore of users' rows (pymem export, pymem import of an
-- export; docs/operations.md): every table of a user's rows, row by row, as
-- JSON, in an order a restore can insert them in, and the insert of a batch
-- of them. A round trip into an empty store gives the same rows (ids,
-- versions, times, history, facts, contacts, reviews); the identity
-- columns (fact history, wordings) get new numbers. What a worker holds
-- (claims, an import's progress, events waiting on Citus) is not exported.

-- The tables of users' rows, each named once: row-level security is set on
-- them (sql/98_app_role.sql), and the exported ones are exported in this
-- order (each after the tables its foreign keys name). What a worker holds
-- (an import's progress, events waiting on Citus, claims) is not exported.
CREATE OR REPLACE FUNCTION pymem._user_tables()
RETURNS TABLE (table_name text, restore_order integer, exported boolean)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT t.name, t.ord::integer, t.ord <= 13
    FROM unnest(ARRAY[
        'memories', 'memory_versions', 'memory_wordings', 'reviews', 'facts', 'fact_history',
        'contacts', 'contact_aliases', 'contact_links', 'contact_history', 'consolidations',
        'consolidation_announcements', 'reflections',
        'import_progress', 'event_outbox', 'job_claims'
    ]) WITH ORDINALITY AS t (name, ord)
$$;

-- The exported tables in restore order, with the columns a restore writes:
-- not the generated ones (fingerprints, normalized names) nor the identity
-- ones.
CREATE OR REPLACE FUNCTION pymem._export_tables()
RETURNS TABLE (table_name text, restore_order integer, columns text[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT t.table_name, t.restore_order, array_agg(a.attname::text ORDER BY a.attnum)
    FROM pymem._user_tables() AS t
    INNER JOIN pg_attribute AS a
        ON a.attrelid = format('pymem.%I', t.table_name)::regclass
        AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' AND a.attidentity = ''
    WHERE t.exported
    GROUP BY t.table_name, t.restore_order
    ORDER BY t.restore_order
$$;

-- Every row of user_id (NULL: of every user the caller sees) in every
-- exported table, table by table in restore order; a memory after the one
-- it was consolidated into (a record is written after its sources).
CREATE OR REPLACE FUNCTION pymem.export_rows(user_id text DEFAULT NULL)
RETURNS TABLE (table_name text, row_data jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_table record;
BEGIN
    IF user_id IS NOT NULL THEN
        PERFORM pymem._check_user(user_id);
    END IF;
    FOR v_table IN SELECT * FROM pymem._export_tables() LOOP
        RETURN QUERY EXECUTE format(
            -- the columns a restore writes, NULLs left out (the top level's only:
            -- a jsonb column keeps its own)
            'SELECT %L::text, to_jsonb(t) - ARRAY(
                SELECT e.k FROM jsonb_each(to_jsonb(t)) AS e (k, v)
                WHERE e.k <> ALL($2) OR e.v = ''null''
            ) FROM pymem.%I AS t WHERE $1 IS NULL OR t.user_id = $1 %s',
            v_table.table_name, v_table.table_name,
            CASE v_table.table_name
                WHEN 'memories'
                    THEN 'ORDER BY t.user_id, t.consolidated_into IS NOT NULL, t.created_at DESC'
                ELSE ''
            END
        ) USING user_id, v_table.columns;
    END LOOP;
END;
$$;

-- Inserts exported rows of one table (a JSON array of export_rows' row_data)
-- for user_id, whatever user they were exported from; a row already there
-- (the same key, or the same values) is left as it is. Memories arrive without announcing
-- anything (consolidation_due was announced, or not, in the store they came
-- from; their announcements are rows of their own). Returns the rows
-- inserted. PM006 for a table that is not exported or rows that are not an
-- array of objects.
CREATE OR REPLACE FUNCTION pymem.import_rows(user_id text, table_name text, rows_data jsonb)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_columns text[];
    v_count integer;
BEGIN
    PERFORM pymem._check_user(user_id);
    SELECT t.columns INTO v_columns FROM pymem._export_tables() AS t
    WHERE t.table_name = import_rows.table_name;
    IF v_columns IS NULL THEN
        RAISE EXCEPTION 'table_name must be one of the exported tables, got %',
            coalesce(quote_literal(left(table_name, 60)), 'NULL')
            USING ERRCODE = 'PM006',
                HINT = 'SELECT table_name FROM pymem._export_tables() lists them.';
    END IF;
    IF jsonb_typeof(rows_data) IS DISTINCT FROM 'array' OR jsonb_path_exists(
        rows_data, 'strict $[*] ? (@.type() != "object")'
    ) THEN
        RAISE EXCEPTION 'rows_data must be a JSON array of objects'
            USING ERRCODE = 'PM006';
    END IF;
    PERFORM set_config('pymem.consolidating', 'on', true);
    -- a row whose key is there already is skipped (ON CONFLICT); a table whose
    -- key is an identity the store numbers (fact history, wordings) has none
    -- that a restore can repeat, so a row equal to one there in every column
    -- written is skipped instead: a second restore of an export changes nothing
    EXECUTE format(
        'INSERT INTO pymem.%1$I (%2$s) SELECT %2$s FROM jsonb_populate_recordset('
        'NULL::pymem.%1$I, (SELECT jsonb_agg(r || jsonb_build_object(''user_id'', $1))'
        ' FROM jsonb_array_elements($2) AS r)) AS n %3$s ON CONFLICT DO NOTHING',
        table_name,
        (SELECT string_agg(format('%I', c), ', ') FROM unnest(v_columns) AS c),
        CASE WHEN EXISTS (
            SELECT FROM pg_attribute AS a
            WHERE a.attrelid = format('pymem.%I', table_name)::regclass AND a.attidentity <> ''
        ) THEN format(
            'WHERE NOT EXISTS (SELECT FROM pymem.%I AS x WHERE x.user_id = $1'
            ' AND (%s) IS NOT DISTINCT FROM (%s))',
            table_name,
            (SELECT string_agg(format('x.%I', c), ', ') FROM unnest(v_columns) AS c),
            (SELECT string_agg(format('n.%I', c), ', ') FROM unnest(v_columns) AS c)
        ) ELSE '' END
    ) USING user_id, rows_data;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    PERFORM set_config('pymem.consolidating', '', true);
    RETURN v_count;
END;
$$;
