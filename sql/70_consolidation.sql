-- Consolidation (DESIGN: "Consolidation", docs/sql-api.md "Consolidation"):
-- candidate groups found without an all-pairs scan, consolidate with its
-- guards, a reviewer's maintenance plan applied atomically, unconsolidate,
-- and the consolidation_due event.
--
-- Reserved details key: details->'alternatives' is an object of arrays
-- ({"drink": ["tea"]}) holding the other values a key has had among
-- consolidated sources. A details object whose 'alternatives' is not an
-- object of arrays treats it as a plain key.

-- details->'alternatives' when it has the reserved shape, else NULL.
CREATE OR REPLACE FUNCTION pymem._alternatives(details jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
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
SET search_path = pg_catalog, pymem, public
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
SET search_path = pg_catalog, pymem, public
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
SET search_path = pg_catalog, pymem, public
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

-- The consolidation itself, already under the user's lock. label prefixes
-- error messages ("op 3: ...") so a maintenance plan names the op.
CREATE OR REPLACE FUNCTION pymem._consolidate(
    user_id text,
    source_ids uuid[],
    content text,
    embedding vector,
    details jsonb,
    cfg pymem.settings,
    label text DEFAULT '',
    OUT memory_id uuid,
    OUT action text
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_ids uuid[];
    v_bad text;
    v_details jsonb := '{}';
    v_metadata jsonb := '{}';
    v_src record;
    v_dropped text[];
    v_agg record;
    v_kind text;
    v_topic text;
    v_links jsonb := '[]';
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
    IF cardinality(v_ids) < 2 THEN
        RAISE EXCEPTION '%a consolidation needs at least 2 distinct sources, got %',
            label, cardinality(v_ids)
            USING ERRCODE = 'PM040',
                HINT = 'To rewrite one memory, use an update op of apply_maintenance.';
    END IF;
    PERFORM pymem._check_content(content, cfg.max_content_chars, label || 'content');
    PERFORM pymem._check_embedding(embedding, cfg.embedding_dimensions, label || 'embedding');
    IF jsonb_typeof(details) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION '%details must be a JSON object, got %',
            label, coalesce(jsonb_typeof(details), 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    IF details ? 'alternatives' AND pymem._alternatives(details) IS NULL THEN
        RAISE EXCEPTION '%details.alternatives must be an object of arrays ({"key": [values]})',
            label
            USING ERRCODE = 'PM006';
    END IF;

    -- 1. The same source set again: its record, never a second copy.
    SELECT c.id INTO memory_id
    FROM pymem.consolidations AS c
    WHERE c.user_id = _consolidate.user_id AND c.source_ids = v_ids AND c.undone_at IS NULL;
    IF found THEN
        action := 'existing';
        RETURN;
    END IF;

    -- 2. Every source is a live memory of this user.
    SELECT string_agg(x::text, ', ' ORDER BY x) INTO v_bad
    FROM unnest(v_ids) AS x
    WHERE NOT EXISTS (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = _consolidate.user_id AND m.id = x AND m.deleted_at IS NULL
    );
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION '%no memory % for user %', label, v_bad, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Sources must be live memories of this user.';
    END IF;

    -- 3. None is consolidated already (an overlapping, different set).
    SELECT string_agg(format('%s (into %s)', m.id, m.consolidated_into), ', ' ORDER BY m.id)
    INTO v_bad
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
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
        WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
        ORDER BY m.created_at, m.id
    LOOP
        v_details := pymem._details_merge(v_details, v_src.details, true);
        v_metadata := v_metadata || v_src.metadata;
    END LOOP;
    v_details := pymem._details_merge(v_details, details, false);
    FOR v_src IN
        SELECT m.id, m.details
        FROM pymem.memories AS m
        WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
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

    -- 5. The record inherits the strongest source, the highest importance,
    -- pinning, and the kind and topic most sources share.
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
        jsonb_object_agg(m.id::text, m.importance) AS previous
    INTO v_agg
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids);
    SELECT m.kind INTO v_kind
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids)
    GROUP BY m.kind
    ORDER BY count(*) DESC, max(m.importance) DESC, m.kind
    LIMIT 1;
    SELECT m.topic INTO v_topic
    FROM pymem.memories AS m
    WHERE m.user_id = _consolidate.user_id AND m.id = ANY(v_ids) AND m.topic IS NOT NULL
    GROUP BY m.topic
    ORDER BY count(*) DESC, m.topic
    LIMIT 1;

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

    PERFORM pymem._set_change_reason(format('consolidated into %s', memory_id));
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
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT DISTINCT s.user_id, s.contact_id, _consolidate.memory_id, 'moved'
        FROM pymem.contact_links AS s
        WHERE s.user_id = _consolidate.user_id AND s.memory_id = ANY(v_ids)
        ON CONFLICT DO NOTHING;
        DELETE FROM pymem.contact_links AS l
        WHERE l.user_id = _consolidate.user_id AND l.memory_id = ANY(v_ids);
    END IF;

    INSERT INTO pymem.consolidations AS c (
        user_id, id, source_ids, previous_importance, moved_links
    ) VALUES (user_id, memory_id, v_ids, v_agg.previous, v_links);

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
SET search_path = pg_catalog, pymem, public
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

-- Groups of related live, unconsolidated memories: connected components
-- of the graph whose edges are pairs at cosine >= min_similarity and
-- pairs sharing a topic. Pairs are looked for exactly among at most 512
-- memories; above, inside buckets: about sqrt(4N) centres are picked
-- (every (N/centres)-th memory by id), every memory belongs to the bucket
-- of its nearest centre and is compared with the members of the buckets
-- of its 6 nearest centres: N * sqrt(4N) + N * 6 * sqrt(N/4) comparisons
-- (1.6M at 10k memories) instead of N^2 / 2 (50M). Deterministic for the
-- same rows. Measured by `pymem bench consolidate` (docs/sql-api.md).
CREATE OR REPLACE FUNCTION pymem.consolidation_candidates(
    user_id text,
    min_similarity double precision DEFAULT NULL,
    min_group integer DEFAULT NULL,
    include_pinned boolean DEFAULT FALSE,
    kinds text[] DEFAULT NULL
)
RETURNS TABLE (
    group_no integer,
    size integer,
    member_ids uuid[],
    topic text,
    mean_similarity double precision,
    edges integer
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
SET work_mem = '128MB'
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
    c_exact_max constant integer := 512;
    c_probes constant integer := 6;
    v_cfg pymem.settings := pymem._settings();
    v_min double precision;
    v_group integer;
    v_pinned boolean := coalesce(include_pinned, false);
    v_ids uuid[];
    v_topics text[];
    v_n integer;
    v_step integer;
    v_a integer[];
    v_b integer[];
    v_sim double precision[];
    v_ta integer[];
    v_tb integer[];
    v_parent integer[];
    v_kind text;
    x integer;
    y integer;
BEGIN
    PERFORM pymem._check_user(user_id);
    v_min := coalesce(min_similarity, v_cfg.consolidation_similarity);
    v_group := coalesce(min_group, v_cfg.consolidation_group_size);
    PERFORM pymem._check_fraction(v_min, 'min_similarity');
    IF v_group < 2 THEN
        RAISE EXCEPTION 'min_group must be at least 2, got %', v_group
            USING ERRCODE = 'PM006';
    END IF;
    FOREACH v_kind IN ARRAY coalesce(kinds, '{}') LOOP
        PERFORM pymem._kind(v_kind);
    END LOOP;

    SELECT array_agg(m.id ORDER BY m.id), array_agg(m.topic ORDER BY m.id)
    INTO v_ids, v_topics
    FROM pymem.memories AS m
    WHERE m.user_id = consolidation_candidates.user_id
        AND m.consolidated_into IS NULL AND m.deleted_at IS NULL
        AND (v_pinned OR NOT m.pinned)
        AND (kinds IS NULL OR m.kind = ANY(kinds));
    v_n := coalesce(cardinality(v_ids), 0);
    IF v_n < v_group THEN
        RETURN;
    END IF;

    -- STABLE: every statement sees the same snapshot, so the rows below are
    -- numbered as v_ids is.
    IF v_n <= c_exact_max THEN
        WITH pts AS MATERIALIZED (
            SELECT row_number() OVER (ORDER BY m.id)::integer AS i, m.embedding AS e
            FROM pymem.memories AS m
            WHERE m.user_id = consolidation_candidates.user_id
                AND m.consolidated_into IS NULL AND m.deleted_at IS NULL
                AND (v_pinned OR NOT m.pinned)
                AND (kinds IS NULL OR m.kind = ANY(kinds))
        ),
        pairs AS (
            SELECT p.i AS a, q.i AS b, 1 - (p.e <=> q.e) AS sim
            FROM pts AS p JOIN pts AS q ON p.i < q.i
        )
        SELECT array_agg(pairs.a ORDER BY pairs.a, pairs.b),
            array_agg(pairs.b ORDER BY pairs.a, pairs.b),
            array_agg(pairs.sim ORDER BY pairs.a, pairs.b)
        INTO v_a, v_b, v_sim
        FROM pairs
        WHERE pairs.sim >= v_min;
    ELSE
        v_step := greatest(1, v_n / ceil(sqrt(4.0 * v_n))::integer);
        WITH pts AS MATERIALIZED (
            SELECT row_number() OVER (ORDER BY m.id)::integer AS i, m.embedding AS e
            FROM pymem.memories AS m
            WHERE m.user_id = consolidation_candidates.user_id
                AND m.consolidated_into IS NULL AND m.deleted_at IS NULL
                AND (v_pinned OR NOT m.pinned)
                AND (kinds IS NULL OR m.kind = ANY(kinds))
        ),
        centres AS MATERIALIZED (
            SELECT pts.i AS c, pts.e FROM pts WHERE pts.i % v_step = 0
        ),
        -- each memory with its c_probes nearest centres, ranked (the rank
        -- inside the lateral: a window over all rows would sort the vectors)
        probes AS MATERIALIZED (
            SELECT p.i, p.e, n.c, n.r
            FROM pts AS p
            CROSS JOIN LATERAL (
                SELECT x.c, row_number() OVER (ORDER BY x.d, x.c) AS r
                FROM (
                    SELECT centres.c, centres.e <=> p.e AS d
                    FROM centres
                    ORDER BY 2, 1
                    LIMIT c_probes
                ) AS x
            ) AS n
        ),
        -- each memory's bucket: its nearest centre
        home AS MATERIALIZED (
            SELECT probes.i, probes.c, probes.e FROM probes WHERE probes.r = 1
        ),
        -- Every memory against the members of its probed buckets. The rows
        -- carry their vectors: a join back to pts would sort or hash the
        -- wide candidate rows (measured 10x slower).
        pairs AS (
            SELECT DISTINCT ON (least(p.i, h.i), greatest(p.i, h.i))
                least(p.i, h.i) AS a, greatest(p.i, h.i) AS b, 1 - (p.e <=> h.e) AS sim
            FROM probes AS p
            JOIN home AS h ON h.c = p.c AND h.i <> p.i
            WHERE 1 - (p.e <=> h.e) >= v_min
            ORDER BY least(p.i, h.i), greatest(p.i, h.i)
        )
        SELECT array_agg(pairs.a ORDER BY pairs.a, pairs.b),
            array_agg(pairs.b ORDER BY pairs.a, pairs.b),
            array_agg(pairs.sim ORDER BY pairs.a, pairs.b)
        INTO v_a, v_b, v_sim
        FROM pairs;
    END IF;

    -- memories sharing a topic: each linked to the topic's first memory
    SELECT array_agg(t.first ORDER BY t.i), array_agg(t.i ORDER BY t.i)
    INTO v_ta, v_tb
    FROM (
        SELECT u.i::integer AS i, min(u.i) OVER (PARTITION BY u.topic)::integer AS first
        FROM unnest(v_topics) WITH ORDINALITY AS u (topic, i)
        WHERE u.topic IS NOT NULL
    ) AS t
    WHERE t.i <> t.first;
    v_a := coalesce(v_a, '{}') || coalesce(v_ta, '{}');
    v_b := coalesce(v_b, '{}') || coalesce(v_tb, '{}');

    -- union-find; the smaller index becomes the root, so the result does not
    -- depend on the order of the edges
    v_parent := array(SELECT generate_series(1, v_n));
    FOR j IN 1..cardinality(v_a) LOOP
        x := v_a[j];
        WHILE v_parent[x] <> x LOOP
            v_parent[x] := v_parent[v_parent[x]];
            x := v_parent[x];
        END LOOP;
        y := v_b[j];
        WHILE v_parent[y] <> y LOOP
            v_parent[y] := v_parent[v_parent[y]];
            y := v_parent[y];
        END LOOP;
        IF x < y THEN
            v_parent[y] := x;
        ELSIF y < x THEN
            v_parent[x] := y;
        END IF;
    END LOOP;
    FOR i IN 1..v_n LOOP
        v_parent[i] := v_parent[v_parent[i]];
    END LOOP;

    RETURN QUERY
    WITH members AS (
        -- one parallel unnest: subscripting text[] is linear in the index
        SELECT u.root, u.id, u.topic
        FROM unnest(v_parent, v_ids, v_topics) AS u (root, id, topic)
    ),
    groups AS (
        SELECT members.root, array_agg(members.id ORDER BY members.id) AS ids
        FROM members
        GROUP BY members.root
        HAVING count(*) >= v_group
    ),
    -- the topic most members share (ties: the first by name)
    topics AS (
        SELECT DISTINCT ON (t.root) t.root, t.topic
        FROM (
            SELECT members.root, members.topic, count(*) AS n
            FROM members
            WHERE members.topic IS NOT NULL
            GROUP BY members.root, members.topic
        ) AS t
        ORDER BY t.root, t.n DESC, t.topic
    ),
    sims AS (
        SELECT v_parent[e.a] AS root, avg(e.sim) AS mean, count(*)::integer AS n
        FROM unnest(v_a[1:coalesce(cardinality(v_sim), 0)], v_sim) AS e (a, sim)
        GROUP BY 1
    )
    SELECT
        (row_number() OVER (ORDER BY cardinality(g.ids) DESC, g.ids[1]))::integer,
        cardinality(g.ids)::integer,
        g.ids,
        t.topic,
        s.mean,
        coalesce(s.n, 0)
    FROM groups AS g
    LEFT JOIN topics AS t ON t.root = g.root
    LEFT JOIN sims AS s ON s.root = g.root
    ORDER BY 1;
END;
$$;

-- consolidation_due: a topic whose live, unconsolidated, unpinned memories
-- of one user reach settings.consolidation_group_size is announced once,
-- after commit; a consolidation of any of its fragments clears the
-- announcement (pymem._consolidate), so a topic that fills up again is
-- announced again. Rows without a topic fire nothing (the WHEN clause).
CREATE OR REPLACE FUNCTION pymem._announce_consolidation()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_size integer;
    v_count integer;
    v_members uuid[];
BEGIN
    IF NEW.consolidated_into IS NOT NULL OR NEW.deleted_at IS NOT NULL OR NEW.pinned
        OR current_setting('pymem.consolidating', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF EXISTS (
        SELECT FROM pymem.consolidation_announcements AS a
        WHERE a.user_id = NEW.user_id AND a.topic = NEW.topic
    ) THEN
        RETURN NULL;
    END IF;
    v_size := (SELECT s.consolidation_group_size FROM pymem.settings AS s);
    SELECT count(*) INTO v_count
    FROM (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = NEW.user_id AND m.topic = NEW.topic
            AND m.consolidated_into IS NULL AND m.deleted_at IS NULL AND NOT m.pinned
        LIMIT v_size
    ) AS t;
    IF v_count < v_size THEN
        RETURN NULL;
    END IF;
    SELECT array_agg(m.id ORDER BY m.created_at, m.id) INTO v_members
    FROM pymem.memories AS m
    WHERE m.user_id = NEW.user_id AND m.topic = NEW.topic
        AND m.consolidated_into IS NULL AND m.deleted_at IS NULL AND NOT m.pinned;
    INSERT INTO pymem.consolidation_announcements AS a (user_id, topic, member_ids)
    VALUES (NEW.user_id, NEW.topic, v_members)
    ON CONFLICT DO NOTHING;
    IF found THEN
        PERFORM pymem._notify(
            NEW.user_id, 'consolidation_due', v_members,
            jsonb_build_object('topic', NEW.topic, 'size', cardinality(v_members))
        );
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER memories_consolidation_due
AFTER INSERT ON pymem.memories
FOR EACH ROW
WHEN (new.topic IS NOT NULL)
EXECUTE FUNCTION pymem._announce_consolidation();

CREATE OR REPLACE TRIGGER memories_consolidation_due_on_topic
AFTER UPDATE OF topic ON pymem.memories
FOR EACH ROW
WHEN (new.topic IS NOT NULL AND old.topic IS DISTINCT FROM new.topic)
EXECUTE FUNCTION pymem._announce_consolidation();

-- The target of an update, delete or no-change op: a live memory of this
-- user; update and delete also refuse a consolidated fragment.
CREATE OR REPLACE FUNCTION pymem._maintenance_target(
    user_id text, memory_id uuid, writes boolean, label text
)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_into uuid;
BEGIN
    SELECT m.consolidated_into INTO v_into
    FROM pymem.memories AS m
    WHERE m.user_id = _maintenance_target.user_id AND m.id = _maintenance_target.memory_id
        AND m.deleted_at IS NULL;
    IF NOT found THEN
        RAISE EXCEPTION '%no memory % for user %', label, memory_id, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Memories of other users are invisible; deleted memories cannot change.';
    END IF;
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
SET search_path = pg_catalog, pymem, public
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
        v_allowed := v_required || CASE WHEN v_name = 'merge' THEN ARRAY['details'] END;
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
            ('embedding', 'array'), ('details', 'object')
        ) AS spec (key, type)
        WHERE v_op ? spec.key AND jsonb_typeof(v_op -> spec.key) <> spec.type;
        IF v_bad IS NOT NULL THEN
            RAISE EXCEPTION '%', v_label || v_bad USING ERRCODE = 'PM043';
        END IF;
        IF jsonb_path_exists(
            coalesce(v_op -> 'ids', '[]') || jsonb_build_array(coalesce(v_op -> 'id', '""')),
            'strict $[*] ? (@.type() != "string" || !(@ like_regex '
            '"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$"))'
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
                v_label
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
            PERFORM pymem._set_change_reason('maintenance: update');
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
            PERFORM pymem._set_change_reason('maintenance: delete');
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

-- Reverses a consolidation: the sources are live again with their former
-- importance and contact links, the record is soft-deleted. Returns how
-- many sources were restored (a source deleted since stays deleted).
CREATE OR REPLACE FUNCTION pymem.unconsolidate(user_id text, consolidated_id uuid)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
#variable_conflict use_column
DECLARE
    v_into uuid;
    v_c pymem.consolidations;
    v_count integer;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._lock_user(user_id);
    SELECT m.consolidated_into INTO v_into
    FROM pymem.memories AS m
    WHERE m.user_id = unconsolidate.user_id AND m.id = consolidated_id AND m.deleted_at IS NULL;
    IF NOT found THEN
        RAISE EXCEPTION 'no memory % for user %', consolidated_id, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Memories of other users are invisible; a deleted record has no sources '
                    'to restore.';
    END IF;
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
        -- review retired it) leaves its links to every restored source
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by, linked_at)
        SELECT unconsolidate.user_id, (x ->> 'contact_id')::uuid, src.id,
            CASE WHEN src.id = (x ->> 'memory_id')::uuid THEN x ->> 'found_by' ELSE 'moved' END,
            (x ->> 'linked_at')::timestamptz
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
        ON CONFLICT DO NOTHING;
        -- links made to the record after it was written (a duplicate of one
        -- of its fragments) concern what it stood for: every restored source
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT r.user_id, r.contact_id, src.id, 'moved'
        FROM pymem.contact_links AS r
        INNER JOIN pymem.memories AS src
            ON src.user_id = r.user_id AND src.id = ANY(v_c.source_ids) AND src.deleted_at IS NULL
        WHERE r.user_id = unconsolidate.user_id AND r.memory_id = consolidated_id
            AND NOT (r.found_by = 'moved' AND r.contact_id IN (
                SELECT (x ->> 'contact_id')::uuid FROM jsonb_array_elements(v_c.moved_links) AS x
            ))
        ON CONFLICT DO NOTHING;
        DELETE FROM pymem.contact_links AS l
        WHERE l.user_id = unconsolidate.user_id AND l.memory_id = consolidated_id;
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
