-- Who a statement is about: the people it names, what they own or are
-- related to, and whether two statements name the same people.

CREATE OR REPLACE FUNCTION pymem._person_words()
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN '{"wife": "wife", "wives": "wife", "husband": "husband", "spouse": "spouse",
  "partner": "partner", "boyfriend": "boyfriend", "girlfriend": "girlfriend",
  "fiance": "fiance", "fiancee": "fiance", "mother": "mother", "father": "father",
  "parent": "parent", "son": "son", "daughter": "daughter", "child": "child", "baby": "baby",
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
  "房东": "landlord"}'::jsonb || pymem._kin_folds();

-- The Chinese words of pymem._person_words as one alternation, the longest
-- first ("男朋友" before "朋友").
CREATE OR REPLACE FUNCTION pymem._chinese_person_pattern()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN pymem._alternation(array(
    SELECT w FROM jsonb_object_keys(pymem._person_words()) AS w
    WHERE pymem._has_han(w)
    ORDER BY length(w) DESC, w
));

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
            '\m(?:' || pymem._alternation(pymem._articles()) || ')\s+([[:alpha:]]+)\s+of\s+'
            || '(?:(?:' || pymem._alternation(pymem._determiners()) || ')\s+)?([[:alpha:]]+)',
            'gi'
        ) AS m (m)
    ) AS p
    WHERE (
        p.owner ~ '^[[:upper:]]'
        AND lower(p.owner) !~ ('^(' || pymem._value_pattern_for(lower(p.owner)) || ')$')
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
                pymem._chinese_person_pattern(),
                'g'
            ) AS w
        UNION ALL
        SELECT 'Z:' || z[1]
        FROM regexp_matches(
            content,
            '^\s*([王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤]'
            || '[^' || pymem._chinese_function_characters()
            || '[:space:][:punct:]，。、；：？！a-zA-Z0-9])'
        ) AS z
    ) AS p
    ORDER BY p.person
);

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
