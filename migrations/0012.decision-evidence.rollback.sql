-- Rollback of 0012: the evidence record goes (CASCADE: the functions of
-- sql/20_upsert.sql that take it; the next migrate re-creates them).
DROP TYPE pymem.pair_evidence CASCADE;
UPDATE pymem.schema_info SET version = 11;
