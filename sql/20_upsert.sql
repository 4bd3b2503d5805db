-- The write path: store a fact unless the user already has it.
-- Decision (docs/sql-api.md, "How upsert decides"), precision first: a
-- wrong merge loses a true fact, a missed one only costs a row.
--   duplicate  the same canonical statement, the same normalized text, a
--              near-identical text, or a close embedding that swaps no key
--              term; never when numbers, dates or negation differ, when the
--              parties swap roles or when another person is named;
--   superseded evidence of the same slot: the same topic, the same goal
--              metric, or the same statement with another value;
--   inserted   otherwise; a neighbour in the related band is returned in
--              matched_id and, by default, queued for the app's review (with
--              settings.review_floor, the nearest one below the band too).
-- Deciding (pymem._evidence of a pair, then the one step pymem._decision;
-- pymem._match gathers the candidates; no writes) is apart from writing
-- (pymem._apply), so that calibration and benchmarks run the same rules.

-- Reinforce memories that were mentioned again: the one code path for
-- touch() and for a duplicate upsert. Resets the decay clock, revives
-- cold memories, never lowers importance or source, never unpins. A
-- restatement's topic and canonical are taken when the memory had none (a
-- later value of that slot then supersedes it), its decay_rate when given
-- (as a supersede takes it).
CREATE OR REPLACE FUNCTION pymem._reinforce(
    user_id text,
    memory_ids uuid[],
    mentioned boolean,
    importance double precision DEFAULT NULL,
    source text DEFAULT NULL,
    pinned boolean DEFAULT FALSE,
    details jsonb DEFAULT '{}',
    metadata jsonb DEFAULT '{}',
    valid_until timestamptz DEFAULT NULL,
    topic text DEFAULT NULL,
    canonical text DEFAULT NULL,
    decay_rate double precision DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_count integer;
    -- a value, not now() in the CASE below: Citus allows no volatile call there
    v_now timestamptz := now();
BEGIN
    -- a writer: the user's lock first, as every writer takes it (it nests under the
    -- callers' own). touch and recall(touch) took none, and locked rows in their own
    -- order against a writer's: a deadlock (40P01)
    PERFORM pymem._lock_user(user_id);
    UPDATE pymem.memories AS m
    SET last_access_at = greatest(m.last_access_at, now()),
        tier = 'hot',
        mention_count = m.mention_count + _reinforce.mentioned::integer,
        access_count = m.access_count + (NOT _reinforce.mentioned)::integer,
        importance = greatest(m.importance, _reinforce.importance),
        source = pymem._stronger_source(m.source, _reinforce.source),
        pinned = m.pinned OR coalesce(_reinforce.pinned, false),
        -- new keys are added; values already known are kept
        details = _reinforce.details || m.details,
        metadata = _reinforce.metadata || m.metadata,
        topic = coalesce(m.topic, _reinforce.topic),
        canonical = coalesce(m.canonical, _reinforce.canonical),
        decay_rate = coalesce(_reinforce.decay_rate, m.decay_rate),
        valid_until = CASE
            WHEN m.valid_until IS NULL THEN NULL
            -- an ended memory said again holds again, to the new statement's end (none
            -- for a fact): kept at its past end it stayed hidden from recall
            WHEN _reinforce.mentioned AND m.valid_until <= v_now THEN _reinforce.valid_until
            ELSE greatest(m.valid_until, _reinforce.valid_until)
        END
    WHERE m.user_id = _reinforce.user_id
        AND m.id = ANY(_reinforce.memory_ids)
        AND m.deleted_at IS NULL;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    -- keys merged into a memory count against its limit like the ones it came with
    IF _reinforce.details <> '{}' OR _reinforce.metadata <> '{}' THEN
        PERFORM pymem._check_json_size(m.details, 'details merged into the memory'),
            pymem._check_json_size(m.metadata, 'metadata merged into the memory')
        FROM pymem.memories AS m
        WHERE m.user_id = _reinforce.user_id AND m.id = ANY(_reinforce.memory_ids);
    END IF;
    RETURN v_count;
END;
$$;

-- The live record a memory stands for: itself, or the record it was
-- consolidated into (followed through at most 16 consolidations). NULL
-- when that record is deleted or the chain does not end: the caller then
-- treats the fact as new rather than reinforcing nothing.
CREATE OR REPLACE FUNCTION pymem._live_record(user_id text, memory_id uuid)
RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id uuid := memory_id;
    v_row record;
BEGIN
    FOR step IN 1..16 LOOP
        SELECT m.consolidated_into, m.deleted_at INTO v_row
        FROM pymem.memories AS m
        WHERE m.user_id = _live_record.user_id AND m.id = v_id;
        IF NOT found OR v_row.deleted_at IS NOT NULL THEN
            RETURN NULL;
        END IF;
        IF v_row.consolidated_into IS NULL THEN
            RETURN v_id;
        END IF;
        v_id := v_row.consolidated_into;
    END LOOP;
    RETURN NULL;
END;
$$;

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
    -- a temporary memory holds as long as its kind says, or as its text says when
    -- that is longer ("until the end of the month": sql/08_stated_time.sql)
    IF item.valid_until IS NULL AND v_kind.default_lifetime IS NOT NULL THEN
        item.valid_until := greatest(
            now() + v_kind.default_lifetime, pymem._stated_until(item.content, now())
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

-- Whether a neighbour could decide anything: in the supersede band, under
-- the same topic close enough, or near-identical text (its trigram counts
-- only from trigram_min_similarity up). Most neighbours are far and unlike:
-- the match loop and _evidence skip them without gathering evidence.
-- (No SET clause: an inlinable SQL function, every name qualified.)
CREATE OR REPLACE FUNCTION pymem._could_decide(
    similarity double precision,
    trigram double precision,
    same_topic boolean,
    supersede_threshold double precision,
    topic_supersede_threshold double precision,
    trigram_threshold double precision,
    trigram_min_similarity double precision
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN similarity >= supersede_threshold
OR (same_topic IS TRUE AND similarity >= topic_supersede_threshold)
OR (similarity >= trigram_min_similarity AND trigram >= trigram_threshold);

-- The fingerprint two texts are matched by (pymem._fingerprint, migration
-- 0001): none for text that normalizes to nothing (punctuation, symbols or
-- emoji only), which would all share one and merge at any cosine.
CREATE OR REPLACE FUNCTION pymem._match_fingerprint(content text)
RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN nullif(pymem._fingerprint(content), pymem._fingerprint(''));

-- The same text: the same normalized text with the same markers (normalizing
-- drops the point of "3.5" and the symbol of "C++"). Text with no fingerprint
-- (nothing left after normalizing) is the same text only as the very same
-- string. same_markers is the caller's, which has usually computed it anyway.
CREATE OR REPLACE FUNCTION pymem._same_text(
    old_content text, new_content text, same_markers boolean
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN same_markers AND coalesce(
    pymem._match_fingerprint(old_content) = pymem._match_fingerprint(new_content),
    old_content = new_content
);

-- The evidence two statements give about each other (pymem.pair_evidence,
-- migration 0012): the one place where evidence is measured. The costly
-- part (regexes and term lists) only when it could decide anything; a field
-- left NULL is evidence not gathered. A new kind of evidence is a field of
-- the type, measured here, read by pymem._decision.
CREATE OR REPLACE FUNCTION pymem._evidence(
    old_content text,
    new_content text,
    similarity double precision,
    s pymem.settings,
    same_topic boolean DEFAULT NULL,
    old_canonical text DEFAULT NULL,
    new_canonical text DEFAULT NULL,
    goal boolean DEFAULT FALSE
)
RETURNS pymem.pair_evidence
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    e pymem.pair_evidence;
BEGIN
    e.similarity := similarity;
    e.same_topic := same_topic;
    e.goal := goal;
    e.same_canonical := coalesce(
        pymem._match_fingerprint(old_canonical) = pymem._match_fingerprint(new_canonical), false
    );
    e.same_markers := pymem._fact_markers(old_content) = pymem._fact_markers(new_content);
    e.same_text := pymem._same_text(old_content, new_content, e.same_markers);
    IF goal THEN
        -- goals name metrics; the words around them say what the goal is
        e.goal_metrics := CASE
            WHEN pymem._goal_metrics(old_content) <@ pymem._goal_metrics(new_content)
                AND cardinality(pymem._goal_metrics(old_content)) > 0
                THEN pymem._goal_metrics(old_content)
        END;
        e.goal_overlap := pymem._token_overlap(
            pymem._strip_goal_metrics(old_content), pymem._strip_goal_metrics(new_content)
        );
        RETURN e;
    END IF;
    -- pg_trgm ignores case and punctuation itself
    e.trigram := CASE WHEN similarity >= s.trigram_min_similarity
        THEN public.similarity(old_content, new_content) ELSE 0 END;
    IF NOT pymem._could_decide(
        similarity, e.trigram, same_topic, s.supersede_threshold,
        s.topic_supersede_threshold, s.trigram_threshold, s.trigram_min_similarity
    ) THEN
        RETURN e;
    END IF;
    -- another symbol word is another thing, not a new value ("C++" / "C#")
    e.masked_equal := NOT e.same_markers
        AND pymem._mask_values(old_content) = pymem._mask_values(new_content)
        AND pymem._symbol_words(old_content) = pymem._symbol_words(new_content);
    SELECT d.changed, d.total, d.reordered, d.role_swap, d.added_detail
    INTO e.changed_terms, e.total_terms, e.reordered, e.role_swap, e.added_detail
    FROM pymem._term_difference(old_content, new_content) AS d;
    e.cjk := (old_content || new_content) ~ '[\u3400-\u9fff\uf900-\ufaff]';
    -- who the statements are about matters only to a duplicate
    IF e.same_markers AND NOT e.role_swap THEN
        e.same_people := pymem._same_people(old_content, new_content);
    END IF;
    RETURN e;
END;
$$;

-- The decision: the rules of the header applied to the evidence of a pair
-- with the settings (the store's row, the call's thresholds and on_related
-- in it). Pure, so that calibration and the benchmarks run these very rules
-- over pairs. action: duplicate, superseded, related (in the band, no
-- evidence of the same slot) or NULL (unrelated); rule: which rule decided.
CREATE OR REPLACE FUNCTION pymem._decision(
    e pymem.pair_evidence,
    s pymem.settings,
    OUT action text,
    OUT rule text
)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    -- what the extractor or the words say outright
    IF e.same_canonical THEN
        action := 'duplicate';
        rule := 'same canonical statement';
        RETURN;
    ELSIF e.same_text THEN
        action := 'duplicate';
        rule := 'same normalized text';
        RETURN;
    END IF;
    IF e.other_kind THEN
        -- the write path never merges across kinds; with a reviewer and its
        -- below-band queue, a memory of a kind that tests others (an event:
        -- pymem.kinds.review_against) is queued with the nearest of them,
        -- since a contradiction usually crosses kinds (a preference and the
        -- meal that breaks it) and scores lower than a restatement
        IF s.on_related = 'review' AND s.review_floor IS NOT NULL
            AND e.similarity >= s.cross_kind_review_floor THEN
            action := 'related';
            rule := 'nearest memory of another kind, queued for review';
        END IF;
        RETURN;
    END IF;
    IF e.goal THEN
        -- vectors never merge two goals: the metric and the words around it do
        IF e.goal_metrics IS NOT NULL AND e.same_topic IS NOT FALSE
            AND e.goal_overlap >= s.goal_overlap_threshold THEN
            action := 'superseded';
            rule := format('same goal (%s)', array_to_string(e.goal_metrics, ', '));
        ELSIF e.similarity >= s.supersede_threshold THEN
            action := 'related';
            rule := 'related band, no shared goal metric';
        ELSIF e.similarity >= s.review_floor AND s.on_related = 'review' THEN
            action := 'related';
            rule := 'below the related band, queued for review';
        END IF;
        RETURN;
    END IF;
    -- the seeds' plain two-tier band (on_related = 'supersede'): at or above the
    -- duplicate threshold a pair is one statement whatever its words ("Prefers
    -- TypeScript" / "Uses TypeScript"); only other values or a negation keep it apart
    IF s.on_related = 'supersede' AND e.same_markers AND e.similarity >= (
        CASE WHEN e.cjk THEN s.cjk_dedup_threshold ELSE s.dedup_threshold END
    ) THEN
        action := 'duplicate';
        rule := 'close embedding (on_related = supersede)';
        RETURN;
    END IF;
    -- a duplicate needs the same values, no exchange of the parties' roles
    -- ("A manages B" / "B manages A"; a moved clause or another voice is no
    -- exchange) and no other person ("Jonas" / "Jonas's wife"); a record
    -- that predates role_swap falls back on the order of the shared terms.
    -- Near-identical text may change one content term at most; a close
    -- embedding a share of them, with thresholds of their own for Chinese
    -- (the cjk_ settings).
    IF e.same_markers AND NOT coalesce(e.role_swap, e.reordered)
        AND e.same_people IS NOT FALSE THEN
        IF e.trigram >= s.trigram_threshold AND e.similarity >= s.trigram_min_similarity
            AND e.changed_terms <= 1 THEN
            action := 'duplicate';
            rule := 'near-identical text';
            RETURN;
        -- with no content term on either side ("👍" / "👎") the words say nothing
        ELSIF e.same_topic IS NOT TRUE AND e.total_terms > 0 AND (CASE
            -- in Chinese an added detail changes one side only, a substituted
            -- term both: such a statement may change twice the share
            WHEN e.cjk THEN e.similarity >= s.cjk_dedup_threshold
                AND e.changed_terms <= s.cjk_dedup_term_change * e.total_terms
                * CASE WHEN e.added_detail THEN 2 ELSE 1 END
            ELSE e.similarity >= s.dedup_threshold
                AND e.changed_terms <= s.dedup_term_change * e.total_terms
        END) THEN
            action := 'duplicate';
            rule := 'close embedding, same terms';
            RETURN;
        END IF;
    END IF;
    IF e.masked_equal AND e.similarity >= s.supersede_threshold THEN
        action := 'superseded';
        rule := 'same statement, new value';
    ELSIF e.same_topic AND e.similarity >= s.topic_supersede_threshold THEN
        action := 'superseded';
        rule := 'same topic';
    ELSIF e.similarity >= s.supersede_threshold AND s.on_related = 'supersede' THEN
        action := 'superseded';
        rule := 'related band (on_related = supersede)';
    ELSIF e.similarity >= s.supersede_threshold THEN
        action := 'related';
        -- and the guards that kept it from being one statement (sql/19_guards.sql)
        rule := 'related band, no evidence of the same slot' || pymem._blocked_by(e, s);
    ELSIF e.similarity >= s.review_floor AND s.on_related = 'review' THEN
        -- a reviewer is in use: a restatement the embedder scores low still
        -- reaches it
        action := 'related';
        rule := 'below the related band, queued for review';
    END IF;
END;
$$;

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

-- The decision for one prepared item, without writing anything:
-- action (duplicate, superseded, inserted), target (the memory that is
-- reinforced or superseded), matched_id and similarity (also the
-- related neighbour of an insert), and the rule that decided.
CREATE OR REPLACE FUNCTION pymem._match(
    user_id text,
    item pymem.memory_item,
    cfg pymem.settings,
    OUT action text,
    OUT target_id uuid,
    OUT matched_id uuid,
    OUT similarity double precision,
    OUT rule text
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
            v_evidence.same_canonical := v_candidate.by_canonical;
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
        SELECT c.id, c.content, c.topic, c.sim
        FROM (
            SELECT
                n.*,
                1 - n.distance AS sim,
                CASE WHEN 1 - n.distance >= cfg.trigram_min_similarity
                    THEN public.similarity(n.content, item.content) ELSE 0 END AS trigram
            FROM (
                SELECT m.id, m.content, m.topic, m.embedding <=> item.embedding AS distance
                FROM pymem.memories AS m
                WHERE m.user_id = _match.user_id
                    AND m.kind = item.kind
                    AND m.consolidated_into IS NULL
                    AND m.deleted_at IS NULL
                    -- different topics are different subjects, whatever the vectors say
                    AND (m.topic IS NULL OR item.topic IS NULL OR m.topic = item.topic)
                ORDER BY distance
                LIMIT 8
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
                v_candidate.topic = item.topic
            ),
            v_settings
        );
        CONTINUE WHEN v_decision.action IS NULL;
        IF v_decision.action = 'duplicate' THEN
            action := 'duplicate';
            target_id := v_candidate.id;
            matched_id := v_candidate.id;
            similarity := v_candidate.sim;
            rule := v_decision.rule;
            RETURN;
        ELSIF action = 'inserted' AND target_id IS NULL
            AND v_decision.action = 'superseded' THEN
            action := 'superseded';
            target_id := v_candidate.id;
            matched_id := v_candidate.id;
            similarity := v_candidate.sim;
            rule := v_decision.rule;
        ELSIF matched_id IS NULL AND v_decision.action = 'related' THEN
            matched_id := v_candidate.id;
            similarity := v_candidate.sim;
            rule := v_decision.rule;
        END IF;
    END LOOP;
    IF action = 'superseded' THEN
        RETURN;
    END IF;
    v_other := pymem._nearest_other_kind(user_id, item, v_settings, similarity);
    IF v_other.memory_id IS NOT NULL THEN
        matched_id := v_other.memory_id;
        similarity := v_other.similarity;
        rule := v_other.rule;
    END IF;
    IF matched_id IS NULL THEN
        rule := 'no close memory';
    END IF;
END;
$$;

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
