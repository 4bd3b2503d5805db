-- Consolidation, what to fold (DESIGN: "Consolidation", docs/sql-api.md
-- "Consolidation"): candidate groups found without an all-pairs scan, and
-- the consolidation_due event. The fold itself: sql/72_consolidate.sql; a
-- reviewer's plan: sql/74_maintenance.sql.

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
SET search_path = pg_catalog, pymem, public, pg_temp
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
    PERFORM pymem._check_one_dimension(kinds, 'kinds');
    IF kinds IS NOT NULL THEN
        kinds := ARRAY(SELECT pymem._word(x) FROM unnest(kinds) AS x);
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
            jsonb_build_object('size', cardinality(v_members))
        );
    END IF;
    RETURN NULL;
END;
$$;

-- Triggers are made in a DO block: Citus sends a trigger's statement to the
-- shards as the text it came in, and a file's many statements are refused
-- there (docs/scaling.md).
DO $$
BEGIN
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
END;
$$;
