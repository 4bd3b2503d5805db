-- Claims on the review queue, for reviewers that run beside the app (pymem
-- review, pymem.review.ReviewWorker; docs/review-worker.md). A reviewer
-- claims open related reviews for a lease: no other reviewer claims them
-- until it decides them (resolve_review with claimed_by), gives them back
-- (release_review) or the lease runs out (a crashed reviewer's claims come
-- back by themselves, counted as a failed attempt). A failed judgement is
-- counted and retried after a while; after settings.review_max_attempts
-- failures the review is parked: still open, listed by pending_reviews,
-- never decided by default and claimed by no one until unpark_reviews
-- puts it back.

-- A reviewer's name: what claims and decisions record.
CREATE OR REPLACE FUNCTION pymem._check_worker(worker text, what text DEFAULT 'worker')
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF worker IS NULL OR btrim(worker) = '' OR length(worker) > 200 THEN
        RAISE EXCEPTION '% must name the reviewer in 1 to 200 characters, got %', what,
            coalesce(quote_literal(left(worker, 40)), 'NULL')
            USING ERRCODE = 'PM006',
                HINT = 'A host name and process id do (pymem review uses host:pid:random).';
    END IF;
END;
$$;

-- How many a claim takes (k) and for how long (lease), for reviews and jobs.
CREATE OR REPLACE FUNCTION pymem._check_claim_size(k integer, lease double precision)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'k must be between 1 and 1000, got %', coalesce(k::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    IF lease IS NULL OR NOT (lease > 0 AND lease <= 86400) THEN
        RAISE EXCEPTION 'lease must be more than 0 and at most 86400 seconds, got %',
            coalesce(lease::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

-- The wait before a failed review or job may be claimed again.
CREATE OR REPLACE FUNCTION pymem._check_retry_after(retry_after double precision)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF retry_after IS NULL OR NOT (retry_after >= 0 AND retry_after <= 86400) THEN
        RAISE EXCEPTION 'retry_after must be between 0 and 86400 seconds, got %',
            coalesce(retry_after::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

-- Refuses a decision on a review that another reviewer holds and whose
-- claim has not run out (PM017). A claim that ran out no longer protects
-- anything: whoever decides first settles the review.
CREATE OR REPLACE FUNCTION pymem._check_claim(
    review_id uuid, claimed_by text, claimed_until timestamptz, worker text
)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF claimed_until > now() AND claimed_by IS DISTINCT FROM worker THEN
        RAISE EXCEPTION 'review % is claimed by reviewer % until %',
            review_id, quote_literal(claimed_by), claimed_until
            USING ERRCODE = 'PM017',
                DETAIL = format('asked by %s', coalesce(quote_literal(worker), 'no reviewer')),
                HINT = 'A reviewer is deciding it: wait for its claim to end, or let it '
                    'give the review back (pymem.release_review).';
    END IF;
END;
$$;

-- Claims up to k open related reviews of user_id (NULL: of every user the
-- caller sees; as pymem_app, that is the user in pymem.user_id, none when
-- unset) for lease seconds, oldest first, skipping those other reviewers
-- hold (FOR UPDATE SKIP LOCKED: two reviewers claiming at once get
-- different reviews), parked ones, those waiting to be retried, and those
-- whose memories were deleted or consolidated since (nothing is left to
-- judge). A review whose earlier claim ran out is a failed attempt of that
-- reviewer: counted, and parked instead of claimed when it reaches the
-- limit. Returns what a judge's prompt needs of both memories.
CREATE OR REPLACE FUNCTION pymem.claim_reviews(
    user_id text, worker text, k integer DEFAULT 10, lease double precision DEFAULT 600
)
RETURNS SETOF pymem.claimed_review
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_max integer := (pymem._settings()).review_max_attempts;
    v_until timestamptz;
    v_users text[];
    v_ids uuid[];
    v_claimed integer := 0;
    v_rows integer;
    v_lapsed jsonb;
    v_now timestamptz := now();
BEGIN
    IF user_id IS NOT NULL THEN
        PERFORM pymem._check_user(user_id);
    END IF;
    PERFORM pymem._check_worker(worker);
    PERFORM pymem._check_claim_size(k, lease);
    v_until := now() + make_interval(secs => lease);
    LOOP
        SELECT array_agg(c.user_id), array_agg(c.id) INTO v_users, v_ids
        FROM (
            SELECT r.user_id, r.id
            FROM pymem.reviews AS r
            WHERE (claim_reviews.user_id IS NULL OR r.user_id = claim_reviews.user_id)
                AND r.resolved_at IS NULL AND r.cause = 'related' AND r.parked_at IS NULL
                AND (r.claimed_until IS NULL OR r.claimed_until <= now())
                AND (r.retry_at IS NULL OR r.retry_at <= now())
                AND EXISTS (
                    SELECT FROM pymem.memories AS m
                    WHERE m.user_id = r.user_id AND m.id = r.memory_id
                        AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
                )
                AND EXISTS (
                    SELECT FROM pymem.memories AS m
                    WHERE m.user_id = r.user_id AND m.id = r.matched_id
                        AND m.deleted_at IS NULL AND m.consolidated_into IS NULL
                )
            ORDER BY r.created_at, r.id
            LIMIT k - v_claimed
            FOR UPDATE SKIP LOCKED
        ) AS c;
        EXIT WHEN v_ids IS NULL;
        -- a claim that ran out: its reviewer died, or overran its lease. (The
        -- messages are made first, and every statement names the user when
        -- there is one: on Citus, which runs this on the user's worker, an
        -- UPDATE cannot format a row's timestamp, and a statement not filtered
        -- by the user would reach for every shard.)
        v_lapsed := (
            SELECT jsonb_agg(jsonb_build_object(
                'user_id', r.user_id, 'id', r.id,
                'error', format('the claim of reviewer %s ran out at %s', r.claimed_by,
                    r.claimed_until)
            ))
            FROM pymem.reviews AS r
            INNER JOIN unnest(v_users, v_ids) AS c (user_id, id)
                ON r.user_id = c.user_id AND r.id = c.id
            WHERE (claim_reviews.user_id IS NULL OR r.user_id = claim_reviews.user_id)
                AND r.claimed_by IS NOT NULL
                -- the same reviewer claiming it again (a dry run holding its claims)
                -- failed at nothing
                AND r.claimed_by <> claim_reviews.worker
        );
        UPDATE pymem.reviews AS r
        SET attempts = r.attempts + 1,
            last_error = c.error,
            claimed_by = NULL,
            claimed_until = NULL,
            parked_at = CASE WHEN r.attempts + 1 >= v_max THEN v_now END
        FROM jsonb_to_recordset(v_lapsed) AS c (user_id text, id uuid, error text)
        WHERE (claim_reviews.user_id IS NULL OR r.user_id = claim_reviews.user_id)
            AND r.user_id = c.user_id AND r.id = c.id;
        RETURN QUERY
        WITH claimed AS (
            UPDATE pymem.reviews AS r
            SET claimed_by = claim_reviews.worker, claimed_until = v_until, retry_at = NULL
            FROM unnest(v_users, v_ids) AS c (user_id, id)
            WHERE (claim_reviews.user_id IS NULL OR r.user_id = claim_reviews.user_id)
                AND r.user_id = c.user_id AND r.id = c.id AND r.parked_at IS NULL
            RETURNING r.*
        )
        SELECT r.id, r.user_id, r.cause, r.memory_id, r.matched_id, r.similarity,
            r.created_at, r.attempts, r.claimed_until,
            m.content, m.kind, m.topic, m.created_at, m.updated_at,
            o.content, o.kind, o.topic, o.created_at, o.updated_at,
            -- only the note that quotes what the older memory said before: the
            -- others name the guards that kept a pair apart, which a judge is
            -- there to overrule, not to be told
            CASE WHEN pymem._queued_for_said_before(r.cause, r.note) THEN r.note END
        FROM claimed AS r
        JOIN pymem.memories AS m ON m.user_id = r.user_id AND m.id = r.memory_id
            AND (claim_reviews.user_id IS NULL OR m.user_id = claim_reviews.user_id)
        JOIN pymem.memories AS o ON o.user_id = r.user_id AND o.id = r.matched_id
            AND (claim_reviews.user_id IS NULL OR o.user_id = claim_reviews.user_id)
        ORDER BY r.created_at, r.id;
        GET DIAGNOSTICS v_rows = ROW_COUNT;
        v_claimed := v_claimed + v_rows;
        EXIT WHEN v_claimed >= k;
    END LOOP;
END;
$$;

-- Gives back a review that worker holds (its claim ran out or not). With
-- no error: back in the queue as it was ('released'). With an error (the
-- judge's answer was malformed, it failed or timed out, the decision could
-- not be applied): one more failed attempt with its error, claimable again
-- after retry_after seconds ('retry'), or parked when the attempts reach
-- settings.review_max_attempts ('parked'). A review that is not open or
-- that worker does not hold is left alone ('not held').
CREATE OR REPLACE FUNCTION pymem.release_review(
    user_id text,
    review_id uuid,
    worker text,
    error text DEFAULT NULL,
    retry_after double precision DEFAULT 0
)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_max integer := (pymem._settings()).review_max_attempts;
    v_error text := left(nullif(btrim(error), ''), 2000);
    v_attempts integer;
    -- the times computed here: Citus refuses now() (and timestamp arithmetic)
    -- inside a CASE of an UPDATE
    v_now timestamptz := now();
    v_retry timestamptz;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_worker(worker);
    PERFORM pymem._check_retry_after(retry_after);
    v_retry := v_now + make_interval(secs => retry_after);
    UPDATE pymem.reviews AS r
    SET claimed_by = NULL,
        claimed_until = NULL,
        attempts = r.attempts + (v_error IS NOT NULL)::integer,
        last_error = coalesce(v_error, r.last_error),
        retry_at = CASE WHEN v_error IS NOT NULL
            THEN v_retry END,
        parked_at = CASE WHEN v_error IS NOT NULL AND r.attempts + 1 >= v_max
            THEN v_now END
    WHERE r.user_id = release_review.user_id AND r.id = release_review.review_id
        AND r.resolved_at IS NULL AND r.claimed_by = release_review.worker
    RETURNING r.attempts INTO v_attempts;
    IF NOT found THEN
        RETURN 'not held';
    END IF;
    RETURN CASE
        WHEN v_error IS NULL THEN 'released'
        WHEN v_attempts >= v_max THEN 'parked'
        ELSE 'retry'
    END;
END;
$$;

-- Puts parked reviews of user_id (those of review_ids, or all) back in
-- the queue with no attempts counted, for when the judge is fixed; their
-- last error stays on the review. Returns what each had before.
CREATE OR REPLACE FUNCTION pymem.unpark_reviews(user_id text, review_ids uuid[] DEFAULT NULL)
RETURNS TABLE (
    review_id uuid,
    memory_id uuid,
    matched_id uuid,
    attempts integer,
    last_error text,
    parked_at timestamptz
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_row record;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_one_dimension(review_ids, 'review_ids');
    FOR v_row IN
    WITH parked AS (
        SELECT r.user_id, r.id, r.memory_id, r.matched_id, r.attempts, r.last_error, r.parked_at
        FROM pymem.reviews AS r
        WHERE r.user_id = unpark_reviews.user_id AND r.parked_at IS NOT NULL
            AND r.resolved_at IS NULL
            AND (unpark_reviews.review_ids IS NULL OR r.id = ANY(unpark_reviews.review_ids))
        FOR UPDATE
    ),
    unparked AS (
        UPDATE pymem.reviews AS r
        SET parked_at = NULL, attempts = 0, retry_at = NULL
        FROM parked AS p
        -- (the user named: on Citus a statement stays on the user's shard when
        -- every table of it is filtered by the user)
        WHERE r.user_id = unpark_reviews.user_id AND r.user_id = p.user_id AND r.id = p.id
    )
    SELECT p.id, p.memory_id, p.matched_id, p.attempts, p.last_error, p.parked_at
    FROM parked AS p
    ORDER BY p.parked_at, p.id
    LOOP
        review_id := v_row.id;
        memory_id := v_row.memory_id;
        matched_id := v_row.matched_id;
        attempts := v_row.attempts;
        last_error := v_row.last_error;
        parked_at := v_row.parked_at;
        RETURN NEXT;
        -- claimable again: announced as a new review is, so a waiting worker takes it
        -- now rather than at its next poll
        PERFORM pymem._notify(
            unpark_reviews.user_id, 'review_due', ARRAY[v_row.memory_id, v_row.matched_id],
            jsonb_build_object('review_id', v_row.id, 'cause', 'related')
        );
    END LOOP;
END;
$$;
