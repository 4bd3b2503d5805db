-- pymem 0020: a marker. This release changes functions only (sql/: recall is
-- planned once a session where the store is not distributed,
-- pymem._fit_recall_plans; two trims of recall's statement). yoyo runs
-- post-apply.py, which loads sql/, only when a migration applies: without a
-- marker, a store upgraded with plain `yoyo apply` would keep the old
-- functions (`pymem migrate` loads sql/ on every run).
-- depends: 0019.user-live-index

UPDATE pymem.schema_info SET version = 20;
