-- The trigger lives in sql/70_consolidation.sql but reads the tables
-- dropped here: it goes with them.
DROP TRIGGER IF EXISTS memories_consolidation_due ON pymem.memories;
DROP INDEX pymem.memories_topic_idx;
DROP TABLE pymem.consolidation_announcements;
DROP TABLE pymem.consolidations;
ALTER TABLE pymem.settings
DROP COLUMN consolidation_similarity,
DROP COLUMN consolidation_group_size;
UPDATE pymem.schema_info SET version = 6;
