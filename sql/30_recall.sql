-- The read path: ranked recall and touch. The scores it ranks by and the proof of a pass
-- are sql/29_scores.sql's, the words' weights sql/29_term_weights.sql's, the earlier values
-- it may return sql/32_earlier_values.sql's, the plain question's statement
-- sql/30_recall_plain.sql's, how they are planned sql/33_recall_plans.sql's.

-- Ranked recall of one user's live memories. Exact: every live memory of the user is
-- scored (btree on user_id, no ANN index), so the result is the same top-k as a
-- brute-force scan. A memory is scored by its best wording: its own text and vector or
-- one it absorbed (sql/21_wordings.sql); each wording is a row of the scan, and a memory
-- is returned once. With include_history, earlier values lift their current value and
-- are rows too (superseded_at; sql/32_earlier_values.sql) unless asked about the present.
--   relevance = similarity + lexical_weight * lexical + state_boost (valid states)
--               + person_lift (linked to a person the question names)
--               + time_boost (written in the span the question names)
--   score     = relevance * (decay_floor + (1 - decay_floor) * decay_score)
-- lexical is the share of the query's words found, each weighed by how rare it is among
-- the user's memories (pymem._term_weights, one scan before the ranking); the span is
-- pymem._asked_window's (sql/08_stated_time.sql).
-- The floor keeps a highly similar old memory above an unrelated fresh one. The lexical
-- share is pymem._lexical_match written inline, a token slot each (pymem._found_weight):
-- a function with a sub-select is not inlined, and a call per row doubles its cost; a
-- test holds the two equal. The scan keeps the 8k + 64 rows of the highest bound, and
-- proves its answer from them or runs again.
-- The signatures before the filters (issue 37) and before include_history (issue 34),
-- whose rows carry superseded_at: an added parameter makes an overload, which a call
-- by the old parameters would match too.
DROP FUNCTION IF EXISTS pymem.recall(
    text, vector, integer, text, text[], boolean, double precision, boolean, timestamptz
), pymem.recall(
    text, vector, integer, text, text[], boolean, double precision, boolean, timestamptz,
    jsonb, timestamptz, timestamptz, text[]
);

CREATE OR REPLACE FUNCTION pymem.recall(
    user_id text,
    query_embedding vector,
    k integer DEFAULT 5,
    query_text text DEFAULT NULL,
    kinds text[] DEFAULT NULL,
    include_cold boolean DEFAULT FALSE,
    min_similarity double precision DEFAULT NULL,
    touch boolean DEFAULT FALSE,
    at timestamptz DEFAULT now(),
    filter jsonb DEFAULT NULL,
    created_after timestamptz DEFAULT NULL,
    created_before timestamptz DEFAULT NULL,
    sources text[] DEFAULT NULL,
    include_history boolean DEFAULT FALSE
)
RETURNS TABLE (
    memory_id uuid,
    content text,
    kind text,
    similarity double precision,
    decay_score double precision,
    score double precision,
    lexical double precision,
    importance double precision,
    tier text,
    pinned boolean,
    topic text,
    details jsonb,
    last_access_at timestamptz,
    valid_until timestamptz,
    superseded_at timestamptz
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
-- the pool's rows are read again by ctid, one TID lookup each: on a partitioned
-- store the planner preferred hashing every row of the user against the pool (a
-- second scan: +0.37 ms for a user with 300 memories, docs/scaling.md)
SET enable_hashjoin = off
SET enable_mergejoin = off
-- read through a cursor (OPEN), its statements are planned for all rows, as FOR plans
SET cursor_tuple_fraction = 1
AS $$
#variable_conflict use_column
DECLARE
    v_cfg pymem.settings;
    v_tokens text [] := '{}';
    v_token_weights double precision [];
    v_weight_total double precision;
    v_token_count integer;
    v_window tstzrange;
    v_time_boost double precision := 0;
    v_weight double precision;
    v_floor double precision;
    v_boost double precision;
    v_pool integer;
    v_ids uuid [] := '{}';
    v_row record;
    v_rows refcursor;
    v_plain boolean;
    v_rates jsonb := pymem._kind_rates();
    v_has_wordings boolean;
    v_has_pending boolean;
    v_has_values boolean;
    v_asks_now boolean;
    v_asks_past boolean;
    v_history boolean;
    v_named_people uuid [] := '{}';
    v_named uuid [] := '{}';
    v_person_lift double precision := 0;
BEGIN
    -- one rule for user ids, the writes' (a copy of it here had drifted)
    PERFORM pymem._check_user(user_id);
    SELECT s.* INTO v_cfg FROM pymem.settings AS s;
    IF query_embedding IS NULL OR vector_dims(query_embedding) <> v_cfg.embedding_dimensions
        OR vector_norm(query_embedding) = 0
        OR (query_embedding <=> query_embedding) = 'NaN' THEN
        PERFORM pymem._check_embedding(
            query_embedding, v_cfg.embedding_dimensions, 'query_embedding'
        );
    END IF;
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000, got %', k USING ERRCODE = 'PM006';
    END IF;
    IF at IS NULL OR NOT isfinite(at) THEN
        RAISE EXCEPTION 'at must be a finite timestamp, got %', coalesce(at::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    -- NaN compares above every number: it would silently return nothing
    IF min_similarity = 'NaN' THEN
        RAISE EXCEPTION 'min_similarity must be a number, got NaN' USING ERRCODE = 'PM006';
    END IF;
    IF num_nonnulls(filter, created_after, created_before, sources) > 0 THEN
        PERFORM pymem._check_recall_filter(filter, created_after, created_before, sources);
    END IF;
    IF kinds IS NOT NULL THEN
        PERFORM pymem._check_one_dimension(kinds, 'kinds');
        kinds := ARRAY(SELECT pymem._word(x) FROM unnest(kinds) AS x);
        PERFORM pymem._kind(x) FROM unnest(kinds) AS x;
    END IF;
    -- its words are matched against every candidate's content (not at a lexical weight
    -- of 0: they count for nothing, and their weights, not read, made every score NULL)
    IF length(query_text) > pymem._max_query_chars() THEN
        RAISE EXCEPTION 'query_text is % characters long, the maximum is %', length(query_text),
            pymem._max_query_chars()
            USING ERRCODE = 'PM006', HINT = 'Pass the question, not the conversation.';
    END IF;
    IF query_text IS NOT NULL AND v_cfg.recall_lexical_weight > 0 THEN
        v_tokens := pymem._query_tokens(query_text);
    END IF;
    v_token_count := cardinality(v_tokens);
    v_weight := CASE WHEN v_token_count > 0 THEN v_cfg.recall_lexical_weight ELSE 0 END;
    -- one statement (each costs a call; most users have no wordings, most stores neither
    -- topics nor pending reviews), each probe the first entry of an index in its order: an
    -- EXISTS, planned once for every user, scanned the whole table when one user held it all
    SELECT
        (SELECT TRUE FROM pymem.memory_wordings AS w WHERE w.user_id = recall.user_id
            ORDER BY w.memory_id LIMIT 1) IS NOT NULL,
        (SELECT TRUE FROM pymem.reviews AS r WHERE r.user_id = recall.user_id
            AND r.resolved_at IS NULL ORDER BY r.created_at LIMIT 1) IS NOT NULL,
        (SELECT TRUE FROM pymem.memories AS h WHERE h.user_id = recall.user_id
            AND h.topic IS NOT NULL AND h.consolidated_into IS NULL AND h.deleted_at IS NULL
            ORDER BY h.topic LIMIT 1) IS NOT NULL
    INTO v_has_wordings, v_has_pending, v_has_values;
    IF v_weight > 0 THEN
        v_token_weights := pymem._term_weights(
            recall.user_id, v_tokens, recall.include_cold, v_has_wordings
        );
        v_weight_total := (SELECT sum(x) FROM unnest(v_token_weights) AS x);
    END IF;
    IF query_text IS NOT NULL THEN
        v_window := pymem._asked_window(query_text, recall.at);
    END IF;
    IF v_window IS NOT NULL THEN
        v_time_boost := pymem._asked_time_boost();
    END IF;
    -- the memories linked to the people the question names (the people first:
    -- on Citus a function's rows are not joined to a distributed table)
    IF query_text IS NOT NULL THEN
        v_named_people := ARRAY(
            SELECT n.contact_id FROM pymem._contacts_named_in(recall.user_id, query_text) AS n
        );
    END IF;
    IF cardinality(v_named_people) > 0 THEN
        v_named := ARRAY(
            SELECT DISTINCT l.memory_id
            FROM pymem.contact_links AS l
            WHERE l.user_id = recall.user_id AND l.contact_id = ANY(v_named_people)
            LIMIT pymem._named_person_limit() + 1
        );
    END IF;
    -- the scan compares a row's id with theirs only when the lift is on
    IF cardinality(v_named) BETWEEN 1 AND pymem._named_person_limit() THEN
        v_person_lift := pymem._named_person_lift();
    ELSE
        v_named := '{}';
    END IF;
    v_floor := v_cfg.recall_decay_floor;
    -- a question that gives its words and does not ask about the present gets no
    -- lift for states, one about the present a larger one, one asking for a value
    -- about the present a smaller one (sql/08_stated_time.sql); without words, as before
    v_asks_now := nullif(btrim(query_text), '') IS NOT NULL
        AND pymem._asks_about_now(query_text, recall.at);
    v_boost := pymem._question_state_lift(query_text, v_asks_now) * v_cfg.recall_state_boost;
    -- asked about the present, earlier values are not shown but still lift their
    -- current value; asked about before, values rank the other way (08_stated_time)
    v_asks_past := NOT v_asks_now AND coalesce(pymem._asks_about_before(query_text), FALSE);
    v_history := include_history;
    v_pool := 8 * k + 64;
    v_has_values := v_has_values OR v_has_pending;
    v_plain := v_token_count = 0 AND NOT (v_has_wordings OR v_has_values OR v_history OR v_asks_past);

    -- a pass with a pool; again with a larger one, then with every row (v_pool NULL: LIMIT
    -- ALL) until a pass proves its answer (its first row says; the rows shown follow it)
    <<passes>>
    LOOP
        IF v_plain THEN
            OPEN v_rows FOR
                SELECT p.*, 0::double precision AS lex, NULL::timestamptz AS superseded_at
                FROM pymem._plain_recall_pass(
                    recall.user_id, recall.query_embedding, recall.k, v_pool,
                    recall.include_cold, recall.kinds, recall.min_similarity, recall.at,
                    recall.filter, recall.created_after, recall.created_before,
                    recall.sources, v_boost, v_floor, v_person_lift, v_named, v_window,
                    v_time_boost, v_rates
                ) AS p;
        ELSE
            OPEN v_rows FOR
                WITH pool AS MATERIALIZED (
                    -- each row carries only its place, its id and the bound of its score
                    -- (its relevance ranked at its importance); the decay's columns, the
                    -- end of validity and the similarity and lexical share shown are read
                    -- for the pool's rows only, by ctid (the version this statement's
                    -- snapshot saw). Each arm keeps its own best rows: the pool is then
                    -- the best of all of them.
                    SELECT b.tid, b.id, b.wtid, b.bound
                    FROM (
                        -- A question without words: the memories' own scan computes
                        -- each row's bound, and its rows go straight to the sort (the
                        -- levels the words need cost about 0.2x the recall of 9181830).
                        (
                            SELECT
                                h.ctid AS tid, h.id, NULL::tid AS wtid,
                                pymem._ranked(
                                    pymem._relevance(
                                        1 - (h.embedding <=> recall.query_embedding), 0, 0,
                                        h.kind = 'state', v_boost,
                                        v_person_lift > 0 AND h.id = ANY(v_named), v_person_lift,
                                        h.created_at, v_window, v_time_boost
                                    ),
                                    v_floor, h.importance
                                ) AS bound
                            FROM pymem.memories AS h
                            WHERE v_token_count = 0 AND h.user_id = recall.user_id
                                AND h.consolidated_into IS NULL
                                AND h.deleted_at IS NULL
                                AND (recall.include_cold OR h.tier = 'hot')
                                AND pymem._recall_filter_holds(
                                    h.metadata, h.created_at, h.source,
                                    recall.filter, recall.created_after, recall.created_before,
                                    recall.sources
                                )
                                AND (recall.kinds IS NULL OR h.kind = ANY(recall.kinds))
                                AND (
                                    recall.min_similarity IS NULL
                                    OR 1 - (h.embedding <=> recall.query_embedding)
                                    >= recall.min_similarity
                                )
                            ORDER BY bound DESC
                            LIMIT v_pool + 1
                        )
                        UNION ALL
                        -- A question with words, and the wordings a memory absorbed: the
                        -- text is lowered once a row, a level below the relevance.
                        (
                            SELECT
                                r.tid, r.id, r.wtid,
                                pymem._ranked(r.rel, v_floor, r.importance) AS bound
                            FROM (
                                SELECT
                                    m.tid, m.id, m.wtid, m.importance,
                                    pymem._relevance(
                                        1 - (m.embedding <=> recall.query_embedding),
                                        v_weight, CASE WHEN v_token_count > 0 THEN (
                                            -- a slot a token (pymem._token_slots), the tokens past them
                                            -- by a sub-select that questions of a few words never run
                                            pymem._found_weight(m.lowered, v_tokens[1], v_token_weights[1])
                                            + pymem._found_weight(m.lowered, v_tokens[2], v_token_weights[2])
                                            + pymem._found_weight(m.lowered, v_tokens[3], v_token_weights[3])
                                            + pymem._found_weight(m.lowered, v_tokens[4], v_token_weights[4])
                                            + pymem._found_weight(m.lowered, v_tokens[5], v_token_weights[5])
                                            + pymem._found_weight(m.lowered, v_tokens[6], v_token_weights[6])
                                            + pymem._found_weight(m.lowered, v_tokens[7], v_token_weights[7])
                                            + pymem._found_weight(m.lowered, v_tokens[8], v_token_weights[8])
                                            + pymem._found_weight(m.lowered, v_tokens[9], v_token_weights[9])
                                            + pymem._found_weight(m.lowered, v_tokens[10], v_token_weights[10])
                                            + pymem._found_weight(m.lowered, v_tokens[11], v_token_weights[11])
                                            + pymem._found_weight(m.lowered, v_tokens[12], v_token_weights[12])
                                            + pymem._found_weight(m.lowered, v_tokens[13], v_token_weights[13])
                                            + pymem._found_weight(m.lowered, v_tokens[14], v_token_weights[14])
                                            + pymem._found_weight(m.lowered, v_tokens[15], v_token_weights[15])
                                            + pymem._found_weight(m.lowered, v_tokens[16], v_token_weights[16])
                                            + CASE WHEN v_token_count > pymem._token_slots() THEN coalesce((
                                                SELECT sum(x.weight)
                                                FROM unnest(
                                                    v_tokens[pymem._token_slots() + 1:],
                                                    v_token_weights[pymem._token_slots() + 1:]
                                                ) AS x (token, weight)
                                                WHERE strpos(m.lowered, x.token) > 0
                                            ), 0) ELSE 0 END
                                        ) / v_weight_total ELSE 0 END,
                                        m.kind = 'state', v_boost,
                                        v_person_lift > 0 AND m.id = ANY(v_named), v_person_lift,
                                        m.said_at, v_window, v_time_boost
                                    ) AS rel
                                FROM (
                                    -- through memories_user_live_idx: one key, its entries in heap
                                    -- order; the tier is the one column past the vector read for
                                    -- every row (decay's updates of it stay HOT only while no index
                                    -- names it)
                                    SELECT
                                        h.ctid AS tid, h.id, NULL::tid AS wtid, h.kind, h.embedding,
                                        h.importance, h.created_at AS said_at,
                                        -- lowered once a row, and only for a question with words
                                        CASE WHEN v_token_count > 0
                                            THEN pymem._searchable(h.content, h.topic) END AS lowered
                                    FROM pymem.memories AS h
                                    WHERE v_token_count > 0 AND h.user_id = recall.user_id
                                        AND h.consolidated_into IS NULL
                                        AND h.deleted_at IS NULL
                                        AND (recall.include_cold OR h.tier = 'hot')
                                        AND pymem._recall_filter_holds(
                                            h.metadata, h.created_at, h.source,
                                            recall.filter, recall.created_after, recall.created_before,
                                            recall.sources
                                        )
                                    -- and every other wording a live memory absorbed (sql/21_wordings.sql),
                                    -- for the content it still has: a memory is scored by its best one
                                    UNION ALL
                                    SELECT
                                        h.ctid, h.id, w.ctid, h.kind, w.embedding, h.importance, w.added_at,
                                        CASE WHEN v_token_count > 0
                                            THEN pymem._searchable(w.content, h.topic) END
                                    FROM pymem.memory_wordings AS w
                                    INNER JOIN pymem.memories AS h
                                        ON h.user_id = w.user_id AND h.id = w.memory_id
                                    WHERE v_has_wordings AND w.user_id = recall.user_id
                                        AND h.consolidated_into IS NULL
                                        AND h.deleted_at IS NULL
                                        AND (recall.include_cold OR h.tier = 'hot')
                                        AND pymem._recall_filter_holds(
                                            h.metadata, h.created_at, h.source,
                                            recall.filter, recall.created_after, recall.created_before,
                                            recall.sources
                                        )
                                        AND w.content_md5 = md5(h.content)
                                ) AS m
                                WHERE (recall.kinds IS NULL OR m.kind = ANY(recall.kinds))
                                    -- a second distance only when the option is set
                                    AND (
                                        recall.min_similarity IS NULL
                                        OR 1 - (m.embedding <=> recall.query_embedding) >= recall.min_similarity
                                    )
                                -- rel is computed once a row: a subquery pulled up would copy
                                -- its expression into each use of it in the bound
                                OFFSET 0
                            ) AS r
                            ORDER BY bound DESC
                            LIMIT v_pool + 1
                        )
                    ) AS b
                    ORDER BY b.bound DESC
                    LIMIT v_pool + 1
                ),
                scored AS (
                    -- a memory once, by its best wording
                    SELECT DISTINCT ON (p.id)
                        p.tid, p.id, p.wtid, p.strength,
                        pymem._ranked(p.rel, v_floor, p.strength) AS final_score,
                        p.topic, p.updated_at
                    FROM (
                        SELECT
                            pool.*, m.kind, m.topic, m.updated_at,
                            -- the relevance again from the bound (the scan kept one number
                            -- a row: the relevance and its bound would each compute the
                            -- distance); a factor of 0 ranks every relevance at 0
                            coalesce(
                                pool.bound / nullif(pymem._ranked(1, v_floor, m.importance), 0), 0
                            ) AS rel,
                            pymem.decay_score(
                                m.importance,
                                coalesce(m.decay_rate, (v_rates ->> m.kind)::double precision),
                                m.last_access_at, recall.at
                            ) AS strength
                        FROM pool
                        INNER JOIN pymem.memories AS m
                            ON m.user_id = recall.user_id AND m.ctid = pool.tid
                        -- an expired row in the pool is left out of the answer, not of
                        -- the bound: the rows the pool left out rank below it either way
                        WHERE m.valid_until IS NULL OR m.valid_until > recall.at
                    ) AS p
                    ORDER BY p.id, final_score DESC
                ),
                best AS (
                    SELECT sc.* FROM scored AS sc ORDER BY sc.final_score DESC, sc.id LIMIT recall.k
                ),
                -- one row even when none is shown (the pool's rows expired); materialized:
                -- inlined, the join's filter and the select list each ran the proof again
                verdict AS MATERIALIZED (
                    SELECT pymem._pool_proves(
                        v_pool, p.n, p.low, recall.k, b.n, b.kth, v_floor
                    ) AS proven
                    FROM (SELECT count(*) AS n, min(x.bound) AS low FROM pool AS x) AS p,
                        (SELECT count(*) AS n, min(x.final_score) AS kth FROM best AS x) AS b
                ),
                -- include_history: the k best earlier values (sql/32_earlier_values.sql),
                -- and the current value of each from outside the best (holders)
                earlier AS (
                    SELECT e.*
                    FROM pymem._earlier_values(
                        recall.user_id, recall.query_embedding, recall.k, v_tokens,
                        v_token_weights, v_weight, v_floor, v_rates, recall.at,
                        recall.include_cold, recall.kinds, recall.min_similarity,
                        recall.filter, recall.created_after, recall.created_before, recall.sources,
                        v_named, v_person_lift
                    ) AS e
                    WHERE v_history
                ),
                holders AS (
                    SELECT DISTINCT ON (e.id)
                        e.tid, e.id, NULL::tid AS wtid, e.strength,
                        NULL::double precision AS final_score, e.topic, h.updated_at
                    FROM earlier AS e
                    INNER JOIN pymem.memories AS h
                        ON h.user_id = recall.user_id AND h.ctid = e.tid
                    WHERE e.id NOT IN (SELECT best.id FROM best)
                    ORDER BY e.id
                ),
                -- the best rows and holders at their scores lifted by their own earlier values
                olders AS (
                    SELECT o.*, greatest(o.final_score, (SELECT max(e.final_score) FROM earlier AS e
                        WHERE e.id = o.id)) AS lifted
                    FROM (SELECT * FROM best UNION ALL SELECT * FROM holders) AS o
                ),
                -- Two live values of one thing (the same topic, or the write a pending review
                -- pairs with an earlier memory, unless queued for being close to what that
                -- memory said before: likelier the past said again): the newer ranks above
                -- the older (asked about before, of a topic the older above: "newer" is
                -- then older; a pending review links a pair one way only).
                -- Such a memory of one of the best (or of a holder of an earlier value
                -- shown) may come from outside the best (its own score is then below the
                -- k-th, and the pool's proof covers it); only the k of them that rank first
                -- at shown's lifted score can be shown (many open reviews brought hundreds).
                newer AS (
                    SELECT n.tid, n.id, n.wtid, n.strength, n.final_score, n.topic, n.updated_at
                    FROM (SELECT DISTINCT ON (h.id)
                        h.ctid AS tid, h.id, NULL::tid AS wtid,
                        pymem.decay_score(
                            h.importance,
                            coalesce(h.decay_rate, (v_rates ->> h.kind)::double precision),
                            h.last_access_at, recall.at
                        ) AS strength,
                        NULL::double precision AS final_score, h.topic, h.updated_at, o.lifted AS lift
                    FROM olders AS o
                    CROSS JOIN LATERAL (
                        SELECT x.*, x.ctid
                        FROM pymem.memories AS x
                        WHERE o.topic IS NOT NULL AND x.user_id = recall.user_id
                            AND x.topic = o.topic
                            AND x.consolidated_into IS NULL AND x.deleted_at IS NULL
                        UNION ALL
                        SELECT x.*, x.ctid
                        FROM pymem.reviews AS r
                        INNER JOIN pymem.memories AS x
                            ON x.user_id = r.user_id AND x.id = r.memory_id
                        WHERE v_has_pending AND NOT v_asks_past AND r.user_id = recall.user_id
                            AND r.matched_id = o.id AND r.resolved_at IS NULL
                            AND NOT pymem._queued_for_said_before(r.cause, r.note)
                            AND x.consolidated_into IS NULL AND x.deleted_at IS NULL
                    ) AS h
                    WHERE v_has_values AND CASE WHEN v_asks_past THEN h.updated_at < o.updated_at
                            ELSE h.updated_at > o.updated_at END
                        AND h.id NOT IN (SELECT best.id FROM best)
                        AND h.id NOT IN (SELECT holders.id FROM holders)
                        AND (recall.include_cold OR h.tier = 'hot')
                        AND pymem._recall_filter_holds(
                            h.metadata, h.created_at, h.source,
                            recall.filter, recall.created_after, recall.created_before, recall.sources
                        )
                        AND (h.valid_until IS NULL OR h.valid_until > recall.at)
                        AND (recall.kinds IS NULL OR h.kind = ANY(recall.kinds))
                        AND (
                            recall.min_similarity IS NULL
                            OR 1 - (h.embedding <=> recall.query_embedding) >= recall.min_similarity
                        )
                    ORDER BY h.id, lift DESC NULLS LAST) AS n
                    ORDER BY n.lift DESC, CASE WHEN v_asks_past THEN n.updated_at END, n.updated_at DESC, n.id
                    LIMIT recall.k
                ),
                -- the newer value takes the older one's score when its own is lower, and wins the
                -- tie: it stands just above the older, every memory below moves down a place; so
                -- does a current value above its earlier one (asked about before, the other way)
                shown AS (
                    SELECT
                        c.tid, c.id, c.wtid, c.vtid, c.strength, c.updated_at,
                        CASE WHEN c.vtid IS NOT NULL THEN greatest(c.final_score, (
                            SELECT max(b.final_score) FROM best AS b WHERE v_asks_past AND b.id = c.id
                        )) ELSE greatest(
                            (SELECT max(e.final_score) FROM earlier AS e WHERE e.id = c.id),
                        CASE WHEN v_has_values THEN greatest(c.final_score, (
                            SELECT max(o.lifted) FROM olders AS o
                            WHERE CASE WHEN v_asks_past THEN o.updated_at > c.updated_at
                                ELSE o.updated_at < c.updated_at END AND (
                                o.topic = c.topic
                                OR (v_has_pending AND EXISTS (
                                    SELECT FROM pymem.reviews AS r
                                    WHERE NOT v_asks_past AND r.user_id = recall.user_id
                                        AND r.matched_id = o.id AND r.memory_id = c.id
                                        AND r.resolved_at IS NULL
                                        AND NOT pymem._queued_for_said_before(r.cause, r.note)
                                ))
                            )
                        )) ELSE c.final_score END) END AS final_score
                    FROM (
                        SELECT *, NULL::tid AS vtid FROM best
                        UNION ALL SELECT *, NULL::tid FROM newer
                        UNION ALL SELECT *, NULL::tid FROM holders
                        UNION ALL SELECT * FROM earlier WHERE NOT v_asks_now
                    ) AS c
                    ORDER BY final_score DESC, (c.vtid IS NOT NULL) <> v_asks_past,
                        CASE WHEN v_asks_past THEN c.updated_at END, c.updated_at DESC, c.id, c.vtid
                    LIMIT recall.k
                )
                SELECT
                    v.proven, sc.id, sc.strength, sc.final_score,
                    -- the same arithmetic as the pool's relevance, for the k rows shown
                    -- (k calls of the function, not another inline copy; none without tokens)
                    1 - (coalesce(hv.embedding, w.embedding, m.embedding) <=> recall.query_embedding)
                    AS sim,
                    CASE WHEN v_token_count > 0
                        THEN pymem._lexical_match(
                            v_tokens, v_token_weights,
                            pymem._searchable(coalesce(hv.content, w.content, m.content), m.topic)
                        )
                        ELSE 0 END AS lex,
                    coalesce(hv.content, m.content) AS content, m.kind, m.importance, m.tier,
                    m.pinned, m.topic, m.details, m.last_access_at, m.valid_until,
                    hv.changed_at AS superseded_at
                FROM verdict AS v
                LEFT JOIN (
                    shown AS sc
                    INNER JOIN pymem.memories AS m
                        ON m.user_id = recall.user_id AND m.ctid = sc.tid
                    -- by ctid, a row each (OFFSET 0: joined instead, every wording of the
                    -- user was read when the planner counted few of them)
                    LEFT JOIN LATERAL (
                        SELECT x.content, x.embedding FROM pymem.memory_wordings AS x
                        WHERE x.ctid = sc.wtid AND x.user_id = recall.user_id
                        OFFSET 0
                    ) AS w ON TRUE
                    LEFT JOIN LATERAL (
                        SELECT x.content, x.embedding, x.changed_at FROM pymem.memory_versions AS x
                        WHERE x.ctid = sc.vtid AND x.user_id = recall.user_id
                        OFFSET 0
                    ) AS hv ON TRUE
                ) ON v.proven
                ORDER BY sc.final_score DESC, (sc.vtid IS NOT NULL) <> v_asks_past,
                    CASE WHEN v_asks_past THEN sc.updated_at END, sc.updated_at DESC, sc.id, sc.vtid;
        END IF;
        FETCH v_rows INTO v_row;
        IF NOT v_row.proven THEN
            CLOSE v_rows;
            -- a pool 16 times larger, then every row: at most three passes
            v_pool := CASE WHEN v_pool = 8 * recall.k + 64 THEN v_pool * 16 END;
            CONTINUE passes;
        END IF;
        WHILE FOUND AND v_row.id IS NOT NULL LOOP
            memory_id := v_row.id;
            content := v_row.content;
            kind := v_row.kind;
            similarity := v_row.sim;
            decay_score := v_row.strength;
            score := v_row.final_score;
            lexical := v_row.lex;
            importance := v_row.importance;
            tier := v_row.tier;
            pinned := v_row.pinned;
            topic := v_row.topic;
            details := v_row.details;
            last_access_at := v_row.last_access_at;
            valid_until := v_row.valid_until;
            superseded_at := v_row.superseded_at;
            -- (an earlier value shown comes with its memory's current one: touched once)
            v_ids := v_ids || v_row.id;
            RETURN NEXT;
            FETCH v_rows INTO v_row;
        END LOOP;
        CLOSE v_rows;
        EXIT passes;
    END LOOP;

    -- a write: _reinforce takes the user's lock
    IF touch AND cardinality(v_ids) > 0 THEN
        PERFORM pymem._reinforce(user_id, v_ids, FALSE);
    END IF;
END;
$$;
