#!/usr/bin/env python3
"""Build bench/data/memory_dev_stream.jsonl: a development memory stream for `pymem eval`.

The bundled stream (pymem/datasets/eval_stream.jsonl) is evaluation data: no setting is
fitted on it. This stream is where the reviewer's settings are fitted (`review_floor` of
`pymem.eval.REVIEW_FLOOR`, `settings.cross_kind_review_floor`, docs/eval.md): four users
(two English, two Chinese), four sessions each, as an extractor emits memories, with
restatements, updates of a slot, states, goals and contradictions (an event against the
standing fact it breaks), and questions. Hand-written for pymem; its people and facts are
others than the bundled stream's. It was written after the diagnosis that the bundled
stream's contradictions cross kinds (an event against a preference), so it says nothing
independent about that diagnosis, only about the floors fitted on it. Same format as the
bundled stream (docs/eval.md). Rebuilt byte for byte:

    python scripts/build_memory_dev_stream.py            # writes the file
    python scripts/build_memory_dev_stream.py --check    # fails if the file differs
    pymem eval --dataset bench/data/memory_dev_stream.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream.jsonl"
# the day each session happened
S = {1: 0, 2: 10, 3: 40, 4: 80}


def rows() -> list[dict]:
    memories: list[dict] = []
    questions: list[tuple[str, str, tuple[str, ...]]] = []

    def m(user, sess, fact, label, kind, content, slot=None, topic=None, contradicts=None,
          contacts=None):  # fmt: skip
        n = sum(1 for r in memories if r["user"] == user) + 1
        r = {"type": "memory", "id": f"{user}-d{n:02d}", "user": user, "session": sess,
             "day": S[sess], "fact": fact, "slot": slot or fact.split("/")[0], "label": label,
             "kind": kind, "content": content}  # fmt: skip
        if topic:
            r["topic"] = topic
        if contradicts:
            r["contradicts"] = contradicts
        if contacts:
            r["contacts"] = contacts
        memories.append(r)

    def q(user, text, *facts):
        questions.append((user, text, facts))

    U = "omar"
    m(U, 1, "city/lyon", "new", "profile", "Omar lives in Lyon", topic="home:city")
    m(U, 1, "job/nurse", "new", "profile", "Omar works as a night nurse at a children's hospital")
    m(U, 1, "gluten", "new", "fact", "Omar has coeliac disease and cannot eat gluten")
    m(U, 1, "swim/2", "new", "habit", "Omar swims twice a week before work")
    m(U, 1, "jazz", "new", "preference", "Omar loves listening to old jazz records")
    m(U, 1, "brother", "new", "fact", "Omar's brother Karim is a pilot", contacts=["Karim"])
    m(U, 1, "car/none", "new", "fact", "Omar does not own a car and cycles everywhere")
    m(U, 1, "cold", "state", "state", "Omar has a bad cold this week")
    m(U, 1, "piano/learn", "new", "fact", "Omar is learning to play the piano", topic="skill:piano")
    m(U, 2, "jazz", "paraphrase", "preference", "Omar is a big fan of old jazz records")
    m(U, 2, "swim/2", "paraphrase", "habit", "Omar goes swimming two times a week before his shift")
    m(
        U,
        2,
        "bread",
        "contradiction",
        "event",
        "Omar ate a whole baguette at lunch yesterday",
        contradicts="gluten",
    )
    m(U, 2, "city/lyon", "paraphrase", "profile", "Omar is based in Lyon", topic="home:city")
    m(U, 2, "dentist", "new", "event", "Omar had a dentist appointment on Tuesday")
    m(U, 2, "tea", "new", "preference", "Omar prefers mint tea to coffee")
    m(
        U,
        2,
        "brother",
        "paraphrase",
        "fact",
        "Karim, Omar's brother, flies planes for a living",
        contacts=["Karim"],
    )
    m(U, 3, "city/marseille", "update", "profile", "Omar moved to Marseille", topic="home:city")
    m(
        U,
        3,
        "drove",
        "contradiction",
        "event",
        "Omar drove his own car to the beach on Sunday",
        contradicts="car/none",
    )
    m(
        U,
        3,
        "job/nurse",
        "paraphrase",
        "profile",
        "Omar is a night-shift nurse at a children's hospital",
    )
    m(
        U,
        3,
        "piano/grade2",
        "update",
        "fact",
        "Omar passed his grade 2 piano exam",
        topic="skill:piano",
    )
    m(
        U,
        3,
        "marathon",
        "new",
        "goal",
        "Omar wants to run a half marathon in the spring",
        topic="plan:race",
    )
    m(U, 3, "tea", "paraphrase", "preference", "Omar would rather drink mint tea than coffee")
    m(U, 4, "swim/4", "update", "habit", "Omar now swims four times a week", slot="swim")
    m(
        U,
        4,
        "coffee/espresso",
        "contradiction",
        "event",
        "Omar ordered a double espresso this morning and loved it",
        contradicts="tea",
    )
    m(
        U,
        4,
        "marathon/full",
        "update",
        "goal",
        "Omar now wants to run a full marathon in the spring instead",
        topic="plan:race",
        slot="marathon",
    )
    m(U, 4, "gluten", "paraphrase", "fact", "Omar must avoid gluten because of coeliac disease")
    m(U, 4, "neighbour", "new", "fact", "Omar's neighbour Lucie teaches yoga", contacts=["Lucie"])
    q(U, "Where does Omar live now?", "city/marseille")
    q(U, "What diet restriction does Omar have?", "gluten")
    q(U, "How often does Omar swim?", "swim/4")
    q(U, "What does Omar do for work?", "job/nurse")
    U = "priya"
    m(U, 1, "city/leeds", "new", "profile", "Priya lives in Leeds", topic="home:city")
    m(U, 1, "job/teacher", "new", "profile", "Priya teaches chemistry at a secondary school")
    m(U, 1, "vegan", "new", "preference", "Priya follows a vegan diet")
    m(U, 1, "yoga", "new", "habit", "Priya does yoga every morning at six")
    m(
        U,
        1,
        "daughter",
        "new",
        "fact",
        "Priya's daughter Asha is seven years old",
        contacts=["Asha"],
    )
    m(U, 1, "alcohol", "new", "fact", "Priya never drinks alcohol")
    m(U, 1, "stressed", "state", "state", "Priya is stressed about the school inspection")
    m(U, 1, "spanish", "new", "fact", "Priya is learning Spanish", topic="skill:es")
    m(U, 1, "cat", "new", "fact", "Priya has a grey cat named Biscuit")
    m(U, 2, "vegan", "paraphrase", "preference", "Priya eats a fully plant-based vegan diet")
    m(U, 2, "yoga", "paraphrase", "habit", "Priya practises yoga each morning at 6am")
    m(
        U,
        2,
        "wine",
        "contradiction",
        "event",
        "Priya had two glasses of red wine at the party last night",
        contradicts="alcohol",
    )
    m(U, 2, "cat", "paraphrase", "fact", "Priya's grey cat is called Biscuit")
    m(U, 2, "garden", "new", "preference", "Priya enjoys gardening at the weekend")
    m(U, 2, "daughter", "paraphrase", "fact", "Asha, Priya's daughter, is seven", contacts=["Asha"])
    m(
        U,
        3,
        "steak",
        "contradiction",
        "event",
        "Priya ordered a steak at the restaurant on Friday",
        contradicts="vegan",
    )
    m(
        U,
        3,
        "job/head",
        "update",
        "profile",
        "Priya became head of the science department",
        slot="job",
    )
    m(U, 3, "spanish/b1", "update", "fact", "Priya reached B1 level in Spanish", topic="skill:es")
    m(U, 3, "trip/peru", "new", "goal", "Priya plans to visit Peru next summer", topic="plan:trip")
    m(U, 3, "garden", "paraphrase", "preference", "Priya likes spending weekends in her garden")
    m(
        U,
        4,
        "trip/chile",
        "update",
        "goal",
        "Priya changed her summer trip from Peru to Chile",
        topic="plan:trip",
        slot="trip",
    )
    m(
        U,
        4,
        "yoga/evening",
        "update",
        "habit",
        "Priya switched her yoga to the evenings",
        slot="yoga",
    )
    m(U, 4, "alcohol", "paraphrase", "fact", "Priya does not drink any alcohol")
    m(U, 4, "dog-allergy", "new", "fact", "Priya is allergic to dogs")
    m(
        U,
        4,
        "dogsit",
        "contradiction",
        "event",
        "Priya looked after her friend's two dogs all weekend",
        contradicts="dog-allergy",
    )
    q(U, "What is Priya's job?", "job/head")
    q(U, "Where is Priya travelling next summer?", "trip/chile")
    q(U, "What is the name of Priya's cat?", "cat")
    q(U, "When does Priya do yoga?", "yoga/evening")
    U = "liu"
    m(U, 1, "city/nanjing", "new", "profile", "刘洋住在南京", topic="home:city")
    m(U, 1, "job/doctor", "new", "profile", "刘洋是一名儿科医生")
    m(U, 1, "seafood", "new", "fact", "刘洋对海鲜过敏")
    m(U, 1, "run", "new", "habit", "刘洋每天晚上跑步五公里")
    m(U, 1, "sugar", "new", "preference", "刘洋不喜欢吃甜食")
    m(U, 1, "wife", "new", "fact", "刘洋的妻子叫陈静", contacts=["陈静"])
    m(U, 1, "smoke", "new", "fact", "刘洋从不抽烟")
    m(U, 1, "busy", "state", "state", "刘洋这周工作特别忙")
    m(U, 1, "guitar", "new", "fact", "刘洋在学弹吉他", topic="skill:guitar")
    m(U, 2, "seafood", "paraphrase", "fact", "刘洋吃海鲜会过敏")
    m(U, 2, "run", "paraphrase", "habit", "刘洋每晚都会跑五公里")
    m(U, 2, "shrimp", "contradiction", "event", "刘洋昨天晚饭吃了一大盘虾", contradicts="seafood")
    m(U, 2, "wife", "paraphrase", "fact", "陈静是刘洋的妻子", contacts=["陈静"])
    m(U, 2, "movie", "new", "preference", "刘洋喜欢看科幻电影")
    m(U, 3, "city/suzhou", "update", "profile", "刘洋搬到了苏州", topic="home:city")
    m(U, 3, "cigarette", "contradiction", "event", "刘洋昨天在楼下抽了一根烟", contradicts="smoke")
    m(U, 3, "cake", "contradiction", "event", "刘洋生日那天吃了一整块奶油蛋糕", contradicts="sugar")
    m(U, 3, "guitar/band", "update", "fact", "刘洋已经能在乐队里弹吉他了", topic="skill:guitar")
    m(U, 3, "movie", "paraphrase", "preference", "刘洋爱看科幻片")
    m(U, 3, "exam", "new", "goal", "刘洋打算明年考主治医师", topic="plan:exam")
    m(U, 4, "run/morning", "update", "habit", "刘洋改成每天早上跑步了", slot="run")
    m(U, 4, "sugar", "paraphrase", "preference", "刘洋不爱吃甜的东西")
    m(U, 4, "son", "new", "fact", "刘洋的儿子今年上小学一年级")
    q(U, "刘洋现在住在哪里？", "city/suzhou")
    q(U, "刘洋对什么过敏？", "seafood")
    q(U, "刘洋什么时候跑步？", "run/morning")
    U = "zhao"
    m(U, 1, "city/wuhan", "new", "profile", "赵敏住在武汉", topic="home:city")
    m(U, 1, "job/design", "new", "profile", "赵敏在一家游戏公司做美术设计")
    m(U, 1, "meat", "new", "preference", "赵敏吃素，不吃肉")
    m(U, 1, "swim", "new", "habit", "赵敏每周六去游泳")
    m(U, 1, "coffee", "new", "fact", "赵敏喝咖啡会失眠，所以从不喝咖啡")
    m(U, 1, "mother", "new", "fact", "赵敏的妈妈住在长沙", contacts=["妈妈"])
    m(U, 1, "tired", "state", "state", "赵敏今天加班很累")
    m(U, 1, "japanese", "new", "fact", "赵敏在学日语", topic="skill:ja")
    m(U, 2, "meat", "paraphrase", "preference", "赵敏是素食者")
    m(U, 2, "swim", "paraphrase", "habit", "赵敏每个星期六都去游泳")
    m(U, 2, "hotpot", "contradiction", "event", "赵敏昨天和同事吃了牛肉火锅", contradicts="meat")
    m(U, 2, "mother", "paraphrase", "fact", "赵敏的母亲住在长沙", contacts=["妈妈"])
    m(U, 2, "cat", "new", "fact", "赵敏养了一只橘猫")
    m(U, 3, "latte", "contradiction", "event", "赵敏今天早上喝了一大杯拿铁", contradicts="coffee")
    m(U, 3, "job/lead", "update", "profile", "赵敏升为美术组组长", slot="job")
    m(U, 3, "japanese/n2", "update", "fact", "赵敏通过了日语N2考试", topic="skill:ja")
    m(U, 3, "cat", "paraphrase", "fact", "赵敏家里有一只橘色的猫")
    m(U, 3, "trip/tokyo", "new", "goal", "赵敏计划明年春天去东京", topic="plan:trip")
    m(
        U,
        4,
        "trip/osaka",
        "update",
        "goal",
        "赵敏把明年春天的目的地改成了大阪",
        topic="plan:trip",
        slot="trip",
    )
    m(U, 4, "swim/sun", "update", "habit", "赵敏改成每周日去游泳", slot="swim")
    m(U, 4, "meat", "paraphrase", "preference", "赵敏一直吃素")
    q(U, "赵敏明年春天去哪里？", "trip/osaka")
    q(U, "赵敏哪天去游泳？", "swim/sun")
    q(U, "赵敏的猫是什么颜色？", "cat")

    out = list(memories)
    for i, (user, text, facts) in enumerate(questions):
        answers = [r["id"] for r in memories if r["user"] == user and r["fact"] in facts]
        assert answers, (user, text)
        out.append({"type": "question", "id": f"{user}-dq{i:02d}", "user": user, "text": text,
                    "answers": answers})  # fmt: skip
    return out


def main() -> int:
    if not write_or_check(OUT, jsonl(rows()), __doc__.split("\n")[0]):
        return 1
    if "--check" in sys.argv:
        return 0
    kept = [r for r in rows() if r["type"] == "memory"]
    print(f"{len(kept)} memories, {len(rows()) - len(kept)} questions -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
