"""Build bench/data/memory_dev_stream_c.jsonl: a third development stream for `pymem eval`.

Written by hand on 2026-12-06 for issue 34, by a writer who read only the format of
stream B (its builder's rules and the loader in pymem/eval.py), not its memories, and
not the bundled stream or the first development stream. Six users, with other people,
jobs and places than the other streams: two write English (ruth, a secondary-school
chemistry teacher in Sheffield; dean, who owns a print shop in Tucson), two Chinese
(wang, 王德明, a retired railway bridge engineer in 洛阳; chen, 陈晓燕, a tea farmer in
安溪), two both (yiwen, 林亦文, a cellist in Singapore; jia, 赵佳, the founder of a
battery-swap startup in Shenzhen), with paraphrases across languages.

Each user has: restatements of earlier memories in other words; updates (a new value of
a slot) whose old value is restated in passing later ("back when Ruth lived in
Crookes...", labelled a paraphrase of the old fact, as stream B labels them); temporary
states said the ways people say them ("for a week", "until next Tuesday", "for the next
couple of weeks", "until next Monday", 这两周, 这个月, 到下周一), among them two or three
from the last session that still hold when the questions are asked, each with a question
about the present, and states of early sessions that have long ended beside the habit
they shadowed; people named by a nickname in one session and by their full name in
another (contacts); and one labelled contradiction. Every user's last session is on
day 42, so the questions (day 43) come one day after it.

A development stream: for diagnosing and fitting, never to tune the bundled stream
(pymem/datasets/eval_stream.jsonl). Nobody has tuned anything on it yet. No public
dataset is copied.

    python scripts/build_memory_dev_stream_c.py           # write the file
    python scripts/build_memory_dev_stream_c.py --check   # fail if it is not current
"""

from __future__ import annotations

import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_c.jsonl"

LABELS = {"new", "paraphrase", "update", "state", "contradiction"}
KINDS = {"fact", "preference", "habit", "state", "event", "profile", "goal"}

# fmt: off
# user -> [(session, day, [(id, fact, label, kind, content[, extra]), ...]), ...]
# extra: optional "topic", "contacts" (names as written), "contradicts" (a fact).
# The slot of a memory is its fact up to the "/".
STREAMS: dict[str, list[tuple[int, int, list[tuple]]]] = {}
# user -> [(id, text, [answering memory ids]), ...]
QUESTIONS: dict[str, list[tuple[str, str, list[str]]]] = {}

# -- ruth: Ruth Okafor, chemistry teacher at a Sheffield secondary school; English -------

STREAMS["ruth"] = [
    (1, 0, [
        ("m01", "job/chemistry-teacher", "new", "profile",
         "Ruth teaches chemistry at Hallam Vale School, a secondary school in Sheffield",
         {"topic": "work:job"}),
        ("m02", "role/form-tutor", "new", "fact",
         "Ruth is the form tutor of a Year 9 class", {"topic": "work:role"}),
        ("m03", "commute/cycling", "new", "habit",
         "Ruth cycles to school along the canal towpath every morning",
         {"topic": "transport:commute"}),
        ("m04", "bus-this-week/puncture", "state", "state",
         "Ruth is taking the bus this week because her bike has a puncture"),
        ("m05", "husband/gardener", "new", "fact",
         "Ruth's husband Olly is a landscape gardener", {"contacts": ["Olly"]}),
        ("m06", "marking/sunday", "new", "habit",
         "Ruth does her marking on Sunday afternoons at the kitchen table"),
        ("m07", "choir/wednesday", "new", "habit",
         "Ruth sings alto in a community choir on Wednesday evenings"),
        ("m08", "diet/no-dairy", "new", "fact",
         "Ruth is lactose intolerant and avoids dairy"),
        ("m09", "goal/head-of-science", "new", "goal",
         "Ruth hopes to become head of science within a few years"),
        ("m10", "home/crookes", "new", "fact",
         "Ruth lives in Crookes, up the hill on the west side of Sheffield",
         {"topic": "home:area"}),
        ("m11", "commute/cycling", "paraphrase", "habit",
         "Ruth rides her bike to work each day, mostly along the canal"),
    ]),
    (2, 11, [
        ("m12", "job/chemistry-teacher", "paraphrase", "profile",
         "Ruth is a secondary-school chemistry teacher in Sheffield"),
        ("m13", "daughter/architecture", "new", "fact",
         "Ruth's daughter Amara studies architecture at university in Glasgow",
         {"contacts": ["Amara"]}),
        ("m14", "trip/peak-district", "new", "event",
         "Ruth took her Year 10s on a geology field trip to the Peak District"),
        ("m15", "technician/practicals", "new", "fact",
         "Mags, the lab technician, sets up the equipment for Ruth's practicals",
         {"contacts": ["Mags"]}),
        ("m16", "marking/sunday", "paraphrase", "habit",
         "Sunday afternoon is when Ruth gets through her pile of marking"),
        ("m17", "coffee/black", "new", "preference",
         "Ruth drinks her coffee black with no sugar"),
        ("m18", "treat/ice-cream", "contradiction", "event",
         "Ruth shared a big tub of ice cream with Amara at the weekend",
         {"contradicts": "diet/no-dairy", "contacts": ["Amara"]}),
        ("m19", "choir/wednesday", "paraphrase", "habit",
         "Every Wednesday night Ruth goes to choir practice, where she sings alto"),
        ("m20", "voice-today/hoarse", "state", "state",
         "Ruth is hoarse today after shouting over a fire drill"),
        ("m21", "husband/gardener", "paraphrase", "fact",
         "Olly, Ruth's husband, works as a landscape gardener", {"contacts": ["Olly"]}),
    ]),
    (3, 24, [
        ("m22", "role/head-of-year", "update", "fact",
         "Ruth has stepped up from form tutor to Head of Year 9", {"topic": "work:role"}),
        ("m23", "home/nether-edge", "update", "fact",
         "Ruth and Olly have moved to a terraced house in Nether Edge",
         {"topic": "home:area", "contacts": ["Olly"]}),
        ("m24", "commute/tram", "update", "habit",
         "Since the move Ruth takes the tram to school", {"topic": "transport:commute"}),
        ("m25", "technician/practicals", "paraphrase", "fact",
         "Margaret Shaw, the science technician, prepares everything Ruth needs for practicals",
         {"contacts": ["Margaret Shaw"]}),
        ("m26", "daughter/architecture", "paraphrase", "fact",
         "Amara, Ruth's eldest, is doing an architecture degree in Glasgow",
         {"contacts": ["Amara"]}),
        ("m27", "goal/head-of-science", "paraphrase", "goal",
         "Ruth's ambition is to lead the science department one day"),
        ("m28", "science-club/thursday", "new", "habit",
         "Ruth runs an after-school science club on Thursdays"),
        ("m29", "reading/historical", "new", "preference",
         "Ruth loves historical fiction, Hilary Mantel above all"),
        ("m30", "choir-break/mocks", "state", "state",
         "Ruth is missing choir for the next fortnight while she writes the mock exams"),
        ("m31", "coffee/black", "paraphrase", "preference",
         "Ruth takes her coffee strong and black"),
    ]),
    (4, 42, [
        ("m32", "off-sick/flu", "state", "state",
         "Ruth has flu and has been signed off work for a week"),
        ("m33", "visit/amara-home", "state", "state",
         "Amara is home from Glasgow for the next two weeks", {"contacts": ["Amara"]}),
        ("m34", "off-sick/flu", "paraphrase", "state",
         "Ruth is off sick with the flu until next Wednesday"),
        ("m35", "husband/gardener", "paraphrase", "fact",
         "Oliver Brandt, Ruth's husband, runs a small landscaping business",
         {"contacts": ["Oliver Brandt"]}),
        ("m36", "home/crookes", "paraphrase", "fact",
         "Back when Ruth lived in Crookes, the climb home on her bike nearly finished her"),
        ("m37", "commute/cycling", "paraphrase", "habit",
         "Ruth misses the ride along the canal she used to do to school"),
        ("m38", "role/head-of-year", "paraphrase", "fact",
         "As Head of Year 9 Ruth now handles behaviour and attendance for the whole year"),
        ("m39", "commute/tram", "paraphrase", "habit",
         "These days Ruth catches the tram to work"),
        ("m40", "home/nether-edge", "paraphrase", "fact",
         "Ruth's home is in Nether Edge now"),
        ("m41", "mocks/improved", "new", "event",
         "Most of Ruth's Year 11s improved on their mock results"),
    ]),
]
QUESTIONS["ruth"] = [
    ("q01", "Which subject does Ruth teach?", ["m01", "m12"]),
    ("q02", "Is Ruth teaching at the moment?", ["m32", "m34"]),
    ("q03", "Is Ruth's daughter staying with her right now?", ["m33"]),
    ("q04", "How does Ruth get to school these days?", ["m24", "m39"]),
    ("q05", "Which part of Sheffield is Ruth living in?", ["m23", "m40"]),
    ("q06", "What pastoral job does Ruth have at school now?", ["m22", "m38"]),
    ("q07", "When does Ruth get her marking done?", ["m06", "m16"]),
    ("q08", "Which evening is Ruth's choir?", ["m07", "m19"]),
    ("q09", "What does Ruth's husband do for a living?", ["m05", "m21", "m35"]),
    ("q10", "Who gets the kit ready for Ruth's chemistry practicals?", ["m15", "m25"]),
    ("q11", "What is Amara studying?", ["m13", "m26"]),
    ("q12", "Can I put milk in Ruth's tea?", ["m08"]),
    ("q13", "What job is Ruth hoping to get next?", ["m09", "m27"]),
    ("q14", "What does Ruth do after school on Thursdays?", ["m28"]),
]

# -- dean: Dean Whitlock, owner of a print and copy shop in Tucson; English --------------

STREAMS["dean"] = [
    (1, 0, [
        ("m01", "business/print-shop", "new", "profile",
         "Dean owns a small print and copy shop called Desert Ink in Tucson",
         {"topic": "work:business"}),
        ("m02", "staff/two", "new", "fact",
         "Dean has two part-time employees at the shop", {"topic": "work:staff"}),
        ("m03", "opening/seven", "new", "habit",
         "Dean opens the shop at 7am on weekdays", {"topic": "work:hours"}),
        ("m04", "paper/phoenix", "new", "fact",
         "Dean buys his paper stock from a wholesaler in Phoenix"),
        ("m05", "books/wife", "new", "fact",
         "Dean's wife Lorrie does the bookkeeping for the shop", {"contacts": ["Lorrie"]}),
        ("m06", "fishing/sunday", "new", "habit",
         "Dean goes bass fishing at Patagonia Lake most Sunday mornings"),
        ("m07", "fishing-skip/wedding-order", "state", "state",
         "Dean is skipping fishing this Sunday to finish a big wedding invitation order"),
        ("m08", "dog/biscuit", "new", "fact",
         "Dean has an old beagle called Biscuit who sleeps under the counter at the shop"),
        ("m09", "goal/second-shop", "new", "goal",
         "Dean wants to open a second shop near the university"),
        ("m10", "payments/square", "new", "fact",
         "Dean takes card payments with a Square reader", {"topic": "work:payments"}),
        ("m11", "business/print-shop", "paraphrase", "profile",
         "Desert Ink, Dean's shop, does copies, banners and business cards"),
    ]),
    (2, 8, [
        ("m12", "back/lifting", "new", "fact",
         "Dean has a bad lower back from years of lifting boxes of paper"),
        ("m13", "opening/seven", "paraphrase", "habit",
         "On weekdays Dean has the shop open by seven in the morning"),
        ("m14", "wide-format/tj", "new", "fact",
         "TJ, one of Dean's employees, runs the wide-format printer", {"contacts": ["TJ"]}),
        ("m15", "smoking/quit", "new", "fact",
         "Dean quit smoking eight years ago"),
        ("m16", "rent/raised", "new", "event",
         "Dean's landlord raised the rent on the shop by 12 percent"),
        ("m17", "books/wife", "paraphrase", "fact",
         "Lorrie, Dean's wife, keeps the books for the business", {"contacts": ["Lorrie"]}),
        ("m18", "fishing/sunday", "paraphrase", "habit",
         "Sunday mornings Dean is usually out on Patagonia Lake after bass"),
        ("m19", "podcasts/baseball", "new", "preference",
         "Dean listens to baseball podcasts while he trims print jobs"),
        ("m20", "back-today/out", "state", "state",
         "Dean's back is out today and he can barely lift a ream"),
    ]),
    (3, 19, [
        ("m21", "staff/three", "update", "fact",
         "Dean has hired a third part-time employee", {"topic": "work:staff"}),
        ("m22", "opening/nine", "update", "habit",
         "Dean now opens the shop at 9am instead of 7", {"topic": "work:hours"}),
        ("m23", "payments/clover", "update", "fact",
         "Dean switched from Square to a Clover terminal for card payments",
         {"topic": "work:payments"}),
        ("m24", "wide-format/tj", "paraphrase", "fact",
         "Tyler Jackson handles the banner and poster printer at Dean's shop",
         {"contacts": ["Tyler Jackson"]}),
        ("m25", "cigarette/printer-jam", "contradiction", "event",
         "Dean smoked a cigarette behind the shop after the big printer jammed",
         {"contradicts": "smoking/quit"}),
        ("m26", "dog/biscuit", "paraphrase", "fact",
         "Biscuit, Dean's elderly beagle, naps under the shop counter all day"),
        ("m27", "goal/second-shop", "paraphrase", "goal",
         "Dean is hoping to expand with a second location close to campus"),
        ("m28", "closed-saturday/quinceanera", "state", "state",
         "Dean's shop is closed this Saturday for his niece's quinceañera"),
        ("m29", "back/lifting", "paraphrase", "fact",
         "Hauling cases of paper for years has wrecked Dean's lower back"),
    ]),
    (4, 31, [
        ("m30", "daughter/asu", "new", "fact",
         "Dean's daughter Kayla is in her second year at Arizona State",
         {"contacts": ["Kayla"]}),
        ("m31", "paper/phoenix", "paraphrase", "fact",
         "Dean's paper comes from a wholesale distributor up in Phoenix"),
        ("m32", "podcasts/baseball", "paraphrase", "preference",
         "Dean has a baseball podcast on while he cuts and trims orders"),
        ("m33", "yard-signs/council", "new", "event",
         "Dean printed 400 yard signs for a city council candidate"),
        ("m34", "books/wife", "paraphrase", "fact",
         "Lorraine Whitlock does all the accounting for Desert Ink",
         {"contacts": ["Lorraine Whitlock"]}),
        ("m35", "staff/three", "paraphrase", "fact",
         "Dean's shop has three part-timers now"),
    ]),
    (5, 42, [
        ("m36", "jury/two-weeks", "state", "state",
         "Dean is on jury duty for the next couple of weeks, so Lorrie is minding the shop",
         {"contacts": ["Lorrie"]}),
        ("m37", "printer-down/part", "state", "state",
         "Dean's wide-format printer is out of action until a replacement part arrives"
         " next Tuesday"),
        ("m38", "jury/two-weeks", "paraphrase", "state",
         "Dean has been picked for a jury and will be in court most days for two weeks"),
        ("m39", "opening/seven", "paraphrase", "habit",
         "Back when Dean opened at seven, hardly anyone came in before eight"),
        ("m40", "payments/square", "paraphrase", "fact",
         "Dean was paying Square a fee on every card sale before he switched"),
        ("m41", "opening/nine", "paraphrase", "habit",
         "Dean's shop opens at nine on weekdays these days"),
        ("m42", "payments/clover", "paraphrase", "fact",
         "Card payments at Desert Ink go through a Clover terminal now"),
    ]),
]
QUESTIONS["dean"] = [
    ("q01", "What kind of business does Dean have?", ["m01", "m11"]),
    ("q02", "Is Dean behind the counter at his shop this week?", ["m36", "m38"]),
    ("q03", "Could Dean print a big banner for me right now?", ["m37"]),
    ("q04", "What time can I drop by Dean's shop in the morning?", ["m22", "m41"]),
    ("q05", "How many people does Dean employ now?", ["m21", "m35"]),
    ("q06", "What does Dean use to take card payments?", ["m23", "m42"]),
    ("q07", "Who handles the accounts for Desert Ink?", ["m05", "m17", "m34"]),
    ("q08", "What does Dean like to do on a Sunday morning?", ["m06", "m18"]),
    ("q09", "Who looks after the large-format printing at Dean's shop?", ["m14", "m24"]),
    ("q10", "Where does Dean order his paper?", ["m04", "m31"]),
    ("q11", "What's the name of Dean's dog?", ["m08", "m26"]),
    ("q12", "How does Dean want to grow the business?", ["m09", "m27"]),
    ("q13", "Which college does Dean's daughter go to?", ["m30"]),
    ("q14", "Is Dean a smoker?", ["m15"]),
]

# -- wang: 王德明，退休的铁路桥梁工程师，洛阳；中文 ----------------------------------------

STREAMS["wang"] = [
    (1, 0, [
        ("m01", "career/bridge-engineer", "new", "profile",
         "王德明退休前是铁路桥梁工程师，在铁路设计院干了三十多年",
         {"topic": "work:career"}),
        ("m02", "home/jianxi", "new", "fact",
         "王德明住在洛阳涧西区的老厂区宿舍", {"topic": "home:city"}),
        ("m03", "taiji/morning", "new", "habit",
         "王德明每天早上六点去公园打太极拳"),
        ("m04", "bp-medicine/amlodipine", "new", "fact",
         "王德明有高血压，每天早上吃一片氨氯地平", {"topic": "health:medicine"}),
        ("m05", "xiangqi/laosun", "new", "habit",
         "王德明下午常在小区门口和老孙下象棋", {"contacts": ["老孙"]}),
        ("m06", "son/programmer", "new", "fact",
         "王德明的儿子王磊在深圳当程序员", {"contacts": ["王磊"]}),
        ("m07", "balcony/vegetables", "new", "habit",
         "王德明在阳台上种了辣椒和西红柿，天天浇水"),
        ("m08", "cold-days/no-taiji", "state", "state",
         "王德明这两天感冒了，没去公园打太极"),
        ("m09", "taste/low-salt", "new", "preference",
         "王德明口味清淡，医生让他少吃盐"),
        ("m10", "goal/memoir", "new", "goal",
         "王德明想把自己参与修建的桥写成一本回忆录"),
        ("m11", "career/bridge-engineer", "paraphrase", "profile",
         "王德明是铁路系统退下来的老工程师，专门搞桥梁设计"),
    ]),
    (2, 13, [
        ("m12", "wife/square-dance", "new", "fact",
         "王德明的老伴秀芬喜欢跳广场舞", {"contacts": ["秀芬"]}),
        ("m13", "taiji/morning", "paraphrase", "habit",
         "王德明雷打不动，天天清早在公园练太极"),
        ("m14", "phone/old-huawei", "new", "fact",
         "王德明用的是儿子淘汰下来的旧华为手机", {"topic": "device:phone"}),
        ("m15", "meal/salty", "contradiction", "event",
         "王德明昨晚就着咸菜吃了一大碗红烧肉", {"contradicts": "taste/low-salt"}),
        ("m16", "xiangqi/laosun", "paraphrase", "habit",
         "孙国强是王德明的老同事，两人下午经常在小区门口杀几盘象棋",
         {"contacts": ["孙国强"]}),
        ("m17", "class/calligraphy", "new", "habit",
         "王德明每周二、周四上午去老年大学学书法", {"topic": "hobby:class"}),
        ("m18", "bp-medicine/amlodipine", "paraphrase", "fact",
         "王德明血压高，早上要吃降压药氨氯地平"),
        ("m19", "goal/memoir", "paraphrase", "goal",
         "王德明打算写本回忆录，记下他当年修的那些铁路桥"),
        ("m20", "checkup-thursday/skip-class", "state", "state",
         "王德明这周四要去医院复查，书法课请了假"),
        ("m21", "son/programmer", "paraphrase", "fact",
         "王德明的儿子王磊在深圳一家互联网公司写代码", {"contacts": ["王磊"]}),
    ]),
    (3, 27, [
        ("m22", "phone/new-xiaomi", "update", "fact",
         "王德明换了一部新的小米手机，字体调得很大", {"topic": "device:phone"}),
        ("m23", "class/photography", "update", "habit",
         "王德明从老年大学的书法班转到了摄影班，还是周二周四上午上课",
         {"topic": "hobby:class"}),
        ("m24", "bp-medicine/valsartan", "update", "fact",
         "医生给王德明换了降压药，改吃缬沙坦", {"topic": "health:medicine"}),
        ("m25", "wife/square-dance", "paraphrase", "fact",
         "王德明的老伴李秀芬每天晚上在广场上跳舞", {"contacts": ["李秀芬"]}),
        ("m26", "balcony/vegetables", "paraphrase", "habit",
         "王德明阳台上的西红柿和辣椒是他自己种的，长得不错"),
        ("m27", "trip/longmen", "new", "event",
         "王德明带老伴去了一趟龙门石窟"),
        ("m28", "pension/6000", "new", "fact",
         "王德明的退休金每月六千块左右"),
        ("m29", "weekend/kaifeng-reunion", "state", "state",
         "王德明这个周末要去开封参加老同事聚会"),
        ("m30", "xiangqi/laosun", "paraphrase", "habit",
         "每天下午王德明都和老孙在楼下对弈", {"contacts": ["老孙"]}),
    ]),
    (4, 42, [
        ("m31", "back-injury/no-taiji", "state", "state",
         "王德明腰扭了，这两周都不能去公园打太极"),
        ("m32", "back-injury/no-taiji", "paraphrase", "state",
         "王德明闪了腰，医生让他在家躺两个礼拜"),
        ("m33", "son-home/this-month", "state", "state",
         "王德明的儿子王磊这个月回洛阳休假，住在家里", {"contacts": ["王磊"]}),
        ("m34", "phone/old-huawei", "paraphrase", "fact",
         "王德明以前那部旧华为手机屏幕太小，看不清字"),
        ("m35", "class/calligraphy", "paraphrase", "habit",
         "王德明在书法班那阵子写的字还挂在客厅墙上"),
        ("m36", "phone/new-xiaomi", "paraphrase", "fact",
         "王德明现在用小米手机跟儿子视频"),
        ("m37", "class/photography", "paraphrase", "habit",
         "王德明现在在老年大学学摄影"),
        ("m38", "bp-medicine/valsartan", "paraphrase", "fact",
         "王德明每天早上吃缬沙坦控制血压"),
        ("m39", "peony-photos/plan", "new", "goal",
         "王德明想用学到的摄影技术去拍明年的牡丹花会"),
    ]),
]
QUESTIONS["wang"] = [
    ("q01", "王德明退休以前做什么工作？", ["m01", "m11"]),
    ("q02", "王德明最近还去公园练太极吗？", ["m31", "m32"]),
    ("q03", "王德明的儿子现在在洛阳吗？", ["m33"]),
    ("q04", "王德明现在用的什么手机？", ["m22", "m36"]),
    ("q05", "王德明在老年大学上的是什么课？", ["m23", "m37"]),
    ("q06", "王德明现在吃哪种降压药？", ["m24", "m38"]),
    ("q07", "王德明一般跟谁下棋？", ["m05", "m16", "m30"]),
    ("q08", "王德明阳台上种着什么？", ["m07", "m26"]),
    ("q09", "王德明的老伴平时有什么爱好？", ["m12", "m25"]),
    ("q10", "王德明家在洛阳哪个区？", ["m02"]),
    ("q11", "给王德明做饭要注意什么？", ["m09"]),
    ("q12", "王德明想写一本什么书？", ["m10", "m19"]),
    ("q13", "王德明的儿子是干哪一行的？", ["m06", "m21"]),
]

# -- chen: 陈晓燕，福建安溪的茶农，种铁观音；中文 ------------------------------------------

STREAMS["chen"] = [
    (1, 0, [
        ("m01", "job/tea-farmer", "new", "profile",
         "陈晓燕在福建安溪种茶，家里有二十亩铁观音茶园", {"topic": "work:farm"}),
        ("m02", "tea-making/husband", "new", "fact",
         "陈晓燕的丈夫阿强负责炒茶和做茶", {"contacts": ["阿强"]}),
        ("m03", "selling/market", "new", "habit",
         "陈晓燕每周六去县城的茶叶市场摆摊卖茶", {"topic": "work:sales"}),
        ("m04", "son/xiamen-school", "new", "fact",
         "陈晓燕的儿子小宇在厦门读高二", {"contacts": ["小宇"]}),
        ("m05", "picking/5am", "new", "habit",
         "采茶季陈晓燕每天凌晨五点就起床上山"),
        ("m06", "hand-cut/no-picking", "state", "state",
         "陈晓燕这几天手被茶树枝划伤了，没法采茶"),
        ("m07", "favourite-tea/strong", "new", "preference",
         "陈晓燕自己最爱喝浓香型的铁观音"),
        ("m08", "goal/organic", "new", "goal",
         "陈晓燕想给茶园申请有机茶认证"),
        ("m09", "roller/old", "new", "fact",
         "陈晓燕家的揉捻机用了十几年，经常出毛病", {"topic": "work:machine"}),
        ("m10", "van/wuling", "new", "fact",
         "陈晓燕开一辆五菱面包车运茶叶"),
        ("m11", "job/tea-farmer", "paraphrase", "profile",
         "陈晓燕是安溪的茶农，种的是铁观音"),
    ]),
    (2, 9, [
        ("m12", "tea-making/husband", "paraphrase", "fact",
         "阿强是陈晓燕的老公，茶厂里杀青、摇青都归他管", {"contacts": ["阿强"]}),
        ("m13", "hail/damage", "new", "event",
         "一场冰雹打坏了陈晓燕家山上的一片茶树"),
        ("m14", "pickers/six", "new", "fact",
         "采茶季陈晓燕会雇六个采茶工帮忙"),
        ("m15", "selling/market", "paraphrase", "habit",
         "每逢周六，陈晓燕都在县城茶叶市场摆摊"),
        ("m16", "tea-taste/light", "contradiction", "preference",
         "陈晓燕说她其实只喝清香型的铁观音，浓香的喝了睡不着",
         {"contradicts": "favourite-tea/strong"}),
        ("m17", "mother-in-law/lives-with", "new", "fact",
         "陈晓燕的婆婆腿脚不好，跟她家住在一起"),
        ("m18", "goal/organic", "paraphrase", "goal",
         "陈晓燕打算给自家茶园办有机认证"),
        ("m19", "busy-week/spring-tea", "state", "state",
         "陈晓燕这周忙着做春茶，没空回客户消息"),
        ("m20", "son/xiamen-school", "paraphrase", "fact",
         "小宇是陈晓燕的儿子，在厦门上高中二年级", {"contacts": ["小宇"]}),
    ]),
    (3, 20, [
        ("m21", "selling/livestream", "update", "habit",
         "陈晓燕不去市场摆摊了，现在每天晚上八点在抖音直播卖茶",
         {"topic": "work:sales"}),
        ("m22", "roller/new", "update", "fact",
         "陈晓燕家换了一台新的揉捻机，花了三万多", {"topic": "work:machine"}),
        ("m23", "tea-making/husband", "paraphrase", "fact",
         "林志强是陈晓燕的丈夫，村里做茶的手艺数他最好", {"contacts": ["林志强"]}),
        ("m24", "organic/submitted", "new", "event",
         "陈晓燕的有机认证申请材料已经交上去了"),
        ("m25", "picking/5am", "paraphrase", "habit",
         "一到采茶季，陈晓燕天不亮五点钟就上山"),
        ("m26", "van/wuling", "paraphrase", "fact",
         "陈晓燕拉茶叶用的是一辆五菱面包车"),
        ("m27", "customer/huangjie", "new", "fact",
         "陈晓燕最大的客户是泉州一家茶馆的老板娘黄姐", {"contacts": ["黄姐"]}),
        ("m28", "mother-in-law/lives-with", "paraphrase", "fact",
         "陈晓燕的婆婆和他们一家同住，腿不太方便"),
    ]),
    (4, 31, [
        ("m29", "son/xiamen-school", "paraphrase", "fact",
         "林宇航是陈晓燕的儿子，在厦门念高二", {"contacts": ["林宇航"]}),
        ("m30", "selling/livestream", "paraphrase", "habit",
         "陈晓燕现在主要靠晚上在抖音直播卖茶"),
        ("m31", "followers/20000", "new", "event",
         "陈晓燕的直播间粉丝涨到了两万"),
        ("m32", "customer/huangjie", "paraphrase", "fact",
         "泉州开茶馆的黄姐是陈晓燕的大主顾", {"contacts": ["黄姐"]}),
        ("m33", "son-goal/agri-uni", "new", "goal",
         "小宇想考农业大学，以后回来管茶园", {"contacts": ["小宇"]}),
    ]),
    (5, 42, [
        ("m34", "training/fuzhou", "state", "state",
         "陈晓燕这两周在福州参加茶艺师培训，不在家"),
        ("m35", "power-cut/factory", "state", "state",
         "陈晓燕家的茶厂停电检修，到下周一都不能做茶"),
        ("m36", "training/fuzhou", "paraphrase", "state",
         "陈晓燕去福州学茶艺了，要半个月才回安溪"),
        ("m37", "stand-in/husband-streams", "state", "state",
         "陈晓燕不在家这段时间，直播由林志强替她播", {"contacts": ["林志强"]}),
        ("m38", "selling/market", "paraphrase", "habit",
         "以前在市场摆摊的时候，陈晓燕一站就是一整天"),
        ("m39", "roller/old", "paraphrase", "fact",
         "陈晓燕家原来那台旧揉捻机老是卡住"),
        ("m40", "roller/new", "paraphrase", "fact",
         "陈晓燕家新买的揉捻机好用多了"),
    ]),
]
QUESTIONS["chen"] = [
    ("q01", "陈晓燕是做哪一行的？", ["m01", "m11"]),
    ("q02", "陈晓燕这几天在安溪家里吗？", ["m34", "m36"]),
    ("q03", "陈晓燕家的茶厂现在能开工吗？", ["m35"]),
    ("q04", "陈晓燕现在通过什么渠道卖茶？", ["m21", "m30"]),
    ("q05", "陈晓燕家的揉捻机最近换过吗？", ["m22", "m40"]),
    ("q06", "陈晓燕家谁负责炒茶？", ["m02", "m12", "m23"]),
    ("q07", "陈晓燕的儿子在哪里念书？", ["m04", "m20", "m29"]),
    ("q08", "采茶的时候陈晓燕几点起床？", ["m05", "m25"]),
    ("q09", "谁是陈晓燕最大的买家？", ["m27", "m32"]),
    ("q10", "陈晓燕家里还有哪位老人一起住？", ["m17", "m28"]),
    ("q11", "陈晓燕开什么车拉货？", ["m10", "m26"]),
    ("q12", "这阵子陈晓燕的直播是谁在播？", ["m37"]),
    ("q13", "陈晓燕想给茶园办什么认证？", ["m08", "m18"]),
]

# -- yiwen: 林亦文, cellist in a chamber orchestra in Singapore; English and Chinese ----

STREAMS["yiwen"] = [
    (1, 0, [
        ("m01", "job/cellist", "new", "profile",
         "Yiwen plays cello in a chamber orchestra in Singapore", {"topic": "work:job"}),
        ("m02", "practice/morning", "new", "habit",
         "Yiwen practises for three hours every morning before rehearsal"),
        ("m03", "students/four", "new", "habit",
         "亦文周末在家教四个学生拉大提琴", {"topic": "work:teaching"}),
        ("m04", "instrument/german-loan", "new", "fact",
         "Yiwen plays a German cello from around 1890 that a patron lent her",
         {"topic": "work:instrument"}),
        ("m05", "boyfriend/sound-engineer", "new", "fact",
         "Yiwen's boyfriend Ben is a sound engineer", {"contacts": ["Ben"]}),
        ("m06", "wrist-today/scales-only", "state", "state",
         "Yiwen's left wrist is sore today so she is only doing scales"),
        ("m07", "diet/no-spicy", "new", "fact",
         "亦文不吃辣，一吃辣就胃疼"),
        ("m08", "mother/piano-teacher", "new", "fact",
         "亦文的妈妈住在台北，是钢琴老师"),
        ("m09", "goal/principal", "new", "goal",
         "Yiwen wants to win a principal cello position within two years"),
        ("m10", "repertoire/elgar", "new", "fact",
         "Yiwen is learning the Elgar cello concerto for a concert in the spring"),
        ("m11", "job/cellist", "paraphrase", "profile",
         "亦文是新加坡一个室内乐团的大提琴手"),
    ]),
    (2, 14, [
        ("m12", "practice/morning", "paraphrase", "habit",
         "亦文每天早上排练之前先练三个小时琴"),
        ("m13", "boyfriend/sound-engineer", "paraphrase", "fact",
         "亦文的男朋友Ben是做录音和扩声的音响工程师", {"contacts": ["Ben"]}),
        ("m14", "home/tiong-bahru", "new", "fact",
         "Yiwen rents a flat in Tiong Bahru", {"topic": "home"}),
        ("m15", "meal/laksa", "contradiction", "event",
         "Yiwen had a bowl of very spicy laksa after the concert and loved it",
         {"contradicts": "diet/no-spicy"}),
        ("m16", "students/four", "paraphrase", "habit",
         "On weekends Yiwen teaches cello to four private students at home"),
        ("m17", "conductor/strict", "new", "fact",
         "The orchestra's music director, whom everyone calls Kuni, is strict about intonation",
         {"contacts": ["Kuni"]}),
        ("m18", "recording-week/album", "state", "state",
         "亦文这周在录音棚录专辑，每天录到半夜"),
        ("m19", "mother/piano-teacher", "paraphrase", "fact",
         "Yiwen's mother teaches piano in Taipei"),
        ("m20", "instrument/german-loan", "paraphrase", "fact",
         "亦文现在拉的琴是赞助人借给她的一把1890年左右的德国老琴"),
    ]),
    (3, 28, [
        ("m21", "instrument/cremona-own", "update", "fact",
         "Yiwen has bought her own cello, a modern instrument made in Cremona in 2019",
         {"topic": "work:instrument"}),
        ("m22", "students/two", "update", "habit",
         "亦文把周末的学生减到了两个，想多留时间练琴", {"topic": "work:teaching"}),
        ("m23", "conductor/strict", "paraphrase", "fact",
         "Kunihiko Sato, who directs Yiwen's orchestra, is a stickler for intonation",
         {"contacts": ["Kunihiko Sato"]}),
        ("m24", "repertoire/elgar", "paraphrase", "fact",
         "亦文在练埃尔加的大提琴协奏曲，准备春天的音乐会"),
        ("m25", "goal/principal", "paraphrase", "goal",
         "亦文的目标是两年内当上大提琴首席"),
        ("m26", "cat/mochi", "new", "fact",
         "Yiwen and Ben have adopted a cat called Mochi", {"contacts": ["Ben"]}),
        ("m27", "home/tiong-bahru", "paraphrase", "fact",
         "亦文在中峇鲁租了一套公寓"),
        ("m28", "tour/perth", "state", "state",
         "Yiwen is on tour in Perth until Sunday"),
    ]),
    (4, 42, [
        ("m29", "taipei/mother-surgery", "state", "state",
         "亦文这两周在台北照顾刚做完手术的妈妈"),
        ("m30", "taipei/mother-surgery", "paraphrase", "state",
         "Yiwen is in Taipei for the next two weeks looking after her mother after an operation"),
        ("m31", "cello-at-luthier/bridge", "state", "state",
         "Yiwen's new cello is with the luthier until next Friday to have the bridge adjusted"),
        ("m32", "boyfriend/sound-engineer", "paraphrase", "fact",
         "Benjamin Tan, Yiwen's boyfriend, mixes live sound for concerts",
         {"contacts": ["Benjamin Tan"]}),
        ("m33", "instrument/german-loan", "paraphrase", "fact",
         "The German cello Yiwen used to borrow had a darker tone than the one she owns now"),
        ("m34", "students/four", "paraphrase", "habit",
         "以前亦文周末教四个学生的时候，几乎没有休息日"),
        ("m35", "instrument/cremona-own", "paraphrase", "fact",
         "亦文现在拉的是自己那把2019年的克雷莫纳新琴"),
        ("m36", "students/two", "paraphrase", "habit",
         "Yiwen only has two private students now"),
        ("m37", "europe-tour/announced", "new", "event",
         "亦文的乐团宣布下个乐季要去欧洲巡演"),
        ("m38", "diet/no-spicy", "paraphrase", "fact",
         "Yiwen can't handle spicy food, it upsets her stomach"),
    ]),
]
QUESTIONS["yiwen"] = [
    ("q01", "What does Yiwen do for work?", ["m01", "m11"]),
    ("q02", "亦文现在人在新加坡吗？", ["m29", "m30"]),
    ("q03", "Does Yiwen have her cello at home right now?", ["m31"]),
    ("q04", "亦文现在拉的是谁的琴？", ["m21", "m35"]),
    ("q05", "How many pupils does Yiwen teach on weekends now?", ["m22", "m36"]),
    ("q06", "亦文的男朋友做什么工作？", ["m05", "m13", "m32"]),
    ("q07", "Who is the conductor of Yiwen's orchestra?", ["m17", "m23"]),
    ("q08", "亦文一般什么时候练琴？", ["m02", "m12"]),
    ("q09", "Which concerto is Yiwen preparing?", ["m10", "m24"]),
    ("q10", "请亦文吃饭可以点辣的菜吗？", ["m07", "m38"]),
    ("q11", "Which neighbourhood does Yiwen live in?", ["m14", "m27"]),
    ("q12", "亦文的妈妈是做什么的？", ["m08", "m19"]),
    ("q13", "Where does Yiwen want her career to go?", ["m09", "m25"]),
    ("q14", "Does Yiwen have a pet?", ["m26"]),
]

# -- jia: 赵佳, founder of VoltSwap (e-scooter battery swapping), Shenzhen; English and Chinese

STREAMS["jia"] = [
    (1, 0, [
        ("m01", "company/voltswap", "new", "profile",
         "Zhao Jia is co-founder and CEO of VoltSwap, a Shenzhen startup building"
         " battery-swap stations for e-scooters", {"topic": "work:company"}),
        ("m02", "cofounder/hardware", "new", "fact",
         "赵佳的联合创始人阿豪负责硬件研发", {"contacts": ["阿豪"]}),
        ("m03", "funding/seed", "new", "fact",
         "VoltSwap raised a 5 million yuan seed round last year",
         {"topic": "work:funding"}),
        ("m04", "team/twelve", "new", "fact",
         "赵佳的公司现在有十二个员工", {"topic": "work:team"}),
        ("m05", "running/bay", "new", "habit",
         "Jia runs 5 km along Shenzhen Bay every morning at 6:30"),
        ("m06", "hangzhou-week/investors", "state", "state",
         "赵佳这周在杭州见投资人，每天只睡五个小时"),
        ("m07", "contact/voice-messages", "new", "preference",
         "赵佳不喜欢打电话，更习惯发微信语音"),
        ("m08", "home/nanshan-flat", "new", "fact",
         "Jia lives alone in a small flat in Nanshan, close to the office"),
        ("m09", "father/hardware-store", "new", "fact",
         "赵佳的爸爸在湖南老家开一家五金店"),
        ("m10", "goal/1000-stations", "new", "goal",
         "Jia's goal is 1,000 swap stations across Shenzhen by the end of next year"),
        ("m11", "company/voltswap", "paraphrase", "profile",
         "赵佳是VoltSwap的创始人兼CEO，公司做电动车换电柜"),
    ]),
    (2, 6, [
        ("m12", "running/bay", "paraphrase", "habit",
         "赵佳每天早上六点半去深圳湾跑五公里"),
        ("m13", "investor/linda", "new", "fact",
         "赵佳的投资人里最支持她的是一位叫Linda的合伙人", {"contacts": ["Linda"]}),
        ("m14", "coffee/four-cups", "new", "habit",
         "Jia drinks at least four cups of coffee a day"),
        ("m15", "cofounder/hardware", "paraphrase", "fact",
         "Ahao, Jia's co-founder, leads the hardware engineering", {"contacts": ["Ahao"]}),
        ("m16", "cold-today/wfh", "state", "state",
         "Jia has a cold today and is working from home"),
        ("m17", "team/twelve", "paraphrase", "fact",
         "VoltSwap has a team of twelve people"),
        ("m18", "office/nanshan-coworking", "new", "fact",
         "VoltSwap works out of a co-working space in Nanshan Science Park",
         {"topic": "work:office"}),
        ("m19", "funding/seed", "paraphrase", "fact",
         "VoltSwap去年拿了五百万元的种子轮"),
    ]),
    (3, 17, [
        ("m20", "funding/series-a", "update", "fact",
         "VoltSwap has closed a 30 million yuan Series A", {"topic": "work:funding"}),
        ("m21", "office/baoan", "update", "fact",
         "赵佳的公司从南山科技园的共享办公室搬到了宝安，离工厂近",
         {"topic": "work:office"}),
        ("m22", "caffeine/quit", "contradiction", "fact",
         "Jia says she gave up caffeine completely months ago",
         {"contradicts": "coffee/four-cups"}),
        ("m23", "cofounder/hardware", "paraphrase", "fact",
         "郑文豪是赵佳的联合创始人，硬件那一块归他管", {"contacts": ["郑文豪"]}),
        ("m24", "father/hardware-store", "paraphrase", "fact",
         "Jia's father runs a hardware shop back in their hometown in Hunan"),
        ("m25", "goal/1000-stations", "paraphrase", "goal",
         "赵佳定的目标是明年年底在深圳铺到一千个换电柜"),
        ("m26", "weekend/hunan-birthday", "state", "state",
         "赵佳这个周末要回湖南给爸爸过生日"),
        ("m27", "board/linda-wu", "new", "fact",
         "Linda Wu, a partner at the fund that led the Series A, has joined VoltSwap's board",
         {"contacts": ["Linda Wu"]}),
    ]),
    (4, 30, [
        ("m28", "team/twenty-five", "update", "fact",
         "VoltSwap团队扩到了二十五个人，大部分是工程师", {"topic": "work:team"}),
        ("m29", "home/nanshan-flat", "paraphrase", "fact",
         "赵佳一个人住在南山的小公寓里，离公司不远"),
        ("m30", "running/bay", "paraphrase", "habit",
         "Every morning Jia does a 5k along the bay"),
        ("m31", "longhua/100-stations", "new", "event",
         "VoltSwap has installed its first 100 stations in Longhua district"),
        ("m32", "funding/series-a", "paraphrase", "fact",
         "赵佳的公司完成了三千万元的A轮融资"),
    ]),
    (5, 42, [
        ("m33", "jakarta/partner", "state", "state",
         "Jia is in Jakarta until next Monday to meet a scooter-rental partner"),
        ("m34", "jakarta/partner", "paraphrase", "state",
         "赵佳到下周一都在雅加达出差，见一家电动车租赁的合作方"),
        ("m35", "knee/no-running", "state", "state",
         "赵佳膝盖拉伤了，这个月都不跑步，在做理疗"),
        ("m36", "funding/seed", "paraphrase", "fact",
         "Back when VoltSwap only had its seed money, Jia didn't pay herself a salary"),
        ("m37", "office/nanshan-coworking", "paraphrase", "fact",
         "赵佳还挺怀念在南山共享办公室的日子，楼下就是咖啡店"),
        ("m38", "team/twenty-five", "paraphrase", "fact",
         "Jia now manages a team of 25"),
        ("m39", "office/baoan", "paraphrase", "fact",
         "VoltSwap's office is out in Bao'an now, right next to the factory"),
        ("m40", "team/twelve", "paraphrase", "fact",
         "公司只有十二个人的时候，赵佳记得每个人的生日"),
    ]),
]
QUESTIONS["jia"] = [
    ("q01", "What does Jia's company make?", ["m01", "m11"]),
    ("q02", "赵佳这几天在深圳吗？", ["m33", "m34"]),
    ("q03", "Is Jia still doing her morning runs?", ["m35"]),
    ("q04", "VoltSwap最近一轮融了多少钱？", ["m20", "m32"]),
    ("q05", "How many people work at VoltSwap now?", ["m28", "m38"]),
    ("q06", "赵佳的公司现在在哪儿办公？", ["m21", "m39"]),
    ("q07", "Who is in charge of hardware at Jia's startup?", ["m02", "m15", "m23"]),
    ("q08", "赵佳家里是做什么生意的？", ["m09", "m24"]),
    ("q09", "How many stations is Jia aiming for?", ["m10", "m25"]),
    ("q10", "找赵佳的话，打电话好还是发消息好？", ["m07"]),
    ("q11", "Where does Jia live?", ["m08", "m29"]),
    ("q12", "赵佳的投资人里谁最挺她？", ["m13"]),
    ("q13", "Who sits on VoltSwap's board for the investors?", ["m27"]),
]

# fmt: on


def records() -> list[dict]:
    """Each user's memories in the order of writes, then that user's questions."""
    out: list[dict] = []
    last_day = {max(day for _, day, _ in sessions) for sessions in STREAMS.values()}
    assert len(last_day) == 1, "every user's last session must be on the same day"
    for user, sessions in STREAMS.items():
        facts: dict[str, str] = {}  # memory id -> fact
        slot_facts: dict[str, set[str]] = {}
        updated: set[str] = set()
        texts: set[str] = set()
        n = 0
        for session, day, rows in sessions:
            for row in rows:
                mid, fact, label, kind, content = row[:5]
                extra = row[5] if len(row) > 5 else {}
                n += 1
                assert mid == f"m{n:02d}", (user, mid)
                assert label in LABELS and kind in KINDS, (user, mid)
                assert set(extra) <= {"topic", "contacts", "contradicts"}, (user, mid)
                assert content not in texts, (user, mid, "a text said twice")
                texts.add(content)
                slot = fact.split("/", 1)[0]
                first = fact not in facts.values()
                assert (label == "paraphrase") == (not first), (user, mid, "paraphrase")
                assert (label == "state") == (kind == "state") or label == "paraphrase", mid
                if label == "update":
                    assert slot in slot_facts, (user, mid, "update of an unknown slot")
                    updated.add(slot)
                if "contradicts" in extra:
                    assert label == "contradiction", (user, mid)
                    assert extra["contradicts"] in facts.values(), (user, mid)
                rec = {
                    "type": "memory",
                    "id": f"{user}-{mid}",
                    "user": user,
                    "session": session,
                    "day": day,
                    "fact": fact,
                    "slot": slot,
                    "label": label,
                    "kind": kind,
                    "content": content,
                }
                rec.update(extra)
                out.append(rec)
                facts[mid] = fact
                slot_facts.setdefault(slot, set()).add(fact)
        # a slot with two facts is a conflict set for the eval: only the updated slots
        multi = {s for s, f in slot_facts.items() if len(f) > 1}
        assert multi == updated, (user, multi ^ updated)
        for qid, text, answers in QUESTIONS[user]:
            assert all(a in facts for a in answers), (user, qid)
            assert len({facts[a] for a in answers}) == 1, (user, qid, "one fact per question")
            # every memory of the answering fact answers: none is left out of the list
            said = [m for m, f in facts.items() if f == facts[answers[0]]]
            assert sorted(answers) == said, (user, qid, said)
            out.append(
                {
                    "type": "question",
                    "id": f"{user}-{qid}",
                    "user": user,
                    "text": text,
                    "answers": [f"{user}-{a}" for a in answers],
                }
            )
    return out


def main() -> int:
    ok = write_or_check(OUT, jsonl(records()), "Build the third development stream for pymem eval.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
