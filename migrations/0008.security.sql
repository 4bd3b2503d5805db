-- pymem 0008: security (issue 11). A per-database key that only the schema
-- owner can read: pymem._set_change_reason (SECURITY DEFINER) signs the
-- history reason it sets with it, and the history trigger records a reason
-- only with a valid signature, so the app role cannot forge the reason of a
-- history row by setting pymem.change_reason itself. Global, like settings:
-- no user_id (a reference table when distributed).
-- depends: 0007.consolidation

CREATE TABLE pymem.history_key (
    singleton boolean PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    key text NOT NULL
);

INSERT INTO pymem.history_key (key)
VALUES (md5(random()::text || clock_timestamp()::text) || gen_random_uuid()::text);

REVOKE ALL ON pymem.history_key FROM public;

-- Stores migrated before 0004 gained trigram_min_similarity (0004 was edited
-- after it shipped; an install that applied it never runs it again) lack
-- the column the write path reads: add it where missing. On a fresh install
-- 0004 created it and this does nothing; rolling back 0004 drops it.
ALTER TABLE pymem.settings
ADD COLUMN IF NOT EXISTS trigram_min_similarity double precision NOT NULL DEFAULT 0.5
CHECK (trigram_min_similarity BETWEEN 0 AND 1);

UPDATE pymem.schema_info SET version = 8;
