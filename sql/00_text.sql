-- Text rules shared by every capability, loaded first: markers (the
-- numbers, dates and negations a statement makes), value masking, tokens
-- and their overlap. Normalization and fingerprints live in migration
-- 0001, because stored generated columns are computed from them.

-- Numbers, dates (month and weekday names, 今天/明天, 周一) and
-- negations of a text. Two texts whose markers differ state
-- different facts however close their embeddings ("meeting at 3pm" vs
-- "meeting at 4pm", "likes cats" vs "doesn't like cats").
CREATE OR REPLACE FUNCTION pymem._fact_markers(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN array(
    SELECT DISTINCT m.marker
    FROM (
        SELECT (regexp_matches(
            pymem._strip_intensifiers(content),
            '[0-9]+(?:[.,:][0-9]+)*'
            || '|(?:星期|礼拜|周)[一二三四五六日天]|[今明昨后前]天'
            || '|[零二两三四五六七八九十百千万]+|一[零一二两三四五六七八九十百千万]+'
            || '|\m(?:january|february|march|april|june|july|august|september|october'
            || '|november|december|monday|tuesday|wednesday|thursday|friday|saturday'
            || '|sunday|today|tomorrow|yesterday|tonight|morning|afternoon|evening)\M',
            'g'
        ))[1] AS marker
        UNION ALL
        SELECT 'NOT'
        WHERE
            pymem._strip_intensifiers(content)
            ~ '\m(not|no|never|none|nothing|nobody|without|cannot)\M|n''t'
            OR regexp_replace(
                pymem._strip_intensifiers(content),
                '(不错|不过|不仅|不同|不少|不久|没想到|无论|毫无疑问|别人|未来)', '', 'g'
            ) ~ '[不没沒别別无無未]'
    ) AS m
    ORDER BY m.marker
);

-- Lexical tokens of a query: ASCII words of 3+ letters (minus common
-- question words) and, for text without spaces such as Chinese, every
-- pair of adjacent characters. The default full-text parser and
-- pg_trgm's word boundaries both fail on Chinese.
CREATE OR REPLACE FUNCTION pymem._query_tokens(query_text text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN array(
    SELECT DISTINCT t.token
    FROM (
        SELECT w[1] AS token
        FROM regexp_matches(lower(coalesce(query_text, '')), '[a-z0-9]{3,}', 'g') AS w
        WHERE
            w[1] NOT IN (
                'the', 'and', 'for', 'what', 'where', 'when', 'who', 'whom', 'why', 'how',
                'does', 'did', 'was', 'were', 'are', 'has', 'have', 'had', 'with', 'about',
                'user', 'users', 'their', 'they', 'this', 'that', 'there', 'any', 'can', 'you',
                'your', 'from', 'into', 'tell', 'know', 'which'
            )
        UNION ALL
        SELECT substr(run[1], i, 2)
        FROM regexp_matches(coalesce(query_text, ''), '[^[:ascii:][:space:][:punct:]，。、；：？！“”‘’（）《》【】…—～·「」『』]+', 'g') AS run,
            generate_series(1, greatest(char_length(run[1]) - 1, 1)) AS i
        WHERE substr(run[1], i, 2) !~ '^(什么|怎么|哪里|哪儿|是不|不是|用户|吗|呢|的)$'
    ) AS t
    WHERE t.token <> ''
);

-- Shared words (and Chinese character pairs) over the smaller text's:
-- the overlap coefficient of pymem._query_tokens, 0..1.
CREATE OR REPLACE FUNCTION pymem._token_overlap(a text, b text)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
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
