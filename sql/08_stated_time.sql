-- How long a temporary memory says it holds.
--
-- A state is written the way people say it: "Ravi is on paternity leave
-- until the end of the month", "Mei is working from home this week",
-- "王强这个月在戒酒", "Ruth is hoarse today". Its kind's default lifetime (a
-- state: three days) would end the first long before it stops being true,
-- and recall would leave out exactly what holds now, or keep the last two
-- days after it ended. A write of a kind with a default lifetime and no
-- valid_until of its own takes the end its text states, and the kind's
-- lifetime only when the text states none (pymem._prepare_item).
--
-- What is read is the closed grammar of durations and points in time, in
-- English and Chinese, not words of any topic: "today", "tonight", "this
-- week(end)", "next week", "this month", "the end of the month", "this
-- year", "for two weeks", "for the next 3 days", "a fortnight", "half a
-- month", "until Monday", "until the part arrives next Tuesday", and
-- 今天, 今晚, 明天, 这周, 本周, 下周, 这个月, 月底, 今年, 这两天,
-- 两周, 三个月, 半个月, 半年, 到下周一, "this Sunday", 这周四, "until March",
-- 到三月底, "until March 5th", "through the 15th", 到3月5日, 这个月20号 (a day
-- already past ends nothing) (in traditional characters too:
-- 這個禮拜, 到下個月底, read through pymem._simplified_han). Several in one
-- text: the latest end wins. Weeks
-- start on Monday (ISO, date_trunc), and "this week" said at the weekend is
-- the week ahead; days end at midnight in the session's TimeZone.

-- A count written as digits or as a word ('two', 'a couple of', '两', '十二').
-- String functions, not patterns: _stated_until calls it on every write of a
-- state, and a session keeps 32 compiled patterns.
CREATE OR REPLACE FUNCTION pymem._count_word(word text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    SELECT CASE
        WHEN length(word) BETWEEN 1 AND 3 AND translate(word, '0123456789', '') = ''
            THEN word::integer
        WHEN word IN ('a', 'an', 'one', 'a single') THEN 1
        WHEN word IN ('two', 'a couple of', 'couple of') THEN 2
        WHEN word IN ('three', 'a few', 'few') THEN 3
        WHEN word = 'four' THEN 4
        WHEN word = 'five' THEN 5
        WHEN word = 'six' THEN 6
        WHEN word = 'seven' THEN 7
        WHEN word = 'eight' THEN 8
        WHEN word = 'nine' THEN 9
        WHEN word = 'ten' THEN 10
        WHEN word = 'eleven' THEN 11
        WHEN word = 'twelve' THEN 12
        -- Chinese: 一 .. 九, 十, 十X, X十, X十Y; 两 is 2 (w: 1-9 and 十)
        WHEN word <> '' AND translate(word, '一二两三四五六七八九十', '') = '' THEN (
            WITH d AS (
                SELECT translate(word, '一二两三四五六七八九', '1223456789') AS w
            )
            SELECT CASE
                WHEN w = '十' THEN 10
                WHEN length(w) = 1 THEN w::integer
                WHEN length(w) = 2 AND left(w, 1) = '十' AND right(w, 1) <> '十'
                    THEN 10 + right(w, 1)::integer
                WHEN length(w) = 2 AND left(w, 1) <> '十' AND right(w, 1) = '十'
                    THEN 10 * left(w, 1)::integer
                WHEN length(w) = 3 AND substr(w, 2, 1) = '十' AND left(w, 1) <> '十'
                    AND right(w, 1) <> '十'
                    THEN 10 * left(w, 1)::integer + right(w, 1)::integer
            END
            FROM d
        )
    END
$$;

-- The place of the first group of a match that matched (regexp_matches gives the
-- others NULL): which branch of a pattern of branches, one group each, matched.
CREATE OR REPLACE FUNCTION pymem._first_group(groups text[])
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (
    SELECT min(g.n) FROM unnest(groups) WITH ORDINALITY AS g (x, n)
    WHERE g.x IS NOT NULL
);

-- The end a text states for what it says, or NULL when it states none.
CREATE OR REPLACE FUNCTION pymem._stated_until(content text, at timestamptz)
RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_text text := lower(pymem._simplified_han(content));
    v_day timestamptz := date_trunc('day', at);
    v_week timestamptz := date_trunc('week', at);
    v_month timestamptz := date_trunc('month', at);
    v_ends timestamptz[] := '{}';
    v_match text[];
    v_rule integer;
    v_count integer;
    v_weekday integer;
    v_weekdays constant text := 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
    v_until constant text := 'until|till|til|through|thru';
    v_named_month integer;
    v_named_day integer;
    -- after a month: its day follows (到3月5日, 下个月5号: the day is read below)
    v_no_day constant text := '(?![0-9一二三四五六七八九十]{1,3}[日号])';
    v_first date;
    v_date date;
    v_month_start timestamptz;
    v_month_names constant text := pymem._alternation(pymem._month_names());
    -- "until March" (a month: groups 1-3), "until March 5th", "till 5 March", "through
    -- the 15th", "until 2027-03-05" (a day: groups 4-12); one pattern for both loops
    v_until_date constant text := '\m(' || v_until || ')\s+(?:(the\s+end\s+of\s+)?('
        || v_month_names || ')\M(?!\.?\s+[0-9]{1,2}(?![0-9]))|(?:the\s+)?(?:('
        || v_month_names || ')\.?\s+([0-9]{1,2})(?:st|nd|rd|th)?|([0-9]{1,2})(?:st|nd|rd|th)?'
        || '\s+(?:of\s+)?(' || v_month_names || ')|([0-9]{1,2})(?:st|nd|rd|th)(?!\s+[a-z])'
        || '|([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}))\M(?:,?\s+([0-9]{4})\M)?)';
    -- 到三月, 到三月底 (a month: 1-2), 到3月5日, 到下个月5号, 3月5日之前 (a day: 3-9)
    v_until_date_zh constant text := '(?:到|直到)([0-9]{1,2}|[一二三四五六七八九十]{1,3})月'
        || v_no_day || '(底|末)?|(到|直到)?(?:([0-9]{4})年)?(?:([0-9]{1,2}|[一二三四五六七八九十]{1,3})月'
        || '|(这个?月|本月)|(下个?月))([0-9]{1,2}|[一二两三四五六七八九十]{1,3})[日号](之前|以前|为止|前)?';
BEGIN
    IF content IS NULL OR at IS NULL OR NOT isfinite(at) THEN
        RETURN NULL;
    END IF;
    -- most texts name no time: one scan for any word the rules below start from
    -- (recall asks this of every question with words)
    IF v_text !~ ('\m(today|tonight|tomorrow|this|next|for|over|during|end|until|till|til|half|fortnight'
        '|through|thru|weekend)\M|[0-9]|[今明天晚日周星期礼拜月年两几]') THEN
        RETURN NULL;
    END IF;
    -- points in time: the end of the day, week, month or year they name; a scan a
    -- language, a group a rule, the rule's number from the group's place. (A session
    -- keeps 32 compiled patterns and every write of a state reads its text here; a
    -- pattern of English and Chinese at once compiles several times slower than
    -- the two apart.) A weekday after a week names that day (这周五, 下周一: below).
    -- "this week" said on a Saturday or a Sunday is the week ahead: its days are the
    -- ones still to come (the weekend itself is "this weekend").
    FOR v_rule IN
        SELECT (ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12])[pymem._first_group(r)]
        FROM regexp_matches(
            v_text,
            '\m(?:(today|tonight|this (?:morning|afternoon|evening))|(tomorrow)|((?:this|all) weekend)'
            '|((?:this|for the(?: rest of the)?) week)|(next week)'
            '|(this month|(?:the )?end of (?:the|this) month)|(next month)'
            '|(this year|(?:the )?end of (?:the|this) year)|((?:a|the next|this) fortnight)'
            '|(half a month)|(half a year|six months))\M',
            'g'
        ) AS r
        UNION ALL
        SELECT (ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12])[pymem._first_group(r)]
        FROM regexp_matches(
            v_text,
            '(今天|今晚|今日|今儿)|(明天)|((?:这|本)个?周末)'
            '|((?:这周|本周|这个?星期|这个?礼拜)(?![一二三四五六日天末]))'
            '|((?:下周|下个?星期|下个?礼拜)(?![一二三四五六日天]))'
            '|((?:这个?月|本月)' || v_no_day || '|月底|月末)|(下个?月' || v_no_day || ')'
            '|(今年|年底|年末)|(这两天|这几天|最近几天)|(半个月)|(半年)',
            'g'
        ) AS r
    LOOP
        v_ends := v_ends || CASE v_rule
            WHEN 1 THEN v_day + interval '1 day'
            WHEN 2 THEN v_day + interval '2 days'
            WHEN 3 THEN v_week + interval '7 days'
            WHEN 4 THEN v_week + CASE WHEN extract(isodow FROM at) >= 6
                THEN interval '14 days' ELSE interval '7 days' END
            WHEN 5 THEN v_week + interval '14 days'
            WHEN 6 THEN v_month + interval '1 month'
            WHEN 7 THEN v_month + interval '2 months'
            WHEN 8 THEN date_trunc('year', at) + interval '1 year'
            WHEN 9 THEN at + interval '3 days'
            WHEN 10 THEN at + interval '14 days'
            WHEN 11 THEN at + interval '15 days'
            ELSE at + interval '6 months'
        END;
    END LOOP;
    -- a month named: "until March", "到三月" hold until it starts; "through March",
    -- "until the end of March", "到三月底" until it ends. The next such month from
    -- today; this month's end when it is this month.
    FOR v_match IN
        -- (a day after the month names the day: below, from the same patterns)
        SELECT ARRAY[r[3], CASE WHEN r[1] IN ('through', 'thru') OR r[2] IS NOT NULL THEN 'end' END]
        FROM regexp_matches(v_text, v_until_date, 'g') AS r
        WHERE r[3] IS NOT NULL
        UNION ALL
        SELECT ARRAY[r[1], CASE WHEN r[2] <> '' THEN 'end' END]
        FROM regexp_matches(v_text, v_until_date_zh, 'g') AS r
        WHERE r[1] IS NOT NULL
    LOOP
        v_named_month := coalesce(pymem._month_number(v_match[1]), pymem._count_word(v_match[1]));
        CONTINUE WHEN v_named_month IS NULL OR v_named_month NOT BETWEEN 1 AND 12;
        v_month_start := v_month + make_interval(
            months => (v_named_month - extract(month FROM v_month)::integer + 12) % 12
        );
        v_ends := v_ends || CASE
            WHEN v_match[2] = 'end' OR v_month_start = v_month THEN v_month_start + interval '1 month'
            ELSE v_month_start
        END;
    END LOOP;
    -- a day named: "until March 5th", "till 5 March", "through the 15th", "until
    -- 2027-03-05", 到3月5日, 直到三月五号, 到下个月5号, 3月5日之前: the end of that
    -- day, as "until Monday". Without a year, the next such day from today; a day
    -- without its month, this month's, or the next month's once this month's is past.
    -- (the month, the day, the year, which month a Chinese day without one names)
    FOR v_match IN
        SELECT ARRAY[coalesce(r[4], r[7], r[10]), coalesce(r[5], r[6], r[8], r[11]),
            coalesce(r[9], r[12]), NULL]
        FROM regexp_matches(v_text, v_until_date, 'g') AS r
        WHERE r[3] IS NULL
        UNION ALL
        SELECT ARRAY[r[5], r[8], r[4], coalesce(r[6], r[7])]
        FROM regexp_matches(v_text, v_until_date_zh, 'g') AS r
        -- (a Chinese day is an end with 到 before it or 之前 after it, or said of this
        -- or next month: 这个月20号回来)
        WHERE r[8] IS NOT NULL
            AND (r[3] IS NOT NULL OR r[9] IS NOT NULL OR r[6] IS NOT NULL OR r[7] IS NOT NULL)
    LOOP
        v_named_day := pymem._count_word(v_match[2]);
        CONTINUE WHEN v_named_day IS NULL OR v_named_day NOT BETWEEN 1 AND 31
            OR v_match[3]::integer NOT BETWEEN 1 AND 9999;
        IF v_match[4] IS NOT NULL THEN
            v_first := (v_month + CASE WHEN v_match[4] LIKE '下%' THEN interval '1 month'
                ELSE interval '0' END)::date;
        ELSIF v_match[1] IS NULL THEN
            -- "until the 3rd", said on the 9th: next month's
            v_first := (v_month + CASE WHEN v_named_day < extract(day FROM at)
                THEN interval '1 month' ELSE interval '0' END)::date;
        ELSE
            v_named_month := coalesce(pymem._month_number(v_match[1]), pymem._count_word(v_match[1]));
            CONTINUE WHEN v_named_month IS NULL OR v_named_month NOT BETWEEN 1 AND 12;
            v_first := make_date(
                coalesce(v_match[3]::integer, extract(year FROM at)::integer), v_named_month, 1
            );
            IF v_match[3] IS NULL AND v_first + (v_named_day - 1) < v_day::date THEN
                v_first := (v_first + interval '1 year')::date;
            END IF;
        END IF;
        v_date := v_first + (v_named_day - 1);
        -- "February 30th" names no day; a day already past ("until 2019-03-05",
        -- 到这个月5号 said on the 9th) ends nothing still to come
        CONTINUE WHEN date_trunc('month', v_date) <> v_first OR (v_date + 1)::timestamptz <= at;
        v_ends := v_ends || (v_date + 1)::timestamptz;
    END LOOP;
    -- spans: "for two weeks", "for the next 3 days", "两周", "三个月"
    FOR v_match IN
        SELECT r FROM regexp_matches(
            v_text,
            '\m(?:for|over|during|the next|next)\s+(?:the\s+(?:next\s+)?)?'
            '([0-9]{1,3}|a couple of|couple of|a few|few|a single|a|an|one|two|three|four|five|six'
            '|seven|eight|nine|ten|eleven|twelve)\s+(day|week|fortnight|month)s?\M',
            'g'
        ) AS r
        UNION ALL
        SELECT r FROM regexp_matches(
            v_text, '([0-9]{1,3}|[一二两三四五六七八九十]{1,3})\s*(天|周|个星期|个礼拜|个月)', 'g'
        ) AS r
    LOOP
        v_count := pymem._count_word(v_match[1]);
        CONTINUE WHEN v_count IS NULL OR v_count < 1;
        v_ends := v_ends || (at + CASE
            WHEN v_match[2] IN ('day', '天') THEN make_interval(days => v_count)
            WHEN v_match[2] IN ('week', '周', '个星期', '个礼拜') THEN make_interval(days => 7 * v_count)
            WHEN v_match[2] = 'fortnight' THEN make_interval(days => 14 * v_count)
            ELSE make_interval(months => v_count)
        END);
    END LOOP;
    -- "until Monday", "till next friday", "until the part arrives next Tuesday" (up
    -- to six words between, in one clause), "到周五", "到下周一", "这周三之前": the end
    -- of that day. In English, the next one after today ("next": a week later). In
    -- Chinese, 这周三 and 下周一 name the day of this and next (ISO) week, and a day
    -- with neither is the next one after today.
    FOR v_match IN
        -- (alone: a pattern of branches, "a|b", takes the longest match, and this one
        -- takes the fewest words between)
        SELECT ARRAY[btrim(r[1]), r[2]] FROM regexp_matches(
            v_text,
            '\m(?:' || v_until || ')\s+(?:[^\s.;!?]+\s+){0,6}?(next\s+|this\s+)?'
            '(' || v_weekdays || ')\M',
            'g'
        ) AS r
        UNION ALL
        -- 到周五, 到下周一, 这周三之前, and a day of this week said alone ("closed this
        -- Saturday", 这周四要复查, 这个星期天要加班): that day's
        SELECT ARRAY[r[2], r[3]] FROM regexp_matches(
            v_text, '(到|直到)?(下|这|本)?个?(?:周|星期|礼拜)([一二三四五六日天])(之前|以前|为止)?', 'g'
        ) AS r
        WHERE r[1] IS NOT NULL OR r[4] IS NOT NULL OR r[2] IN ('这', '本')
        UNION ALL
        SELECT ARRAY['this day', r[1]] FROM regexp_matches(
            v_text, '\mthis\s+(' || v_weekdays || ')\M', 'g'
        ) AS r
    LOOP
        v_weekday := CASE v_match[2]
            WHEN 'monday' THEN 1 WHEN 'tuesday' THEN 2 WHEN 'wednesday' THEN 3
            WHEN 'thursday' THEN 4 WHEN 'friday' THEN 5 WHEN 'saturday' THEN 6
            WHEN 'sunday' THEN 7 WHEN '一' THEN 1 WHEN '二' THEN 2 WHEN '三' THEN 3
            WHEN '四' THEN 4 WHEN '五' THEN 5 WHEN '六' THEN 6 ELSE 7
        END;
        v_ends := v_ends || CASE
            WHEN v_match[1] IN ('这', '本') THEN v_week + make_interval(days => v_weekday)
            WHEN v_match[1] = '下' THEN v_week + make_interval(days => 7 + v_weekday)
            -- (today's, when it is today)
            WHEN v_match[1] = 'this day' THEN v_day
                + make_interval(days => ((v_weekday - extract(isodow FROM v_day)::integer + 7) % 7) + 1)
            ELSE v_day
                + make_interval(days => ((v_weekday - extract(isodow FROM v_day)::integer + 6) % 7) + 1)
                + CASE WHEN v_match[1] = 'next' THEN interval '7 days' ELSE interval '0' END
                + interval '1 day'
        END;
    END LOOP;
    RETURN (SELECT max(e) FROM unnest(v_ends) AS e);
END;
$$;

-- Whether a question asks about the present: it names a time that holds now
-- ("this week", "today", "这个月": the grammar above) or says now in so many
-- words ("now", "at the moment", "currently", "these days", "yet", "still",
-- 现在, 目前, 这阵子, 这段时间, 最近, 还...吗). Recall raises the states
-- valid at its instant only for such a question: a state answers what holds
-- now, and ranked above everything else it crowded out the answers to
-- questions about anything else.
CREATE OR REPLACE FUNCTION pymem._asks_about_now(query_text text, at timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
    -- English and Chinese in one pattern (a session keeps 32 compiled patterns)
    SELECT lower(pymem._simplified_han(query_text)) ~ (
        '\m(now|nowadays|currently|current|right now|at the moment|at present|presently'
        '|these days|this time|yet|still|anymore|any more|lately|recently|so far)\M'
        '|(现在|目前|当前|这阵子|这段时间|这些天|最近|近来|眼下|此刻|还[^，。？?]*[吗没]|了吗|了没)'
    )
        OR pymem._stated_until(query_text, at) IS NOT NULL
$$;

-- Whether a question asks about a value before the current one ("where did
-- Kang live before he moved to KL?", "what job did she have before?",
-- 调走之前是做什么的, 以前住在哪个区): it says before in so many words.
-- Recall then ranks the older of two values of one thing above the newer, and
-- an earlier value above its current one (sql/30_recall.sql): the other way
-- round, the old value the question asks for was pushed out by the new one
-- (eight of the 45 questions the development streams missed).
CREATE OR REPLACE FUNCTION pymem._asks_about_before(query_text text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN lower(pymem._simplified_han(query_text)) ~ (
    '\m(before|previously|formerly|former|used to|in the past|prior to|back then)\M'
    '|(以前|之前|原来|过去|从前|早先|当初|原先)'
);

-- How much more a question about the present lifts the states valid at its
-- instant than a recall without words does (settings.recall_state_boost):
-- asked what holds now, a live state is the likeliest answer, even when its
-- words are far from the question's ("is Mei in the office this week?" of
-- "Mei is working from home this week"). Half as much again, not more: a
-- larger lift let two live states crowd out the current value of a fact
-- asked about now ("what is Nadia driving now?") on the development streams
-- (docs/eval.md).
CREATE OR REPLACE FUNCTION pymem._now_state_lift()
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 1.5;

-- Whether a question asks for a value ("where is Marco staying at the
-- moment?", "what does Ravi do now?", 老周现在在哪儿？) rather than whether
-- something holds ("is Ravi back at work yet?", 豆豆还在发烧吗？): it opens
-- with an English question word or holds a Chinese one (哪, 谁, 什么, 几 but
-- not 这几天's), and does not end in 吗. Closed-class words of the grammar,
-- not of any subject.
CREATE OR REPLACE FUNCTION pymem._asks_for_a_value(query_text text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN (
    lower(pymem._simplified_han(query_text)) ~ (
        '^\W*(' || array_to_string(pymem._question_words(), '|') || ')\M'
        || '|(什么|啥|哪|谁|(?<!这)几|怎么|怎样|多少)'
    )
) AND right(rtrim(pymem._simplified_han(query_text), ' 　?？!！。.'), 1) <> '吗';

-- What share of the lift of a question about the present (pymem._now_state_lift)
-- a question asking for a value gives the live states: a state is then one
-- answer among the user's values, not the likeliest. Chosen on the development
-- streams D, E, G and H (docs/eval.md): with the whole lift, live states crowded
-- out the current job or home asked about now ("who does Thandi work for these
-- days?"); with none, a state asked for by 馒头最近谁在照顾？ was lost; at
-- half, neither.
CREATE OR REPLACE FUNCTION pymem._value_question_state_lift()
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 0.5;

-- The lift of live states for a question (a multiple of
-- settings.recall_state_boost): as a recall without words has it (1), none when
-- the question does not ask about the present (asks_now), else the lift of a
-- question about the present, or the part of it a question asking for a value
-- gives.
CREATE OR REPLACE FUNCTION pymem._question_state_lift(query_text text, asks_now boolean)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN nullif(btrim(query_text), '') IS NULL THEN 1.0
    WHEN NOT asks_now THEN 0.0
    WHEN pymem._asks_for_a_value(query_text) THEN pymem._value_question_state_lift()
    ELSE pymem._now_state_lift()
END;

-- The days a question asks about, when it names them: "on 16 June, 2023",
-- "June 16th 2023", "in August 2023", "2023-06-16", "2023年6月16日", "6月16日",
-- "yesterday", "the day before yesterday", "last week", "last weekend",
-- "last month", "last year", 昨天, 前天, 上周, 上个月, 去年. Recall lifts
-- the memories written in that span (pymem._asked_time_boost): asked what
-- was said on a day, the memories of that day answer, whatever their words.
-- A named day is taken with a day either side (what was said on the 16th
-- was often written on the 15th or the 17th, across midnight or in the
-- next session); a date without a year is the latest such day not after
-- `at`. NULL when the question names no day; of several, the first named
-- (a day before a month, a month before a relative span). Days in the
-- session's TimeZone.
CREATE OR REPLACE FUNCTION pymem._asked_window(query_text text, at timestamptz)
RETURNS tstzrange
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
-- Five patterns: a backend keeps 32 compiled regular expressions, and recall
-- runs these after _query_tokens and _asks_about_now (with _stated_until's);
-- one pattern per word pair here had it compile them all again on every
-- question (2 ms a question)
AS $$
DECLARE
    v_text text := lower(pymem._simplified_han(query_text));
    v_day timestamptz := date_trunc('day', at);
    v_month_names constant text := pymem._alternation(pymem._month_names());
    v_m text [];
    v_month integer;
    v_date date;
BEGIN
    IF query_text IS NULL OR at IS NULL OR NOT isfinite(at) THEN
        RETURN NULL;
    END IF;
    -- most questions name no day: one scan for anything the rules start from
    IF v_text !~ ('[0-9]{4}|[0-9]\s*[月日号]|\m(' || v_month_names
        || ')\M|\m(yesterday|last)\M|昨|前天|上个?[周星礼月]|去年') THEN
        RETURN NULL;
    END IF;
    -- a day with its month named: "16 june, 2023", "16th of june", "june 16th 2023"
    v_m := regexp_match(v_text,
        '\m(?:([0-9]{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(' || v_month_names || ')\M'
        '|(' || v_month_names || ')\.?\s+([0-9]{1,2})(?:st|nd|rd|th)?\M)\.?,?\s*([0-9]{4})?');
    IF v_m IS NOT NULL THEN
        v_month := pymem._month_number(coalesce(v_m[2], v_m[3]));
        v_m := ARRAY[coalesce(v_m[1], v_m[4]), v_m[5]];
    ELSE
        -- ISO and Chinese: "2023-06-16", "2023年6月16日", "6月16号"
        v_m := regexp_match(v_text,
            '\m([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\M|(?:([0-9]{4})年)?([0-9]{1,2})月([0-9]{1,2})[日号]');
        IF v_m IS NOT NULL THEN
            v_month := coalesce(v_m[2], v_m[5])::integer;
            v_m := ARRAY[coalesce(v_m[3], v_m[6]), coalesce(v_m[1], v_m[4])];
        END IF;
    END IF;
    -- v_m: the day, the year or NULL
    IF v_m IS NOT NULL AND v_month BETWEEN 1 AND 12 AND v_m[1]::integer BETWEEN 1 AND 31 THEN
        v_date := make_date(
            coalesce(v_m[2]::integer, extract(year FROM at)::integer), v_month, 1
        ) + (v_m[1]::integer - 1);
        -- no year: the latest such day not after the question
        IF v_m[2] IS NULL AND v_date > v_day::date THEN
            v_date := (v_date - interval '1 year')::date;
        END IF;
        -- "31 june" names no day (with a year, its month is taken below)
        IF extract(month FROM v_date) = v_month THEN
            RETURN tstzrange(
                v_date::timestamptz - interval '1 day', v_date::timestamptz + interval '2 days'
            );
        END IF;
    END IF;
    -- a month of a year: "in august 2023", "aug 2023", "2023年8月"
    v_m := regexp_match(v_text,
        '\m(' || v_month_names || ')\.?,?\s+([0-9]{4})\M|([0-9]{4})年([0-9]{1,2})月(?![0-9])');
    IF v_m IS NOT NULL THEN
        v_month := coalesce(
            pymem._month_number(v_m[1]), v_m[4]::integer
        );
        IF v_month BETWEEN 1 AND 12 THEN
            v_date := make_date(coalesce(v_m[2], v_m[3])::integer, v_month, 1);
            RETURN tstzrange(v_date::timestamptz, (v_date + interval '1 month')::timestamptz);
        END IF;
    END IF;
    -- days and spans before `at`: the first named
    v_m := regexp_match(v_text,
        '(\mthe day before yesterday\M|前天)|(\myesterday\M|昨天|昨晚|昨日)'
        '|(\mlast weekend\M|上个?周末)|(\mlast week\M|上个?(?:周|星期|礼拜))'
        '|(\mlast month\M|上个?月)|(\mlast year\M|去年)');
    RETURN CASE
        WHEN v_m IS NULL THEN NULL
        WHEN v_m[1] IS NOT NULL THEN tstzrange(v_day - interval '2 days', v_day - interval '1 day')
        WHEN v_m[2] IS NOT NULL THEN tstzrange(v_day - interval '1 day', v_day)
        WHEN v_m[3] IS NOT NULL
            THEN tstzrange(date_trunc('week', at) - interval '2 days', date_trunc('week', at))
        WHEN v_m[4] IS NOT NULL
            THEN tstzrange(date_trunc('week', at) - interval '7 days', date_trunc('week', at))
        WHEN v_m[5] IS NOT NULL
            THEN tstzrange(date_trunc('month', at) - interval '1 month', date_trunc('month', at))
        ELSE tstzrange(date_trunc('year', at) - interval '1 year', date_trunc('year', at))
    END;
END;
$$;

-- How much a memory written in the span a question names is lifted
-- (pymem._asked_window): twice the default lift of a live state, so that
-- a memory of that day ranks above a closer wording of another day's; the
-- span is only ever taken from the question's own words.
CREATE OR REPLACE FUNCTION pymem._asked_time_boost()
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 0.2;
