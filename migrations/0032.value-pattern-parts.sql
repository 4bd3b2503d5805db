-- pymem 0032: a marker. This release changes functions only (sql/): a text's values are
-- looked for with the parts of the value pattern its scripts can match (a new
-- connection's first write compiled the whole pattern, about 4 ms, two or three times;
-- the same values are found). yoyo runs post-apply.py, which loads sql/, only when a
-- migration applies: without a marker, a store upgraded with plain `yoyo apply` would
-- keep the old functions (`pymem migrate` loads sql/ on every run).
-- depends: 0031.bounded-newer-values

UPDATE pymem.schema_info SET version = 32;
