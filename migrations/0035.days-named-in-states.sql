-- pymem 0035: a marker. This release changes functions only (sql/): a state's end said
-- as a day ("until March 5th", "till 5 March", "through the 15th", "until 2027-03-05",
-- 到3月5日, 到下个月5号) holds to the end of that day. "until March 5th" had ended when
-- March began, and "until December 12th" said in December at the month's end.
-- Fewer patterns, the same answers: the stated-time grammar holds 10 where it held
-- 24 (a pattern a language: English and Chinese in one compiled several times
-- slower) and counts without any, the questions about now, before and for a value
-- one each where they held two, the negation test one where it held three. A
-- session keeps 32 compiled patterns: 600 writes of the development streams'
-- memories compiled 1,368 and now 47; with a recall with words every five writes,
-- 365 where they compiled 2,625; such sessions take 0.64-0.86x the time.
-- yoyo runs post-apply.py, which loads sql/, only when a migration applies: without a
-- marker, a store upgraded with plain `yoyo apply` would keep the old functions
-- (`pymem migrate` loads sql/ on every run).
-- depends: 0034.traditional-characters

UPDATE pymem.schema_info SET version = 35;
