-- The candidates of a write among the user's memories, and the decision for
-- one item (pymem._match): nothing is written here (sql/22_upsert.sql writes).

-- With a reviewer (on_related = 'review' and a review floor), the live
-- memory nearest to an insert among the kinds its kind is reviewed against
-- (pymem.kinds.review_against: an event against standing facts), when
-- pymem._decision queues it and it is closer than the neighbour of the
-- item's own kind found below the band (closer_than, NULL: none). One more
-- exact scan of the user's rows of those kinds, only with a reviewer.
CREATE OR REPLACE FUNCTION pymem._nearest_other_kind(
    user_id text,
    item pymem.memory_item,
    s pymem.settings,
    closer_than double precision,
    OUT memory_id uuid,
    OUT similarity double precision,
    OUT rule text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_evidence pymem.pair_evidence;
    v_decision record;
    v_against text[];
BEGIN
    -- a neighbour of the item's own kind in the related band stays the one
    -- reviewed: it is the likelier restatement or update
    IF s.on_related IS DISTINCT FROM 'review' OR s.review_floor IS NULL
        OR closer_than >= s.supersede_threshold THEN
        RETURN;
    END IF;
    SELECT k.review_against INTO v_against FROM pymem.kinds AS k WHERE k.kind = item.kind;
    IF coalesce(cardinality(v_against), 0) = 0 THEN
        RETURN;
    END IF;
    SELECT m.id, 1 - (m.embedding <=> item.embedding)
    INTO memory_id, similarity
    FROM pymem.memories AS m
    WHERE m.user_id = _nearest_other_kind.user_id
        AND m.kind = ANY (v_against)
        AND m.kind <> item.kind
        AND m.consolidated_into IS NULL
        AND m.deleted_at IS NULL
        AND (m.topic IS NULL OR item.topic IS NULL OR m.topic = item.topic)
    ORDER BY m.embedding <=> item.embedding, m.id
    LIMIT 1;
    v_evidence.similarity := similarity;
    v_evidence.other_kind := TRUE;
    v_decision := pymem._decision(v_evidence, s);
    IF memory_id IS NULL OR v_decision.action IS NULL
        OR similarity <= coalesce(closer_than, -1) THEN
        memory_id := NULL;
        similarity := NULL;
        RETURN;
    END IF;
    rule := v_decision.rule;
END;
$$;

-- With a reviewer, the live memory of the item's kind and topic nearest to
-- an insert, when it is closer than the neighbour found so far (closer_than,
-- NULL: none): the write path finds neighbours by vector, and two values of
-- one thing the embedder scores far apart (a move across town, a new job
-- said in other words) share nothing else the extractor said. One lookup of
-- the user's rows of that topic (memories_topic_idx), only with a reviewer
-- and a topic.
CREATE OR REPLACE FUNCTION pymem._nearest_same_topic(
    user_id text,
    item pymem.memory_item,
    s pymem.settings,
    closer_than double precision,
    OUT memory_id uuid,
    OUT similarity double precision,
    OUT rule text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_evidence pymem.pair_evidence;
    v_decision record;
BEGIN
    IF s.on_related IS DISTINCT FROM 'review' OR item.topic IS NULL THEN
        RETURN;
    END IF;
    SELECT m.id, 1 - (m.embedding <=> item.embedding)
    INTO memory_id, similarity
    FROM pymem.memories AS m
    WHERE m.user_id = _nearest_same_topic.user_id
        AND m.topic = item.topic
        AND m.kind = item.kind
        AND m.consolidated_into IS NULL
        AND m.deleted_at IS NULL
    ORDER BY m.embedding <=> item.embedding, m.id
    LIMIT 1;
    v_evidence.similarity := similarity;
    v_evidence.same_topic := TRUE;
    v_evidence.by_topic := TRUE;
    v_decision := pymem._decision(v_evidence, s);
    IF memory_id IS NULL OR v_decision.action IS NULL
        OR similarity <= coalesce(closer_than, -1) THEN
        memory_id := NULL;
        similarity := NULL;
        RETURN;
    END IF;
    rule := v_decision.rule;
END;
$$;

-- With a reviewer, the live memory of the item's kind whose earlier value
-- (memory_versions) or absorbed wording (memory_wordings) is nearest to an
-- insert, among the user's 8 such texts nearest it, when pymem._decision
-- queues it and that text is closer than the neighbour found so far
-- (closer_than, NULL: none); similarity is the pair's own, the rule names
-- the text and its cosine. An old value said again
-- after it changed is far from the current text and close to the old one;
-- the current value is what it is reviewed against. One more pass over the
-- user's versions and wordings, only with a reviewer and its below-band
-- queue (on_related = 'review', a review_floor).
CREATE OR REPLACE FUNCTION pymem._nearest_said_before(
    user_id text,
    item pymem.memory_item,
    s pymem.settings,
    closer_than double precision,
    OUT memory_id uuid,
    OUT similarity double precision,
    OUT rule text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_evidence pymem.pair_evidence;
    v_decision record;
    v_text text;
BEGIN
    -- a pass over every earlier text of the user costs about what the live scan
    -- does (a new fact's write at 1,000 memories: +0.6 ms): only with the
    -- below-band queue, whose owner has asked for more reviews
    IF s.on_related IS DISTINCT FROM 'review' OR s.review_floor IS NULL THEN
        RETURN;
    END IF;
    -- the nearest earlier texts first, by one pass over the user's versions
    -- and wordings; then which of them belong to a live memory of the kind
    SELECT m.id, 1 - n.distance, CASE
            WHEN NOT n.wording THEN 'an earlier value of a memory'
            WHEN n.content_md5 = md5(m.content) THEN 'a wording a memory absorbed'
            ELSE 'a wording of a memory''s earlier value'
        END,
        n.content, 1 - (m.embedding <=> item.embedding)
    INTO memory_id, v_evidence.similarity, v_evidence.said_before, v_text, similarity
    FROM (
        SELECT v.memory_id, v.content, v.embedding <=> item.embedding AS distance,
            FALSE AS wording, NULL AS content_md5
        FROM pymem.memory_versions AS v
        WHERE v.user_id = _nearest_said_before.user_id AND v.embedding IS NOT NULL
        UNION ALL
        SELECT w.memory_id, w.content, w.embedding <=> item.embedding, TRUE, w.content_md5
        FROM pymem.memory_wordings AS w
        WHERE w.user_id = _nearest_said_before.user_id
        ORDER BY distance
        LIMIT pymem._rule('nearest_candidates')::integer
    ) AS n
    INNER JOIN pymem.memories AS m
        ON m.user_id = _nearest_said_before.user_id AND m.id = n.memory_id
    WHERE m.kind = item.kind
        AND m.consolidated_into IS NULL
        AND m.deleted_at IS NULL
        -- a version with the memory's own text (its vector, details or topic
        -- changed) is the memory itself
        AND n.content <> m.content
        AND (m.topic IS NULL OR item.topic IS NULL OR m.topic = item.topic)
    ORDER BY n.distance, m.id
    LIMIT 1;
    v_decision := pymem._decision(v_evidence, s);
    IF memory_id IS NULL OR v_decision.action IS NULL
        OR v_evidence.similarity <= coalesce(closer_than, -1) THEN
        memory_id := NULL;
        similarity := NULL;
        RETURN;
    END IF;
    -- the text it is close to, for whoever reviews the pair (a judge's
    -- prompt shows the note): the memory itself says something else now
    rule := format(
        '%s: %L (%s)', v_decision.rule,
        CASE WHEN char_length(v_text) > 200 THEN left(v_text, 199) || '…' ELSE v_text END,
        round(v_evidence.similarity::numeric, 2)
    );
END;
$$;

-- Which of a write's nearest candidates, in order of distance, the write acts
-- on, given what pymem._decision says of each: the first duplicate anywhere
-- (reinforcing a fact beats replacing one), else the closest supersede, else
-- the closest related neighbour (an insert's matched_id). NULL: none of them.
-- The one statement of this preference: pymem._match acts on it and the
-- write benchmark verifies each replayed decision with it (bench/upsert.py).
CREATE OR REPLACE FUNCTION pymem._preferred_candidate(actions text[])
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN coalesce(
    array_position(actions, 'duplicate'),
    array_position(actions, 'superseded'),
    array_position(actions, 'related')
);

-- The decision for one prepared item, without writing anything:
-- action (duplicate, superseded, inserted), target (the memory that is
-- reinforced or superseded), matched_id and similarity (also the
-- related neighbour of an insert), and the rule that decided. With the
-- below-band queue (on_related = 'review' and a review floor), an insert's
-- nearest related neighbour of its kind besides matched_id too (also_id,
-- also_similarity, also_rule): a restatement is often the second nearest,
-- behind another fact of the same person.
-- (the columns before the second neighbour, issue 34)
SELECT pymem._drop_if_columns_differ(
    'pymem._match(text, pymem.memory_item, pymem.settings)',
    'TABLE(action text, target_id uuid, matched_id uuid, similarity double precision, '
    || 'rule text, also_id uuid, also_similarity double precision, also_rule text)'
);
CREATE OR REPLACE FUNCTION pymem._match(
    user_id text,
    item pymem.memory_item,
    cfg pymem.settings,
    OUT action text,
    OUT target_id uuid,
    OUT matched_id uuid,
    OUT similarity double precision,
    OUT rule text,
    OUT also_id uuid,
    OUT also_similarity double precision,
    OUT also_rule text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
-- the nearest-8 scan reads the user's rows of one kind: one key of
-- memories_live_idx, whose entries are in heap order already, so a plain index
-- scan visits the pages in order; a bitmap scan built and sorted a page table
-- for them first (a quarter of a batch's time at 1,000 memories; docs/benchmarks.md)
SET enable_bitmapscan = off
AS $$
#variable_conflict use_column
DECLARE
    v_candidate record;
    v_decision record;
    v_other record;
    -- the nearest candidates that could decide, in order of distance
    v_ids uuid [] := '{}';
    v_sims double precision [] := '{}';
    v_actions text [] := '{}';
    v_rules text [] := '{}';
    v_pick integer;
    v_evidence pymem.pair_evidence;
    -- the settings this item is decided with: its own thresholds and on_related
    v_settings pymem.settings := cfg;
    v_canonical_fingerprint uuid := pymem._match_fingerprint(item.canonical);
    -- computed once: inside the query a generic plan may evaluate it (three
    -- regexp passes) for every row of the user it filters
    v_fingerprint uuid := pymem._match_fingerprint(item.content);
    -- where a neighbour starts to matter: the related band, or the review
    -- floor below it when a reviewer sees what is queued
    v_band double precision := CASE
        WHEN item.on_related = 'review' THEN least(item.supersede_threshold, item.review_floor)
        ELSE item.supersede_threshold
    END;
BEGIN
    v_settings.dedup_threshold := item.dedup_threshold;
    -- a call's own threshold holds for Chinese text too
    IF item.dedup_threshold <> cfg.dedup_threshold THEN
        v_settings.cjk_dedup_threshold := item.dedup_threshold;
    END IF;
    v_settings.supersede_threshold := item.supersede_threshold;
    v_settings.on_related := item.on_related;
    v_settings.review_floor := item.review_floor;
    action := 'inserted';
    -- 1. The same canonical statement, or the same normalized text with
    -- the same markers (normalizing drops the point of "3.5 kg"), found by
    -- index: their evidence is known from the lookup itself.
    -- Consolidated fragments count: a fact already absorbed is not stored
    -- again; it reinforces the live record it was consolidated into.
    -- Two index lookups, not one OR: most writes carry no canonical, and
    -- then the second alone is one plain btree probe.
    SELECT c.id, c.sim, c.by_canonical
    INTO v_candidate
    FROM (
        SELECT m.id, 1 - (m.embedding <=> item.embedding) AS sim, TRUE AS by_canonical,
            m.consolidated_into IS NULL AS live, m.created_at
        FROM pymem.memories AS m
        WHERE v_canonical_fingerprint IS NOT NULL
            AND m.user_id = _match.user_id
            AND m.kind = item.kind
            AND m.deleted_at IS NULL
            AND m.canonical_fingerprint = v_canonical_fingerprint
        UNION ALL
        SELECT m.id, 1 - (m.embedding <=> item.embedding),
            coalesce(m.canonical_fingerprint = v_canonical_fingerprint, FALSE),
            m.consolidated_into IS NULL, m.created_at
        FROM pymem.memories AS m
        WHERE m.user_id = _match.user_id
            AND m.kind = item.kind
            AND m.deleted_at IS NULL
            AND m.fingerprint = v_fingerprint
            -- the new text's markers are read only when a row has its fingerprint:
            -- a new fact has none, and its markers are most of a write's text work
            AND pymem._fact_markers(m.content) = pymem._fact_markers(item.content)
    ) AS c
    -- rows of one batch share created_at: the canonical match, then the id,
    -- so the same store always picks the same row
    ORDER BY c.live DESC, c.created_at, c.by_canonical DESC, c.id
    LIMIT 1;
    IF found THEN
        target_id := pymem._live_record(user_id, v_candidate.id);
        IF target_id IS NOT NULL THEN
            v_evidence.similarity := v_candidate.sim;
            v_evidence.same_canonical := v_candidate.by_canonical OR NULL;
            v_evidence.same_text := NOT v_candidate.by_canonical;
            v_decision := pymem._decision(v_evidence, v_settings);
            action := v_decision.action;
            matched_id := v_candidate.id;
            similarity := v_candidate.sim;
            rule := v_decision.rule;
            RETURN;
        END IF;
    END IF;

    IF item.kind = 'goal' THEN
        -- 2a. Goals: the same metric with enough word overlap is one goal
        -- (sql/35_goals.sql). Vectors never merge two goals; a goal that only
        -- looks like a live one (the related band, no shared metric) is kept
        -- and, like any related pair, goes to the app's review.
        -- The goal _same_goal finds, then the nearest live goal: the first can be
        -- the same goal, the second only a related one
        rule := 'no live goal with the same metrics';
        FOR v_candidate IN
            SELECT g.memory_id AS id, g.content_of_goal AS content, g.topic_of_goal AS topic,
                g.similarity AS sim, 1 AS pass
            FROM pymem._same_goal(user_id, item.content, item.embedding, item.topic) AS g
            WHERE g.memory_id IS NOT NULL
            UNION ALL
            (
                SELECT m.id, m.content, m.topic, 1 - (m.embedding <=> item.embedding), 2
                FROM pymem.memories AS m
                WHERE m.user_id = _match.user_id
                    AND m.kind = 'goal'
                    AND m.consolidated_into IS NULL
                    AND m.deleted_at IS NULL
                    AND (m.topic IS NULL OR item.topic IS NULL OR m.topic = item.topic)
                ORDER BY m.embedding <=> item.embedding, m.id
                LIMIT 1
            )
            ORDER BY pass
        LOOP
            v_decision := pymem._decision(
                pymem._evidence(
                    v_candidate.content, item.content, v_candidate.sim, v_settings,
                    v_candidate.topic = item.topic, goal => TRUE
                ),
                v_settings
            );
            IF v_decision.action = 'superseded' THEN
                action := 'superseded';
                target_id := v_candidate.id;
                matched_id := v_candidate.id;
                similarity := v_candidate.sim;
                rule := v_decision.rule;
                RETURN;
            ELSIF v_decision.action = 'related' AND v_candidate.pass = 2 THEN
                matched_id := v_candidate.id;
                similarity := v_candidate.sim;
                rule := v_decision.rule;
            END IF;
        END LOOP;
        v_other := pymem._nearest_other_kind(user_id, item, v_settings, similarity);
        IF v_other.memory_id IS NOT NULL THEN
            matched_id := v_other.memory_id;
            similarity := v_other.similarity;
            rule := v_other.rule;
        END IF;
        RETURN;
    END IF;

    -- 2. Exact nearest neighbours among the live memories of this user and
    -- kind (btree on user_id: no ANN misses). A duplicate anywhere in the
    -- nearest 8 wins over a supersede; the closest related one is kept.
    -- Neighbours too far to decide anything are dropped in the query, not
    -- by the loop: a new fact usually has none left, and costs no iteration.
    FOR v_candidate IN
        SELECT c.id, c.content, c.topic, c.canonical, c.sim
        FROM (
            SELECT
                n.*,
                1 - n.distance AS sim,
                CASE WHEN 1 - n.distance >= cfg.trigram_min_similarity
                    THEN public.similarity(n.content, item.content) ELSE 0 END AS trigram
            FROM (
                SELECT m.id, m.content, m.topic, m.canonical,
                    m.embedding <=> item.embedding AS distance
                FROM pymem.memories AS m
                WHERE m.user_id = _match.user_id
                    AND m.kind = item.kind
                    AND m.consolidated_into IS NULL
                    AND m.deleted_at IS NULL
                    -- different topics are different subjects, whatever the vectors say
                    AND (m.topic IS NULL OR item.topic IS NULL OR m.topic = item.topic)
                ORDER BY distance
                LIMIT pymem._rule('nearest_candidates')::integer
            ) AS n
        ) AS c
        WHERE pymem._could_decide(
            c.sim, c.trigram, c.topic = item.topic,
            v_band, cfg.topic_supersede_threshold, cfg.trigram_threshold,
            cfg.trigram_min_similarity
        )
        ORDER BY c.distance, c.id
    LOOP
        v_decision := pymem._decision(
            pymem._evidence(
                v_candidate.content, item.content, v_candidate.sim, v_settings,
                v_candidate.topic = item.topic, v_candidate.canonical, item.canonical
            ),
            v_settings
        );
        CONTINUE WHEN v_decision.action IS NULL;
        v_ids := v_ids || v_candidate.id;
        v_sims := v_sims || v_candidate.sim;
        v_actions := v_actions || v_decision.action;
        v_rules := v_rules || v_decision.rule;
        -- a duplicate is preferred wherever it stands: the rest cannot change the pick
        EXIT WHEN v_decision.action = 'duplicate';
    END LOOP;
    v_pick := pymem._preferred_candidate(v_actions);
    IF v_pick IS NOT NULL THEN
        matched_id := v_ids[v_pick];
        similarity := v_sims[v_pick];
        rule := v_rules[v_pick];
        IF v_actions[v_pick] IN ('duplicate', 'superseded') THEN
            action := v_actions[v_pick];
            target_id := matched_id;
            RETURN;
        END IF;
    END IF;
    v_other := pymem._nearest_other_kind(user_id, item, v_settings, similarity);
    IF v_other.memory_id IS NOT NULL THEN
        matched_id := v_other.memory_id;
        similarity := v_other.similarity;
        rule := v_other.rule;
    END IF;
    v_other := pymem._nearest_same_topic(user_id, item, v_settings, similarity);
    IF v_other.memory_id IS NOT NULL THEN
        matched_id := v_other.memory_id;
        similarity := v_other.similarity;
        rule := v_other.rule;
    END IF;
    v_other := pymem._nearest_said_before(user_id, item, v_settings, similarity);
    IF v_other.memory_id IS NOT NULL THEN
        matched_id := v_other.memory_id;
        similarity := v_other.similarity;
        rule := v_other.rule;
    END IF;
    IF matched_id IS NULL THEN
        rule := 'no close memory';
        RETURN;
    END IF;
    IF v_settings.on_related = 'review' AND v_settings.review_floor IS NOT NULL THEN
        -- the nearest related candidate that is not the one matched
        SELECT c.ord INTO v_pick
        FROM unnest(v_ids, v_actions) WITH ORDINALITY AS c (id, action, ord)
        WHERE c.action = 'related' AND c.id <> matched_id
        ORDER BY c.ord
        LIMIT 1;
        IF found THEN
            also_id := v_ids[v_pick];
            also_similarity := v_sims[v_pick];
            also_rule := v_rules[v_pick];
        END IF;
    END IF;
END;
$$;
