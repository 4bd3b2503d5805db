-- Whether the shared terms of two statements come in another order, and
-- whether that order exchanges the parties' roles ("Ana mentors Tom" /
-- "Tom mentors Ana") or only moves a clause; the term difference the
-- decision reads (pymem._term_difference).

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
RETURN '\m(?:' || pymem._alternation(pymem._pronouns()) || ')\M|[我你他她您]';

-- Whether a text states who does what the other way round: a passive with
-- its agent ("was hired by", "被", "由", but not "由于"), or in Chinese the
-- object put before its verb ("把烟戒了" for "戒烟").
CREATE OR REPLACE FUNCTION pymem._passive(content text)
RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN lower(content) ~ ('\m(' || pymem._alternation(pymem._be_and_get()) || ')\M.*\mby\M')
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
        WHERE m.token = ANY(pymem._direction_words())
        ORDER BY 1
    )
$$;

-- pymem._direction_words as LIKE patterns ('%from%'): a text that holds none
-- is not tokenised.
CREATE OR REPLACE FUNCTION pymem._direction_patterns()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN array(SELECT '%' || w || '%' FROM unnest(pymem._direction_words()) AS w);

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
    SELECT lower(a) LIKE ANY (pymem._direction_patterns())
        AND lower(b) LIKE ANY (pymem._direction_patterns())
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
    v_scale double precision;
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
    v_scale := pymem._term_scale(a || b);
    IF v_last - v_first + 1 > pymem._rule('moved_block_terms') * v_scale
        OR greatest(cardinality(v_ta), cardinality(v_tb))
        > pymem._rule('moved_block_statement_terms') * v_scale
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
        IF NOT v_moved AND v_sa <> v_sb AND pymem._has_han(a || b) THEN
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
                > pymem._rule('short_statement_terms') * pymem._term_scale(a || b)
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
            <= pymem._rule('short_statement_terms') * pymem._term_scale(a || b)
            AND pymem._other_direction(a, b, v_sa));
END;
$$;

-- Relations that name a person, each word with the one name of its relation.

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
