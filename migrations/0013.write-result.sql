-- pymem 0013: the one result of a write, pymem.write_result: every batch
-- function (upsert_memories, upsert_memory_arrays, import_memories) returns it,
-- one row an item with its ordinal; upsert_memory returns its columns but the
-- ordinal. The functions that return it now are dropped and made again by
-- sql/ (pymem._drop_if_result_differs), in its one transaction: dropped here,
-- they were missing for every writer until sql/ was loaded.
-- depends: 0012.decision-evidence

CREATE TYPE pymem.write_result AS (
    -- the item's place in its batch, from 1 (import_memories: its line)
    ordinal integer,
    -- the memory that now holds the fact
    memory_id uuid,
    -- inserted, duplicate or superseded
    action text,
    -- cosine similarity to matched_id
    similarity double precision,
    -- the memory it was matched with (for an insert: its related neighbour)
    matched_id uuid,
    -- the rule that decided
    rule text
);

UPDATE pymem.schema_info SET version = 13;
