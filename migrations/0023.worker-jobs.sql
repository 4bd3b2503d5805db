-- pymem 0023: one worker for every event (pymem worker, pymem.worker.MemoryWorker;
-- docs/llm.md). Besides reviews, a worker consolidates the topics announced
-- as due, writes the profiles of the people announced as due, and reflects
-- on a user's memories every settings.reflect_every writes. Each of those
-- jobs is claimed for a lease as reviews are (two workers never run one, a
-- crashed worker's claim runs out), a failure is counted and retried after a
-- while, and after settings.review_max_attempts failures the job is parked
-- until unpark_jobs puts it back.
-- depends: 0022.memory-wordings

-- The claims and failures of the jobs a worker runs. A row exists while a
-- job is due or failing; finishing the job deletes it.
CREATE TABLE pymem.job_claims (
    user_id text NOT NULL,
    job text NOT NULL CHECK (job IN ('consolidate', 'profile', 'reflect')),
    -- which one: the topic (consolidate), the contact's id (profile), '' (reflect)
    key text NOT NULL,
    claimed_by text,
    claimed_at timestamptz,
    claimed_until timestamptz,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error text,
    retry_at timestamptz,
    parked_at timestamptz,
    PRIMARY KEY (user_id, job, key),
    CONSTRAINT job_claims_claim_check CHECK ((claimed_by IS NULL) = (claimed_until IS NULL))
);

-- When each user's memories were last reflected on: the writes after it
-- count toward the next reflection.
CREATE TABLE pymem.reflections (
    user_id text PRIMARY KEY,
    reflected_at timestamptz NOT NULL
);

ALTER TABLE pymem.job_claims ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.reflections ENABLE ROW LEVEL SECURITY;

CREATE POLICY job_claims_of_current_user ON pymem.job_claims
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY reflections_of_current_user ON pymem.reflections
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

-- (the column, then its CHECK: Citus refuses a column added with a
-- constraint in one command, and pymem.settings is a reference table there)
ALTER TABLE pymem.settings ADD COLUMN reflect_every integer NOT NULL DEFAULT 50;
ALTER TABLE pymem.settings
ADD CONSTRAINT settings_reflect_every_check CHECK (reflect_every BETWEEN 1 AND 1000000);

-- One claimed job: what the worker needs to run it.
CREATE TYPE pymem.claimed_job AS (
    user_id text,
    job text,
    key text,
    -- consolidate: the topic's live fragments; profile: the person's fragments
    member_ids uuid ARRAY,
    contact_id uuid,
    -- reflect: the last reflection (NULL: never)
    since timestamptz,
    -- failed runs so far
    attempts integer,
    claimed_until timestamptz
);

UPDATE pymem.schema_info SET version = 23;
