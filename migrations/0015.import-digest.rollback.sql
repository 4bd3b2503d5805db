-- Rollback of 0015: resumed imports no longer check their file.
ALTER TABLE pymem.import_progress DROP COLUMN digest;
UPDATE pymem.schema_info SET version = 14;
