-- Rollback of 0035, a marker: the functions are those of the sql/ loaded next.
UPDATE pymem.schema_info SET version = 34;
