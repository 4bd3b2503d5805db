-- CASCADE: nothing in sql/ has an SQL-standard body that reads the key,
-- but the history functions read it at run time; the previous release's
-- migrate re-creates them without it.
DROP TABLE pymem.history_key CASCADE;
UPDATE pymem.schema_info SET version = 7;
