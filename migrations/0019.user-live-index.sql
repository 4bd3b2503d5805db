-- pymem 0019: an index of each user's live memories under one key (issue 21).
-- Its entries for a user are in heap order, so recall's plain index scan reads
-- the user's pages in order without building a bitmap (memories_live_idx
-- orders them by kind first: one sweep of the heap per kind), in custom and
-- generic plans alike. The tier stays out of every index, so decay's
-- updates of it stay HOT. IF NOT EXISTS: on a large store a DBA may build it
-- first with CREATE INDEX CONCURRENTLY under this name and definition
-- (docs/operations.md).
-- depends: 0018.added-detail

CREATE INDEX IF NOT EXISTS memories_user_live_idx ON pymem.memories (user_id)
WHERE consolidated_into IS NULL AND deleted_at IS NULL;

UPDATE pymem.schema_info SET version = 19;
