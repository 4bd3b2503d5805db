-- pymem 0028: a marker. This release changes functions only (sql/): asked for a
-- value about the present ("where is Marco staying at the moment?"), recall
-- lifts live states half as much as a yes-or-no question about the present
-- (pymem._asks_for_a_value, pymem._value_question_state_lift,
-- pymem._question_state_lift). yoyo runs post-apply.py, which loads sql/, only
-- when a migration applies: without a marker, a store upgraded with plain
-- `yoyo apply` would keep the old recall (`pymem migrate` loads sql/ on every
-- run).
-- depends: 0027.named-person-lift

UPDATE pymem.schema_info SET version = 28;
