-- Rollback of 0009: the checks for finite rates and weights go.
ALTER TABLE pymem.memories DROP CONSTRAINT memories_decay_rate_finite;
ALTER TABLE pymem.settings DROP CONSTRAINT settings_recall_weights_finite;
ALTER TABLE pymem.kinds DROP CONSTRAINT kinds_decay_rate_finite;
UPDATE pymem.schema_info SET version = 8;
