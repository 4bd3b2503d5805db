-- The content terms of a statement: its words and characters with
-- function words, particles and values left out, inflection and synonyms
-- folded, with where each stands (for the word-order rules).

-- The English question words: function words to the write path, and to recall
-- what opens a question that asks for a value (pymem._asks_for_a_value).
CREATE OR REPLACE FUNCTION pymem._question_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how'];

CREATE OR REPLACE FUNCTION pymem._function_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN ARRAY[
    'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'into',
    'about', 'as', 'do', 'does', 'did', 'has', 'have', 'had', 'will', 'would', 'can',
    'could', 'should', 'shall', 'may', 'might', 'must', 'it', 'its', 'these', 'those',
    'there', 'here', 'if', 'than', 'then', 'also', 'just', 'any', 'some', 'all', 'user',
    'users', 'one'
]
|| pymem._question_words() || pymem._determiners() || pymem._pronouns() || pymem._be_and_get()
|| pymem._negation_words();

-- An English word with its inflection folded: plural, -ing, -ed, a doubled
-- final consonant and a final e ("runs", "running" -> "run"; "named",
-- "name" -> "nam"; "likes", "liked" -> "lik"). Words of three letters or
-- fewer, and Chinese characters, are their own stem.
-- String functions, not regular expressions: a write that compares two texts
-- used more patterns than the 32 compiled ones PostgreSQL keeps per session,
-- so every near-duplicate compiled them all again (about a fifth of a batch's
-- time; docs/benchmarks.md); the stem's eight were the simplest to spare.
CREATE OR REPLACE FUNCTION pymem._stem(word text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    w text := word;
BEGIN
    -- only the letters a-z (a regular expression's [a-z]: by code point)
    IF length(w) <= 3 OR ltrim(w, 'abcdefghijklmnopqrstuvwxyz') <> '' THEN
        RETURN w;
    END IF;
    IF right(w, 3) = 'ies' AND length(w) > 4 THEN
        w := left(w, -3) || 'y';
    ELSIF right(w, 2) IN ('ss', 'us', 'is') THEN
        NULL;
    ELSIF right(w, 3) IN ('ses', 'xes', 'zes') OR right(w, 4) IN ('ches', 'shes') THEN
        w := left(w, -2);
    ELSIF right(w, 1) = 's' THEN
        w := left(w, -1);
    END IF;
    IF right(w, 3) = 'ing' AND length(w) >= 6 THEN
        w := left(w, -3);
    ELSIF right(w, 2) = 'ed' AND length(w) >= 5 THEN
        w := left(w, -2);
    END IF;
    -- a doubled final consonant
    IF length(w) >= 2 AND right(w, 1) = substr(w, length(w) - 1, 1)
        AND strpos('bcdfghjkmnpqrtvwxz', right(w, 1)) > 0 THEN
        w := left(w, -1);
    END IF;
    IF right(w, 1) = 'e' AND length(w) >= 4 THEN
        w := left(w, -1);
    END IF;
    RETURN w;
END;
$$;

-- Words an extractor uses for one another: one stem for each class
-- ("called" / "named", "began" / "started", "dad" / "father"), so that a
-- synonym is not a changed term. Only words that state the same fact in
-- any sentence; anything else is left to the embedding and the reviewer.
CREATE OR REPLACE FUNCTION pymem._synonym(term text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN coalesce(
    '{"nam": "call", "enjoy": "lik", "lov": "lik", "fond": "lik", "began": "start",
      "begin": "start", "begun": "start", "resid": "liv", "afraid": "scar",
      "frighten": "scar", "bought": "buy", "purchas": "buy", "produc": "mak",
      "stop": "quit", "hop": "want", "wish": "want", "employ": "work", "skill": "good",
      "attend": "go"}'::jsonb || pymem._kin_folds()
    ->> term,
    term
);

-- Chinese words an extractor uses for one another, replaced before the text
-- is cut into characters ("名叫" / "叫", "老公" / "丈夫", "喜欢" / "爱"):
-- a synonym of two characters would otherwise change two terms.
CREATE OR REPLACE FUNCTION pymem._zh_synonyms(content text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_text text := content;
    v_pair text [];
BEGIN
    IF NOT pymem._has_han(content) THEN
        RETURN content;
    END IF;
    -- longer words first ("名叫" before a rule for "叫" could split it)
    FOREACH v_pair SLICE 1 IN ARRAY ARRAY[
        ['名叫', '叫'], ['叫做', '叫'], ['老公', '丈夫'], ['老婆', '妻子'], ['母亲', '妈妈'],
        ['父亲', '爸爸'], ['上班', '工作'], ['希望', '想'], ['想要', '想'], ['居住', '住'],
        ['喜欢', '爱'], ['喜爱', '爱'], ['正在', '在'], ['一周', '每周'], ['一天', '每天'],
        ['通常', '平时'], ['经常', '常常'], ['害怕', '怕'], ['学习', '学'], ['擅长', '会']
    ] LOOP
        v_text := replace(v_text, v_pair[1], v_pair[2]);
    END LOOP;
    RETURN v_text;
END;
$$;

-- Every word, Chinese character, number and punctuation mark of a text, in
-- order (n), with its content term: stemmed, synonyms folded; NULL for a
-- function word, a particle, a pronoun, a question word or a value.
CREATE OR REPLACE FUNCTION pymem._tokens(content text)
RETURNS TABLE (n bigint, token text, term text)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT
        w.n,
        w.m[1],
        CASE
            WHEN w.m[1] ~ (
                '^([' || pymem._word_letters() || ']{2,}|[' || pymem._character_script() || '])$'
            )
                AND w.m[1] <> all(pymem._function_words())
                AND w.m[1] !~ ('^[' || pymem._chinese_function_characters() || ']$')
                -- hiragana writes Japanese grammar (particles, verb endings): the
                -- content is in kanji and katakana
                AND w.m[1] !~ ('^[' || pymem._hiragana() || ']$')
                AND w.m[1] !~ ('^(' || pymem._value_pattern_for(w.m[1]) || ')$')
                THEN pymem._synonym(pymem._stem(w.m[1]))
        END
    FROM
        regexp_matches(
            -- ё is written е as often as not
            translate(regexp_replace(
                pymem._zh_synonyms(pymem._strip_intensifiers(content)), '''[a-z]*', '', 'g'
            ), 'ё', 'е'),
            '[' || pymem._word_letters() || '][' || pymem._word_letters() || ']+'
            || '|[' || pymem._character_script() || ']|[0-9]+'
            || '|[^[:space:]0-9' || pymem._word_letters() || pymem._character_script() || ']',
            'g'
        ) WITH ORDINALITY AS w (m, n)
$$;

-- Content terms in order of first occurrence, for "did the wording change
-- a key term, or the order of the terms?": English words (minus function
-- words, stemmed, synonyms folded) and single Chinese characters (minus
-- particles, pronouns and question words; Chinese synonyms folded first).
-- Values and negation are left to the markers. positions: where each term
-- first occurs among all the words, characters, numbers and punctuation of
-- the text, so that two terms are adjacent when their positions differ by 1;
-- sequence: every occurrence of a term, in order ("轮廓的廓" says 廓 twice).
CREATE OR REPLACE FUNCTION pymem._term_positions(
    content text, OUT terms text[], OUT positions integer[], OUT sequence text[]
)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (
    SELECT
        row(
            coalesce(array_agg(t.term ORDER BY t.n) FILTER (WHERE t.first), '{}'),
            coalesce(array_agg(t.n::integer ORDER BY t.n) FILTER (WHERE t.first), '{}'),
            coalesce(array_agg(t.term ORDER BY t.n), '{}')
        )
    FROM (
        SELECT
            c.term,
            c.n,
            c.n = min(c.n) OVER (PARTITION BY c.term) AS first
        FROM pymem._tokens(content) AS c
        WHERE c.term IS NOT NULL
    ) AS t
);

CREATE OR REPLACE FUNCTION pymem._content_terms(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (pymem._term_positions(content)).terms;
