-- Cutting text for cards and profiles without splitting a character a
-- reader sees as one.

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
