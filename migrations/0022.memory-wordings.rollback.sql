-- Rollback of 0022: the wordings go; each memory keeps its own text.
DROP TABLE pymem.memory_wordings;

UPDATE pymem.schema_info SET version = 21;
