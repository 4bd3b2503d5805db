-- pymem 0031: a marker. This release changes functions only (sql/): of the live values
-- newer than one of recall's best rows (the same topic, or a pending review's write),
-- recall lifts only the k that can be shown (a memory with many open reviews brought in
-- hundreds, each lifted again), its probes for wordings, open reviews and topics read an
-- index and the weights of a question's words read a user's wordings from the user's
-- memories (one user holding a whole table made every other user's recall read all of
-- it); at a lexical weight of 0 a question's words no longer make every score NULL. yoyo
-- runs post-apply.py, which loads sql/, only when a
-- migration applies: without a marker, a store upgraded with plain `yoyo apply` would
-- keep the old recall (`pymem migrate` loads sql/ on every run).
-- depends: 0030.asked-about-before

UPDATE pymem.schema_info SET version = 31;
