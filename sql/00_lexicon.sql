-- The words and characters pymem's text rules read: each list once, named by
-- its purpose and language. The rules' regular expressions are built from
-- these lists (an IMMUTABLE call without arguments is evaluated once, when
-- the calling statement is planned), and tests/test_sql_layout.py fails when
-- a list is spelled out a second time.

-- A list as a regular expression's alternation ('a|b|c'). IMMUTABLE, unlike
-- array_to_string: a pattern built of a list's call is then a constant of
-- the statement that uses it, computed when the statement is planned.
CREATE OR REPLACE FUNCTION pymem._alternation(words text[])
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array_to_string(words, '|');

-- Chinese characters (CJK unified ideographs, the extension A block and the
-- compatibility ideographs), as a bracket expression's range.
CREATE OR REPLACE FUNCTION pymem._han_characters()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '\u3400-\u9fff\uf900-\ufaff';

-- A text's traditional characters written the simplified way, for the
-- characters the rules' Chinese patterns hold (这个礼拜 and 這個禮拜,
-- 现在 and 現在, 到下周三 and 到下週三): each pattern is written once, in
-- simplified characters, and reads a text folded by this. Only the rules read
-- the folded text; what is stored and shown is what was written.
CREATE OR REPLACE FUNCTION pymem._simplified_han(content text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN translate(
    content,
    '這個週禮兩為幾現當陣時來還嗎沒過從麼誰樣號後點鐘會兒問說裡裏經們間剛開對',
    '这个周礼两为几现当阵时来还吗没过从么谁样号后点钟会儿问说里里经们间刚开对'
);

-- English month names and their short forms, as the grammar of times reads
-- them ("16 June", "in Aug 2023", "until March"); a month is found by its
-- first three letters (pymem._month_number).
CREATE OR REPLACE FUNCTION pymem._month_names()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY[
    'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september',
    'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep',
    'sept', 'oct', 'nov', 'dec'
];

-- The number of a month named by pymem._month_names() (1 for 'jan' or 'january'):
-- the first twelve are the months in order.
CREATE OR REPLACE FUNCTION pymem._month_number(month_name text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN array_position(
    array(SELECT left(m, 3) FROM unnest((pymem._month_names())[1:12]) AS m), left(month_name, 3)
);

-- Japanese hiragana, which writes grammar (particles, verb endings).
CREATE OR REPLACE FUNCTION pymem._hiragana()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '\u3041-\u3096';

-- Japanese katakana, which writes content (loan words, names).
CREATE OR REPLACE FUNCTION pymem._katakana()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '\u30a1-\u30fa';

-- Whether a text holds a Chinese character (its rules then read characters,
-- and some bounds double: a character says less than a word).
CREATE OR REPLACE FUNCTION pymem._has_han(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN content ~ ('[' || pymem._han_characters() || ']');

-- Chinese characters that are grammar, not content, when they stand alone:
-- particles, pronouns, question words, conjunctions, prepositions and
-- modal verbs.
CREATE OR REPLACE FUNCTION pymem._chinese_function_characters()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '的了吗呢吧啊呀嘛么是在我你他她它们这那哪个些什怎谁和与及或就都也又把被给让对向从于之其而所请问能会可要想该应';

-- English articles.
CREATE OR REPLACE FUNCTION pymem._articles()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['the', 'a', 'an'];

-- English determiners: the articles, demonstratives and possessives.
CREATE OR REPLACE FUNCTION pymem._determiners()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN pymem._articles() || ARRAY['this', 'that', 'his', 'her', 'their', 'my', 'your', 'our'];

-- English personal pronouns.
CREATE OR REPLACE FUNCTION pymem._pronouns()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['i', 'you', 'he', 'she', 'me', 'him', 'we', 'they', 'us', 'them'];

-- The forms of "be" and "get", which make a passive ("was hired by").
CREATE OR REPLACE FUNCTION pymem._be_and_get()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'get', 'gets', 'got'];

-- English words that negate a statement (with "n't", pymem._negated).
CREATE OR REPLACE FUNCTION pymem._negation_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['not', 'no', 'never', 'none', 'nothing', 'nobody', 'without', 'cannot'];

-- Words of direction, English and Chinese ("from Oslo to Berlin", "从…到").
CREATE OR REPLACE FUNCTION pymem._direction_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['from', 'to', '从', '到', '向', '给'];

-- The family words said in more than one way in English ("mom", "mum" for
-- "mother"): one term for the content rules (pymem._synonym) and one
-- relation for the people rules (pymem._person_words).
CREATE OR REPLACE FUNCTION pymem._kin_folds()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '{"dad": "father", "daddy": "father", "mom": "mother", "mum": "mother",
  "mommy": "mother", "kid": "child", "children": "child"}'::jsonb;

-- Words that frame a question rather than say what it asks ("tell me", "do
-- you know"), beside the function words.
CREATE OR REPLACE FUNCTION pymem._question_frame_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['tell', 'know'];

-- The same in Chinese, as the character pairs (and particles) recall's query
-- tokens are cut into.
CREATE OR REPLACE FUNCTION pymem._chinese_question_frame()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['什么', '怎么', '哪里', '哪儿', '是不', '不是', '用户', '吗', '呢', '的'];

-- The decision rules' fixed numbers, each named and explained once: the
-- numbers pymem.settings does not hold because no calibration fits them
-- (they bound what a rule reads, not where a threshold lies). Read by
-- pymem._rule(name), which a statement evaluates once, when it is planned.
CREATE OR REPLACE FUNCTION pymem._rule_constants()
RETURNS TABLE (name text, value double precision, meaning text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT c.name, c.value, c.meaning
    FROM (
        VALUES
        (
            'nearest_candidates', 8,
            'the nearest live memories of the same kind a write is compared with'
        ),
        (
            'always_changed_terms', 1,
            'content terms any restatement may change (a synonym the folds miss), '
            || 'whatever the share'
        ),
        (
            'added_detail_factor', 2,
            'how much larger a share of changed terms a Chinese statement that only '
            || 'adds a detail may have'
        ),
        (
            'han_terms_per_word', 2,
            'content terms a Chinese word counts as (a character is a term): the term '
            || 'bounds scale by it'
        ),
        (
            'short_statement_terms', 6,
            'the most content terms of a statement whose other order of terms is read '
            || 'as a change of roles'
        ),
        (
            'moved_block_terms', 3,
            'the most terms a moved block holds for the move to be a restatement'
        ),
        (
            'moved_block_statement_terms', 8,
            'the most terms of a statement in which a moved block is a restatement'
        )
    ) AS c (name, value, meaning)
$$;

-- One of pymem._rule_constants, by name; an unknown name is an error, never a
-- NULL that would make every comparison false.
CREATE OR REPLACE FUNCTION pymem._rule(rule_name text)
RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_value double precision;
BEGIN
    SELECT c.value INTO v_value FROM pymem._rule_constants() AS c WHERE c.name = rule_name;
    IF NOT found THEN
        RAISE EXCEPTION 'no rule constant %', rule_name USING ERRCODE = 'XX000';
    END IF;
    RETURN v_value;
END;
$$;

-- The factor a bound on a text's terms scales by: a Chinese text's terms are
-- characters, pymem._rule('han_terms_per_word') of them a word.
CREATE OR REPLACE FUNCTION pymem._term_scale(content text)
RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN pymem._has_han(content) THEN pymem._rule('han_terms_per_word') ELSE 1 END;
