-- pymem 0013: the one result of a write, pymem.write_result: every batch
-- function (upsert_memories, upsert_memory_arrays, import_memories) returns it,
-- one row an item with its ordinal; upsert_memory returns its columns but the
-- ordinal. CREATE OR REPLACE cannot change a function's result type: the
-- functions that return it now are dropped here, and sql/ makes them again.
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

DROP FUNCTION IF EXISTS pymem._upsert_item(text, pymem.memory_item, pymem.settings);
DROP FUNCTION IF EXISTS pymem._upsert_items(
    text, pymem.memory_item[], double precision, double precision, text
);
DROP FUNCTION IF EXISTS pymem.upsert_memories(
    text, jsonb, double precision, double precision, text
);
DROP FUNCTION IF EXISTS pymem.upsert_memories(
    text, text[], vector[], jsonb, double precision, double precision, text
);
DROP FUNCTION IF EXISTS pymem.upsert_memory_arrays(
    text, text[], vector[], jsonb, double precision, double precision, text
);
DROP FUNCTION IF EXISTS pymem.import_memories(text, text, integer[], text[], vector[], jsonb);

UPDATE pymem.schema_info SET version = 13;
