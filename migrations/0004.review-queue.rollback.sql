-- CASCADE: pymem.schema_version() (sql/90_admin.sql) reads schema_info;
-- rolling back further drops the schema, migrating again re-creates it.
DROP TABLE pymem.reviews;
DROP TYPE pymem.memory_item CASCADE;
ALTER TABLE pymem.settings DROP COLUMN on_related, DROP COLUMN dedup_term_change, DROP COLUMN trigram_min_similarity;
DROP TABLE pymem.schema_info CASCADE;
