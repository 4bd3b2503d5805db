-- Goal dedup (kind = 'goal'): goals naming the same metric (pymem.goal_metrics)
-- with enough word overlap are one goal, the newer wording replacing the
-- older ("Lower my A1C to 7%" -> "Lower my A1C to 6.5% by June"). Goals
-- naming no known metric dedup only on exact normalized text. Numbers do
-- not block: a goal's new number is its update.

-- The metrics a text names, sorted. (`content` is the parameter:
-- goal_metrics has no such column.)
CREATE OR REPLACE FUNCTION pymem._goal_metrics(content text)
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    -- a metric named only inside a longer metric's name is not named: 体重指数
    -- (BMI) holds 体重 (weight), and a BMI goal replaced the weight goal. Each
    -- metric is looked for again with the matches blanked out of every other
    -- metric one of whose matches holds a match of it and is more than that
    -- ("Lose 5 kilograms and get my 体重指数 under 25" names both: a rule by the
    -- first match's length missed BMI there)
    WITH found AS (
        SELECT g.metric, g.pattern
        FROM pymem.goal_metrics AS g
        WHERE lower(content) ~ g.pattern
    )
    SELECT array(
        SELECT f.metric
        FROM found AS f
        WHERE regexp_replace(
            lower(content),
            coalesce((
                SELECT string_agg('(' || o.pattern || ')', '|') FROM found AS o
                WHERE o.metric <> f.metric AND EXISTS (
                    SELECT FROM regexp_matches(lower(content), '(' || o.pattern || ')', 'g') AS m
                    WHERE m[1] ~ f.pattern AND m[1] !~ ('^(' || f.pattern || ')$')
                )
            ), '$^'),
            ' ',
            'g'
        ) ~ f.pattern
        ORDER BY f.metric
    )
$$;

-- A goal's text without the metric names, nor the words any goal says (get,
-- keep, want, ...): what is left says what the goal is about the metric (lower
-- it, check it, under ...). "Get my A1C below 7%" and "Get my A1C checked every
-- three months" shared only "get", half the smaller goal's words, and merged.
CREATE OR REPLACE FUNCTION pymem._strip_goal_metrics(content text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT regexp_replace(
        regexp_replace(
            lower(content),
            coalesce(
                (SELECT string_agg('(' || g.pattern || ')', '|') FROM pymem.goal_metrics AS g),
                '$^'
            ),
            ' ',
            'g'
        ),
        '\m(get|gets|keep|keeps|make|want|wants|try|trying|need|needs|would|like|goal|aim|'
        'plan|plans|going|will|should|must)\M',
        ' ',
        'g'
    )
$$;

-- The user's live goal a new goal most likely updates: one whose metrics
-- the new goal all names, under the same topic when both have one, with the
-- most overlap of the words around the metric names. Whether it is the same
-- goal ("Lower my A1C to 7%" -> "Lower my A1C to 6.5% by June": one goal;
-- "Check my A1C every three months": another; "Lower my weight and blood
-- pressure" is not replaced by a blood-pressure-only goal) is the decision
-- step's (pymem._decision, settings.goal_overlap_threshold).
CREATE OR REPLACE FUNCTION pymem._same_goal(
    user_id text,
    content text,
    embedding vector,
    topic text,
    OUT memory_id uuid,
    OUT similarity double precision,
    OUT metrics text[],
    OUT content_of_goal text,
    OUT topic_of_goal text
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_metrics text [] := pymem._goal_metrics(_same_goal.content);
    v_rest text := pymem._strip_goal_metrics(_same_goal.content);
BEGIN
    IF cardinality(v_metrics) = 0 THEN
        RETURN;
    END IF;
    SELECT g.id, g.sim, g.metrics, g.content, g.topic
    INTO memory_id, similarity, metrics, content_of_goal, topic_of_goal
    FROM (
        SELECT
            m.id,
            m.content,
            m.topic,
            m.created_at,
            1 - (m.embedding <=> _same_goal.embedding) AS sim,
            pymem._goal_metrics(m.content) AS metrics,
            pymem._token_overlap(pymem._strip_goal_metrics(m.content), v_rest) AS overlap
        FROM pymem.memories AS m
        WHERE m.user_id = _same_goal.user_id
            AND m.kind = 'goal'
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
            AND (m.topic IS NULL OR _same_goal.topic IS NULL OR m.topic = _same_goal.topic)
    ) AS g
    WHERE cardinality(g.metrics) > 0
        AND g.metrics <@ v_metrics
    ORDER BY g.overlap DESC, g.created_at DESC
    LIMIT 1;
END;
$$;

-- A row of pymem.goal_metrics is checked as it is written: a pattern that is
-- no regular expression made every goal write fail with PostgreSQL's 2201B,
-- and one that matches the empty string would name its metric in every goal.
CREATE OR REPLACE FUNCTION pymem._check_goal_metric()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_empty boolean;
BEGIN
    IF NEW.metric IS NULL OR btrim(NEW.metric) = '' THEN
        RAISE EXCEPTION 'a goal metric needs a name' USING ERRCODE = 'PM006';
    END IF;
    -- the patterns are used wrapped, '(' || pattern || ')', and joined with '|': a
    -- back reference or an embedded option ((?i), ***) is valid alone and not so
    IF NEW.pattern ~ '\\[1-9]|\(\?[a-z]|^\*\*\*' THEN
        RAISE EXCEPTION 'the pattern of goal metric % uses a back reference or an embedded '
            'option, which the patterns joined cannot hold', quote_literal(NEW.metric)
            USING ERRCODE = 'PM006';
    END IF;
    BEGIN
        v_empty := '' ~ ('(' || NEW.pattern || ')');
        PERFORM '' ~ (
            SELECT string_agg('(' || g.pattern || ')', '|')
            FROM (
                SELECT m.pattern FROM pymem.goal_metrics AS m WHERE m.metric <> NEW.metric
                UNION ALL
                SELECT NEW.pattern
            ) AS g
        );
    EXCEPTION WHEN invalid_regular_expression THEN
        RAISE EXCEPTION 'the pattern of goal metric % is not a regular expression: %',
            quote_literal(NEW.metric), SQLERRM
            USING ERRCODE = 'PM006';
    END;
    IF v_empty IS NOT FALSE THEN
        RAISE EXCEPTION 'the pattern of goal metric % matches every text (the empty one too)',
            quote_literal(NEW.metric)
            USING ERRCODE = 'PM006',
                HINT = 'Name the metric''s words, e.g. \m(weight|weigh)\M|体重.';
    END IF;
    RETURN NEW;
END;
$$;

-- In a DO block, as the other triggers (sql/15_events.sql)
DO $$
BEGIN
    CREATE OR REPLACE TRIGGER goal_metrics_checked
    BEFORE INSERT OR UPDATE ON pymem.goal_metrics
    FOR EACH ROW
    EXECUTE FUNCTION pymem._check_goal_metric();
END;
$$;
