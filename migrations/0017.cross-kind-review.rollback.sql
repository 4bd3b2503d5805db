-- Rollback of 0017: the evidence of another kind, the kinds it is reviewed
-- against and its floor go.
ALTER TABLE pymem.settings DROP COLUMN cross_kind_review_floor;
ALTER TABLE pymem.kinds DROP COLUMN review_against;
ALTER TYPE pymem.pair_evidence DROP ATTRIBUTE other_kind;
UPDATE pymem.schema_info SET version = 16;
