-- Rollback of 0019: the index of hot live memories goes (recall reads
-- memories_live_idx again after the next migrate's sql/ reload).
DROP INDEX pymem.memories_hot_idx;

UPDATE pymem.schema_info SET version = 18;
