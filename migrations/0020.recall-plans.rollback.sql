-- Rollback of 0020, a marker: the functions are those of the sql/ loaded next.
UPDATE pymem.schema_info SET version = 19;
