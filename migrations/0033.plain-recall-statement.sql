-- pymem 0033: a marker. This release changes functions only (sql/): a recall of the
-- plain question (no words, no wordings, no values of a topic or open reviews, no
-- history) runs a statement of its own, pymem._plain_recall_pass, without the parts
-- it does not need (the same rows; planned and started in a fraction of the time).
-- yoyo runs post-apply.py, which loads sql/, only when a migration applies: without a
-- marker, a store upgraded with plain `yoyo apply` would keep the old functions
-- (`pymem migrate` loads sql/ on every run).
-- depends: 0032.value-pattern-parts

UPDATE pymem.schema_info SET version = 33;
