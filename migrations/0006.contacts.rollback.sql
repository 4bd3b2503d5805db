-- CASCADE: the functions of sql/60_contacts.sql with SQL-standard bodies
-- depend on these tables; migrating again re-creates them.
DROP TYPE pymem.contact_match CASCADE;
DROP TABLE pymem.contact_history CASCADE;
DROP TABLE pymem.contact_links CASCADE;
DROP TABLE pymem.contact_aliases CASCADE;
DROP TABLE pymem.contacts CASCADE;
DROP FUNCTION pymem._normalize_name(text) CASCADE;
DROP FUNCTION pymem._contact_tokens(text) CASCADE;
DROP FUNCTION pymem._spaceless_chars() CASCADE;
ALTER TABLE pymem.settings
DROP COLUMN contact_fuzzy_threshold,
DROP COLUMN contact_cjk_fuzzy_threshold,
DROP COLUMN contact_profile_due_count;
UPDATE pymem.schema_info SET version = 5;
