-- Why the write path decides what it decides about a pair: the evidence
-- pymem._evidence measures, each guard that stands between the pair and a
-- duplicate with whether it fired and on which words, and the rule
-- pymem._decision takes. Read-only; the same functions the write path runs.

-- The decision about a pair, explained: what each rule read and the rule that
-- decides, in the order pymem._decision reads them. The texts and vectors of
-- an older and a newer statement, and what else the write path compares:
-- topics, canonical statements, whether the older is of another kind, goals.
-- The store's settings, or the given thresholds as a call would pass them.
CREATE OR REPLACE FUNCTION pymem.explain(
    old_content text,
    new_content text,
    old_embedding vector,
    new_embedding vector,
    old_topic text DEFAULT NULL,
    new_topic text DEFAULT NULL,
    old_canonical text DEFAULT NULL,
    new_canonical text DEFAULT NULL,
    dedup_threshold double precision DEFAULT NULL,
    supersede_threshold double precision DEFAULT NULL,
    on_related text DEFAULT NULL
)
RETURNS TABLE (step text, finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_s pymem.settings := pymem._settings();
    v_e pymem.pair_evidence;
    v_d record;
    v_sim double precision;
    v_g record;
BEGIN
    IF old_content IS NULL OR new_content IS NULL THEN
        RAISE EXCEPTION 'explain needs two texts' USING ERRCODE = 'PM006';
    END IF;
    PERFORM pymem._check_embedding(old_embedding, v_s.embedding_dimensions, 'old_embedding');
    PERFORM pymem._check_embedding(new_embedding, v_s.embedding_dimensions, 'new_embedding');
    IF dedup_threshold IS NOT NULL THEN
        v_s.dedup_threshold := dedup_threshold;
        v_s.cjk_dedup_threshold := dedup_threshold;
    END IF;
    v_s.supersede_threshold := coalesce(supersede_threshold, v_s.supersede_threshold);
    v_s.on_related := coalesce(pymem._word(on_related), v_s.on_related);
    v_sim := 1 - (old_embedding <=> new_embedding);
    v_e := pymem._evidence(
        old_content, new_content, v_sim, v_s,
        CASE WHEN old_topic IS NOT NULL AND new_topic IS NOT NULL THEN old_topic = new_topic END,
        old_canonical, new_canonical
    );
    v_d := pymem._decision(v_e, v_s);

    step := 'similarity';
    finding := format(
        '%s (duplicate from %s, Chinese from %s; related band from %s)',
        round(v_sim::numeric, 4), v_s.dedup_threshold, v_s.cjk_dedup_threshold,
        v_s.supersede_threshold
    );
    RETURN NEXT;
    step := 'same canonical statement';
    -- not given on both sides, no value of a topic is stated (sql/19_decision.sql)
    finding := CASE WHEN v_e.same_canonical THEN 'yes' WHEN NOT v_e.same_canonical THEN 'no'
        ELSE 'not both given' END;
    RETURN NEXT;
    step := 'same normalized text';
    finding := CASE WHEN v_e.same_text THEN 'yes' ELSE 'no' END;
    RETURN NEXT;
    step := 'values (numbers, dates, negation)';
    finding := format(
        '%s: %s / %s', CASE WHEN v_e.same_markers THEN 'the same' ELSE 'different' END,
        pymem._fact_markers(old_content), pymem._fact_markers(new_content)
    );
    RETURN NEXT;
    step := 'content terms';
    finding := format(
        '%s / %s', pymem._content_terms(old_content), pymem._content_terms(new_content)
    );
    RETURN NEXT;
    step := 'topic';
    finding := CASE
        WHEN v_e.same_topic THEN 'the same: ' || old_topic
        WHEN v_e.same_topic IS FALSE THEN format('different: %s / %s', old_topic, new_topic)
        ELSE 'not both given'
    END;
    RETURN NEXT;
    IF v_e.total_terms IS NULL THEN
        step := 'words';
        finding := 'not read: too far apart for any rule that reads words';
        RETURN NEXT;
    END IF;
    FOR v_g IN SELECT * FROM pymem._duplicate_guards(v_e, v_s, old_content, new_content) LOOP
        CONTINUE WHEN v_g.fired IS NULL;
        step := 'guard: ' || v_g.guard;
        finding := CASE WHEN v_g.fired THEN 'fired' ELSE 'clear' END
            || coalesce(' (' || v_g.detail || ')', '');
        RETURN NEXT;
    END LOOP;
    step := 'decision';
    finding := CASE
        WHEN v_d.action IS NULL THEN 'inserted: no rule applies (unrelated)'
        WHEN v_d.action = 'related' THEN 'inserted, matched for review: ' || v_d.rule
        ELSE v_d.action || ': ' || v_d.rule
    END;
    RETURN NEXT;
END;
$$;

-- pymem.explain for two memories of a user, the older first, as they are now
-- (either may be consolidated or forgotten: a decision already taken is
-- explained).
CREATE OR REPLACE FUNCTION pymem.explain_memories(user_id text, old_id uuid, new_id uuid)
RETURNS TABLE (step text, finding text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_old pymem.memories;
    v_new pymem.memories;
BEGIN
    PERFORM pymem._check_user(user_id);
    SELECT m.* INTO v_old FROM pymem.memories AS m WHERE m.user_id = explain_memories.user_id AND m.id = old_id;
    SELECT m.* INTO v_new FROM pymem.memories AS m WHERE m.user_id = explain_memories.user_id AND m.id = new_id;
    IF v_old.id IS NULL OR v_new.id IS NULL THEN
        RAISE EXCEPTION 'no memory % of user %', CASE WHEN v_old.id IS NULL THEN old_id ELSE new_id END,
            user_id USING ERRCODE = 'PM011';
    END IF;
    RETURN QUERY SELECT * FROM pymem.explain(
        v_old.content, v_new.content, v_old.embedding, v_new.embedding,
        v_old.topic, v_new.topic, v_old.canonical, v_new.canonical
    );
END;
$$;
