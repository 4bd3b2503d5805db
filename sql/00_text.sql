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

-- The longest prefix of at most max_chars code points that ends on a
-- grapheme boundary: never inside an emoji ZWJ sequence (👩‍👩‍👧), before a
-- variation selector, skin tone, keycap or tag, before a combining mark
-- (e + U+0301, Devanagari and Thai vowel signs, Hangul jamo, kana voicing
-- marks), between the two regional indicators of a flag, or inside CR LF.
-- An approximation of Unicode's extended grapheme clusters with the
-- ranges PostgreSQL's regex can name. CJK characters are one code point
-- each, so left() alone never splits them.
CREATE OR REPLACE FUNCTION pymem._truncate_graphemes(content text, max_chars integer)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_cut integer := greatest(coalesce(max_chars, 0), 0);
    v_prev text;
    v_next text;
BEGIN
    IF content IS NULL OR char_length(content) <= v_cut THEN
        RETURN content;
    END IF;
    WHILE v_cut > 0 LOOP
        v_prev := substr(content, v_cut, 1);
        v_next := substr(content, v_cut + 1, 1);
        EXIT WHEN NOT (
            -- the next code point extends the previous grapheme
            v_next ~ ('[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5'
                || '\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7'
                || '\u06e8\u06ea-\u06ed\u0900-\u0903\u093a-\u093c\u093e-\u094f\u0951-\u0957'
                || '\u0962\u0963\u0981-\u0983\u09bc\u09be-\u09cd\u09d7\u0e31\u0e34-\u0e3a'
                || '\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ecd\u1160-\u11ff\u1ab0-\u1aff'
                || '\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\u3099\u309a\ufe00-\ufe0f'
                || '\ufe20-\ufe2f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f'
                || '\U000e0100-\U000e01ef]')
            -- a zero width joiner glues the next code point to this grapheme
            OR v_prev = U&'\200D'
            OR (v_prev = E'\r' AND v_next = E'\n')
            -- a flag is a pair of regional indicators: cut only after an even run
            OR (
                v_prev ~ '[\U0001f1e6-\U0001f1ff]' AND v_next ~ '[\U0001f1e6-\U0001f1ff]'
                AND char_length(substring(left(content, v_cut) FROM '[\U0001f1e6-\U0001f1ff]+$'))
                % 2 = 1
            )
        );
        v_cut := v_cut - 1;
    END LOOP;
    RETURN left(content, v_cut);
END;
$$;
