-- CASCADE: pymem._goal_metrics (sql/35_goals.sql) reads the table; the
-- next pymem migrate re-creates the functions.
ALTER TABLE pymem.settings DROP COLUMN goal_overlap_threshold;
DROP TABLE pymem.goal_metrics CASCADE;
