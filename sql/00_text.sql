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
SET search_path = pg_catalog, pymem, public, pg_temp
-- a minus sign not inside a word or a range ("-200", not "10-12" or "covid-19"):
-- normalizing drops it, so "-200" and "200" are told apart here
RETURN '(?:(?<![[:alnum:]])[-−])?[0-9]+(?:[.,:][0-9]+)*(?:\s?[ap]\.?m\M\.?)?'
|| '|(?:星期|礼拜|周)[一二三四五六日天]|[今明昨后前]天'
-- the part of the day, as "morning" and "evening" are in English
|| '|早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|凌晨'
|| '|[零二两三四五六七八九十百千万][零一二两三四五六七八九十百千万]*'
|| '|一[零一二两三四五六七八九十百千万]+'
|| '|\m(?:january|february|march|april|june|july|august|september|october'
|| '|november|december|monday|tuesday|wednesday|thursday|friday|saturday'
|| '|sunday|today|tomorrow|yesterday|tonight|morning|afternoon|evening'
-- counts in words ("two cats" / "three cats" are two values; "one" is left
-- out: "one of her friends" is no count)
|| '|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty'
|| '|forty|fifty|hundred|thousand|dozen|once|twice|thrice)\M'
-- and in Russian, Spanish and Arabic, as whole words of their letters (the
-- letters spelled out: pymem._word_letters is defined after this function's
-- callers are planned, and a value must be the same pattern everywhere)
|| '|(?<![a-zа-яё\u00df-\u00ff\u0620-\u065f])(?:'
|| 'два|две|двух|три|трёх|трех|четыре|пять|шесть|семь|восемь|девять|десять'
|| '|двадцать|тридцать|сто|тысяч[аи]?'
|| '|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|veinte|treinta|cien|mil'
|| '|اثنان|اثنين|اثنتان|ثلاث|ثلاثة|أربع|أربعة|خمس|خمسة|ست|ستة|سبع|سبعة|ثماني|ثمانية'
|| '|تسع|تسعة|عشر|عشرة|مئة|مائة|ألف'
|| ')(?![a-zа-яё\u00df-\u00ff\u0620-\u065f])';

-- The letters of a word, in the scripts that write words between spaces:
-- Latin with its accents, Greek, Cyrillic, Armenian, Hebrew, Arabic (with
-- its vowel marks), the Indic scripts from Devanagari to Sinhala, Georgian
-- and Hangul; a bracket expression's inside, lowercase (texts are compared
-- lowercased). Written as ranges, not [[:alpha:]]: a class's meaning follows
-- the database's locale, and a decision must not. Scripts written without
-- spaces (Chinese characters, kana) count a character at a time
-- (pymem._character_script); Thai, Lao, Khmer and Burmese, which need a
-- dictionary to cut into words, count neither way.
CREATE OR REPLACE FUNCTION pymem._word_letters()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'a-z\u00df-\u00f6\u00f8-\u024f\u0300-\u036f\u0370-\u03ff\u0400-\u052f'
|| '\u0531-\u058f\u05d0-\u05ea\u0610-\u061a\u0620-\u065f\u066e-\u06d3'
|| '\u0900-\u0dff\u10d0-\u10ff\uac00-\ud7a3';

-- The characters of the scripts written without spaces that count one at a
-- time: Chinese characters (and Japanese kanji), hiragana and katakana.
CREATE OR REPLACE FUNCTION pymem._character_script()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '\u3041-\u3096\u30a1-\u30fa\u3400-\u9fff\uf900-\ufaff';

CREATE OR REPLACE FUNCTION pymem._negated(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN
pymem._strip_intensifiers(content)
~ '\m(not|no|never|none|nothing|nobody|without|cannot)\M|n''t'
-- Russian, Spanish, Arabic and Japanese, as whole words of their letters
-- (\m and \M know a word's letters only where the locale does)
OR pymem._strip_intensifiers(content) ~ (
    '(?<![' || pymem._word_letters() || '])'
    || '(не|нет|ни|никогда|ничего|никто|без|nunca|jamás|tampoco|nada|nadie'
    || '|لا|ليس|ليست|لم|لن|غير|بدون)'
    || '(?![' || pymem._word_letters() || '])'
    || '|ない|ません|なかった|ぬ|ず(?![っつ])'
)
OR regexp_replace(
    pymem._strip_intensifiers(content),
    '(不错|不过|不仅|不同|不少|不久|没想到|无论|毫无疑问|别人|未来)', '', 'g'
) ~ '[不没沒别別无無未]';

-- A Chinese numeral as digits: 十五 15, 二十 20, 一百零五 105, 两万三千
-- 23000, and the spoken short forms, where a last digit right after a unit
-- counts in the unit below it: 两千五 2500, 一万五 15000, 二百五 250 (两千零五
-- is 2005). numeric: a long run of 万 is a value too, not an overflow.
CREATE OR REPLACE FUNCTION pymem._chinese_number(numeral text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_digits CONSTANT text := '零一二三四五六七八九';
    v_total numeric := 0;
    v_section numeric := 0;
    v_digit numeric;
    -- the unit just read (10 to 10000); NULL after a digit or 零
    v_unit numeric;
    -- the unit right before the pending digit
    v_digit_after numeric;
    v_char text;
BEGIN
    FOREACH v_char IN ARRAY string_to_array(translate(numeral, '两', '二'), NULL) LOOP
        IF v_char = '零' THEN
            v_digit := NULL;
            v_unit := NULL;
        ELSIF strpos(v_digits, v_char) > 0 THEN
            v_digit := strpos(v_digits, v_char) - 1;
            v_digit_after := v_unit;
            v_unit := NULL;
        ELSIF v_char = '万' THEN
            v_total := (v_total + v_section + coalesce(v_digit, 0)) * 10000;
            v_section := 0;
            v_digit := NULL;
            v_unit := 10000;
        ELSE
            v_unit := CASE v_char WHEN '十' THEN 10 WHEN '百' THEN 100 ELSE 1000 END;
            v_section := v_section + coalesce(v_digit, 1) * v_unit;
            v_digit := NULL;
        END IF;
    END LOOP;
    -- a last digit right after 百, 千 or 万: the spoken short form
    IF v_digit IS NOT NULL AND v_digit_after > 10 THEN
        v_digit := v_digit * div(v_digit_after, 10);
    END IF;
    RETURN (v_total + v_section + coalesce(v_digit, 0))::text;
END;
$$;


-- English number words as the digits they stand for.
CREATE OR REPLACE FUNCTION pymem._number_words()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN jsonb_build_object(
    'once', '1', 'twice', '2', 'thrice', '3', 'two', '2', 'three', '3',
    'four', '4', 'five', '5', 'six', '6', 'seven', '7', 'eight', '8',
    'nine', '9', 'ten', '10', 'eleven', '11', 'twelve', '12', 'twenty', '20',
    'thirty', '30', 'forty', '40', 'fifty', '50', 'hundred', '100',
    'thousand', '1000', 'dozen', '12'
);

-- One value however it is written, so that markers compare values, not
-- spellings: number words and Chinese numerals as digits ("three times" /
-- "3 times", "twice" / "two times", "五公里" / "5公里"), a Chinese weekday
-- under one name ("星期六" / "礼拜六" / "周六", 天 for 日), a part of the
-- day under one name ("早晨" / "早上", "夜里" / "晚上"), a time without
-- its spaces and dots ("6 a.m." / "6am"). Anything else as it is: "1,000"
-- and "1000", "6:00pm" and "6pm", "twenty five" ({20, 5}) and "25" stay
-- apart (precision first: a missed restatement only costs a row). In SQL:
-- it runs for every marker of every write, and a PL/pgSQL body took 16 us
-- a call (3.5 us now). Its tests are string functions, not regular
-- expressions: a session keeps 32 compiled patterns, and the write path's
-- text rules must stay under that (docs/benchmarks.md).
CREATE OR REPLACE FUNCTION pymem._marker_value(marker text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN left(marker, 1) COLLATE "C" BETWEEN '0' AND '9'
        THEN regexp_replace(marker, '\s?([ap])\.?m\.?$', '\1m')
    WHEN left(marker, 1) IN ('-', '−') THEN '-' || substr(marker, 2)
    WHEN left(marker, 1) COLLATE "C" BETWEEN 'a' AND 'z'
        THEN coalesce(pymem._number_words() ->> marker, marker)
    WHEN
        left(marker, 1) = '周' AND char_length(marker) = 2
        OR left(marker, 2) IN ('星期', '礼拜') AND char_length(marker) = 3
        THEN '周' || translate(right(marker, 1), '天', '日')
    WHEN marker IN ('早晨', '清晨') THEN '早上'
    WHEN marker = '夜里' THEN '晚上'
    WHEN marker <> '' AND translate(marker, '零一二两三四五六七八九十百千万', '') = ''
        THEN pymem._chinese_number(marker)
    ELSE marker
END;

-- A text's values in the order they first appear, each as pymem._marker_value
-- spells it ("runs 3 times, swims twice": {3, 2}).
CREATE OR REPLACE FUNCTION pymem._values_in_order(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT v.value
    FROM (
        SELECT
            m.i,
            pymem._marker_value(m.m[1]) AS value
        FROM regexp_matches(
            pymem._strip_intensifiers(content), pymem._value_pattern(), 'g'
        ) WITH ORDINALITY AS m (m, i)
    ) AS v
    GROUP BY v.value
    ORDER BY min(v.i)
);

-- Words a symbol ends ("c++", "c#", "f#", "a+"), lowercased, each once in
-- sorted order (a set: "C++ and C#" has the ones of "C# and C++"): they
-- name another thing than the bare word, and normalizing drops the symbol,
-- so "codes in C++" and "codes in C#" would be the same text. They are
-- markers (a duplicate needs the same ones) but not values: another one is
-- another thing, not the statement's new value.
CREATE OR REPLACE FUNCTION pymem._symbol_words(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT DISTINCT w.m[1] AS word
    FROM regexp_matches(lower(content), '\m([a-z]+[+#]+)', 'g') AS w (m)
    ORDER BY word
);

-- The values, negation and symbol words of a text. Two texts whose markers
-- differ state different facts however close their embeddings ("meeting at
-- 3pm" vs "meeting at 4pm", "likes cats" vs "doesn't like cats", "C++" vs "C#").
CREATE OR REPLACE FUNCTION pymem._fact_markers(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT m.value
    FROM (
        SELECT unnest(pymem._values_in_order(content)) AS value
        UNION
        -- every column named: a restore reads the body back as PostgreSQL
        -- printed it and names an unnamed one, and pymem check compares them
        SELECT 'NOT' AS value
        WHERE pymem._negated(content)
        UNION
        SELECT unnest(pymem._symbol_words(content)) AS value
    ) AS m
    ORDER BY m.value
);

-- The text with every value replaced by 0, normalized: "My A1C is 7.2%"
-- and "my A1C is 6.8 %" both give "mya0cis0" ('0' survives normalizing,
-- and no digit is left to be confused with it). Equal masks with
-- different markers are one statement with a new value.
CREATE OR REPLACE FUNCTION pymem._mask_values(content text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN pymem._normalize(
    regexp_replace(pymem._strip_intensifiers(content), pymem._value_pattern(), '0', 'g')
);

-- Words that say nothing of the fact by themselves: English function words
-- and "user", which an extracted memory may or may not carry. Negation is
-- the markers' business, so its words are here too.
CREATE OR REPLACE FUNCTION pymem._function_words()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN ARRAY[
    'the', 'an', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for',
    'with', 'from', 'into', 'about', 'as', 'is', 'am', 'are', 'was', 'were', 'be',
    'been', 'being', 'do', 'does', 'did', 'has', 'have', 'had', 'will', 'would',
    'can', 'could', 'should', 'shall', 'may', 'might', 'must', 'it', 'its', 'this',
    'that', 'these', 'those', 'there', 'here', 'he', 'she', 'they', 'we', 'you', 'me',
    'him', 'her', 'them', 'us', 'my', 'your', 'his', 'our', 'their', 'what', 'which',
    'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'if', 'than', 'then',
    'also', 'just', 'any', 'some', 'all', 'user', 'users', 'one', 'get', 'got',
    'not', 'no', 'never', 'none', 'nothing', 'nobody', 'without', 'cannot'
];

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
      "frighten": "scar", "bought": "buy", "purchas": "buy", "dad": "father",
      "daddy": "father", "mom": "mother", "mum": "mother", "mommy": "mother",
      "produc": "mak", "stop": "quit", "hop": "want", "wish": "want", "kid": "child",
      "children": "child", "employ": "work", "skill": "good", "attend": "go"}'::jsonb
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
    IF content !~ '[\u3400-\u9fff\uf900-\ufaff]' THEN
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
                AND w.m[1] !~ '^[的了吗呢吧啊呀嘛么是在我你他她它们这那哪个些什怎谁和与及或就都也又把被给让对向从于之其而所请问能会可要想该应]$'
                -- hiragana writes Japanese grammar (particles, verb endings): the
                -- content is in kanji and katakana
                AND w.m[1] !~ '^[\u3041-\u3096]$'
                AND w.m[1] !~ ('^(' || pymem._value_pattern() || ')$')
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

-- What a pattern matches in a text, each match once, in order of first
-- occurrence (the pattern must have no capturing group).
CREATE OR REPLACE FUNCTION pymem._in_order(content text, pattern text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT m.m[1] FROM regexp_matches(content, pattern, 'g') WITH ORDINALITY AS m (m, i)
    GROUP BY m.m[1]
    ORDER BY min(m.i)
);

-- The same items in another order ("3pm, 5pm" / "5pm, 3pm").
CREATE OR REPLACE FUNCTION pymem._traded_places(a text[], b text[])
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN a <> b AND (SELECT array_agg(x ORDER BY x) FROM unnest(a) AS x)
= (SELECT array_agg(x ORDER BY x) FROM unnest(b) AS x);

-- Personal pronouns, which are no content terms but name the parties.
CREATE OR REPLACE FUNCTION pymem._pronoun_pattern()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN '\m(?:i|you|he|she|me|him|we|they|us|them)\M|[我你他她您]';

-- Whether a text states who does what the other way round: a passive with
-- its agent ("was hired by", "被", "由", but not "由于"), or in Chinese the
-- object put before its verb ("把烟戒了" for "戒烟").
CREATE OR REPLACE FUNCTION pymem._passive(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN lower(content) ~ '\m(is|are|was|were|be|been|being|get|gets|got)\M.*\mby\M'
OR regexp_replace(content, '(由于|被子|被褥|一把)', '', 'g') ~ '[被由把]';

-- The content terms of a text and "user" (a function word elsewhere, here a
-- party of the statement), in order of first occurrence, with where each
-- first occurs (as pymem._term_positions).
CREATE OR REPLACE FUNCTION pymem._party_terms(
    content text, OUT terms text[], OUT positions integer[]
)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (
    SELECT
        row(
            coalesce(array_agg(k.key ORDER BY k.n), '{}'),
            coalesce(array_agg(k.n::integer ORDER BY k.n), '{}')
        )
    FROM (
        SELECT
            coalesce(t.term, CASE WHEN t.token = 'user' THEN t.token END) AS key,
            min(t.n) AS n
        FROM pymem._tokens(content) AS t
        WHERE t.term IS NOT NULL OR t.token = 'user'
        GROUP BY coalesce(t.term, CASE WHEN t.token = 'user' THEN t.token END)
    ) AS k
);

-- The shared terms of a and b (pymem._party_terms) that trade places: x
-- before y in a, y before x in b, with what says the roles went with them:
-- anchored, a shared term stays between the two in both texts ("Ana mentors
-- Tom" / "Tom mentors Ana": mentors); linked, the little words that linked
-- them in a (no term between them) are all in b, or one of them lies
-- between the two in b ("from Denver to Boston" / "from Boston to Denver"
-- keeps "to"; "Hana calls her mother" / "Hana's mother calls her" keeps "her").
CREATE OR REPLACE FUNCTION pymem._traded_terms(
    a text, b text
)
RETURNS TABLE (x text, y text, anchored boolean, linked boolean)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_ta text [];
    v_pa integer [];
    v_tb text [];
    v_pb integer [];
    v_tokens_a text [];
    v_terms_a text [];
    v_words_b text [] := array(SELECT t.token FROM pymem._tokens(b) AS t ORDER BY t.n);
    v_between text [];
    v_x integer;
    v_y integer;
    v_z integer;
BEGIN
    SELECT array_agg(t.token ORDER BY t.n), array_agg(t.term ORDER BY t.n)
    INTO v_tokens_a, v_terms_a
    FROM pymem._tokens(a) AS t;
    SELECT p.terms, p.positions INTO v_ta, v_pa FROM pymem._party_terms(a) AS p;
    SELECT p.terms, p.positions INTO v_tb, v_pb FROM pymem._party_terms(b) AS p;
    FOR i IN 1..cardinality(v_ta) LOOP
        v_x := array_position(v_tb, v_ta[i]);
        CONTINUE WHEN v_x IS NULL;
        FOR j IN i + 1..cardinality(v_ta) LOOP
            v_y := array_position(v_tb, v_ta[j]);
            CONTINUE WHEN v_y IS NULL OR v_pb[v_y] > v_pb[v_x];
            x := v_ta[i];
            y := v_ta[j];
            anchored := false;
            FOR k IN i + 1..j - 1 LOOP
                v_z := array_position(v_tb, v_ta[k]);
                anchored := anchored OR coalesce(v_pb[v_z] > v_pb[v_y] AND v_pb[v_z] < v_pb[v_x], false);
            END LOOP;
            v_between := CASE
                WHEN cardinality(array_remove(v_terms_a[v_pa[i] + 1:v_pa[j] - 1], NULL)) = 0
                    THEN array(
                        SELECT w FROM unnest(v_tokens_a[v_pa[i] + 1:v_pa[j] - 1]) AS w
                        WHERE left(w, 1) COLLATE "C" BETWEEN 'a' AND 'z'
                            OR left(w, 1) COLLATE "C" BETWEEN U&'\3400' AND U&'\9FFF'
                            OR left(w, 1) COLLATE "C" BETWEEN U&'\F900' AND U&'\FAFF'
                    )
                ELSE '{}'
            END;
            linked := cardinality(v_between) > 0 AND (
                v_between <@ v_words_b
                OR v_between && v_words_b[v_pb[v_y] + 1:v_pb[v_x] - 1]
            );
            RETURN NEXT;
        END LOOP;
    END LOOP;
END;
$$;

-- The terms a text leads with a word of direction ("from", "to", "从", "到",
-- "向", "给"): each time such a word is said, with the first of the given
-- terms after it ('from:oslo', 'to:berlin'; 'to:' when none follows).
CREATE OR REPLACE FUNCTION pymem._directed_terms(content text, terms text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    WITH t AS MATERIALIZED (SELECT * FROM pymem._tokens(content))
    SELECT array(
        SELECT m.token || ':' || coalesce((
            SELECT n.term FROM t AS n
            WHERE n.n > m.n AND n.term = ANY(terms)
            ORDER BY n.n LIMIT 1
        ), '')
        FROM t AS m
        WHERE m.token IN ('from', 'to', '从', '到', '向', '给')
        ORDER BY 1
    )
$$;

-- Whether a word of direction both texts use leads other shared terms in
-- each ("Mia moved from Oslo to Berlin" / "Mia moved to Oslo from Berlin",
-- "郑洁的老板向她汇报" / "郑洁向她的老板汇报"): the terms keep their order
-- and trade their roles.
CREATE OR REPLACE FUNCTION pymem._other_direction(a text, b text, shared text[])
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    WITH
        da AS MATERIALIZED (
            SELECT d, split_part(d, ':', 1) AS word
            FROM unnest(pymem._directed_terms(a, shared)) AS d
        ),
        db AS MATERIALIZED (
            SELECT d, split_part(d, ':', 1) AS word
            FROM unnest(pymem._directed_terms(b, shared)) AS d
        ),
        -- the words each text says once ("wants to learn to cook" says "to"
        -- twice, in another sense)
        words AS (
            SELECT word FROM da GROUP BY word HAVING count(*) = 1
            INTERSECT
            SELECT word FROM db GROUP BY word HAVING count(*) = 1
        )
    -- most statements say none of them: no tokenising for those
    SELECT lower(a) LIKE ANY (ARRAY['%from%', '%to%', '%从%', '%到%', '%向%', '%给%'])
        AND lower(b) LIKE ANY (ARRAY['%from%', '%to%', '%从%', '%到%', '%向%', '%给%'])
        AND EXISTS (
            SELECT FROM da INNER JOIN db USING (word)
            WHERE word IN (SELECT w.word FROM words AS w) AND da.d <> db.d
        )
$$;

-- Whether b's other order of the shared terms is a restatement's and no
-- role swap: one block of a's terms moved (after their common start and end,
-- b's middle is a rotation of a's: "a company in Toronto" / "a Toronto
-- company", "Rosa's cat Miso" / "Miso, Rosa's cat", "买了一辆新自行车" /
-- "新买了一辆自行车"), and no two terms that trade places keep the little
-- words that linked them ("from Denver to Boston" / "from Boston to Denver"
-- keeps "to"; "Hana calls her mother" / "Hana's mother calls her" keeps
-- "her"). Any other order stays a role swap ("Ana mentors Tom" / "Tom
-- mentors Ana").
CREATE OR REPLACE FUNCTION pymem._moved_block(a text, b text)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_ta text [];
    v_tb text [];
    v_sa text [];
    v_sb text [];
    v_first integer := 1;
    v_last integer;
    v_scale integer;
BEGIN
    SELECT p.terms INTO v_ta FROM pymem._party_terms(a) AS p;
    SELECT p.terms INTO v_tb FROM pymem._party_terms(b) AS p;
    v_sa := array(SELECT x FROM unnest(v_ta) AS x WHERE x = ANY(v_tb));
    v_sb := array(SELECT x FROM unnest(v_tb) AS x WHERE x = ANY(v_ta));
    v_last := cardinality(v_sa);
    WHILE v_first <= v_last AND v_sa[v_first] = v_sb[v_first] LOOP
        v_first := v_first + 1;
    END LOOP;
    WHILE v_last >= v_first AND v_sa[v_last] = v_sb[v_last] LOOP
        v_last := v_last - 1;
    END LOOP;
    -- a short move in a short statement: in a sentence a moved block can take
    -- a term to another clause (PAWS: "the Harare suburb of Mabvuku" / "the
    -- Mabvuku suburb of Harare")
    -- (a Chinese character is a term: a word is two or three of them)
    v_scale := CASE WHEN (a || b) ~ '[\u3400-\u9fff\uf900-\ufaff]' THEN 2 ELSE 1 END;
    IF v_last - v_first + 1 > 3 * v_scale OR greatest(cardinality(v_ta), cardinality(v_tb)) > 8 * v_scale
        -- the same terms, only moved: a term exchanged as well is a rewrite
        -- ("how small the hurricane was ... a wide eye" / "how wide ... a little eye")
        OR cardinality(v_sa) <> greatest(cardinality(v_ta), cardinality(v_tb)) OR strpos(
        '|' || array_to_string(v_sa[v_first:v_last] || v_sa[v_first:v_last], '|') || '|',
        '|' || array_to_string(v_sb[v_first:v_last], '|') || '|'
    ) = 0 THEN
        RETURN false;
    END IF;
    RETURN NOT EXISTS (SELECT FROM pymem._traded_terms(a, b) AS t WHERE t.linked);
END;
$$;

-- How the wording of b differs from a in content terms: how many terms
-- only one side has (changed), how many terms there are in all (total),
-- whether the shared terms come in another order (reordered), and whether
-- that order exchanges the roles of the parties (role_swap: "Ana mentors
-- Tom" / "Tom mentors Ana", "flights from Denver to Boston" / "... from
-- Boston to Denver", "学生喜欢什么样的老师" / "老师喜欢什么样的学生").
-- Another order is no role swap when it is
--   * a moved clause: the statement turned around, the shared terms of b a
--     rotation of a's ("Tom and Sue are Ana's neighbours" / "Ana's
--     neighbours are Tom and Sue", "Every Friday Kenji plays chess" /
--     "Kenji plays chess every Friday");
--   * a voice change: one side is a passive with its agent, the other not
--     ("Grace mentors Nadia" / "Nadia is mentored by Grace");
--   * in Chinese, the first two groups of characters exchanged where they
--     touch in one of the texts (a time or place moved before or after the
--     subject: "周末李娜喜欢爬山" / "李娜周末喜欢爬山").
--   * one block of terms moved that keeps no little word linking the
--     terms it passes (pymem._moved_block: "a company in Toronto" / "a
--     Toronto company").
-- And the same order is a role swap when one side only is a passive with
-- its agent ("Kenji was hired by Daniel" / "Kenji hired Daniel"), when
-- the values or the pronouns, which are no content terms, trade places
-- ("the 19th best film at the 7th festival" / "the 7th best film at the
-- 19th festival", "你讨厌我" / "我讨厌你"), or when a relation said with a
-- possessive on one side and with "of" on the other has another owner
-- ("Kenji's boss is Daniel" / "Kenji is the boss of Daniel",
-- pymem._other_owner), or when a word of direction leads another term
-- ("from Oslo to Berlin" / "to Oslo from Berlin", pymem._other_direction).
-- (Made with more OUT parameters than before migration 0016, which CREATE OR
-- REPLACE cannot do: the earlier form is dropped here, in the load's one
-- transaction.)
DO $$
DECLARE
    v_function regprocedure := to_regprocedure('pymem._term_difference(text, text)');
BEGIN
    IF pg_get_function_result(v_function) NOT LIKE '%added_detail%' THEN
        EXECUTE format('DROP FUNCTION %s', v_function);
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._term_difference(
    a text, b text,
    OUT changed integer, OUT total integer, OUT reordered boolean, OUT role_swap boolean,
    OUT added_detail boolean
)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_ta text [];
    v_pa integer [];
    v_qa text [];
    v_tb text [];
    v_pb integer [];
    v_qb text [];
    v_sa text [];
    v_sb text [];
    v_last integer;
    v_mid_a text [];
    v_mid_b text [];
    v_k integer;
    v_moved boolean := false;
    -- a question: memories state things, and a question that moves or adds
    -- a few characters asks another thing
    v_question boolean := (a || b) LIKE ANY (ARRAY[
        '%？%', '%?%', '%吗%', '%呢%', '%谁%', '%哪%', '%几%',
        '%什么%', '%怎么%', '%多少%', '%如何%', '%是否%'
    ]);
BEGIN
    SELECT t.terms, t.positions, t.sequence INTO v_ta, v_pa, v_qa
    FROM pymem._term_positions(a) AS t;
    SELECT t.terms, t.positions, t.sequence INTO v_tb, v_pb, v_qb
    FROM pymem._term_positions(b) AS t;
    v_sa := array(
        SELECT u.x FROM unnest(v_ta) WITH ORDINALITY AS u (x, i)
        WHERE u.x = ANY(v_tb) ORDER BY u.i
    );
    v_sb := array(
        SELECT u.x FROM unnest(v_tb) WITH ORDINALITY AS u (x, i)
        WHERE u.x = ANY(v_ta) ORDER BY u.i
    );
    changed := cardinality(v_ta) + cardinality(v_tb) - 2 * cardinality(v_sa);
    total := cardinality(v_ta) + cardinality(v_tb) - cardinality(v_sa);
    -- one says all the other says and more; a question adds a word to ask
    -- another thing ("淘宝" / "淘宝特价版" stays a changed term as any other)
    added_detail := changed > 0 AND cardinality(v_sa) = least(cardinality(v_ta), cardinality(v_tb))
        AND cardinality(v_sa) > 0 AND NOT v_question
        -- an added word that places the fact in the past, cancels it or takes
        -- a stance on it is no detail ("我以前住在上海" / "我住在上海",
        -- "张伟的老婆讨厌做晚饭")
        AND NOT EXISTS (
            SELECT FROM unnest(ARRAY[
                '以前', '之前', '曾经', '原来', '过去', '不再', '取消', '讨厌', '假装',
                '已经', '打算', '计划', '将要', '刚刚', '还没', '想', '要', '怕'
            ]) AS w
            WHERE (strpos(a, w) > 0) <> (strpos(b, w) > 0)
        );
    -- every occurrence of the shared terms, in order: a term said twice on one
    -- side only is another order too
    v_qa := array(SELECT x FROM unnest(v_qa) WITH ORDINALITY AS u (x, i) WHERE x = ANY(v_tb) ORDER BY i);
    v_qb := array(SELECT x FROM unnest(v_qb) WITH ORDINALITY AS u (x, i) WHERE x = ANY(v_ta) ORDER BY i);
    reordered := v_qa <> v_qb;
    IF reordered THEN
        -- a rotation: b's shared terms appear, in order, in a's read twice
        v_moved := cardinality(v_qa) = cardinality(v_qb) AND strpos(
            '|' || array_to_string(v_qa || v_qa, '|') || '|',
            '|' || array_to_string(v_qb, '|') || '|'
        ) > 0;
        IF NOT v_moved AND v_sa <> v_sb AND (a || b) ~ '[\u3400-\u9fff\uf900-\ufaff]' THEN
            -- before the common end, a's A B is b's B A
            v_last := cardinality(v_sa);
            WHILE v_sa[v_last] = v_sb[v_last] LOOP
                v_last := v_last - 1;
            END LOOP;
            v_mid_a := v_sa[:v_last];
            v_mid_b := v_sb[:v_last];
            v_k := array_position(v_mid_a, v_mid_b[1]);
            IF v_k > 1 AND v_mid_b = v_mid_a[v_k:] || v_mid_a[:v_k - 1] THEN
                -- A's last term right before B's first in a, or B's last
                -- right before A's first in b
                v_moved := v_pa[array_position(v_ta, v_mid_a[v_k])]
                = v_pa[array_position(v_ta, v_mid_a[v_k - 1])] + 1
                OR v_pb[array_position(v_tb, v_mid_a[1])]
                = v_pb[array_position(v_tb, v_mid_a[cardinality(v_mid_a)])] + 1;
            END IF;
        END IF;
    END IF;
    IF pymem._passive(a) <> pymem._passive(b) THEN
        role_swap := NOT reordered;
    ELSE
        -- a short statement (six English terms, twelve Chinese characters)
        -- is turned round in many ways, and only an exchange of roles is a
        -- swap there (pymem._exchanged_roles); a long sentence's reorder can
        -- take a term to another clause (PAWS), and in a Chinese question a
        -- few characters moved ask another thing ("为什么奥特曼不打小怪兽" /
        -- "为什么奥特曼打不赢小怪兽"): there only the shapes above are a
        -- restatement's (docs/calibration.md)
        -- In a comparison any other order is a swap, a moved block too: the
        -- order of the things compared is what it says ("prefers tea to
        -- coffee" / "likes coffee more than tea", "Tariq is older than his
        -- brother" / "Tariq's brother is older than Tariq").
        role_swap := reordered AND (
            (a || ' ' || b) ~* '\m(than|rather|prefers?|preferred)\M|胜过|而不是|不如'
            OR NOT v_moved AND NOT pymem._moved_block(a, b) AND (
                greatest(cardinality(v_ta), cardinality(v_tb))
                > 6 * CASE WHEN (a || b) ~ '[\u3400-\u9fff\uf900-\ufaff]' THEN 2 ELSE 1 END
                OR v_question
                OR cardinality(v_qa) <> cardinality(v_sa) OR cardinality(v_qb) <> cardinality(v_sb)
                OR pymem._exchanged_roles(a, b)
            )
        );
    END IF;
    -- values and pronouns that trade places
    role_swap := role_swap
        OR (NOT reordered AND pymem._traded_places(
            pymem._values_in_order(a), pymem._values_in_order(b)
        ))
        OR pymem._traded_places(
            pymem._in_order(lower(a), pymem._pronoun_pattern()),
            pymem._in_order(lower(b), pymem._pronoun_pattern())
        )
        OR pymem._other_owner(a, b)
        -- (in a short statement: a sentence says "to" in many senses)
        OR (greatest(cardinality(v_ta), cardinality(v_tb))
            <= 6 * CASE WHEN (a || b) ~ '[\u3400-\u9fff\uf900-\ufaff]' THEN 2 ELSE 1 END
            AND pymem._other_direction(a, b, v_sa));
END;
$$;

-- Relations that name a person, each word with the one name of its relation.
CREATE OR REPLACE FUNCTION pymem._person_words()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN '{"wife": "wife", "wives": "wife", "husband": "husband", "spouse": "spouse",
  "partner": "partner", "boyfriend": "boyfriend", "girlfriend": "girlfriend",
  "fiance": "fiance", "fiancee": "fiance", "mother": "mother", "mom": "mother",
  "mum": "mother", "mommy": "mother", "father": "father", "dad": "father",
  "daddy": "father", "parent": "parent", "son": "son", "daughter": "daughter",
  "child": "child", "children": "child", "kid": "child", "baby": "baby",
  "brother": "brother", "sister": "sister", "sibling": "sibling", "cousin": "cousin",
  "uncle": "uncle", "aunt": "aunt", "nephew": "nephew", "niece": "niece",
  "grandmother": "grandmother", "grandma": "grandmother", "grandfather": "grandfather",
  "grandpa": "grandfather", "grandparent": "grandparent", "grandson": "grandson",
  "granddaughter": "granddaughter", "grandchild": "grandchild", "friend": "friend",
  "roommate": "roommate", "flatmate": "roommate", "neighbour": "neighbour",
  "neighbor": "neighbour", "colleague": "colleague", "coworker": "colleague",
  "boss": "boss", "manager": "manager", "landlord": "landlord",
  "tenant": "tenant", "nanny": "nanny", "twin": "twin",
  "老婆": "wife", "妻子": "wife", "太太": "wife", "媳妇": "wife", "老公": "husband",
  "丈夫": "husband", "爱人": "spouse", "伴侣": "partner", "男朋友": "boyfriend",
  "女朋友": "girlfriend", "对象": "partner", "妈妈": "mother", "母亲": "mother",
  "爸爸": "father", "父亲": "father", "父母": "parent", "儿子": "son", "女儿": "daughter",
  "孩子": "child", "哥哥": "brother", "姐姐": "sister", "弟弟": "brother",
  "妹妹": "sister", "表哥": "cousin", "表姐": "cousin", "表弟": "cousin",
  "表妹": "cousin", "堂哥": "cousin", "堂姐": "cousin", "叔叔": "uncle",
  "阿姨": "aunt", "舅舅": "uncle", "姑姑": "aunt", "外甥": "nephew", "侄子": "nephew",
  "侄女": "niece", "爷爷": "grandfather", "奶奶": "grandmother", "外公": "grandfather",
  "外婆": "grandmother", "孙子": "grandson", "孙女": "granddaughter", "朋友": "friend",
  "室友": "roommate", "邻居": "neighbour", "同事": "colleague", "老板": "boss",
  "领导": "boss", "老师": "teacher", "学生": "student", "同学": "classmate",
  "房东": "landlord"}'::jsonb;

-- Who owns each relation a text names, and how it is said: "Kenji's boss"
-- is the boss of Kenji said with a possessive, "the boss of Kenji" with
-- "of". An owner is a name or a word for a person ("the user's sister",
-- "a colleague of Maya"): "a woman's risk" / "the risk of cancer" is
-- grammar, not possession, and a time owns nothing ("today's paper").
CREATE OR REPLACE FUNCTION pymem._possessions(
    content text, OUT noun text, OUT owner text, OUT by_of boolean
)
RETURNS SETOF record
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT DISTINCT pymem._synonym(pymem._stem(lower(p.noun))), lower(p.owner), p.by_of
    FROM (
        SELECT m.m[2] AS noun, m.m[1] AS owner, FALSE AS by_of
        FROM regexp_matches(content, '([[:alpha:]]+)''s\s+([[:alpha:]]+)', 'g') AS m (m)
        UNION ALL
        SELECT m.m[1], m.m[2], TRUE
        FROM regexp_matches(
            content,
            '\m(?:the|a|an)\s+([[:alpha:]]+)\s+of\s+'
            || '(?:(?:the|a|an|this|that|his|her|their|my|your|our)\s+)?([[:alpha:]]+)',
            'gi'
        ) AS m (m)
    ) AS p
    WHERE (
        p.owner ~ '^[[:upper:]]'
        AND lower(p.owner) !~ ('^(' || pymem._value_pattern() || ')$')
    )
    OR lower(p.owner) = 'user'
    OR pymem._person_words() ? lower(p.owner)
$$;

-- Whether a relation said with a possessive in one text and with "of" in
-- the other has another owner ("Kenji's boss is Daniel" / "Kenji is the
-- boss of Daniel"): the names keep their order, and their roles change.
CREATE OR REPLACE FUNCTION pymem._other_owner(a text, b text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    WITH y AS MATERIALIZED (SELECT * FROM pymem._possessions(b))
    SELECT EXISTS (
        SELECT
        FROM pymem._possessions(a) AS x
        INNER JOIN y ON x.noun = y.noun AND x.by_of <> y.by_of
        WHERE x.owner <> y.owner
            -- unless the owner of a's relation owns it in b too, said the other way
            AND (x.noun, x.owner) NOT IN (SELECT z.noun, z.owner FROM y AS z)
    )
$$;

-- The people a text names: capitalized words that are no function words or
-- titles ('N:' and the word's stem), and words for a person the
-- memory is about, English and Chinese, one name for each relation
-- ('K:wife' for "wife", "老婆", "妻子"; 'K:father' for "dad", "父亲"); in
-- Chinese also the two characters a text starts with when they are a
-- surname and a name ('Z:李娜'), since Chinese names have no capitals.
CREATE OR REPLACE FUNCTION pymem._people(content text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(
    SELECT DISTINCT p.person
    FROM (
        SELECT 'N:' || pymem._stem(lower(w[1])) AS person
        FROM regexp_matches(content, '[A-Z][A-Za-z]+', 'g') AS w
        WHERE
            lower(w[1]) <> all(pymem._function_words())
            AND lower(w[1]) NOT IN ('mr', 'mrs', 'ms', 'dr', 'prof', 'st')
        UNION ALL
        SELECT
            'K:' || (pymem._person_words() ->> coalesce(
                CASE
                    WHEN right(w[1], 1) = 's' AND pymem._person_words() ? left(w[1], -1)
                        THEN left(w[1], -1)
                END,
                w[1]
            ))
        FROM regexp_matches(lower(content), '[a-z]+', 'g') AS w
        WHERE
            pymem._person_words() ? w[1]
            OR (right(w[1], 1) = 's' AND pymem._person_words() ? left(w[1], -1))
        UNION ALL
        SELECT 'K:' || (pymem._person_words() ->> w[1])
        FROM
            regexp_matches(
                content,
                '老婆|妻子|太太|媳妇|老公|丈夫|爱人|伴侣|男朋友|女朋友|对象|妈妈|母亲|爸爸|父亲|父母'
                || '|儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|表哥|表姐|表弟|表妹|堂哥|堂姐|叔叔|阿姨|舅舅'
                || '|姑姑|外甥|侄子|侄女|爷爷|奶奶|外公|外婆|孙子|孙女|朋友|室友|邻居|同事|老板|领导'
                || '|老师|学生|同学|房东',
                'g'
            ) AS w
        UNION ALL
        SELECT 'Z:' || z[1]
        FROM regexp_matches(
            content,
            '^\s*([王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤]'
            || '[^的了吗呢吧啊呀嘛么是在我你他她它们这那哪个些什怎谁和与及或就都也又把被给让对向从于之其而所请问能会可要想该应[:space:][:punct:]，。、；：？！a-zA-Z0-9])'
        ) AS z
    ) AS p
    ORDER BY p.person
);

-- Whether another order of the shared terms, in a short statement that
-- says no shared term twice, exchanges the parties' roles: two terms trade
-- places around a term that stays between them, or keeping the little words
-- that linked them (pymem._traded_terms); two names trade places, unless
-- both texts say the same of who owns what ("Lena's roommate Priya" /
-- "Priya, Lena's roommate"; "Rosa taught Omar" / "Omar gave Rosa lessons"
-- is a swap); or both texts say who owns what, differently. Any other
-- reorder is a restatement's, even with a word changed ("Maya drinks her
-- coffee with oat milk" / "Maya takes oat milk in her coffee"), unless a
-- text compares (pymem._term_difference).
CREATE OR REPLACE FUNCTION pymem._exchanged_roles(a text, b text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    WITH s AS MATERIALIZED (
        SELECT
            array(
                SELECT substr(p, 3) FROM unnest(pymem._people(a)) AS p WHERE p LIKE 'N:%'
            ) AS names,
            (SELECT array_agg(p ORDER BY p) FROM pymem._possessions(a) AS p) AS owned_a,
            (SELECT array_agg(p ORDER BY p) FROM pymem._possessions(b) AS p) AS owned_b
    )
    SELECT
        -- who owns what changed ("A small press published Yuki's novel" /
        -- "Yuki's small press published a novel")
        coalesce(s.owned_a <> s.owned_b, FALSE)
        OR EXISTS (
            SELECT
            FROM pymem._traded_terms(a, b) AS t
            WHERE t.anchored OR t.linked OR (
                -- names that trade places, unless both texts say who owns what alike
                t.x = ANY(s.names) AND t.y = ANY(s.names)
                AND NOT coalesce(s.owned_a = s.owned_b, FALSE)
            )
        )
    FROM s
$$;

-- Whether two texts are about the same people (pymem._people): NULL when
-- neither names anyone; else every name of each occurs in the other (as a
-- word of the same stem, in any case: "Every Friday Kenji ..." / "... every
-- Friday"; a Chinese name anywhere in the other text) and both name the same
-- relations ("Jonas works at a bakery" / "Jonas's wife works at a bakery",
-- "Priya's thesis ... Professor Shah" / "... Professor Lin": FALSE).
CREATE OR REPLACE FUNCTION pymem._same_people(a text, b text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (
    SELECT
        CASE
            WHEN cardinality(p.people_a) + cardinality(p.people_b) = 0 THEN NULL
            ELSE
                array(
                    SELECT x FROM unnest(p.people_a) AS x
                    WHERE x LIKE 'K:%'
                )
                = array(
                    SELECT x FROM unnest(p.people_b) AS x
                    WHERE x LIKE 'K:%'
                )
                AND NOT EXISTS (
                    SELECT FROM unnest(p.people_a) AS x
                    WHERE
                        (x LIKE 'N:%' AND substr(x, 3) <> all(p.words_b))
                        OR (x LIKE 'Z:%' AND strpos(b, substr(x, 3)) = 0)
                )
                AND NOT EXISTS (
                    SELECT FROM unnest(p.people_b) AS x
                    WHERE
                        (x LIKE 'N:%' AND substr(x, 3) <> all(p.words_a))
                        OR (x LIKE 'Z:%' AND strpos(a, substr(x, 3)) = 0)
                )
        END
    FROM (
        SELECT
            pymem._people(a) AS people_a,
            pymem._people(b) AS people_b,
            array(
                SELECT pymem._stem(w[1]) FROM regexp_matches(lower(a), '[a-z]+', 'g') AS w
            ) AS words_a,
            array(
                SELECT pymem._stem(w[1]) FROM regexp_matches(lower(b), '[a-z]+', 'g') AS w
            ) AS words_b
    ) AS p
);

-- Lexical tokens of a query: ASCII words of 3+ letters (minus common
-- question words) and, for text without spaces such as Chinese, every
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
            w[1] NOT IN (
                'the', 'and', 'for', 'what', 'where', 'when', 'who', 'whom', 'why', 'how',
                'does', 'did', 'was', 'were', 'are', 'has', 'have', 'had', 'with', 'about',
                'user', 'users', 'their', 'they', 'this', 'that', 'there', 'any', 'can', 'you',
                'your', 'from', 'into', 'tell', 'know', 'which'
            )
        UNION ALL
        SELECT substr(run[1], i, 2)
        FROM regexp_matches(lower(coalesce(query_text, '')), '[^[:ascii:][:space:][:punct:]，。、；：？！“”‘’（）《》【】…—～·「」『』]+', 'g') AS run,
            generate_series(1, greatest(char_length(run[1]) - 1, 1)) AS i
        WHERE
            substr(run[1], i, 2)
            NOT IN ('什么', '怎么', '哪里', '哪儿', '是不', '不是', '用户', '吗', '呢', '的')
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
