-- Text rules shared by every capability, loaded first: markers (the
-- numbers, dates and negations a statement makes), value masking, tokens
-- and their overlap. Normalization and fingerprints live in migration
-- 0001, because stored generated columns are computed from them.

-- What counts as a value in a statement: numbers (7.2, 15:00, 3), Chinese
-- numerals, weekdays, month names and relative days. One pattern serves
-- the markers (values must match for a duplicate) and the masking (a
-- statement equal up to its values is that statement's new value).
CREATE OR REPLACE FUNCTION pymem._value_pattern()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN '[0-9]+(?:[.,:][0-9]+)*'
|| '|(?:星期|礼拜|周)[一二三四五六日天]|[今明昨后前]天'
|| '|[零二两三四五六七八九十百千万]+|一[零一二两三四五六七八九十百千万]+'
|| '|\m(?:january|february|march|april|june|july|august|september|october'
|| '|november|december|monday|tuesday|wednesday|thursday|friday|saturday'
|| '|sunday|today|tomorrow|yesterday|tonight|morning|afternoon|evening)\M';

CREATE OR REPLACE FUNCTION pymem._negated(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN
pymem._strip_intensifiers(content)
~ '\m(not|no|never|none|nothing|nobody|without|cannot)\M|n''t'
OR regexp_replace(
    pymem._strip_intensifiers(content),
    '(不错|不过|不仅|不同|不少|不久|没想到|无论|毫无疑问|别人|未来)', '', 'g'
) ~ '[不没沒别別无無未]';

-- The values and negation of a text. Two texts whose markers differ state
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
            pymem._strip_intensifiers(content), pymem._value_pattern(), 'g'
        ))[1] AS marker
        UNION ALL
        SELECT 'NOT'
        WHERE pymem._negated(content)
    ) AS m
    ORDER BY m.marker
);

-- The text with every value replaced by 0, normalized: "My A1C is 7.2%"
-- and "my A1C is 6.8 %" both give "mya0cis0" ('0' survives normalizing,
-- and no digit is left to be confused with it). Equal masks with
-- different markers are one statement with a new value.
CREATE OR REPLACE FUNCTION pymem._mask_values(content text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN pymem._normalize(
    regexp_replace(pymem._strip_intensifiers(content), pymem._value_pattern(), '0', 'g')
);

-- Content terms in order of first occurrence, for "did the wording change
-- a key term, or the order of the terms?": English words (minus function
-- words, with plural and -ing/-ed endings cut) and single Chinese
-- characters (minus particles, pronouns and question words). Values and
-- negation are left to the markers.
CREATE OR REPLACE FUNCTION pymem._content_terms(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN array(
    SELECT t.term
    FROM (
        SELECT
            w.n,
            CASE
                WHEN length(w.m[1]) > 4 THEN regexp_replace(w.m[1], '(ing|ed|es|s)$', '')
                ELSE w.m[1]
            END AS term
        FROM
            regexp_matches(
                regexp_replace(pymem._strip_intensifiers(content), '''[a-z]*', '', 'g'),
                '[a-z][a-z]+|[\u3400-\u9fff\uf900-\ufaff]', 'g'
            ) WITH ORDINALITY AS w (m, n)
        WHERE w.m[1] NOT IN (
            'the', 'an', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for',
            'with', 'from', 'into', 'about', 'as', 'is', 'am', 'are', 'was', 'were', 'be',
            'been', 'being', 'do', 'does', 'did', 'has', 'have', 'had', 'will', 'would',
            'can', 'could', 'should', 'shall', 'may', 'might', 'must', 'it', 'its', 'this',
            'that', 'these', 'those', 'there', 'here', 'he', 'she', 'they', 'we', 'you', 'me',
            'him', 'her', 'them', 'us', 'my', 'your', 'his', 'our', 'their', 'what', 'which',
            'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'if', 'than', 'then',
            'also', 'just', 'any', 'some', 'all', 'user', 'users', 'one', 'get', 'got',
            -- negation is the markers' business
            'not', 'no', 'never', 'none', 'nothing', 'nobody', 'without', 'cannot'
        )
        AND w.m[1] !~ '^[的了吗呢吧啊呀嘛么是在我你他她它们这那哪个些什怎谁和与及或就都也又把被给让对向从于之其而所请问能会可要想该应]$'
        AND w.m[1] !~ ('^(' || pymem._value_pattern() || ')$')
    ) AS t
    GROUP BY t.term
    ORDER BY min(t.n)
);

-- How the wording of b differs from a in content terms: how many terms
-- only one side has (changed), how many terms there are in all (total),
-- and whether the shared terms come in another order
-- ("学生喜欢什么样的老师" / "老师喜欢什么样的学生",
-- "flights from Denver to Boston" / "... from Boston to Denver").
CREATE OR REPLACE FUNCTION pymem._term_difference(
    a text, b text, OUT changed integer, OUT total integer, OUT reordered boolean
)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN (
    SELECT
        row(
            cardinality(array(
                SELECT unnest(t.a)
                EXCEPT
                SELECT unnest(t.b)
            ))
            + cardinality(array(
                SELECT unnest(t.b)
                EXCEPT
                SELECT unnest(t.a)
            )),
            cardinality(array(
                SELECT unnest(t.a)
                UNION
                SELECT unnest(t.b)
            )),
            array(
                SELECT x FROM unnest(t.a) AS x
                WHERE x = any(t.b)
            )
            <> array(
                SELECT x FROM unnest(t.b) AS x
                WHERE x = any(t.a)
            )
        )
    FROM (
        SELECT
            pymem._content_terms(a) AS a,
            pymem._content_terms(b) AS b
    ) AS t
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
