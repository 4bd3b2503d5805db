-- The guards between a pair and a duplicate, apart from the decision that
-- reads them (sql/19_decision.sql) and the explanation that shows them
-- (sql/23_explain.sql): so that a refused pair says why, in the rule a write
-- returns, on its review and in pymem.explain.

-- The guards of a duplicate (pymem._decision's first branch), from a pair's
-- evidence with the settings it is decided with: each with whether it
-- fired, that is kept the pair from being one statement, and what it saw.
-- NULL fired: the evidence was not gathered (the pair is too far apart for
-- any rule to read its words).
CREATE OR REPLACE FUNCTION pymem._duplicate_guards(
    e pymem.pair_evidence, s pymem.settings,
    old_content text DEFAULT NULL, new_content text DEFAULT NULL
)
RETURNS TABLE (guard text, fired boolean, detail text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_dedup double precision := CASE WHEN e.cjk THEN s.cjk_dedup_threshold ELSE s.dedup_threshold END;
    v_allowed double precision := CASE
        WHEN e.cjk THEN s.cjk_dedup_term_change * e.total_terms
            * CASE WHEN e.added_detail THEN pymem._rule('added_detail_factor') ELSE 1 END
        ELSE s.dedup_term_change * e.total_terms
    END;
BEGIN
    guard := 'other values or negation';
    fired := NOT e.same_markers;
    detail := CASE WHEN old_content IS NOT NULL THEN format(
        '%s / %s', pymem._fact_markers(old_content), pymem._fact_markers(new_content)
    ) END;
    RETURN NEXT;
    guard := 'roles exchanged';
    fired := coalesce(e.role_swap, e.reordered);
    detail := CASE WHEN old_content IS NOT NULL AND fired THEN format(
        'the shared terms in another order: %s / %s',
        array_to_string(ARRAY(
            SELECT t FROM unnest(pymem._content_terms(old_content)) AS t
            WHERE t = ANY(pymem._content_terms(new_content))
        ), ' '),
        array_to_string(ARRAY(
            SELECT t FROM unnest(pymem._content_terms(new_content)) AS t
            WHERE t = ANY(pymem._content_terms(old_content))
        ), ' ')
    ) END;
    RETURN NEXT;
    guard := 'another person';
    fired := e.same_people IS FALSE;
    detail := CASE WHEN old_content IS NOT NULL AND fired THEN format(
        'people named: %s / %s', pymem._people(old_content), pymem._people(new_content)
    ) END;
    RETURN NEXT;
    -- the words must confirm what the embedding says: a text with no content
    -- term ("👍" / "👎") confirms nothing, whatever its vector
    guard := 'terms changed';
    fired := e.total_terms = 0
        OR (e.changed_terms > pymem._rule('always_changed_terms') AND e.changed_terms > v_allowed);
    detail := CASE
        WHEN old_content IS NOT NULL AND e.total_terms = 0
            THEN 'no content term on either side: the words cannot confirm the embedding'
        WHEN old_content IS NOT NULL AND e.total_terms IS NOT NULL THEN format(
            '%s of %s content terms changed; near-identical text may change 1, a close embedding %s',
            e.changed_terms, e.total_terms, round(v_allowed::numeric, 2)
        )
    END;
    RETURN NEXT;
    guard := 'below the duplicate threshold';
    fired := e.similarity < v_dedup AND NOT (
        e.trigram >= s.trigram_threshold AND e.similarity >= s.trigram_min_similarity
    );
    detail := CASE WHEN old_content IS NOT NULL THEN format(
        'similarity %s, duplicate from %s%s; trigram %s, near-identical from %s',
        round(e.similarity::numeric, 4), v_dedup, CASE WHEN e.cjk THEN ' (Chinese)' ELSE '' END,
        round(coalesce(e.trigram, 0)::numeric, 4), s.trigram_threshold
    ) END;
    RETURN NEXT;
    guard := 'same topic';
    fired := e.same_topic IS TRUE AND NOT (
        e.trigram >= s.trigram_threshold
        AND e.changed_terms <= pymem._rule('always_changed_terms')
    );
    detail := CASE WHEN fired THEN 'one topic: a close embedding is the topic''s new value' END;
    RETURN NEXT;
END;
$$;

-- The guards that fired, as a clause for a review's note and a history
-- reason: '; not a duplicate: roles exchanged, terms changed'; '' when none did.
CREATE OR REPLACE FUNCTION pymem._blocked_by(e pymem.pair_evidence, s pymem.settings)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN coalesce((
    SELECT '; not a duplicate: ' || string_agg(g.guard, ', ')
    FROM pymem._duplicate_guards(e, s) AS g
    WHERE g.fired
), '');
