-- What CREATE EXTENSION pymem cannot do, in one call after it: the
-- configuration rows, the embedding dimension, the application role, its
-- row-level security and its grants (docs/operations.md, "Install").

-- The configuration a new store starts with: the settings row, the kinds,
-- the goal metrics and the history key, each made only where missing. An
-- extension's install script leaves these tables empty: pg_dump keeps
-- their rows (pg_extension_config_dump), and rows the script made would
-- clash with the restored ones. A migrated store got the same rows from
-- its migrations (0001, 0003, 0008, 0017, 0024);
-- tests/test_extension.py holds the two equal.
CREATE OR REPLACE FUNCTION pymem._seed_configuration()
RETURNS SETOF text
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_rows bigint;
BEGIN
    INSERT INTO pymem.settings DEFAULT VALUES ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    IF v_rows > 0 THEN
        RETURN NEXT 'settings: the defaults';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pymem.kinds) THEN
        INSERT INTO pymem.kinds (kind, decay_rate, default_lifetime, description, review_against)
        VALUES
        ('fact', 0.01, NULL, 'a standing fact about the user or their world', '{}'),
        ('preference', 0.02, NULL, 'a like, dislike or way the user wants things done', '{}'),
        ('habit', 0.01, NULL, 'something the user usually does', '{}'),
        (
            'state', 0.08, INTERVAL '3 days',
            'a temporary state that overrides habits while valid', '{}'
        ),
        ('inference', 0.03, NULL, 'something the assistant concluded, not stated', '{}'),
        ('goal', 0.01, NULL, 'something the user wants to achieve', '{}'),
        ('profile', 0.005, NULL, 'identity facts: name, birthday, job', '{}'),
        (
            'event', 0.02, NULL, 'something that happened at a point in time',
            '{fact,preference,habit,profile}'
        );
        RETURN NEXT 'kinds: 8';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pymem.goal_metrics) THEN
        INSERT INTO pymem.goal_metrics (metric, pattern) VALUES
        ('a1c', '\m(hb)?a1c\M|糖化血红蛋白'),
        ('blood pressure', '\mblood pressure\M|\mbp\M|血压'),
        ('weight', '\m(weight|weigh|pounds?|lbs?|kg|kilos?|kilograms?)\M|体重|减重|减肥|公斤'),
        ('glucose', '\m(glucose|blood sugar)\M|血糖'),
        ('cholesterol', '\m(cholesterol|ldl|hdl)\M|胆固醇'),
        ('bmi', '\mbmi\M|体重指数'),
        ('heart rate', '\m(heart rate|resting pulse)\M|心率'),
        ('steps', '\m(daily )?steps\M|步数');
        RETURN NEXT 'goal metrics: 8';
    END IF;
    INSERT INTO pymem.history_key (key)
    VALUES (md5(random()::text || clock_timestamp()::text) || gen_random_uuid()::text)
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    IF v_rows > 0 THEN
        RETURN NEXT 'history key: new';
    END IF;
END;
$$;

-- After CREATE EXTENSION pymem (and again after a restore into a cluster
-- without the role): the configuration rows where missing (unless seed is
-- false: a restore brings its own), the embedding dimension of an empty
-- store, the role pymem_app with row-level security on every table of
-- users' rows, and its grants. Safe to repeat; on a migrated store it does
-- what pymem migrate's load of sql/ does. One row per step taken.
CREATE OR REPLACE FUNCTION pymem.setup(dimensions integer DEFAULT NULL, seed boolean DEFAULT TRUE)
RETURNS TABLE (step text, detail text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF seed THEN
        step := 'configuration';
        FOR detail IN SELECT s FROM pymem._seed_configuration() AS s LOOP
            RETURN NEXT;
        END LOOP;
    END IF;
    IF setup.dimensions IS NOT NULL THEN
        step := 'dimensions';
        detail := pymem._set_dimensions(setup.dimensions)::text;
        RETURN NEXT;
    END IF;
    PERFORM pymem._create_app_role();
    step := 'row level security';
    FOR detail IN SELECT s FROM pymem._secure_user_tables() AS s LOOP
        RETURN NEXT;
    END LOOP;
    PERFORM pymem._grant_app_role();
    step := 'grants';
    detail := 'pymem_app';
    RETURN NEXT;
END;
$$;
