-- The scores the read path ranks by: decay, relevance, and the filters a
-- memory passes; shared by recall (sql/30_recall.sql) and the earlier values
-- it may return (sql/32_earlier_values.sql).

-- importance * exp(-decay_rate * age in days). The age is the absolute
-- number of seconds between the two instants (timestamptz subtraction
-- never involves calendars, so DST and leap days change nothing), and a
-- last access in the future counts as age 0. The exponent is clamped so
-- that very old memories score a tiny positive number instead of
-- raising an underflow error, and so is the rate: any finite rate is
-- accepted, and 1e308 times an age in seconds would overflow (one such
-- row stopped decay for every user). IMMUTABLE and inlinable: usable in
-- indexes and ORDER BY.
CREATE OR REPLACE FUNCTION pymem.decay_score(
    importance double precision,
    decay_rate double precision,
    last_access_at timestamptz,
    at timestamptz DEFAULT now()
)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN importance * exp(greatest(
    -700.0,
    -(CASE WHEN decay_rate > 1e290 THEN 1e290 ELSE decay_rate END)
    * greatest(date_part('epoch', at - last_access_at), 0.0) / 86400.0
));

-- A relevance ranked by a strength in [0, 1]: the score of a memory whose decay
-- score is the strength, and, at its importance (the decay score's upper end), the
-- bound of that score recall's scan sorts by.
CREATE OR REPLACE FUNCTION pymem._ranked(
    relevance double precision, decay_floor double precision, strength double precision
)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN relevance * (decay_floor + (1 - decay_floor) * strength);

-- recall's relevance, the documented sum in its order: (similarity + weight *
-- lexical) + the state's boost + the named person's lift + the asked span's.
-- Inlined into each arm of the scan.
-- (the signature before the named person's lift, issue 34)
DROP FUNCTION IF EXISTS pymem._relevance(
    double precision, double precision, double precision, boolean, double precision,
    timestamptz, tstzrange, double precision
);
CREATE OR REPLACE FUNCTION pymem._relevance(
    similarity double precision, lexical_weight double precision, lexical double precision,
    is_state boolean, state_boost double precision,
    of_named_person boolean, person_lift double precision,
    said_at timestamptz, asked_window tstzrange, time_boost double precision
)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (similarity + lexical_weight * lexical)
+ CASE WHEN is_state THEN state_boost ELSE 0 END
+ CASE WHEN of_named_person THEN person_lift ELSE 0 END
+ CASE WHEN asked_window IS NOT NULL AND said_at <@ asked_window THEN time_boost ELSE 0 END;

-- How much recall lifts the memories linked to a person its question names
-- (by a name or an alias, pymem._contacts_named_in): asked "what does Nacho do
-- for work?", what is known about Nacho answers it, even when a memory of
-- someone else's work is closer by vector. The size of the state lift of a
-- recall without words by default (settings.recall_state_boost). Chosen on
-- streams G and H, checked on D, E, I and J (docs/eval.md).
CREATE OR REPLACE FUNCTION pymem._named_person_lift()
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 0.1;

-- The most memories the people a question names may be linked to for recall
-- to lift them. Each row recall scores is compared with every id of theirs: a
-- person linked to all of a user's 10,000 memories made a recall 4x slower
-- (202 ms against 48), one linked to 256 of them 1.24x. And a person many
-- memories are about (a partner, a parent) says little about which one
-- answers, as a word every memory holds weighs little in the lexical share.
CREATE OR REPLACE FUNCTION pymem._named_person_limit()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 64;

-- Whether a memory passes recall's filters: its metadata contains filter
-- (jsonb containment, @>), it was written in [created_after,
-- created_before), and its source is one of sources; a NULL filter lets
-- everything through. Inlined into the scan: one place for the rule the
-- scan, the newer values and the tests' plain SQL share.
CREATE OR REPLACE FUNCTION pymem._recall_filter_holds(
    metadata jsonb, created_at timestamptz, source text,
    filter jsonb, created_after timestamptz, created_before timestamptz, sources text[]
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (filter IS NULL OR metadata @> filter)
AND (created_after IS NULL OR created_at >= created_after)
AND (created_before IS NULL OR created_at < created_before)
AND (sources IS NULL OR array_position(sources, source) IS NOT NULL);

-- Whether a pass of recall's ranking proves its answer. Lean by measurement
-- (docs/scaling.md, "Locality"): decay_score is at most the importance
-- (importance * exp(-rate * age), rate and age >= 0), so the scan sorts by s =
-- pymem._ranked(relevance, floor, importance), computed from the columns up to the importance, and
-- keeps the 8k + 64 rows of the highest s; the decay, the kinds' rates and the wide columns are
-- read for those rows alone, by ctid, and the relevance again as s over the factor. A row left out
-- (its s at most the pool's smallest, s_min) scores at most its s when its relevance is >= 0, and
-- at most relevance * floor <= s_min * floor when it is negative (then relevance <= s / factor <=
-- s_min, the factor in (0, 1]): the bound of every row left out is greatest(s_min, s_min * floor).
-- The pool is the answer when it held every row, or when its k-th exact score is above that bound;
-- otherwise the statement runs again with a pool 16 times larger, then with every row. Ties and
-- rounding go to another pass, never to a guess. A bound from the relevance alone (the factor's
-- upper end, 1) sent questions whose words every memory holds to a second and third pass.
-- One rule for recall's two statements (sql/30_recall.sql, sql/30_recall_plain.sql).
CREATE OR REPLACE FUNCTION pymem._pool_proves(
    pool_limit integer, pool_rows bigint, pool_low double precision,
    k integer, shown bigint, kth_score double precision, decay_floor double precision
)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN pool_limit IS NULL OR pool_rows <= pool_limit OR (
    shown = k AND kth_score > greatest(pool_low, pool_low * decay_floor)
    + 1e-9 * (1 + abs(greatest(pool_low, pool_low * decay_floor)))
);
