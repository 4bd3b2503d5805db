-- pymem 0009: decay rates and recall weights are finite numbers. PostgreSQL
-- orders NaN above every number, so the `>= 0` checks let 'NaN' and
-- 'Infinity' through; a non-finite decay rate makes a score NaN, which
-- recall's exact pool (a score lies between floor x relevance and the
-- relevance) cannot bound, and no ranking of NaN is meaningful.
-- depends: 0008.security

ALTER TABLE pymem.kinds
ADD CONSTRAINT kinds_decay_rate_finite CHECK (decay_rate < 'infinity');

ALTER TABLE pymem.settings
ADD CONSTRAINT settings_recall_weights_finite
CHECK (recall_lexical_weight < 'infinity' AND recall_state_boost < 'infinity');

-- NOT VALID: new and changed rows are checked at once without scanning the
-- table under this migration's lock (the write path has always refused a
-- non-finite rate); `ALTER TABLE pymem.memories VALIDATE CONSTRAINT
-- memories_decay_rate_finite` checks the old rows later without blocking
-- writers.
ALTER TABLE pymem.memories
ADD CONSTRAINT memories_decay_rate_finite CHECK (decay_rate < 'infinity') NOT VALID;

UPDATE pymem.schema_info SET version = 9;
