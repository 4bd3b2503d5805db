-- What a statement states: its values (numbers, dates, counts, times of
-- day), its negation and its symbol words (the markers a duplicate must
-- share), the letters of the scripts words are made of, and the value
-- masking that tells a new value of one statement. Normalization and
-- fingerprints live in migration 0001: stored generated columns use them.

-- What counts as a value in a statement: numbers (7.2, 15:00, 3), Chinese
-- numerals, weekdays, month names and relative days. One pattern serves
-- the markers (values must match for a duplicate) and the masking (a
-- statement equal up to its values is that statement's new value).
-- It is kept in three parts by the script each part's values are written in:
-- a text holds a value of the Chinese part only if it holds a Chinese
-- character, of the Russian and Arabic part only if it holds a Cyrillic or an
-- Arabic letter. A new connection compiles each pattern it matches with:
-- the whole one cost about 4 ms to compile against 0.7 ms for the part every
-- text needs, and a connection's first write compiled it two or three times.
-- pymem._value_pattern_for(text) is the parts a text can match (a branch
-- that cannot match changes no match: an alternation takes the longest match
-- at the leftmost place, whatever its order); pymem._value_pattern() is all
-- of them.

-- Numbers, English words of time and count, and Spanish counts.
CREATE OR REPLACE FUNCTION pymem._value_pattern_latin()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
-- a minus sign not inside a word or a range ("-200", not "10-12" or "covid-19"):
-- normalizing drops it, so "-200" and "200" are told apart here
RETURN '(?:(?<![[:alnum:]])[-−])?[0-9]+(?:[.,:][0-9]+)*(?:\s?[ap]\.?m\M\.?)?'
|| '|\m(?:january|february|march|april|june|july|august|september|october'
|| '|november|december|monday|tuesday|wednesday|thursday|friday|saturday'
|| '|sunday|today|tomorrow|yesterday|tonight|morning|afternoon|evening'
-- counts in words ("two cats" / "three cats" are two values; "one" is left
-- out: "one of her friends" is no count)
|| '|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty'
|| '|forty|fifty|hundred|thousand|dozen|once|twice|thrice)\M'
-- and in Spanish, as whole words of their letters (the letters spelled out:
-- pymem._word_letters is defined after this function's callers are planned, and
-- a value must be the same pattern everywhere)
|| '|(?<![a-zа-яё\u00df-\u00ff\u0620-\u065f])(?:'
|| 'dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|veinte|treinta|cien|mil'
|| ')(?![a-zа-яё\u00df-\u00ff\u0620-\u065f])';

-- Chinese weekdays, relative days, parts of the day and numerals.
CREATE OR REPLACE FUNCTION pymem._value_pattern_chinese()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '(?:星期|礼拜|周)[一二三四五六日天]|[今明昨后前]天'
-- the part of the day, as "morning" and "evening" are in English
|| '|早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|凌晨'
|| '|[零二两三四五六七八九十百千万][零一二两三四五六七八九十百千万]*'
|| '|一[零一二两三四五六七八九十百千万]+';

-- Russian and Arabic counts, as whole words of their letters.
CREATE OR REPLACE FUNCTION pymem._value_pattern_cyrillic_arabic()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '(?<![a-zа-яё\u00df-\u00ff\u0620-\u065f])(?:'
|| 'два|две|двух|три|трёх|трех|четыре|пять|шесть|семь|восемь|девять|десять'
|| '|двадцать|тридцать|сто|тысяч[аи]?'
|| '|اثنان|اثنين|اثنتان|ثلاث|ثلاثة|أربع|أربعة|خمس|خمسة|ست|ستة|سبع|سبعة|ثماني|ثمانية'
|| '|تسع|تسعة|عشر|عشرة|مئة|مائة|ألف'
|| ')(?![a-zа-яё\u00df-\u00ff\u0620-\u065f])';

CREATE OR REPLACE FUNCTION pymem._value_pattern()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN pymem._value_pattern_latin() || '|' || pymem._value_pattern_chinese()
|| '|' || pymem._value_pattern_cyrillic_arabic();

-- (neither SET nor STRICT: the caller's query inlines it)
CREATE OR REPLACE FUNCTION pymem._value_pattern_for(content text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN pymem._value_pattern_latin()
|| CASE WHEN pymem._has_han(content) THEN '|' || pymem._value_pattern_chinese() ELSE '' END
|| CASE
    WHEN content ~ '[\u0400-\u04ff\u0600-\u06ff]'
        THEN '|' || pymem._value_pattern_cyrillic_arabic()
    ELSE ''
END;

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
RETURN pymem._hiragana() || pymem._katakana() || pymem._han_characters();

CREATE OR REPLACE FUNCTION pymem._negated(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
-- (one pattern for the words, the Chinese characters by translate: a session keeps
-- 32 compiled patterns, and every write that compares two texts asks this)
RETURN
pymem._strip_intensifiers(content)
~ (
    '\m(' || pymem._alternation(pymem._negation_words()) || ')\M|n''t'
    -- Russian, Spanish, Arabic and Japanese, as whole words of their letters
    -- (\m and \M know a word's letters only where the locale does)
    || '|(?<![' || pymem._word_letters() || '])'
    || '(не|нет|ни|никогда|ничего|никто|без|nunca|jamás|tampoco|nada|nadie'
    || '|لا|ليس|ليست|لم|لن|غير|بدون)'
    || '(?![' || pymem._word_letters() || '])'
    || '|ない|ません|なかった|ぬ|ず(?![っつ])'
)
OR (
    SELECT translate(z.t, '不没沒别別无無未', '') <> z.t
    FROM (
        SELECT regexp_replace(
            pymem._strip_intensifiers(content),
            '(不错|不过|不仅|不同|不少|不久|没想到|无论|毫无疑问|别人|未来)', '', 'g'
        ) AS t
    ) AS z
);

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
            pymem._strip_intensifiers(content), pymem._value_pattern_for(content), 'g'
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
    regexp_replace(
        pymem._strip_intensifiers(content), pymem._value_pattern_for(content), '0', 'g'
    )
);

-- Words that say nothing of the fact by themselves: English function words
-- and "user", which an extracted memory may or may not carry. Negation is
-- the markers' business, so its words are here too.
