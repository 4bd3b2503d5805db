-- Rollback of 0018: recall's two indexes go (recall still returns the same
-- rows, through memories_live_idx and a filter).
DROP INDEX pymem.memories_expiring_idx;
DROP INDEX pymem.memories_open_idx;
UPDATE pymem.schema_info SET version = 17;
