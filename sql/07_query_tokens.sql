-- The words of a question as recall matches them, and the overlap of two
-- texts' words (goals compare the words around their metrics with it).

-- Lexical tokens of a query: ASCII words of 3+ letters (minus function
-- words and the words that frame a question) and, for text without spaces such as Chinese, every
-- pair of adjacent characters (both lowercased, as recall lowercases the
-- content: "МОСКВА" and "CAFÉ" found nothing). The default full-text parser and
-- pg_trgm's word boundaries both fail on Chinese.
CREATE OR REPLACE FUNCTION pymem._query_tokens(query_text text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT DISTINCT t.token
    FROM (
        SELECT w[1] AS token
        FROM regexp_matches(lower(coalesce(query_text, '')), '[a-z0-9]{3,}', 'g') AS w
        WHERE
            w[1] <> all(pymem._function_words() || pymem._question_frame_words())
        UNION ALL
        SELECT substr(run[1], i, 2)
        FROM regexp_matches(lower(coalesce(query_text, '')), '[^[:ascii:][:space:][:punct:]，。、；：？！“”‘’（）《》【】…—～·「」『』]+', 'g') AS run,
            generate_series(1, greatest(char_length(run[1]) - 1, 1)) AS i
        WHERE
            substr(run[1], i, 2)
            <> all(pymem._chinese_question_frame())
    ) AS t
    WHERE t.token <> ''
);

-- Shared words (and Chinese character pairs) over the smaller text's:
-- the overlap coefficient of pymem._query_tokens, 0..1.
CREATE OR REPLACE FUNCTION pymem._token_overlap(a text, b text)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (
    SELECT
        CASE
            WHEN least(cardinality(t.a), cardinality(t.b)) = 0 THEN 0.0
            ELSE
                cardinality(array(
                    SELECT unnest(t.a)
                    INTERSECT
                    SELECT unnest(t.b)
                ))::double precision
                / least(cardinality(t.a), cardinality(t.b))
        END
    FROM (
        SELECT
            pymem._query_tokens(a) AS a,
            pymem._query_tokens(b) AS b
    ) AS t
);
