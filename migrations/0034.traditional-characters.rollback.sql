-- Rollback of 0034, a marker: the functions are those of the sql/ loaded next.
UPDATE pymem.schema_info SET version = 33;
