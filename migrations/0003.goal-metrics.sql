-- pymem 0003: goal dedup by metric (DESIGN: "kind = 'goal' uses goal dedup").
-- Goals naming the same metric with enough word overlap are one goal,
-- the newer wording replacing the older; goals naming no known metric
-- dedup only on exact normalized text.
-- depends: 0002.row-level-security

-- A reference table like kinds: add a row to teach pymem a metric.
CREATE TABLE pymem.goal_metrics (
    metric text PRIMARY KEY,
    -- a regular expression matched against the lowercased goal
    pattern text NOT NULL
);

INSERT INTO pymem.goal_metrics (metric, pattern) VALUES
('a1c', '\m(hb)?a1c\M|糖化血红蛋白'),
('blood pressure', '\mblood pressure\M|\mbp\M|血压'),
('weight', '\m(weight|weigh|pounds?|lbs?|kg|kilos?|kilograms?)\M|体重|减重|减肥|公斤'),
('glucose', '\m(glucose|blood sugar)\M|血糖'),
('cholesterol', '\m(cholesterol|ldl|hdl)\M|胆固醇'),
('bmi', '\mbmi\M|体重指数'),
('heart rate', '\m(heart rate|resting pulse)\M|心率'),
('steps', '\m(daily )?steps\M|步数');

ALTER TABLE pymem.settings
ADD COLUMN goal_overlap_threshold double precision NOT NULL DEFAULT 0.5
CHECK (goal_overlap_threshold BETWEEN 0 AND 1);
