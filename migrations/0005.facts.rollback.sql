-- CASCADE: functions in sql/50_facts.sql with SQL-standard bodies read
-- these tables; migrating again re-creates them.
DROP TABLE pymem.fact_history CASCADE;
DROP TABLE pymem.facts CASCADE;
DROP TABLE pymem.fact_policies CASCADE;
UPDATE pymem.schema_info SET version = 4;
