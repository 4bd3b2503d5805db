-- pymem 0025: with a reviewer, a write is also shown the live memory whose
-- earlier value or absorbed wording it is close to, and the live memory of
-- its topic (issue 34). An old value
-- said again after it changed ("back when she lived by the lake") lands far
-- from the current value and was stored live beside it, a contradiction
-- nobody saw; a restatement of a wording a memory absorbed was kept as a
-- duplicate. Both texts are still in the store (memory_versions,
-- memory_wordings): one new piece of evidence, filled by
-- pymem._nearest_said_before and read by pymem._decision (sql/20_match.sql),
-- and the note a reviewer's claim carries.
-- depends: 0024.state-lifetime

ALTER TYPE pymem.pair_evidence
-- what the neighbour is, when it is not the memory's current text: 'an
-- earlier value of a memory', 'a wording a memory absorbed' or 'a wording
-- of a memory's earlier value' (NULL: the memory itself)
ADD ATTRIBUTE said_before text;

ALTER TYPE pymem.pair_evidence
-- the neighbour was found by the topic both carry, not among the nearest by
-- vector (pymem._nearest_same_topic): two values of one thing the embedder
-- scores far apart ("rents a basement in Kitsilano" / "moved into a condo in
-- Mount Pleasant"), which only a reviewer decides
ADD ATTRIBUTE by_topic boolean;

ALTER TYPE pymem.claimed_review
-- why the pair waits (the review's note): a judge's prompt shows it, and
-- for such a pair it names the earlier text the newer memory is close to
ADD ATTRIBUTE note text;

-- The earlier values and the wordings are now scanned by vector on a write
-- (and the wordings by recall): their vectors stay inline as the memories'
-- do (migration 0001, pymem._set_dimensions), not toasted (a scan of 300
-- versions took 0.77 ms toasted, 0.18 ms inline). New rows only: rows
-- already toasted stay so until rewritten. Wider vectors than a page holds
-- beside the row stay toasted. Citus refuses SET STORAGE on a distributed
-- table: such a store keeps them toasted (correct, slower).
DO $$
DECLARE
    v_dimensions integer := (
        SELECT a.atttypmod FROM pg_catalog.pg_attribute AS a
        WHERE a.attrelid = 'pymem.memories'::regclass AND a.attname = 'embedding'
    );
BEGIN
    IF v_dimensions NOT BETWEEN 1 AND 1600 THEN
        RETURN;
    END IF;
    -- (apart: without Citus the catalog does not exist, and the statement
    -- naming it is planned only when it runs)
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        IF EXISTS (
            SELECT 1 FROM pg_catalog.pg_dist_partition AS p
            WHERE p.logicalrelid = 'pymem.memory_versions'::regclass
        ) THEN
            RETURN;
        END IF;
    END IF;
    ALTER TABLE pymem.memory_versions ALTER COLUMN embedding SET STORAGE PLAIN;
    ALTER TABLE pymem.memory_wordings ALTER COLUMN embedding SET STORAGE PLAIN;
END;
$$;

UPDATE pymem.schema_info SET version = 25;
