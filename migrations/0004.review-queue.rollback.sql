-- CASCADE: pymem.schema_version() (sql/90_admin.sql) reads schema_info;
-- rolling back further drops the schema, migrating again re-creates it.
DROP TABLE pymem.reviews;
ALTER TABLE pymem.settings DROP COLUMN on_related;
DROP TABLE pymem.schema_info CASCADE;
