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
-- This file: the evidence of a pair and the one decision step; the
-- candidates are gathered in sql/20_match.sql, the writing is sql/22_upsert.sql.

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
    -- NULL when either side says no value: only two stated values are two values
    e.same_canonical := pymem._match_fingerprint(old_canonical)
        = pymem._match_fingerprint(new_canonical);
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
    e.cjk := pymem._has_han(old_content || new_content);
    -- who the statements are about matters only to a duplicate
    IF e.same_markers AND NOT e.role_swap THEN
        e.same_people := pymem._same_people(old_content, new_content);
    END IF;
    RETURN e;
END;
$$;

-- Whether a review of the write path (cause related: its note is the rule;
-- an app's flagged conflict carries the app's own words) was queued for what
-- the older memory said before (pymem._decision's said_before): the newer one
-- is then likelier the past said again than a new value, so recall does not
-- rank it above the older, and a judge's claim carries the note.
CREATE OR REPLACE FUNCTION pymem._queued_for_said_before(cause text, note text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN coalesce(cause = 'related' AND starts_with(note, 'close to '), FALSE);

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
    IF e.by_topic THEN
        -- found by the topic both carry, far apart by vector: two values of one
        -- thing, or two things of one topic; only a reviewer tells which
        IF s.on_related = 'review' THEN
            action := 'related';
            rule := 'same topic as a memory, queued for review';
        END IF;
        RETURN;
    END IF;
    IF e.said_before IS NOT NULL THEN
        -- the neighbour is what a live memory said before, not what it says:
        -- only a reviewer tells an old value said again (the past) from a
        -- return to it, or a restatement from a new fact. From where a live
        -- neighbour is queued: the review floor, or the related band above it
        IF s.on_related = 'review' AND s.review_floor IS NOT NULL
            AND e.similarity >= least(s.supersede_threshold, s.review_floor) THEN
            action := 'related';
            -- the words pymem._queued_for_said_before knows it by
            rule := format('close to %s, queued for review', e.said_before);
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
            AND e.changed_terms <= pymem._rule('always_changed_terms') THEN
            action := 'duplicate';
            rule := 'near-identical text';
            RETURN;
        -- with no content term on either side ("👍" / "👎") the words say nothing
        ELSIF e.same_topic IS NOT TRUE AND e.total_terms > 0 AND (CASE
            -- in Chinese an added detail changes one side only, a substituted
            -- term both: such a statement may change twice the share
            WHEN e.cjk THEN e.similarity >= s.cjk_dedup_threshold
                AND e.changed_terms <= s.cjk_dedup_term_change * e.total_terms
                * CASE WHEN e.added_detail THEN pymem._rule('added_detail_factor') ELSE 1 END
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
    ELSIF e.same_topic AND e.similarity >= s.topic_supersede_threshold AND (
        e.similarity >= s.supersede_threshold OR e.same_canonical IS NOT NULL
        OR s.on_related = 'supersede'
    ) THEN
        action := 'superseded';
        rule := 'same topic';
    ELSIF e.same_topic AND e.similarity >= s.topic_supersede_threshold THEN
        -- A topic is the extractor's word: a slot ("home:city") or a shelf of
        -- several facts ("food": the favourite drink beside the favourite dish).
        -- Far apart by vector, it is one slot when both writes state their value
        -- (canonical, as pymem's extraction prompt asks); otherwise the pair is
        -- related, the app's to decide. On streams written apart from the rules,
        -- every false merge of pymem alone was a shelf taken for a slot.
        action := 'related';
        rule := 'same topic, below the related band';
    ELSIF e.similarity >= s.supersede_threshold AND s.on_related = 'supersede' THEN
        action := 'superseded';
        rule := 'related band (on_related = supersede)';
    ELSIF e.similarity >= s.supersede_threshold THEN
        action := 'related';
        -- and the guards that kept it from being one statement (sql/18_guards.sql)
        rule := 'related band, no evidence of the same slot' || pymem._blocked_by(e, s);
    ELSIF e.similarity >= s.review_floor AND s.on_related = 'review' THEN
        -- a reviewer is in use: a restatement the embedder scores low still
        -- reaches it
        action := 'related';
        rule := 'below the related band, queued for review';
    END IF;
END;
$$;
