-- Rollback of 0023: no job claims, no reflections; reviews keep theirs. The
-- functions that read them go too (CASCADE: claim_jobs), and the other
-- functions of sql/28_job_claims.sql, which a later migrate re-creates.
DROP FUNCTION IF EXISTS pymem.finish_job(text, text, text, text);
DROP FUNCTION IF EXISTS pymem.release_job(text, text, text, text, text, double precision);
DROP FUNCTION IF EXISTS pymem.unpark_jobs(text, text[]);
DROP FUNCTION IF EXISTS pymem._due_jobs(text, double precision);
DROP FUNCTION IF EXISTS pymem._check_job(text, text);
DROP TYPE pymem.claimed_job CASCADE;
ALTER TABLE pymem.settings DROP COLUMN reflect_every;
DROP TABLE pymem.reflections;
DROP TABLE pymem.job_claims;

UPDATE pymem.schema_info SET version = 22;
