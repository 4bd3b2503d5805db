-- Rollback of 0021: settings_check as migration 0001 wrote it.
-- two commands: Citus refuses several subcommands in one ALTER TABLE
ALTER TABLE pymem.settings DROP CONSTRAINT settings_check;
ALTER TABLE pymem.settings ADD CONSTRAINT settings_check CHECK (
    dedup_threshold BETWEEN 0 AND 1
    AND supersede_threshold BETWEEN 0 AND dedup_threshold
    AND topic_supersede_threshold BETWEEN 0 AND 1
    AND trigram_threshold BETWEEN 0 AND 1
    AND recall_decay_floor BETWEEN 0 AND 1
    AND recall_lexical_weight >= 0
    AND recall_state_boost >= 0
);

UPDATE pymem.schema_info SET version = 20;
