-- pymem 0021: a store comes back from pg_dump exactly as it was dumped.
-- A restore re-reads every definition from the text pg_dump prints, and
-- PostgreSQL reads `a BETWEEN 0 AND 1 AND b ...` into nested ANDs that it
-- prints back flat: settings_check came back from every restore with other
-- brackets, the same rule read as drift by `pymem check`. Written flat, it
-- reads the same after any number of round trips (tests/test_backup.py).
-- The functions change too (sql/: the history trigger's condition, the
-- role and the policies re-created by every migrate); yoyo loads sql/ after
-- a migration applies, so a plain `yoyo apply` gets them.
-- depends: 0020.recall-plans

-- two commands: Citus refuses several subcommands in one ALTER TABLE
ALTER TABLE pymem.settings DROP CONSTRAINT settings_check;
ALTER TABLE pymem.settings ADD CONSTRAINT settings_check CHECK (
    dedup_threshold >= 0 AND dedup_threshold <= 1
    AND supersede_threshold >= 0 AND supersede_threshold <= dedup_threshold
    AND topic_supersede_threshold >= 0 AND topic_supersede_threshold <= 1
    AND trigram_threshold >= 0 AND trigram_threshold <= 1
    AND recall_decay_floor >= 0 AND recall_decay_floor <= 1
    AND recall_lexical_weight >= 0
    AND recall_state_boost >= 0
);

UPDATE pymem.schema_info SET version = 21;
