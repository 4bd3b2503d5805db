#!/usr/bin/env python3
"""Write pymem/datasets/eval_stream.jsonl, the labelled memory stream of `pymem eval`.

The stream was written by hand for pymem (no external dataset): five simulated
users, each a multi-session stream of memories as an assistant's extractor would
emit them, in English, Chinese or both. The data lives below as compact tuples;
this script adds ids and the labels derived from them, and writes one JSON object
per line (docs/eval.md describes the format). Re-running it rebuilds the file
byte for byte; ``--check`` fails when the file is not what it builds.

A memory tuple is (session, fact, kind, content[, options]):
- ``fact`` names what the memory states, as ``slot`` or ``slot/value``. Memories
  with the same fact are paraphrases (one live memory expected); a new value of a
  slot is an update (the latest value expected to end as the one live memory).
- options: ``topic`` (when the extractor gave one), ``contacts`` (people named),
  ``contradicts`` (the fact this memory contradicts: both should stay, flagged).
A question tuple is (text, [facts that answer it]).
"""

from __future__ import annotations

import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "pymem" / "datasets" / "eval_stream.jsonl"
DAYS = {1: 0, 2: 14, 3: 60, 4: 90}

USERS: dict[str, dict] = {
    "maya": {
        "lang": "en",
        "memories": [
            (1, "city/berlin", "profile", "Maya lives in Berlin", {"topic": "home:city"}),
            (1, "job/backend", "profile", "Maya works as a backend engineer at a fintech startup"),
            (1, "coffee", "preference", "Maya drinks her coffee with oat milk"),
            (1, "run/3", "habit", "Maya goes running three times a week"),
            (1, "sister", "fact", "Maya's sister Ana lives in Madrid", {"contacts": ["Ana"]}),
            (1, "dog", "fact", "Maya has a beagle called Pretzel"),
            (1, "veg", "preference", "Maya is vegetarian"),
            (1, "pt/learning", "fact", "Maya is learning Portuguese", {"topic": "skill:pt"}),
            (1, "tired", "state", "Maya is exhausted today after a late release"),
            (1, "sleep", "habit", "Maya usually goes to bed around 11pm"),
            (2, "coffee", "preference", "Maya takes oat milk in her coffee"),
            (2, "run/3", "habit", "Maya runs 3 times every week"),
            (2, "dog", "fact", "Maya's dog Pretzel is a beagle"),
            (2, "job/backend", "profile", "Maya is a backend developer at a fintech start-up"),
            (2, "pt/b1", "fact", "Maya's Portuguese is now at B1 level", {"topic": "skill:pt"}),
            (2, "ana-visit", "event", "Ana is visiting Maya next month", {"contacts": ["Ana"]}),
            (
                2,
                "tom",
                "fact",
                "Maya's colleague Tom recommended a climbing gym",
                {"contacts": ["Tom"]},
            ),
            (2, "climb", "habit", "Maya started bouldering on Saturdays"),
            (2, "cold", "state", "Maya has a cold and is staying home"),
            (
                2,
                "fish",
                "event",
                "Maya had fish tacos for dinner yesterday",
                {"contradicts": "veg"},
            ),
            (3, "city/lisbon", "profile", "Maya moved to Lisbon", {"topic": "home:city"}),
            (3, "run/5", "habit", "Maya now runs five times a week"),
            (3, "coffee", "preference", "Maya likes oat milk in her coffee"),
            (
                3,
                "tom",
                "fact",
                "Tom, a colleague of Maya, suggested a climbing gym to her",
                {"contacts": ["Tom"]},
            ),
            (3, "sleep", "habit", "Maya normally sleeps at about 11 pm"),
            (3, "job/lead", "profile", "Maya was promoted to engineering lead"),
            (3, "flat/300k", "goal", "Maya is saving for a flat, with a budget of 300k euros"),
            (3, "sister", "fact", "Maya's sister Ana is based in Madrid", {"contacts": ["Ana"]}),
            (4, "dog", "fact", "Maya has a beagle named Pretzel"),
            (4, "climb", "habit", "Maya goes bouldering every Saturday"),
            (4, "flat/350k", "goal", "Maya raised her flat budget to 350k euros"),
            (4, "pt/b1", "fact", "Maya reached B1 in Portuguese", {"topic": "skill:pt"}),
            (4, "cats", "fact", "Maya is allergic to cats"),
            (4, "kitten", "event", "Maya adopted a kitten last weekend", {"contradicts": "cats"}),
        ],
        "questions": [
            ("Where does Maya live?", ["city/lisbon"]),
            ("What milk does Maya take in her coffee?", ["coffee"]),
            ("How often does Maya go running?", ["run/5"]),
            ("What is Maya's job?", ["job/lead"]),
            ("Who is Ana?", ["sister"]),
            ("What is the name of Maya's dog?", ["dog"]),
            ("How good is Maya's Portuguese?", ["pt/b1"]),
            ("What does Maya do on Saturdays?", ["climb"]),
            ("What time does Maya go to sleep?", ["sleep"]),
            ("How much can Maya spend on a flat?", ["flat/350k"]),
            ("Does Maya eat meat?", ["veg"]),
            ("Who recommended a climbing gym to Maya?", ["tom"]),
        ],
    },
    "chen": {
        "lang": "zh",
        "memories": [
            (1, "city/hangzhou", "profile", "陈磊住在杭州"),
            (1, "job/alibaba", "profile", "陈磊在阿里巴巴做产品经理", {"topic": "work:employer"}),
            (1, "tea", "habit", "陈磊每天早上喝龙井茶"),
            (1, "daughter", "profile", "陈磊的女儿叫小雨，今年六岁", {"contacts": ["小雨"]}),
            (1, "peanut", "fact", "陈磊对花生过敏"),
            (1, "gym/2", "habit", "陈磊每周去健身房两次"),
            (1, "car", "fact", "陈磊开一辆特斯拉"),
            (1, "sick", "state", "陈磊今天感冒了，嗓子很疼"),
            (1, "piano", "fact", "小雨在学钢琴", {"contacts": ["小雨"]}),
            (2, "tea", "habit", "陈磊习惯早上喝一杯龙井"),
            (2, "daughter", "profile", "陈磊有个六岁的女儿，名叫小雨", {"contacts": ["小雨"]}),
            (2, "peanut", "fact", "陈磊不能吃花生，会过敏"),
            (2, "gym/4", "habit", "陈磊现在每周健身四次"),
            (2, "wife", "fact", "陈磊的妻子林静是一名医生", {"contacts": ["林静"]}),
            (2, "trip/chengdu", "goal", "陈磊计划国庆节带家人去成都旅游", {"topic": "plan:trip"}),
            (2, "overtime", "state", "陈磊这周在加班，每天很晚才回家"),
            (2, "piano", "fact", "小雨正在学弹钢琴", {"contacts": ["小雨"]}),
            (
                3,
                "job/tencent",
                "profile",
                "陈磊跳槽去了腾讯，还是做产品经理",
                {"topic": "work:employer"},
            ),
            (3, "city/shenzhen", "profile", "陈磊搬到了深圳"),
            (3, "car", "fact", "陈磊的车是特斯拉"),
            (3, "wife", "fact", "林静是陈磊的太太，在医院工作", {"contacts": ["林静"]}),
            (3, "pb-sandwich", "event", "陈磊昨天吃了花生酱三明治", {"contradicts": "peanut"}),
            (3, "weight", "goal", "陈磊想在年底前减重五公斤"),
            (3, "trip/xian", "goal", "陈磊把国庆旅行的目的地改成了西安", {"topic": "plan:trip"}),
            (4, "weight", "goal", "陈磊的目标是年底前瘦五公斤"),
            (4, "gym/4", "habit", "陈磊一周健身四次"),
            (4, "tea", "habit", "陈磊早上总要喝龙井茶"),
            (4, "piano-grade", "event", "小雨钢琴考过了三级", {"contacts": ["小雨"]}),
            (4, "no-tea", "fact", "陈磊说他从来不喝茶", {"contradicts": "tea"}),
        ],
        "questions": [
            ("陈磊住在哪里？", ["city/shenzhen"]),
            ("陈磊在哪家公司工作？", ["job/tencent"]),
            ("陈磊早上喝什么？", ["tea"]),
            ("陈磊的女儿叫什么名字？", ["daughter"]),
            ("陈磊对什么过敏？", ["peanut"]),
            ("陈磊多久去一次健身房？", ["gym/4"]),
            ("陈磊开什么车？", ["car"]),
            ("林静是做什么工作的？", ["wife"]),
            ("陈磊国庆节去哪里旅游？", ["trip/xian"]),
            ("陈磊的减肥目标是什么？", ["weight"]),
            ("小雨在学什么乐器？", ["piano"]),
            ("小雨的钢琴考到几级了？", ["piano-grade"]),
        ],
    },
    "sam": {
        "lang": "en+zh",
        "memories": [
            (1, "job", "profile", "Sam is a high-school math teacher"),
            (1, "job", "profile", "Sam 是一名高中数学老师"),
            (1, "badminton/wed", "habit", "Sam plays badminton on Wednesday evenings"),
            (1, "partner", "fact", "Sam's partner Jordan is a nurse", {"contacts": ["Jordan"]}),
            (1, "lactose", "fact", "Sam is lactose intolerant"),
            (1, "hm-goal", "goal", "Sam wants to run a half marathon this year"),
            (1, "city", "profile", "Sam 住在上海"),
            (2, "badminton/wed", "habit", "Sam 每周三晚上打羽毛球"),
            (2, "city", "profile", "Sam lives in Shanghai"),
            (2, "hm-race", "event", "Sam signed up for the Shanghai half marathon in October"),
            (2, "migraine", "state", "Sam has a migraine today"),
            (
                2,
                "shifts",
                "fact",
                "Jordan works night shifts at the hospital",
                {"contacts": ["Jordan"]},
            ),
            (2, "sichuan", "fact", "Sam is learning to cook Sichuan food"),
            (3, "badminton/thu", "habit", "Sam moved badminton to Thursday evenings"),
            (3, "lactose", "fact", "Sam 乳糖不耐受"),
            (
                3,
                "latte",
                "event",
                "Sam drank a large milk latte this morning",
                {"contradicts": "lactose"},
            ),
            (3, "hm-time", "goal", "Sam's target time for the half marathon is under two hours"),
            (3, "partner", "fact", "Jordan 是一名护士，是 Sam 的伴侣", {"contacts": ["Jordan"]}),
            (3, "happy", "state", "Sam 今天很开心，因为学生考得很好"),
            (3, "mapo", "habit", "Sam cooks mapo tofu every weekend"),
        ],
        "questions": [
            ("What subject does Sam teach?", ["job"]),
            ("When does Sam play badminton?", ["badminton/thu"]),
            ("Sam 的伴侣是做什么工作的？", ["partner"]),
            ("Can Sam drink milk?", ["lactose"]),
            ("Where does Sam live?", ["city"]),
            ("Which race did Sam sign up for?", ["hm-race"]),
            ("What is Sam's target time for the half marathon?", ["hm-time"]),
            ("What cuisine is Sam learning to cook?", ["sichuan"]),
            ("Sam 周末做什么菜？", ["mapo"]),
            ("What are Sam's running goals this year?", ["hm-goal"]),
            ("Sam 星期几打羽毛球？", ["badminton/thu"]),
        ],
    },
    "lena": {
        "lang": "en",
        "memories": [
            (1, "major", "profile", "Lena studies biology at the University of Toronto"),
            (1, "library", "habit", "Lena usually studies in the library in the evenings"),
            (
                1,
                "exam/stressed",
                "state",
                "Lena is stressed about her genetics exam on Friday",
                {"topic": "state:exam"},
            ),
            (1, "priya", "fact", "Lena's roommate Priya is from Mumbai", {"contacts": ["Priya"]}),
            (1, "drink/tea", "habit", "Lena drinks green tea while studying"),
            (1, "work/bookstore", "fact", "Lena works part-time at a bookstore on weekends"),
            (1, "name", "preference", "Lena prefers to be called Lee"),
            (2, "library", "habit", "Lena usually studies at the library at night"),
            (
                2,
                "exam/relieved",
                "state",
                "Lena finished her genetics exam and feels relieved",
                {"topic": "state:exam"},
            ),
            (
                2,
                "priya",
                "fact",
                "Priya, Lena's roommate, comes from Mumbai",
                {"contacts": ["Priya"]},
            ),
            (2, "work/none", "fact", "Lena quit her bookstore job"),
            (2, "flu", "state", "Lena is sick with the flu this week"),
            (2, "drink/tea", "habit", "Lena takes green tea when she studies"),
            (2, "med-school", "goal", "Lena wants to apply to medical school next year"),
            (
                3,
                "home",
                "state",
                "Lena is studying at home this week because the library is closed",
            ),
            (3, "work/lab", "fact", "Lena started an internship at a genetics lab"),
            (
                3,
                "priya-move",
                "event",
                "Priya is moving out at the end of the month",
                {"contacts": ["Priya"]},
            ),
            (3, "name", "preference", "Lena likes to be called Lee"),
            (3, "drink/coffee", "habit", "Lena switched from green tea to coffee for studying"),
            (3, "med-school", "goal", "Lena wants to apply to med school next year"),
            (3, "mcat", "event", "Lena's MCAT is scheduled for June"),
        ],
        "questions": [
            ("What does Lena study?", ["major"]),
            ("Where does Lena usually study?", ["library"]),
            ("What name does Lena prefer?", ["name"]),
            ("Where is Priya from?", ["priya"]),
            ("What does Lena drink while studying?", ["drink/coffee"]),
            ("What does Lena do besides her classes?", ["work/lab"]),
            ("What are Lena's plans for next year?", ["med-school"]),
            ("When is Lena's MCAT?", ["mcat"]),
            ("Is Priya moving out?", ["priya-move"]),
            ("How does Lena feel about her genetics exam?", ["exam/relieved"]),
            ("Why is Lena studying at home this week?", ["home"]),
        ],
    },
    "wang": {
        "lang": "zh",
        "memories": [
            (1, "age", "profile", "王芳今年六十八岁，已经退休了"),
            (1, "bp/140", "fact", "王芳的血压是140", {"topic": "health:bp"}),
            (1, "taichi", "habit", "王芳每天早上在公园打太极拳"),
            (1, "grandson", "profile", "王芳的孙子叫乐乐，在上小学", {"contacts": ["乐乐"]}),
            (1, "spicy", "preference", "王芳不吃辣"),
            (1, "med/morning", "habit", "王芳每天早上吃降压药"),
            (1, "opera", "preference", "王芳喜欢唱京剧"),
            (2, "bp/130", "fact", "王芳的血压降到了130", {"topic": "health:bp"}),
            (2, "taichi", "habit", "王芳每天清晨去公园打太极"),
            (2, "grandson", "profile", "乐乐是王芳的孙子，正在上小学", {"contacts": ["乐乐"]}),
            (2, "knee", "state", "王芳今天膝盖疼，没有去公园"),
            (2, "daughter", "fact", "王芳的女儿刘敏住在北京", {"contacts": ["刘敏"]}),
            (2, "spicy", "preference", "王芳一点辣都不能吃"),
            (3, "bp/125", "fact", "王芳现在的血压是125", {"topic": "health:bp"}),
            (3, "choir", "fact", "王芳报名参加了社区合唱团"),
            (3, "malatang", "event", "王芳昨天吃了一大碗麻辣烫", {"contradicts": "spicy"}),
            (3, "contest", "event", "乐乐下周要参加数学比赛", {"contacts": ["乐乐"]}),
            (3, "visit", "event", "刘敏春节会回家看王芳", {"contacts": ["刘敏"]}),
            (3, "opera", "preference", "王芳爱唱京剧"),
            (3, "med/evening", "habit", "王芳的降压药改成晚上吃了"),
        ],
        "questions": [
            ("王芳的血压是多少？", ["bp/125"]),
            ("王芳早上做什么运动？", ["taichi"]),
            ("王芳的孙子叫什么名字？", ["grandson"]),
            ("王芳能吃辣吗？", ["spicy"]),
            ("王芳什么时候吃降压药？", ["med/evening"]),
            ("王芳喜欢什么戏曲？", ["opera"]),
            ("王芳的女儿住在哪里？", ["daughter"]),
            ("乐乐下周有什么活动？", ["contest"]),
            ("王芳参加了什么社区活动？", ["choir"]),
            ("王芳多大年纪了？", ["age"]),
            ("刘敏什么时候回家？", ["visit"]),
        ],
    },
}


def build() -> list[dict]:
    records: list[dict] = []
    for user, spec in USERS.items():
        seen_facts: set[str] = set()
        seen_slots: set[str] = set()
        ids_by_fact: dict[str, list[str]] = {}
        for n, entry in enumerate(spec["memories"], start=1):
            session, fact, kind, content, *rest = entry
            options = rest[0] if rest else {}
            slot = fact.split("/", 1)[0]
            if "contradicts" in options:
                label = "contradiction"
            elif fact in seen_facts:
                label = "paraphrase"
            elif slot in seen_slots:
                label = "update"
            elif kind == "state":
                label = "state"
            else:
                label = "new"
            seen_facts.add(fact)
            seen_slots.add(slot)
            memory_id = f"{user}-m{n:02d}"
            ids_by_fact.setdefault(fact, []).append(memory_id)
            record = {
                "type": "memory",
                "id": memory_id,
                "user": user,
                "session": session,
                "day": DAYS[session],
                "fact": fact,
                "slot": slot,
                "label": label,
                "kind": kind,
                "content": content,
            }
            record.update(options)
            records.append(record)
        for n, (text, facts) in enumerate(spec["questions"], start=1):
            missing = [f for f in facts if f not in ids_by_fact]
            assert not missing, (user, text, missing)
            records.append(
                {
                    "type": "question",
                    "id": f"{user}-q{n:02d}",
                    "user": user,
                    "text": text,
                    "answers": [i for f in facts for i in ids_by_fact[f]],
                }
            )
    return records


if __name__ == "__main__":
    if not write_or_check(OUT, jsonl(build()), __doc__.splitlines()[0]):
        sys.exit(1)
