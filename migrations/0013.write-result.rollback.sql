-- Rollback of 0013: the result type goes (CASCADE: the functions that
-- return it; the next migrate re-creates them).
DROP TYPE pymem.write_result CASCADE;
UPDATE pymem.schema_info SET version = 12;
