-- pymem 0029: a marker. This release changes functions only (sql/): with the
-- below-band queue (on_related = 'review' and a review floor), a write also
-- queues its next related neighbour besides the one in matched_id
-- (pymem._match's also_id; pymem._upsert_item). yoyo runs post-apply.py, which
-- loads sql/, only when a migration applies: without a marker, a store upgraded
-- with plain `yoyo apply` would keep the old write path (`pymem migrate` loads
-- sql/ on every run).
-- depends: 0028.value-question-state-lift

UPDATE pymem.schema_info SET version = 29;
