-- pymem 0014: the review loop. A reviewer (pymem review, pymem.review.ReviewWorker)
-- claims open related reviews for a lease so that two workers never judge one, and a
-- crashed worker's claim runs out; a failed judgement is counted and retried after a
-- while, and after settings.review_max_attempts failures the review is parked (kept
-- open, never decided by default) until unpark_reviews puts it back. The decision
-- keeps the judge's reason and who decided. resolve_review takes the reason, the
-- worker and the review (sql/25_reviews.sql re-creates it with the new signature:
-- CREATE OR REPLACE would add an overload).
-- depends: 0013.write-result

ALTER TABLE pymem.reviews
-- the worker holding the review, and until when (a claim runs out by itself)
ADD COLUMN claimed_by text,
ADD COLUMN claimed_until timestamptz,
-- failed judgements (a malformed answer, an error, a timeout, a claim that ran out)
ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
ADD COLUMN last_error text,
-- a failed review is not claimed again before this
ADD COLUMN retry_at timestamptz,
-- set after settings.review_max_attempts failures: open, but no worker claims it
ADD COLUMN parked_at timestamptz,
-- why it was decided so (the judge's reason) and by which worker
ADD COLUMN reason text,
ADD COLUMN decided_by text,
ADD CONSTRAINT reviews_claim_check CHECK ((claimed_by IS NULL) = (claimed_until IS NULL));

-- what a store-wide claim scans: the open related reviews nobody parked, oldest first
CREATE INDEX reviews_claimable_idx ON pymem.reviews (created_at)
WHERE resolved_at IS NULL AND cause = 'related' AND parked_at IS NULL;

ALTER TABLE pymem.settings
ADD COLUMN review_max_attempts integer NOT NULL DEFAULT 5
CHECK (review_max_attempts BETWEEN 1 AND 100);

-- One claimed review: what a judge's prompt needs of both memories.
CREATE TYPE pymem.claimed_review AS (
    review_id uuid,
    user_id text,
    cause text,
    -- the newer memory (the one the write returned) and its older neighbour
    memory_id uuid,
    matched_id uuid,
    similarity double precision,
    queued_at timestamptz,
    -- failed judgements so far
    attempts integer,
    claimed_until timestamptz,
    content text,
    kind text,
    topic text,
    created_at timestamptz,
    updated_at timestamptz,
    matched_content text,
    matched_kind text,
    matched_topic text,
    matched_created_at timestamptz,
    matched_updated_at timestamptz
);

UPDATE pymem.schema_info SET version = 14;
