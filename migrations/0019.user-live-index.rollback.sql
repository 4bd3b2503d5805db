-- Rollback of 0019: the one-key index of live memories goes (recall reads
-- memories_live_idx again after the next migrate's sql/ reload).
DROP INDEX pymem.memories_user_live_idx;

UPDATE pymem.schema_info SET version = 18;
