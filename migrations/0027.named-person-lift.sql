-- pymem 0027: a marker. This release changes functions only (sql/): recall
-- lifts the memories linked to a person its question names
-- (pymem._named_person_lift, the people found by pymem._contacts_named_in,
-- which mentioned_contacts now calls). yoyo runs post-apply.py, which loads
-- sql/, only when a migration applies: without a marker, a store upgraded with
-- plain `yoyo apply` would keep the old recall (`pymem migrate` loads sql/ on
-- every run).
-- depends: 0026.earlier-values

UPDATE pymem.schema_info SET version = 27;
