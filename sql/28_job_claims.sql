-- Claims on the model jobs besides reviews, for the worker that runs beside
-- the app (pymem worker, pymem.worker.MemoryWorker; docs/llm.md):
-- consolidate (a topic announced by consolidation_due), profile (a person
-- announced by contact_profile_due) and reflect (a user with
-- settings.reflect_every writes since the last reflection, or, when the
-- worker asks for it, any write since a reflection older than
-- reflect_after seconds). What is due is read from those announcements and
-- from the memories themselves, so nothing is lost when no worker listens;
-- pymem.job_claims holds only the claims and the failures. The rules are
-- the review queue's (sql/27_review_claims.sql): a lease that runs out is a
-- failed attempt, a failure is retried after a while, and
-- settings.review_max_attempts failures park the job until unpark_jobs.

-- The jobs of one user that are due now, with what their runs need.
CREATE OR REPLACE FUNCTION pymem._due_jobs(user_id text, reflect_after double precision)
RETURNS TABLE (
    job text, key text, due_at timestamptz, member_ids uuid[], contact_id uuid, since timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_every integer := (pymem._settings()).reflect_every;
    v_since timestamptz;
    v_writes integer;
BEGIN
    -- a topic whose announcement stands and that still has fragments to fold
    RETURN QUERY
    SELECT 'consolidate', a.topic, a.announced_at, f.ids, NULL::uuid, NULL::timestamptz
    FROM pymem.consolidation_announcements AS a
    CROSS JOIN LATERAL (
        SELECT array_agg(m.id ORDER BY m.created_at, m.id) AS ids
        FROM pymem.memories AS m
        WHERE m.user_id = _due_jobs.user_id AND m.topic = a.topic
            AND m.consolidated_into IS NULL AND m.deleted_at IS NULL AND NOT m.pinned
    ) AS f
    WHERE a.user_id = _due_jobs.user_id AND cardinality(f.ids) >= 2;
    RETURN QUERY
    SELECT 'profile', c.id::text, c.profile_due_announced_at,
        pymem._contact_fragments(_due_jobs.user_id, c.id), c.id, NULL::timestamptz
    FROM pymem.contacts AS c
    WHERE c.user_id = _due_jobs.user_id AND c.profile_due_announced_at IS NOT NULL;
    v_since := (
        SELECT r.reflected_at FROM pymem.reflections AS r WHERE r.user_id = _due_jobs.user_id
    );
    -- the writes since: counted up to what decides (a long-idle user costs
    -- reflect_every rows, not all of theirs)
    SELECT count(*) INTO v_writes
    FROM (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = _due_jobs.user_id
            AND m.consolidated_into IS NULL AND m.deleted_at IS NULL
            AND m.updated_at > coalesce(v_since, '-infinity')
        LIMIT v_every
    ) AS w;
    IF v_writes >= v_every OR (
        v_writes > 0 AND reflect_after IS NOT NULL
        AND coalesce(v_since, '-infinity') <= now() - make_interval(secs => reflect_after)
    ) THEN
        job := 'reflect';
        key := '';
        -- due now: after the announcements, so that a reflection reads the
        -- records and profiles their jobs write first
        due_at := now();
        member_ids := NULL;
        contact_id := NULL;
        since := v_since;
        RETURN NEXT;
    END IF;
END;
$$;

-- Claims up to k due jobs of user_id (NULL: of every user the caller
-- sees; as pymem_app, the user in pymem.user_id) for lease seconds, those
-- due longest first, skipping those other workers hold (FOR UPDATE SKIP
-- LOCKED), parked ones and those waiting to be retried. reflect_after
-- (seconds, NULL: only every settings.reflect_every writes) also makes a
-- reflection due for a user who wrote anything since one that old; jobs
-- (NULL: all) names the kinds of job claimed. A job
-- whose earlier claim ran out is a failed attempt of that worker: counted,
-- and parked instead of claimed at the limit.
CREATE OR REPLACE FUNCTION pymem.claim_jobs(
    user_id text,
    worker text,
    k integer DEFAULT 10,
    lease double precision DEFAULT 600,
    reflect_after double precision DEFAULT NULL,
    jobs text[] DEFAULT NULL
)
RETURNS SETOF pymem.claimed_job
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_max integer := (pymem._settings()).review_max_attempts;
    v_now timestamptz := now();
    v_until timestamptz;
    v_user text;
    v_claimed integer := 0;
    v_rows integer;
    v_due jsonb;
    v_jobs text[];
    v_keys text[];
BEGIN
    PERFORM pymem._check_worker(worker);
    PERFORM pymem._check_claim_size(k, lease);
    PERFORM pymem._check_one_dimension(jobs, 'jobs');
    IF reflect_after IS NOT NULL AND NOT (reflect_after >= 0 AND reflect_after <= 31536000) THEN
        RAISE EXCEPTION 'reflect_after must be between 0 and 31536000 seconds (a year), got %',
            reflect_after
            USING ERRCODE = 'PM006';
    END IF;
    IF user_id IS NULL THEN
        -- every user, one at a time through the key's index (a user's due
        -- jobs are read with the user's own indexes)
        v_user := (SELECT min(m.user_id) FROM pymem.memories AS m);
        WHILE v_user IS NOT NULL AND v_claimed < k LOOP
            RETURN QUERY
            SELECT *
            FROM pymem.claim_jobs(v_user, worker, k - v_claimed, lease, reflect_after, jobs);
            GET DIAGNOSTICS v_rows = ROW_COUNT;
            v_claimed := v_claimed + v_rows;
            v_user := (SELECT min(m.user_id) FROM pymem.memories AS m WHERE m.user_id > v_user);
        END LOOP;
        RETURN;
    END IF;
    PERFORM pymem._check_user(user_id);
    v_until := v_now + make_interval(secs => lease);
    v_due := (
        SELECT jsonb_agg(to_jsonb(d))
        FROM pymem._due_jobs(claim_jobs.user_id, reflect_after) AS d
        WHERE claim_jobs.jobs IS NULL OR d.job = ANY(claim_jobs.jobs)
    );
    IF v_due IS NULL THEN
        RETURN;
    END IF;
    INSERT INTO pymem.job_claims AS j (user_id, job, key)
    SELECT claim_jobs.user_id, d.job, d.key
    FROM jsonb_to_recordset(v_due) AS d (job text, key text)
    ON CONFLICT DO NOTHING;
    -- a claim that ran out: its worker died, or overran its lease (the
    -- text made of columns that are text only: Citus refuses a row's
    -- timestamp formatted in an UPDATE)
    UPDATE pymem.job_claims AS j
    SET attempts = j.attempts + 1,
        last_error = 'the claim of worker ' || j.claimed_by || ' ran out',
        claimed_by = NULL,
        claimed_at = NULL,
        claimed_until = NULL,
        parked_at = CASE WHEN j.attempts + 1 >= v_max THEN v_now END
    WHERE j.user_id = claim_jobs.user_id AND j.claimed_until <= v_now
        AND j.claimed_by <> claim_jobs.worker;
    SELECT array_agg(c.job), array_agg(c.key) INTO v_jobs, v_keys
    FROM (
        SELECT j.job, j.key
        FROM pymem.job_claims AS j
        INNER JOIN jsonb_to_recordset(v_due) AS d (job text, key text, due_at timestamptz)
            ON d.job = j.job AND d.key = j.key
        WHERE j.user_id = claim_jobs.user_id AND j.parked_at IS NULL
            AND (j.claimed_until IS NULL OR j.claimed_until <= v_now)
            AND (j.retry_at IS NULL OR j.retry_at <= v_now)
        ORDER BY d.due_at, j.job, j.key
        LIMIT k
        FOR UPDATE OF j SKIP LOCKED
    ) AS c;
    IF v_jobs IS NULL THEN
        RETURN;
    END IF;
    UPDATE pymem.job_claims AS j
    SET claimed_by = claim_jobs.worker, claimed_at = v_now, claimed_until = v_until,
        retry_at = NULL
    FROM unnest(v_jobs, v_keys) AS c (job, key)
    WHERE j.user_id = claim_jobs.user_id AND j.job = c.job AND j.key = c.key;
    RETURN QUERY
    SELECT claim_jobs.user_id, j.job, j.key, d.member_ids, d.contact_id, d.since, j.attempts,
        v_until
    FROM pymem.job_claims AS j
    INNER JOIN jsonb_to_recordset(v_due) AS d (
        job text, key text, due_at timestamptz, member_ids uuid[], contact_id uuid,
        since timestamptz
    ) ON d.job = j.job AND d.key = j.key
    WHERE j.user_id = claim_jobs.user_id AND j.claimed_by = claim_jobs.worker
        AND j.claimed_at = v_now AND (j.job, j.key) IN (SELECT * FROM unnest(v_jobs, v_keys))
    ORDER BY d.due_at, j.job, j.key;
END;
$$;

-- The job of user_id that worker holds, or an error (PM006) naming it.
CREATE OR REPLACE FUNCTION pymem._check_job(job text, key text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF job IS NULL OR job NOT IN ('consolidate', 'profile', 'reflect') THEN
        RAISE EXCEPTION 'job must be consolidate, profile or reflect, got %',
            coalesce(quote_literal(left(job, 40)), 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    IF key IS NULL THEN
        RAISE EXCEPTION 'key must name the job''s topic, contact id or '''' (reflect), got NULL'
            USING ERRCODE = 'PM006';
    END IF;
END;
$$;

-- The job worker holds is done: its claim is gone, and a reflection is
-- recorded as of when it was claimed (writes made while the model thought
-- count toward the next one). 'done', or 'not held' (its claim ran out
-- and another worker holds it or finished it: nothing changed).
CREATE OR REPLACE FUNCTION pymem.finish_job(user_id text, job text, key text, worker text)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_claimed_at timestamptz;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_job(job, key);
    PERFORM pymem._check_worker(worker);
    DELETE FROM pymem.job_claims AS j
    WHERE j.user_id = finish_job.user_id AND j.job = finish_job.job AND j.key = finish_job.key
        AND j.claimed_by = finish_job.worker
    RETURNING j.claimed_at INTO v_claimed_at;
    IF NOT found THEN
        RETURN 'not held';
    END IF;
    IF job = 'reflect' THEN
        INSERT INTO pymem.reflections AS r (user_id, reflected_at)
        VALUES (finish_job.user_id, v_claimed_at)
        ON CONFLICT (user_id) DO UPDATE SET reflected_at = excluded.reflected_at;
    END IF;
    RETURN 'done';
END;
$$;

-- Gives back a job worker holds. With no error: due again at once
-- ('released'). With an error (the model's answer was malformed, it
-- failed, the store refused what it wrote): one more failed attempt,
-- claimable again after retry_after seconds ('retry'), or parked at
-- settings.review_max_attempts ('parked'). 'not held' when worker does not
-- hold it.
CREATE OR REPLACE FUNCTION pymem.release_job(
    user_id text,
    job text,
    key text,
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
    v_now timestamptz := now();
    v_retry timestamptz;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_job(job, key);
    PERFORM pymem._check_worker(worker);
    PERFORM pymem._check_retry_after(retry_after);
    v_retry := v_now + make_interval(secs => retry_after);
    UPDATE pymem.job_claims AS j
    SET claimed_by = NULL,
        claimed_at = NULL,
        claimed_until = NULL,
        attempts = j.attempts + (v_error IS NOT NULL)::integer,
        last_error = coalesce(v_error, j.last_error),
        retry_at = CASE WHEN v_error IS NOT NULL THEN v_retry END,
        parked_at = CASE WHEN v_error IS NOT NULL AND j.attempts + 1 >= v_max THEN v_now END
    WHERE j.user_id = release_job.user_id AND j.job = release_job.job
        AND j.key = release_job.key AND j.claimed_by = release_job.worker
    RETURNING j.attempts INTO v_attempts;
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

-- Puts parked jobs of user_id (of the jobs named, or all) back, with no
-- attempts counted, for when the model is fixed; each as it was.
CREATE OR REPLACE FUNCTION pymem.unpark_jobs(user_id text, jobs text[] DEFAULT NULL)
RETURNS TABLE (job text, key text, attempts integer, last_error text, parked_at timestamptz)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_one_dimension(jobs, 'jobs');
    RETURN QUERY
    WITH parked AS (
        SELECT j.job, j.key, j.attempts, j.last_error, j.parked_at
        FROM pymem.job_claims AS j
        WHERE j.user_id = unpark_jobs.user_id AND j.parked_at IS NOT NULL
            AND (unpark_jobs.jobs IS NULL OR j.job = ANY(unpark_jobs.jobs))
        FOR UPDATE
    ),
    unparked AS (
        UPDATE pymem.job_claims AS j
        SET parked_at = NULL, attempts = 0, retry_at = NULL
        FROM parked AS p
        WHERE j.user_id = unpark_jobs.user_id AND j.job = p.job AND j.key = p.key
    )
    SELECT p.job, p.key, p.attempts, p.last_error, p.parked_at
    FROM parked AS p
    ORDER BY p.parked_at, p.job, p.key;
END;
$$;
