-- Rollback of 0010: nothing to drop (0004 owns what it repaired).
UPDATE pymem.schema_info SET version = 9;
