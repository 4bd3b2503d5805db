-- The one review queue (pymem.reviews): what the write path could not
-- decide on its own (a related pair), contradictions flagged by the app's
-- LLM, and structured facts whose sources disagree. The app reads it with
-- pending_reviews (or hears review_due / conflict_flagged on
-- pymem_events) and answers with resolve_review; every decision goes
-- through memory_versions, so it can be undone.

-- attempts, last_error and parked_at: a reviewer's failed judgements of
-- the pair (sql/27_review_claims.sql); a parked review waits for a person.
SELECT pymem._drop_if_columns_differ(
    'pymem.pending_reviews(text)',
    'TABLE(review_id uuid, cause text, memory_id uuid, matched_id uuid, fact_key text, '
    || 'similarity double precision, note text, created_at timestamp with time zone, '
    || 'content text, matched_content text, attempts integer, last_error text, '
    || 'parked_at timestamp with time zone)'
);

CREATE OR REPLACE FUNCTION pymem.pending_reviews(user_id text)
RETURNS TABLE (
    review_id uuid,
    cause text,
    memory_id uuid,
    matched_id uuid,
    fact_key text,
    similarity double precision,
    note text,
    created_at timestamptz,
    content text,
    matched_content text,
    attempts integer,
    last_error text,
    parked_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    RETURN QUERY
    SELECT r.id, r.cause, r.memory_id, r.matched_id, r.fact_key, r.similarity, r.note,
        r.created_at, m.content, o.content, r.attempts, r.last_error, r.parked_at
    FROM pymem.reviews AS r
    LEFT JOIN pymem.memories AS m ON m.user_id = r.user_id AND m.id = r.memory_id
    LEFT JOIN pymem.memories AS o ON o.user_id = r.user_id AND o.id = r.matched_id
    WHERE r.user_id = pending_reviews.user_id AND r.resolved_at IS NULL
        -- a fact conflict whose two values both expired asks nothing (pending_conflicts)
        AND (r.cause <> 'fact' OR EXISTS (
            SELECT FROM pymem.facts AS f
            WHERE f.user_id = pending_reviews.user_id AND f.key = r.fact_key
                AND f.conflict_pending
                AND pymem._conflict_open(f.valid_until, f.pending_valid_until, now())
        ))
    ORDER BY r.created_at, r.id;
END;
$$;

-- The open reviews of memories that another now stands for (a decision
-- retired them into its survivor, a consolidation folded them into its
-- record) concern that one from now on. A review that would pair it with
-- itself, or repeat an open review (two of the retired ones paired with one
-- other memory, a conflict in either direction), has nothing left to
-- decide: closed as 'obsolete', resolved_id the one standing for them. A
-- moved review is a pair no reviewer has read: its claim ends (the
-- reviewer's decision is refused, PM018, and no attempt is counted).
-- except_id: the review being decided, which is closed by its caller.
-- Two statements: an open pair is unique, so the repeats close first.
CREATE OR REPLACE FUNCTION pymem._move_open_reviews(
    user_id text, from_ids uuid[], to_id uuid, except_id uuid DEFAULT NULL
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    UPDATE pymem.reviews AS r
    SET resolved_at = now(), decision = 'obsolete', resolved_id = to_id,
        claimed_by = NULL, claimed_until = NULL
    FROM (
        SELECT
            v.id,
            v.memory_id = v.matched_id
            OR row_number() OVER (
                PARTITION BY v.cause, v.first_id, v.second_id ORDER BY v.created_at, v.id
            ) > 1
            -- (the user named, not only r's: Citus runs the whole statement on
            -- the user's shard only when every table of it is filtered by the user)
            OR EXISTS (
                SELECT FROM pymem.reviews AS o
                WHERE o.user_id = _move_open_reviews.user_id AND o.resolved_at IS NULL
                    AND o.cause = v.cause AND o.id IS DISTINCT FROM except_id
                    AND o.memory_id <> ALL(from_ids) AND o.matched_id <> ALL(from_ids)
                    AND (
                        (o.memory_id = v.memory_id AND o.matched_id = v.matched_id)
                        -- a conflict has no direction
                        OR (v.cause = 'conflict'
                            AND o.memory_id = v.matched_id AND o.matched_id = v.memory_id)
                    )
            ) AS obsolete
        FROM (
            SELECT
                m.*,
                CASE WHEN m.cause = 'conflict' THEN least(m.memory_id, m.matched_id)
                    ELSE m.memory_id END AS first_id,
                CASE WHEN m.cause = 'conflict' THEN greatest(m.memory_id, m.matched_id)
                    ELSE m.matched_id END AS second_id
            FROM (
                SELECT
                    a.id, a.cause, a.created_at,
                    CASE WHEN a.memory_id = ANY(from_ids) THEN to_id ELSE a.memory_id END
                        AS memory_id,
                    CASE WHEN a.matched_id = ANY(from_ids) THEN to_id ELSE a.matched_id END
                        AS matched_id
                FROM pymem.reviews AS a
                WHERE a.user_id = _move_open_reviews.user_id AND a.resolved_at IS NULL
                    AND a.id IS DISTINCT FROM except_id
                    AND (a.memory_id = ANY(from_ids) OR a.matched_id = ANY(from_ids))
            ) AS m
        ) AS v
    ) AS d
    WHERE r.user_id = _move_open_reviews.user_id AND r.id = d.id AND d.obsolete;
    UPDATE pymem.reviews AS r
    SET memory_id = CASE WHEN r.memory_id = ANY(from_ids) THEN to_id ELSE r.memory_id END,
        matched_id = CASE WHEN r.matched_id = ANY(from_ids) THEN to_id ELSE r.matched_id END,
        claimed_by = NULL, claimed_until = NULL
    WHERE r.user_id = _move_open_reviews.user_id AND r.resolved_at IS NULL
        AND r.id IS DISTINCT FROM except_id
        AND (r.memory_id = ANY(from_ids) OR r.matched_id = ANY(from_ids));
END;
$$;

-- Settles the open review of a memory (the one a write returned, or the
-- first of a flagged pair; review_id names one when the memory has
-- several): keep_both closes it; supersede gives the older memory
-- (matched_id) the newer one's content in place and retires the newer
-- row; duplicate retires the newer row and reinforces the older; past (a
-- related pair only: the newer speaks of a value the older has replaced,
-- "back when she sold at the market") retires the newer row and leaves the
-- older as it is, neither reinforced nor given the text as a wording: the
-- past is history, not a way to find the current value, nor a second value
-- beside it; conflict (a related pair only) flags the pair as a
-- contradiction (flag_conflict, the reason as its note) and closes the
-- related review, both memories staying. Returns the surviving memory. Retiring is a soft delete,
-- recorded in memory_versions: pymem.undo brings either side back. Other
-- open reviews of the retired memory move to the survivor. The reason is
-- kept on the review and in the history of every memory the decision
-- changes; claimed_by is the reviewer deciding (sql/27_review_claims.sql):
-- a review claimed by another reviewer whose claim has not run out is
-- refused (PM017), whoever asks. as_seen (with claimed_by: a reviewer's
-- judgement of its claim) refuses, PM018, a decision on a pair that is no
-- longer the one the judge read: either text rewritten, the review moved to
-- another memory, or the claim given back or taken since.
CREATE OR REPLACE FUNCTION pymem.resolve_review(
    user_id text,
    memory_id uuid,
    decision text,
    reason text DEFAULT NULL,
    claimed_by text DEFAULT NULL,
    review_id uuid DEFAULT NULL,
    as_seen timestamptz[] DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_review pymem.reviews;
    v_newer pymem.memories;
    v_item pymem.memory_item;
    v_survivor uuid;
    v_reason text := nullif(btrim(reason, pymem._blank_characters()), '');
    -- the reason as the history records it after the decision's own words
    v_because text;
BEGIN
    PERFORM pymem._check_user(user_id);
    decision := pymem._word(decision);
    IF decision IS NULL
        OR decision NOT IN ('keep_both', 'supersede', 'duplicate', 'past', 'conflict') THEN
        RAISE EXCEPTION 'decision must be keep_both, supersede, duplicate, past or conflict, got %',
            coalesce(quote_literal(decision), 'NULL')
            USING ERRCODE = 'PM016';
    END IF;
    IF v_reason IS NOT NULL THEN
        PERFORM pymem._check_content(v_reason, (pymem._settings()).max_content_chars, 'reason');
    END IF;
    IF claimed_by IS NOT NULL THEN
        PERFORM pymem._check_worker(claimed_by, 'claimed_by');
    END IF;
    -- the two instants the judge read, in order: any other shape would read as a change
    -- (PM018), and a worker would give the review back and judge it again forever
    IF as_seen IS NOT NULL AND (array_ndims(as_seen) IS DISTINCT FROM 1
        OR array_lower(as_seen, 1) <> 1 OR cardinality(as_seen) <> 2) THEN
        RAISE EXCEPTION 'as_seen must be the two memories'' updated_at, got %', as_seen
            USING ERRCODE = 'PM006';
    END IF;
    v_because := coalesce('; reason: ' || v_reason, '');
    PERFORM pymem._lock_user(user_id);
    SELECT r.* INTO v_review
    FROM pymem.reviews AS r
    WHERE r.user_id = resolve_review.user_id
        AND (
            r.id = resolve_review.review_id
            OR (resolve_review.review_id IS NULL AND r.memory_id = resolve_review.memory_id)
        )
        AND r.resolved_at IS NULL
        AND r.cause <> 'fact'
    ORDER BY r.created_at
    LIMIT 1
    FOR UPDATE;
    IF NOT found THEN
        RAISE EXCEPTION 'memory % has no open review% for user %', memory_id,
            coalesce(' ' || review_id, ''), quote_literal(user_id)
            USING ERRCODE = 'PM015',
                HINT = 'pymem.pending_reviews(user_id) lists the open ones.';
    END IF;
    IF v_review.memory_id IS DISTINCT FROM memory_id THEN
        -- another decision retired memory_id and moved this review to its survivor:
        -- for a judge (as_seen) that is a pair it never read, to judge again (PM018)
        IF as_seen IS NOT NULL THEN
            RAISE EXCEPTION 'review % concerns memory % now, not %: its pair changed since '
                'the judge read it', v_review.id, v_review.memory_id, memory_id
                USING ERRCODE = 'PM018',
                    HINT = 'Give the review back (release_review) and judge the pair again.';
        END IF;
        RAISE EXCEPTION 'review % concerns memory % now, not %: its pair changed',
            v_review.id, v_review.memory_id, memory_id
            USING ERRCODE = 'PM015',
                HINT = 'Read the pair again (pending_reviews) and decide it anew.';
    END IF;
    PERFORM pymem._check_claim(
        v_review.id, v_review.claimed_by, v_review.claimed_until, claimed_by
    );
    -- a reviewer's judgement holds only for the claim it judged: a review given back,
    -- taken by another reviewer, or moved to another pair (a move clears the claim,
    -- and the survivor may carry the very updated_at the judge read: one batch wrote
    -- both) since then is no longer what the judge read
    IF as_seen IS NOT NULL AND claimed_by IS NOT NULL
        AND v_review.claimed_by IS DISTINCT FROM claimed_by THEN
        RAISE EXCEPTION 'review % is no longer held by reviewer %: it was given back, taken '
            'or moved to another pair since the judge read it', v_review.id,
            quote_literal(claimed_by)
            USING ERRCODE = 'PM018',
                HINT = 'Give the review back (release_review) and judge the pair again.';
    END IF;
    -- a judge decided on the two texts it read (claim_reviews' updated_at and
    -- matched_updated_at): a write since then (a supersede of either) would make
    -- the decision about text that is no longer there
    IF as_seen IS NOT NULL AND EXISTS (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = resolve_review.user_id
            AND (
                (m.id = v_review.memory_id AND m.updated_at IS DISTINCT FROM as_seen[1])
                OR (m.id = v_review.matched_id AND m.updated_at IS DISTINCT FROM as_seen[2])
            )
    ) THEN
        RAISE EXCEPTION 'memory % or % changed since the judge read them', v_review.memory_id,
            v_review.matched_id
            USING ERRCODE = 'PM018',
                HINT = 'Give the review back (release_review) and judge the pair again.';
    END IF;
    IF decision IN ('conflict', 'past') AND v_review.cause <> 'related' THEN
        RAISE EXCEPTION 'a % review is settled with keep_both, supersede or duplicate, '
            'not %', v_review.cause, decision
            USING ERRCODE = 'PM016';
    END IF;

    v_survivor := CASE WHEN decision IN ('keep_both', 'conflict') THEN v_review.memory_id
        ELSE v_review.matched_id END;
    IF decision = 'conflict' THEN
        -- both stay; the contradiction waits for the user (pending_conflicts)
        PERFORM pymem.flag_conflict(user_id, v_review.memory_id, v_review.matched_id, v_reason);
    ELSIF decision <> 'keep_both' THEN
        -- both must still be live: a deleted or consolidated memory is no
        -- longer the fact the pair was about
        SELECT m.* INTO v_newer FROM pymem.memories AS m
        WHERE m.user_id = resolve_review.user_id AND m.id = v_review.memory_id
            AND m.deleted_at IS NULL AND m.consolidated_into IS NULL;
        IF NOT found OR NOT EXISTS (
            SELECT FROM pymem.memories AS m
            WHERE m.user_id = resolve_review.user_id AND m.id = v_review.matched_id
                AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
        ) THEN
            RAISE EXCEPTION 'memory % or % was deleted or consolidated since the review was queued',
                v_review.memory_id, v_review.matched_id
                USING ERRCODE = 'PM015', HINT = 'Resolve it with keep_both.';
        END IF;
        IF decision = 'supersede' THEN
            PERFORM pymem._set_change_reason(format(
                'review: superseded by %s%s', v_review.memory_id, v_because
            ));
            -- the newer memory as the item that supersedes, field by field
            v_item.content := v_newer.content;
            v_item.embedding := v_newer.embedding;
            v_item.kind := v_newer.kind;
            v_item.importance := v_newer.importance;
            v_item.source := v_newer.source;
            v_item.pinned := v_newer.pinned;
            v_item.metadata := v_newer.metadata;
            v_item.details := v_newer.details;
            v_item.topic := v_newer.topic;
            v_item.canonical := v_newer.canonical;
            v_item.valid_until := v_newer.valid_until;
            v_item.decay_rate := v_newer.decay_rate;
            PERFORM pymem._supersede(user_id, v_review.matched_id, v_item);
            -- the newer memory's other wordings go with its content
            PERFORM pymem._move_wordings(
                user_id, v_review.memory_id, v_review.matched_id, v_newer.content,
                v_newer.embedding
            );
        ELSIF decision = 'past' THEN
            -- the older memory is left as it is: only the newer row retires, below
            NULL;
        ELSE
            PERFORM pymem._set_change_reason(format(
                'review: duplicate %s merged%s', v_review.memory_id, v_because
            ));
            PERFORM pymem._reinforce(
                user_id, ARRAY[v_review.matched_id], true, v_newer.importance,
                v_newer.source, v_newer.pinned, v_newer.details, v_newer.metadata,
                v_newer.valid_until, v_newer.topic, v_newer.canonical, v_newer.decay_rate
            );
            -- the retired text stays a way to find the survivor
            PERFORM pymem._move_wordings(
                user_id, v_review.memory_id, v_review.matched_id, v_newer.content,
                v_newer.embedding
            );
        END IF;
        -- the people the retired memory was about are linked to the survivor
        -- (from an array: on Citus an INSERT that selects from a distributed
        -- table cannot run in a function delegated to a worker); a past value
        -- keeps its own, it says nothing of them now
        IF decision <> 'past' THEN
            INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
            SELECT resolve_review.user_id, c.id, v_review.matched_id, 'moved'
            FROM unnest(ARRAY(
                SELECT l.contact_id FROM pymem.contact_links AS l
                WHERE l.user_id = resolve_review.user_id AND l.memory_id = v_review.memory_id
            )) AS c (id)
            ON CONFLICT DO NOTHING;
            DELETE FROM pymem.contact_links AS l
            WHERE l.user_id = resolve_review.user_id AND l.memory_id = v_review.memory_id;
        END IF;
        PERFORM pymem._set_change_reason(CASE
            WHEN decision = 'past' THEN format(
                'review: past, an earlier value of %s%s', v_review.matched_id, v_because
            )
            ELSE format('review: %s, merged into %s%s', decision, v_review.matched_id, v_because)
        END);
        UPDATE pymem.memories AS m
        SET deleted_at = now()
        WHERE m.user_id = resolve_review.user_id AND m.id = v_review.memory_id;
        PERFORM pymem._set_change_reason(NULL);
        PERFORM pymem._move_open_reviews(
            resolve_review.user_id, ARRAY[v_review.memory_id], v_survivor, v_review.id
        );
    END IF;
    UPDATE pymem.reviews AS r
    SET resolved_at = now(), decision = resolve_review.decision, resolved_id = v_survivor,
        reason = v_reason, decided_by = resolve_review.claimed_by,
        claimed_by = NULL, claimed_until = NULL, retry_at = NULL
    WHERE r.user_id = resolve_review.user_id AND r.id = v_review.id;
    RETURN v_survivor;
END;
$$;
