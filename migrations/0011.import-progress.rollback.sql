-- Rollback of 0011: import progress goes (a re-run then imports a file again).
-- CASCADE: sql/85_import.sql's functions are re-created by the next migrate.
DROP TABLE pymem.import_progress CASCADE;
UPDATE pymem.schema_info SET version = 10;
