-- pymem 0024: a state that names no end holds for three days, not one. Said
-- without an end ("Chen's husband runs the live stream while she is away",
-- "Mei is working from home because Mochi had surgery"), a state rarely
-- ends the same day, and one that expired overnight was missing from the
-- next day's answers about the present (issue 34, docs/eval.md). Three days
-- is what the stated-time grammar reads "这几天" and "a few days" as. A
-- store whose owner set another lifetime keeps it.
-- depends: 0023.worker-jobs

UPDATE pymem.kinds
SET default_lifetime = INTERVAL '3 days'
WHERE kind = 'state' AND default_lifetime = INTERVAL '1 day';

UPDATE pymem.schema_info SET version = 24;
