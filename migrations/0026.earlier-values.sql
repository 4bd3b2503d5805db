-- pymem 0026: a marker. This release changes functions only (sql/): recall
-- takes include_history and its rows carry superseded_at, the earlier values
-- of live memories ranked below their current value
-- (sql/32_earlier_values.sql); the scores recall ranks by move to
-- sql/29_scores.sql. yoyo runs post-apply.py, which loads sql/, only when a
-- migration applies: without a marker, a store upgraded with plain `yoyo
-- apply` would keep the old recall (`pymem migrate` loads sql/ on every run).
-- depends: 0025.said-before

UPDATE pymem.schema_info SET version = 26;
