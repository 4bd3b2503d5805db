-- pymem 0018: recall's scan reads nothing of a row past its vector (issue 21).
-- Any column the scan touches after the vector (the tier, the end of validity,
-- the consolidation and deletion marks all lie there) cost about 0.2 us a row
-- on these machines, 15% of recall at 10,000 memories. With these two indexes
-- the live filters are their predicates, which a bitmap scan does not test
-- again; the tier is read for the rows recall keeps (sql/30_recall.sql). The
-- tier stays out of every index, so that decay and touches stay HOT updates;
-- valid_until is in the predicates, and only rows that carry an end (a state
-- with a lifetime) pay for it, when a restatement extends it.
-- Each index takes about 9 MB per million rows; a write adds one entry.
-- depends: 0017.cross-kind-review

-- live memories without an end
CREATE INDEX memories_open_idx ON pymem.memories (user_id, kind)
WHERE consolidated_into IS NULL AND deleted_at IS NULL AND valid_until IS NULL;

-- live memories with an end, past or ahead
CREATE INDEX memories_expiring_idx ON pymem.memories (user_id, kind)
WHERE consolidated_into IS NULL AND deleted_at IS NULL AND valid_until IS NOT NULL;

UPDATE pymem.schema_info SET version = 18;
