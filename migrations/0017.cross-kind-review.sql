-- pymem 0017: with a reviewer, an event is also shown the standing memory it
-- may contradict (issue 19). The write path never merges across kinds, but a
-- contradiction usually crosses them ("Maya is vegetarian", a preference;
-- "Maya had fish tacos for dinner", an event) and scores lower than a
-- restatement. One new piece of evidence, filled by pymem._nearest_other_kind
-- and read by pymem._decision (sql/20_upsert.sql); which kinds a kind is
-- reviewed against; and the cosine from which such a pair is queued.
-- depends: 0016.memory-rules

ALTER TYPE pymem.pair_evidence
-- the two memories are of different kinds: a pair only a reviewer decides
ADD ATTRIBUTE other_kind boolean;

ALTER TABLE pymem.kinds
-- with a reviewer and its below-band queue (settings.review_floor), a new
-- memory of this kind is also queued with its nearest live memory of these
-- kinds: what happened is checked against what is held to be true
ADD COLUMN review_against text[] NOT NULL DEFAULT '{}';

UPDATE pymem.kinds SET review_against = '{fact,preference,habit,profile}'
WHERE kind = 'event';

ALTER TABLE pymem.settings
-- the cosine from which that pair is queued (a contradiction scores lower
-- than a restatement; fitted on the development stream, docs/eval.md)
ADD COLUMN cross_kind_review_floor double precision NOT NULL DEFAULT 0.4;

-- its CHECK apart and named: Citus refuses a column added with a constraint
ALTER TABLE pymem.settings ADD CONSTRAINT settings_cross_kind_review_floor_check
CHECK (cross_kind_review_floor BETWEEN 0 AND 1);

UPDATE pymem.schema_info SET version = 17;
