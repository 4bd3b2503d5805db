"""A temporary memory holds as long as its text says (sql/08_stated_time.sql):
"until the end of the month" is not over the next day, and recall returns it
while it holds and never after."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import unit

# Wednesday 2026-12-09, 15:00 UTC (the tests set the session's TimeZone to UTC)
AT = datetime(2026, 12, 9, 15, 0, tzinfo=timezone.utc)
END_OF_DAY = datetime(2026, 12, 10, tzinfo=timezone.utc)
END_OF_WEEK = datetime(2026, 12, 14, tzinfo=timezone.utc)  # Monday 00:00
END_OF_MONTH = datetime(2027, 1, 1, tzinfo=timezone.utc)

STATED = [
    ("Ravi is on paternity leave until the end of the month", END_OF_MONTH),
    ("Mei is working from home this week because Mochi just had surgery", END_OF_WEEK),
    ("王强这个月在戒酒", END_OF_MONTH),
    ("Priya is off work for two weeks after her knee surgery", AT + timedelta(days=14)),
    ("She is staying with us for the next 3 days", AT + timedelta(days=3)),
    ("Sam is away for a couple of weeks", AT + timedelta(days=14)),
    ("最近三个月在戒糖", AT + timedelta(days=90)),
    ("休假十天", AT + timedelta(days=10)),
    ("这两天嗓子疼", AT + timedelta(days=3)),
    ("Tom is in Osaka until Monday", datetime(2026, 12, 15, tzinfo=timezone.utc)),
    ("Tom is in Osaka until next Monday", datetime(2026, 12, 22, tzinfo=timezone.utc)),
    ("Ana is in hospital till Friday", datetime(2026, 12, 12, tzinfo=timezone.utc)),
    # 下周一 is the Monday of next week, 这周五 this week's Friday
    ("老周到下周一都在出差", datetime(2026, 12, 15, tzinfo=timezone.utc)),
    ("老周到下周五都在出差", datetime(2026, 12, 19, tzinfo=timezone.utc)),
    ("老周这周五之前都在出差", datetime(2026, 12, 12, tzinfo=timezone.utc)),
    ("老周到周五都在出差", datetime(2026, 12, 12, tzinfo=timezone.utc)),
    ("Tom is in Osaka until next  Monday", datetime(2026, 12, 22, tzinfo=timezone.utc)),
    ("Mei is away this weekend", END_OF_WEEK),
    ("这周末在杭州", END_OF_WEEK),
    ("Lena is exhausted today", END_OF_DAY),
    ("陈磊今天感冒了", END_OF_DAY),
    ("The twins visit tomorrow", END_OF_DAY + timedelta(days=1)),
    ("老周下周出差", END_OF_WEEK + timedelta(days=7)),
    ("Lena has exams next month", datetime(2027, 2, 1, tzinfo=timezone.utc)),
    # words between "until" and the day, in one clause; a sentence after it is another
    (
        "Dean's printer is out of action until a replacement part arrives next Tuesday",
        datetime(2026, 12, 23, tzinfo=timezone.utc),
    ),
    ("He stays until Monday. Next Friday he flies.", datetime(2026, 12, 15, tzinfo=timezone.utc)),
    ("Ruth is missing choir for a fortnight", AT + timedelta(days=14)),
    ("陈晓燕要半个月才回安溪", AT + timedelta(days=15)),
    ("王强半年不喝酒", datetime(2027, 6, 9, 15, 0, tzinfo=timezone.utc)),
    # a day of this week said alone: that day (today's when it is today); "all
    # weekend", "for the week", "the next few days"
    ("Dean's shop is closed this Saturday for his niece's party", END_OF_WEEK - timedelta(days=1)),
    ("Gwen is missing darts this Monday", datetime(2026, 12, 15, tzinfo=timezone.utc)),
    ("Mei is in Leeds this Wednesday", END_OF_DAY),
    ("王德明这周四要去医院复查", END_OF_DAY + timedelta(days=1)),
    ("这个星期天殷秀兰要加班", END_OF_WEEK),
    ("王德明这个周末要去开封", END_OF_WEEK),
    ("Bowen is on standby all weekend", END_OF_WEEK),
    ("His eye is patched for the week", END_OF_WEEK),
    ("For the next few days she can only answer messages", AT + timedelta(days=3)),
    ("溫若筠這個週末要去台東擺市集", END_OF_WEEK),
    # a month named: until it starts, or through its end; this month's end
    (
        "Kees is hibernating in a box in the fridge until March",
        datetime(2027, 3, 1, tzinfo=timezone.utc),
    ),
    ("The shop is closed through January", datetime(2027, 2, 1, tzinfo=timezone.utc)),
    ("He is away until the end of February", datetime(2027, 3, 1, tzinfo=timezone.utc)),
    ("She is in Lima until December", END_OF_MONTH),
    ("桂芬要在妹妹家待到三月", datetime(2027, 3, 1, tzinfo=timezone.utc)),
    ("老周到二月底都在出差", datetime(2027, 3, 1, tzinfo=timezone.utc)),
    # a day named: the end of that day; without a year the next such day, without a
    # month this month's or, once past, the next month's
    ("She is in Lima until March 5th", datetime(2027, 3, 6, tzinfo=timezone.utc)),
    ("Kees is in Lisbon until December 20th", datetime(2026, 12, 21, tzinfo=timezone.utc)),
    ("She is in Lima until December 12th", datetime(2026, 12, 13, tzinfo=timezone.utc)),
    ("The gallery is closed till 5 March", datetime(2027, 3, 6, tzinfo=timezone.utc)),
    ("Noor is away through the 15th", datetime(2026, 12, 16, tzinfo=timezone.utc)),
    ("Noor is away until the 3rd", datetime(2027, 1, 4, tzinfo=timezone.utc)),
    ("He is in Bern until Dec. 5", datetime(2027, 12, 6, tzinfo=timezone.utc)),
    ("Her visa lasts until 2027-02-14", datetime(2027, 2, 15, tzinfo=timezone.utc)),
    ("Jun is in Oslo until January 10, 2027", datetime(2027, 1, 11, tzinfo=timezone.utc)),
    ("The shop is closed until February 30th", None),
    ("老周到3月5日都在出差", datetime(2027, 3, 6, tzinfo=timezone.utc)),
    ("桂芬要在妹妹家待到三月五号", datetime(2027, 3, 6, tzinfo=timezone.utc)),
    ("老周到下个月5号都在出差", datetime(2027, 1, 6, tzinfo=timezone.utc)),
    ("小林到这个月二十号都在上海", datetime(2026, 12, 21, tzinfo=timezone.utc)),
    ("2027年1月10日之前阿明在北京", datetime(2027, 1, 11, tzinfo=timezone.utc)),
    ("到十二月二十日都在开会", datetime(2026, 12, 21, tzinfo=timezone.utc)),
    ("阿明到三月五號都在台北", datetime(2027, 3, 6, tzinfo=timezone.utc)),
    ("他坐地铁到3号线换乘", None),
    ("老周出差，这个月20号回来", datetime(2026, 12, 21, tzinfo=timezone.utc)),
    ("报告下个月5号前交", datetime(2027, 1, 6, tzinfo=timezone.utc)),
    ("三月两号之前都在外地", datetime(2027, 3, 3, tzinfo=timezone.utc)),
    # an ordinal of something else; a day already past states no end still to come
    ("She is off work until the 3rd trimester", None),
    ("He was in Lima until 2019-03-05", None),
    ("老周到这个月5号都在出差", None),
    # written in traditional characters: the same grammar (pymem._simplified_han)
    ("溫若筠到下個月底都在岐阜", datetime(2027, 2, 1, tzinfo=timezone.utc)),
    ("阿明這個禮拜在家", END_OF_WEEK),
    ("阿明這兩天嗓子疼", AT + timedelta(days=3)),
    ("阿明到下週三之前都在台北", datetime(2026, 12, 17, tzinfo=timezone.utc)),
    ("阿明這兩個禮拜在台中", AT + timedelta(days=14)),
    ("這週末在花蓮", END_OF_WEEK),
    # no end stated: the kind's default applies
    ("Maya has a cold and is staying home", None),
    ("每周三游泳", None),
    ("goes running every week", None),
    ("Ana has three cats", None),
]


@pytest.mark.parametrize(
    ("said_on", "until"),
    [
        (datetime(2026, 12, 11, 9, tzinfo=timezone.utc), END_OF_WEEK),  # a Friday
        (datetime(2026, 12, 12, 9, tzinfo=timezone.utc), END_OF_WEEK + timedelta(days=7)),
        (datetime(2026, 12, 13, 9, tzinfo=timezone.utc), END_OF_WEEK + timedelta(days=7)),
    ],
    ids=["friday", "saturday", "sunday"],
)
@pytest.mark.parametrize("content", ["Mei works from home this week", "豆豆这周在家休息"])
def test_this_week_said_at_the_weekend_is_the_week_ahead(utc, content, said_on, until):
    stated = utc.execute("SELECT pymem._stated_until(%s, %s)", (content, said_on)).fetchone()[0]
    assert stated == until


@pytest.fixture
def utc(conn):
    conn.execute("SET LOCAL TimeZone = 'UTC'")
    return conn


@pytest.mark.parametrize(("content", "until"), STATED, ids=[c for c, _ in STATED])
def test_the_end_a_text_states(utc, content, until):
    stated = utc.execute("SELECT pymem._stated_until(%s, %s)", (content, AT)).fetchone()[0]
    assert stated == until


def test_a_state_holds_until_its_stated_end_and_not_after(store, utc):
    written = store.upsert("ravi", "Ravi is on paternity leave until the end of the month",
                           unit(0), "state")  # fmt: skip
    habit = store.upsert("ravi", "Ravi works at Flipkart", unit(1), "habit")
    (valid_until,) = utc.execute(
        "SELECT valid_until FROM pymem.memories WHERE id = %s", (written.memory_id,)
    ).fetchone()
    now = utc.execute("SELECT now()").fetchone()[0]
    month_end = utc.execute("SELECT date_trunc('month', now()) + interval '1 month'").fetchone()[0]
    assert valid_until == max(month_end, now + timedelta(days=1))

    def recalled(at):
        return {m.memory_id for m in store.recall("ravi", unit(0), k=5, at=at)}

    assert written.memory_id in recalled(valid_until - timedelta(minutes=1))
    assert written.memory_id not in recalled(valid_until + timedelta(minutes=1))
    assert habit.memory_id in recalled(valid_until + timedelta(minutes=1))


def test_a_stated_end_wins_over_the_kinds_lifetime_and_the_caller_over_both(store, utc):
    today = store.upsert("lena", "Lena is exhausted today", unit(0), "state")
    unsaid = store.upsert("lena", "Lena has a cold", unit(2), "state")
    given = store.upsert("lena", "Lena is in Rome for two weeks", unit(1), "state",
                         valid_until=datetime.now(timezone.utc) + timedelta(days=2))  # fmt: skip
    rows = dict(utc.execute(
        "SELECT id, valid_until FROM pymem.memories WHERE user_id = 'lena'"
    ).fetchall())  # fmt: skip
    now, midnight, lifetime = utc.execute(
        "SELECT now(), date_trunc('day', now()) + interval '1 day', default_lifetime"
        " FROM pymem.kinds WHERE kind = 'state'"
    ).fetchone()
    # "today" ends at midnight, shorter than the kind's lifetime (three days)
    assert rows[today.memory_id] == midnight
    assert rows[unsaid.memory_id] == now + lifetime == now + timedelta(days=3)
    assert timedelta(days=1) < rows[given.memory_id] - now < timedelta(days=2, minutes=1)


def test_a_kind_without_a_lifetime_takes_no_end_from_its_text(store, utc):
    fact = store.upsert("ana", "Ana works nights this week", unit(0), "fact")
    assert utc.execute(
        "SELECT valid_until FROM pymem.memories WHERE id = %s", (fact.memory_id,)
    ).fetchone() == (None,)
