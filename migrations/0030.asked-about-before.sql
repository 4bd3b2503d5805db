-- pymem 0030: a marker. This release changes functions only (sql/): asked about
-- before ("where did Kang live before he moved to KL?"), recall ranks the older
-- of two values of one thing above the newer, and an earlier value above its
-- current one (pymem._asks_about_before). yoyo runs post-apply.py, which loads
-- sql/, only when a migration applies: without a marker, a store upgraded with
-- plain `yoyo apply` would keep the old recall (`pymem migrate` loads sql/ on
-- every run).
-- depends: 0029.second-below-band-review

UPDATE pymem.schema_info SET version = 30;
