-- Rollback of 0016: the new evidence, thresholds and option go; so do the
-- functions that take them, which the next migrate re-creates with their
-- earlier signatures.
DROP FUNCTION IF EXISTS pymem._term_difference(text, text);
DROP FUNCTION IF EXISTS pymem.upsert_memory(
    text, text, vector, text, double precision, text, boolean, jsonb, jsonb, text, text,
    timestamptz, double precision, double precision, double precision, text, text[],
    double precision
);
DROP FUNCTION IF EXISTS pymem.configure_embedder(
    text, double precision, double precision, double precision, boolean, double precision,
    double precision, double precision
);
ALTER TYPE pymem.memory_item DROP ATTRIBUTE review_floor;
ALTER TYPE pymem.pair_evidence
DROP ATTRIBUTE role_swap,
DROP ATTRIBUTE same_people,
DROP ATTRIBUTE cjk;
ALTER TABLE pymem.settings
DROP CONSTRAINT settings_cjk_dedup_threshold_check,
DROP COLUMN cjk_dedup_threshold,
DROP COLUMN cjk_dedup_term_change,
DROP COLUMN review_floor;
UPDATE pymem.schema_info SET version = 15;
