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

UPDATE pymem.schema_info SET version = 8;
