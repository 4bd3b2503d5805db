-- Rollback of 0014: claims, attempts, parking, reasons and the claim type go
-- (CASCADE: claim_reviews); so do the functions that read them, which the next
-- migrate re-creates (resolve_review with its earlier signature).
DROP FUNCTION IF EXISTS pymem.resolve_review(text, uuid, text, text, text, uuid);
DROP FUNCTION IF EXISTS pymem.release_review(text, uuid, text, text, double precision);
DROP FUNCTION IF EXISTS pymem.unpark_reviews(text, uuid[]);
DROP TYPE pymem.claimed_review CASCADE;
DROP INDEX pymem.reviews_claimable_idx;
ALTER TABLE pymem.reviews
DROP CONSTRAINT reviews_claim_check,
DROP COLUMN claimed_by,
DROP COLUMN claimed_until,
DROP COLUMN attempts,
DROP COLUMN last_error,
DROP COLUMN retry_at,
DROP COLUMN parked_at,
DROP COLUMN reason,
DROP COLUMN decided_by;
ALTER TABLE pymem.settings DROP COLUMN review_max_attempts;
UPDATE pymem.schema_info SET version = 13;
