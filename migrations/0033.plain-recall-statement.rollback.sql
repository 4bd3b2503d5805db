-- Rollback of 0033, a marker: the functions are those of the sql/ loaded next.
UPDATE pymem.schema_info SET version = 32;
