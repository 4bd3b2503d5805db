"""Build bench/data/memory_dev_stream_d.jsonl: stream D, the unseen measure for `pymem eval`.

Written by hand on 2026-12-06 for issue 34, by a writer who read only the format of
stream C (its builder's docstring, constants and helpers, scripts/jsonl_build.py and the
loader in pymem/eval.py), not its memories or questions, nor those of any other stream. Nobody
has tuned anything on it: it is the measure that stays unseen, to be run after the rules
were fitted elsewhere, not to fit them. Six users, with other people, jobs and places
than the other streams: two write English (marcus, Marcus Adeyemi, an air-traffic
controller at Manchester Airport; nell, Nell Harrington, a farm vet in Hexham who moves
to an equine hospital in Newmarket), two Chinese (zhou, 周建国, a long-distance coach
driver in 兰州; tang, 唐慧, a hospital pharmacist in 昆明), two both (kai, 郑凯, a game
level designer in Vancouver; lian, 何莲, a wine importer in Melbourne), with paraphrases
across languages.

Each user has: restatements of earlier memories in other words; updates (a new value of
a slot: a move, a new job, a new car, a new commute, a diet change) whose old value is
restated in passing later ("back when Marcus lived in Stockport...", 以前..., labelled a
paraphrase of the old fact, in the old fact's slot, as stream C labels them); temporary
states said the ways people say them ("this week", "for a fortnight", "until next
Monday", "for the next ten days", 这两周, 这个月, 到下周一), among them two or three from
the last session that still hold when the questions are asked, each with a question
about the present, and states of early sessions that have long ended beside the habit
they shadowed; people named by a nickname in one session and by their full name in
another (contacts), with a question that names them the other way; and one labelled
contradiction (`contradicts`). Every user's last session is on day 44, so the questions
(day 45) come one day after it.

No public dataset is copied.

    python scripts/build_memory_dev_stream_d.py           # write the file
    python scripts/build_memory_dev_stream_d.py --check   # fail if it is not current
"""

from __future__ import annotations

import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_d.jsonl"

LABELS = {"new", "paraphrase", "update", "state", "contradiction"}
KINDS = {"fact", "preference", "habit", "state", "event", "profile", "goal"}

# fmt: off
# user -> [(session, day, [(id, fact, label, kind, content[, extra]), ...]), ...]
# extra: optional "topic", "contacts" (names as written), "contradicts" (a fact).
# The slot of a memory is its fact up to the "/".
STREAMS: dict[str, list[tuple[int, int, list[tuple]]]] = {}
# user -> [(id, text, [answering memory ids]), ...]
QUESTIONS: dict[str, list[tuple[str, str, list[str]]]] = {}
# user -> ids of the questions about a state of the last session that still holds
LIVE: dict[str, list[str]] = {}

# -- marcus: Marcus Adeyemi, air-traffic controller at Manchester Airport; English ------

STREAMS["marcus"] = [
    (1, 0, [
        ("m01", "job/air-traffic-controller", "new", "profile",
         "Marcus works as an air-traffic controller at Manchester Airport",
         {"topic": "work:job"}),
        ("m02", "home/stockport", "new", "fact",
         "Marcus lives in a terraced house in Stockport", {"topic": "home:area"}),
        ("m03", "commute/train", "new", "habit",
         "Marcus takes the train to the airport for his shifts",
         {"topic": "transport:commute"}),
        ("m04", "driving-this-week/rail-strike", "state", "state",
         "Marcus is driving to work this week because of a rail strike"),
        ("m05", "shifts/rotating", "new", "fact",
         "Marcus works a rotating pattern of two early shifts, two lates and two nights"),
        ("m06", "sister/midwife", "new", "fact",
         "Marcus's sister Bex is a midwife", {"contacts": ["Bex"]}),
        ("m07", "parkrun/saturday", "new", "habit",
         "Marcus runs the Saturday morning parkrun at Woodbank Park"),
        ("m08", "alcohol/teetotal", "new", "fact",
         "Marcus doesn't drink alcohol"),
        ("m09", "goal/private-pilot", "new", "goal",
         "Marcus wants to earn a private pilot's licence"),
        ("m10", "records/northern-soul", "new", "preference",
         "Marcus collects Northern soul records on vinyl"),
        ("m11", "job/air-traffic-controller", "paraphrase", "profile",
         "Marcus is an air traffic controller, working in the tower at Manchester's airport"),
    ]),
    (2, 9, [
        ("m12", "car/golf", "new", "fact",
         "Marcus drives an old silver VW Golf", {"topic": "transport:car"}),
        ("m13", "partner/dentist", "new", "fact",
         "Marcus's partner Femi is a dentist", {"contacts": ["Femi"]}),
        ("m14", "parkrun/saturday", "paraphrase", "habit",
         "Most Saturdays Marcus does the 5k parkrun in Woodbank Park"),
        ("m15", "assessment/simulator", "new", "event",
         "Marcus passed his annual simulator assessment"),
        ("m16", "flying-lessons/barton", "new", "fact",
         "Marcus has started flying lessons at City Airport in Barton"),
        ("m17", "sleep/after-nights", "new", "habit",
         "After night shifts Marcus sleeps with blackout blinds and earplugs until early "
         "afternoon"),
        ("m18", "sister/midwife", "paraphrase", "fact",
         "Rebecca Adeyemi, Marcus's older sister, delivers babies at Stepping Hill Hospital",
         {"contacts": ["Rebecca Adeyemi"]}),
        ("m19", "no-running-fortnight/knee", "state", "state",
         "Marcus has sprained his knee and is off running for a fortnight"),
    ]),
    (3, 20, [
        ("m20", "home/didsbury", "update", "fact",
         "Marcus has moved to a flat in Didsbury", {"topic": "home:area"}),
        ("m21", "commute/cycling", "update", "habit",
         "Marcus now cycles to the airport from Didsbury", {"topic": "transport:commute"}),
        ("m22", "sister-wedding/june", "new", "event",
         "Marcus's sister Rebecca is getting married next June", {"contacts": ["Rebecca"]}),
        ("m23", "records/northern-soul", "paraphrase", "preference",
         "Marcus hunts through second-hand record shops for rare soul 45s"),
        ("m24", "first-solo/barton", "new", "event",
         "Marcus flew his first solo circuit at Barton"),
        ("m25", "coffee/black", "new", "preference",
         "Marcus takes his coffee black with no sugar"),
        ("m26", "stag-pints/newcastle", "contradiction", "event",
         "Marcus had a few pints at his mate's stag weekend in Newcastle",
         {"contradicts": "alcohol/teetotal"}),
    ]),
    (4, 32, [
        ("m27", "home/stockport", "paraphrase", "fact",
         "Back when Marcus lived in Stockport, the station was a five-minute walk away"),
        ("m28", "car/leaf", "update", "fact",
         "Marcus sold the Golf and bought a second-hand Nissan Leaf",
         {"topic": "transport:car"}),
        ("m29", "partner/dentist", "paraphrase", "fact",
         "Femi, Marcus's partner, works as a dentist in Chorlton", {"contacts": ["Femi"]}),
        ("m30", "goal/private-pilot", "paraphrase", "goal",
         "Marcus is working towards getting his PPL"),
        ("m31", "cat/mango", "new", "fact",
         "Marcus and Femi adopted a ginger cat called Mango"),
        ("m32", "commute/cycling", "paraphrase", "habit",
         "These days Marcus bikes in to work at the airport"),
        ("m33", "nights-this-week/rota", "state", "state",
         "Marcus is on night shifts all this week"),
    ]),
    (5, 44, [
        ("m34", "car/leaf", "paraphrase", "fact",
         "Marcus's car is an electric Nissan Leaf now"),
        ("m35", "car/golf", "paraphrase", "fact",
         "Marcus says the Golf he used to drive broke down every winter"),
        ("m36", "leave-until-monday/annual", "state", "state",
         "Marcus is on annual leave until next Monday"),
        ("m37", "femi-away/conference", "state", "state",
         "Femi is away at a dentistry conference in Edinburgh for the next ten days",
         {"contacts": ["Femi"]}),
        ("m38", "mum-staying/week", "state", "state",
         "Marcus's mum is staying in his spare room for the next week"),
        ("m39", "trip/lisbon", "new", "event",
         "Marcus has booked a week in Lisbon with Femi for May"),
        ("m40", "parkrun-pb/2140", "new", "event",
         "Marcus ran a parkrun personal best of 21 minutes 40 seconds"),
    ]),
]
QUESTIONS["marcus"] = [
    ("q01", "Where does Marcus live now?", ["m20"]),
    ("q02", "How does Marcus get to the airport these days?", ["m21", "m32"]),
    ("q03", "What car does Marcus drive?", ["m28", "m34"]),
    ("q04", "Is Marcus working at the moment, or is he on leave?", ["m36"]),
    ("q05", "Is Femi at home right now?", ["m37"]),
    ("q06", "Who is staying at Marcus's place at the moment?", ["m38"]),
    ("q07", "What does Bex do for a living?", ["m06", "m18"]),
    ("q08", "When is Bex getting married?", ["m22"]),
    ("q09", "What is Marcus's job?", ["m01", "m11"]),
    ("q10", "Is Marcus teetotal?", ["m08"]),
    ("q11", "Does Marcus buy old 45s?", ["m10", "m23"]),
    ("q12", "How does Marcus sleep after a night shift?", ["m17"]),
    ("q13", "Where is Marcus learning to fly?", ["m16"]),
    ("q14", "What does Marcus do on Saturday mornings?", ["m07", "m14"]),
    ("q15", "What's the name of Marcus's cat?", ["m31"]),
]
LIVE["marcus"] = ["q04", "q05", "q06"]

# -- nell: Nell Harrington, farm vet in Hexham, then at an equine hospital; English -----

STREAMS["nell"] = [
    (1, 0, [
        ("m01", "job/farm-vet", "new", "profile",
         "Nell is a large-animal vet at a farm practice in Hexham", {"topic": "work:job"}),
        ("m02", "home/corbridge", "new", "fact",
         "Nell lives in a stone cottage in Corbridge", {"topic": "home:area"}),
        ("m03", "dog/moss", "new", "fact",
         "Nell has a retired sheepdog called Moss"),
        ("m04", "swimming/river", "new", "habit",
         "Nell goes wild swimming in the Tyne before work in the summer months",
         {"topic": "sport:swimming"}),
        ("m05", "on-call/weekends", "new", "fact",
         "Nell is on call one weekend in three"),
        ("m06", "diet/vegetarian", "new", "fact",
         "Nell has been vegetarian since she was a teenager", {"topic": "food:diet"}),
        ("m07", "brother/sheep-farmer", "new", "fact",
         "Nell's brother Kit farms sheep near Alnwick", {"contacts": ["Kit"]}),
        ("m08", "radio/cricket", "new", "preference",
         "Nell listens to cricket commentary on the radio while driving between farms"),
        ("m09", "goal/equine-dentistry", "new", "goal",
         "Nell wants to get a certificate in equine dentistry"),
        ("m10", "no-swim-this-week/cut-foot", "state", "state",
         "Nell is staying out of the river this week because she cut her foot on a rock"),
        ("m11", "job/farm-vet", "paraphrase", "profile",
         "Nell works as a farm vet in Northumberland, mostly with cattle and sheep"),
    ]),
    (2, 6, [
        ("m12", "car/l200", "new", "fact",
         "Nell drives a Mitsubishi L200 pickup for work", {"topic": "transport:car"}),
        ("m13", "partner/potter", "new", "fact",
         "Nell's girlfriend Saoirse is a potter", {"contacts": ["Saoirse"]}),
        ("m14", "swimming/river", "paraphrase", "habit",
         "In summer Nell takes an early dip in the river each morning before heading to work"),
        ("m15", "calving/bellingham", "new", "event",
         "Nell delivered twin calves by caesarean at a farm near Bellingham"),
        ("m16", "book-club/tuesday", "new", "habit",
         "Nell goes to a book club at Corbridge library on the first Tuesday of the month"),
        ("m17", "dog/moss", "paraphrase", "fact",
         "Moss, Nell's old collie, used to work sheep before she retired"),
        ("m18", "brother/sheep-farmer", "paraphrase", "fact",
         "Christopher Harrington, Nell's younger brother, runs a hill sheep farm outside "
         "Alnwick", {"contacts": ["Christopher Harrington"]}),
    ]),
    (3, 17, [
        ("m19", "diet/vegan", "update", "fact",
         "Nell has gone fully vegan", {"topic": "food:diet"}),
        ("m20", "cricket-dislike/radio", "contradiction", "preference",
         "Nell can't stand cricket and switches it off whenever it comes on",
         {"contradicts": "radio/cricket"}),
        ("m21", "glendale-show/tups", "new", "event",
         "Christopher's Texel tups won best in show at the Glendale Show",
         {"contacts": ["Christopher"]}),
        ("m22", "goal/equine-dentistry", "paraphrase", "goal",
         "Nell hopes to qualify in equine dentistry"),
        ("m23", "on-call-lambing/ten-days", "state", "state",
         "Nell is on call every night for the next ten days while lambing is on"),
        ("m24", "partner/potter", "paraphrase", "fact",
         "Saoirse, Nell's partner, throws stoneware in a studio in Hexham",
         {"contacts": ["Saoirse"]}),
        ("m25", "tea/oat-milk", "new", "preference",
         "Nell drinks her tea strong with a splash of oat milk"),
    ]),
    (4, 30, [
        ("m26", "job/equine-hospital", "update", "profile",
         "Nell has taken a job at an equine hospital in Newmarket", {"topic": "work:job"}),
        ("m27", "home/newmarket", "update", "fact",
         "Nell has moved to a rented house on the edge of Newmarket",
         {"topic": "home:area"}),
        ("m28", "car/octavia", "update", "fact",
         "Nell traded the pickup in for a Skoda Octavia estate", {"topic": "transport:car"}),
        ("m29", "home/corbridge", "paraphrase", "fact",
         "Back when Nell lived in Corbridge she could see the Roman site from her kitchen"),
        ("m30", "swimming/pool", "update", "habit",
         "Since the move Nell swims lengths at the leisure centre pool instead",
         {"topic": "sport:swimming"}),
        ("m31", "job/equine-hospital", "paraphrase", "profile",
         "Nell now treats racehorses at a specialist equine hospital"),
    ]),
    (5, 44, [
        ("m32", "job/farm-vet", "paraphrase", "profile",
         "Nell says her years as a farm vet in Northumberland taught her to work in any "
         "weather"),
        ("m33", "away-course/fortnight", "state", "state",
         "Nell is away on an equine dentistry course in Edinburgh for the next fortnight"),
        ("m34", "moss-with-saoirse/until-back", "state", "state",
         "Moss is staying with Saoirse until Nell gets back from Edinburgh",
         {"contacts": ["Saoirse"]}),
        ("m35", "car/octavia", "paraphrase", "fact",
         "Nell's car is a Skoda estate now"),
        ("m36", "diet/vegan", "paraphrase", "fact",
         "Nell doesn't eat any animal products any more"),
        ("m37", "diet/vegetarian", "paraphrase", "fact",
         "When Nell was still just vegetarian she lived on cheese toasties"),
        ("m38", "boss/priya-anand", "new", "fact",
         "Nell's new boss at the equine hospital is Dr Priya Anand",
         {"contacts": ["Priya Anand"]}),
        ("m39", "running-club/thursday", "new", "habit",
         "Nell has joined a running club in Newmarket that meets on Thursday evenings"),
        ("m40", "saoirse-visits/monthly", "new", "habit",
         "Saoirse drives down from Hexham to see Nell one weekend a month",
         {"contacts": ["Saoirse"]}),
    ]),
]
QUESTIONS["nell"] = [
    ("q01", "Where does Nell live now?", ["m27"]),
    ("q02", "Where does Nell work these days?", ["m26", "m31"]),
    ("q03", "What does Nell drive now?", ["m28", "m35"]),
    ("q04", "What is Nell's diet now?", ["m19", "m36"]),
    ("q05", "Is Nell around this week or is she away?", ["m33"]),
    ("q06", "Who has got Moss right now?", ["m34"]),
    ("q07", "What does Kit farm?", ["m07", "m18"]),
    ("q08", "What did Kit win at the Glendale Show?", ["m21"]),
    ("q09", "Where is Saoirse's studio?", ["m13", "m24"]),
    ("q10", "Where does Nell go swimming now?", ["m30"]),
    ("q11", "Did Moss ever work sheep?", ["m03", "m17"]),
    ("q12", "How does Nell take her tea?", ["m25"]),
    ("q13", "Which qualification is Nell working towards?", ["m09", "m22"]),
    ("q14", "Who is Nell's boss?", ["m38"]),
]
LIVE["nell"] = ["q05", "q06"]

# -- zhou: 周建国, long-distance coach driver in 兰州, later a city bus driver; Chinese --

STREAMS["zhou"] = [
    (1, 0, [
        ("m01", "job/coach-driver", "new", "profile",
         "周建国在兰州开长途客车，跑兰州到西宁的线路", {"topic": "work:job"}),
        ("m02", "home/qilihe", "new", "fact",
         "周建国住在兰州七里河区", {"topic": "home:area"}),
        ("m03", "breakfast/beef-noodles", "new", "habit",
         "周建国每天早上吃一碗牛肉面再出车"),
        ("m04", "wife/accountant", "new", "fact",
         "周建国的妻子秀英在一家超市当会计", {"contacts": ["秀英"]}),
        ("m05", "son/civil-engineering", "new", "fact",
         "周建国的儿子周磊在西安读大学，学土木工程", {"contacts": ["周磊"]}),
        ("m06", "opera/qinqiang", "new", "preference",
         "周建国喜欢听秦腔，开车时常放"),
        ("m07", "health/blood-pressure", "new", "fact",
         "周建国血压偏高，每天吃降压药"),
        ("m08", "goal/retire-dingxi", "new", "goal",
         "周建国想再干五年就退休，回老家定西种地"),
        ("m09", "walk/yellow-river", "new", "habit",
         "周建国每天傍晚沿着黄河边散步一小时"),
        ("m10", "no-walk-few-days/ankle", "state", "state",
         "周建国这几天脚崴了，没去黄河边散步"),
        ("m11", "job/coach-driver", "paraphrase", "profile",
         "周建国是一名长途大巴司机，常年往返兰州和西宁"),
    ]),
    (2, 7, [
        ("m12", "car/jetta", "new", "fact",
         "周建国家里的私家车是一辆白色捷达", {"topic": "transport:car"}),
        ("m13", "co-driver/lao-ma", "new", "fact",
         "周建国的老搭档老马和他轮流开夜班车", {"contacts": ["老马"]}),
        ("m14", "breakfast/beef-noodles", "paraphrase", "habit",
         "周建国出车前习惯先去面馆吃碗牛肉拉面"),
        ("m15", "snow/service-area", "new", "event",
         "周建国前几天在高速上遇到大雪，车在服务区停了一夜"),
        ("m16", "tea/sanpaotai", "new", "preference",
         "周建国爱喝三炮台盖碗茶"),
        ("m17", "health/blood-pressure", "paraphrase", "fact",
         "周建国有高血压，药一天都不敢停"),
        ("m18", "walk/yellow-river", "paraphrase", "habit",
         "吃完晚饭周建国总要去黄河边走上一个钟头"),
    ]),
    (3, 15, [
        ("m19", "co-driver/lao-ma", "paraphrase", "fact",
         "马国强是周建国开车的搭档，两人已经搭班十年了", {"contacts": ["马国强"]}),
        ("m20", "ma-retire/next-month", "new", "event",
         "马国强下个月就要退休了", {"contacts": ["马国强"]}),
        ("m21", "training-two-weeks/new-drivers", "state", "state",
         "周建国这两周在公司培训新司机，不用出车"),
        ("m22", "opera-never/dislike", "contradiction", "preference",
         "周建国说自己从来不听戏曲，嫌吵", {"contradicts": "opera/qinqiang"}),
        ("m23", "son-scholarship/award", "new", "event",
         "周建国的儿子周磊拿到了一等奖学金", {"contacts": ["周磊"]}),
        ("m24", "goal/retire-dingxi", "paraphrase", "goal",
         "周建国打算五年后退休，回定西老家"),
    ]),
    (4, 28, [
        ("m25", "job/city-bus", "update", "profile",
         "周建国不开长途了，改开兰州市内的公交车", {"topic": "work:job"}),
        ("m26", "home/anning", "update", "fact",
         "周建国搬到了安宁区，离新单位近", {"topic": "home:area"}),
        ("m27", "job/coach-driver", "paraphrase", "profile",
         "周建国说以前跑长途的时候，一个月有二十天不在家"),
        ("m28", "smoking/quit", "new", "fact",
         "周建国最近把烟戒了"),
        ("m29", "son/civil-engineering", "paraphrase", "fact",
         "周磊在西安一所大学念土木专业", {"contacts": ["周磊"]}),
        ("m30", "tea/sanpaotai", "paraphrase", "preference",
         "周建国每天都要泡一碗八宝盖碗茶"),
    ]),
    (5, 44, [
        ("m31", "car/byd", "update", "fact",
         "周建国把捷达卖了，新买了一辆比亚迪电动车", {"topic": "transport:car"}),
        ("m32", "job/city-bus", "paraphrase", "profile",
         "周建国现在在兰州开公交，跑的是1路"),
        ("m33", "home/qilihe", "paraphrase", "fact",
         "周建国住七里河的时候，楼下就是牛肉面馆"),
        ("m34", "night-shift-this-week/sleep", "state", "state",
         "周建国这周上夜班，白天在家睡觉"),
        ("m35", "xiuying-dingxi/this-month", "state", "state",
         "秀英这个月回定西照顾生病的母亲", {"contacts": ["秀英"]}),
        ("m36", "antibiotics-until-monday/no-alcohol", "state", "state",
         "周建国到下周一都在吃消炎药，不能喝酒"),
        ("m37", "wife/accountant", "paraphrase", "fact",
         "周建国的老伴秀英在超市做财务", {"contacts": ["秀英"]}),
        ("m38", "chess/weekend-kids", "new", "habit",
         "周建国周末在社区教小孩下象棋"),
        ("m39", "bus-rescue/ambulance", "new", "event",
         "周建国在公交车上帮一位晕倒的老人叫了救护车"),
        ("m40", "allowance/monthly", "new", "fact",
         "周建国每个月给在西安上学的周磊打一千五百块生活费", {"contacts": ["周磊"]}),
    ]),
]
QUESTIONS["zhou"] = [
    ("q01", "周建国现在住在哪个区？", ["m26"]),
    ("q02", "周建国现在做什么工作？", ["m25", "m32"]),
    ("q03", "周建国现在开什么车？", ["m31"]),
    ("q04", "这周白天方便给周建国打电话吗？", ["m34"]),
    ("q05", "秀英现在在兰州吗？", ["m35"]),
    ("q06", "这几天能约周建国喝酒吗？", ["m36"]),
    ("q07", "老马什么时候退休？", ["m20"]),
    ("q08", "马国强是谁？", ["m13", "m19"]),
    ("q09", "周建国早饭一般吃什么？", ["m03", "m14"]),
    ("q10", "周建国喝不喝八宝茶？", ["m16", "m30"]),
    ("q11", "周建国晚饭后一般做什么？", ["m09", "m18"]),
    ("q12", "周建国的儿子学什么专业？", ["m05", "m29"]),
    ("q13", "周建国打算什么时候退休？", ["m08", "m24"]),
    ("q14", "周建国有什么慢性病？", ["m07", "m17"]),
]
LIVE["zhou"] = ["q04", "q05", "q06"]

# -- tang: 唐慧, hospital pharmacist in 昆明; Chinese ----------------------------------

STREAMS["tang"] = [
    (1, 0, [
        ("m01", "job/dispensary", "new", "profile",
         "唐慧在昆明一家三甲医院的药剂科当药师", {"topic": "work:job"}),
        ("m02", "home/cuihu", "new", "fact",
         "唐慧住在昆明翠湖附近的老小区", {"topic": "home:area"}),
        ("m03", "yoga/tue-thu", "new", "habit",
         "唐慧每周二和周四晚上去练瑜伽"),
        ("m04", "daughter/second-grade", "new", "fact",
         "唐慧的女儿朵朵今年上小学二年级", {"contacts": ["朵朵"]}),
        ("m05", "spicy/loves", "new", "preference",
         "唐慧特别能吃辣，最爱吃小锅米线", {"topic": "food:diet"}),
        ("m06", "husband/photographer", "new", "fact",
         "唐慧的丈夫杨帆是一名摄影师", {"contacts": ["杨帆"]}),
        ("m07", "goal/licensed-pharmacist", "new", "goal",
         "唐慧在准备执业药师考试"),
        ("m08", "commute/e-bike", "new", "habit",
         "唐慧每天骑电动车上下班", {"topic": "transport:commute"}),
        ("m09", "cold-this-week/no-yoga", "state", "state",
         "唐慧这周感冒了，瑜伽课请了假"),
        ("m10", "job/dispensary", "paraphrase", "profile",
         "唐慧是一名医院药师，在药房负责配药和审核处方"),
    ]),
    (2, 10, [
        ("m11", "flowers/dounan", "new", "preference",
         "唐慧喜欢去斗南花市买鲜花"),
        ("m12", "daughter-piano/saturday", "new", "habit",
         "唐慧的女儿杨思语每周六上午学钢琴", {"contacts": ["杨思语"]}),
        ("m13", "yoga/tue-thu", "paraphrase", "habit",
         "唐慧一周练两次瑜伽，都在周二周四的晚上"),
        ("m14", "dali/weekend", "new", "event",
         "唐慧和家人去大理过了个周末"),
        ("m15", "husband/photographer", "paraphrase", "fact",
         "杨帆是唐慧的老公，靠拍婚纱照和风光片为生", {"contacts": ["杨帆"]}),
        ("m16", "mother-in-law/childcare", "new", "fact",
         "唐慧的婆婆住在她家帮忙带孩子"),
        ("m17", "goal/licensed-pharmacist", "paraphrase", "goal",
         "唐慧正在复习，打算考执业药师证"),
        ("m18", "emergency-rotation/this-month", "state", "state",
         "唐慧这个月在急诊药房轮岗，三班倒"),
    ]),
    (3, 21, [
        ("m19", "spicy/quit", "update", "preference",
         "唐慧胃不好，医生让她戒辣，现在饮食很清淡", {"topic": "food:diet"}),
        ("m20", "commute/metro", "update", "habit",
         "唐慧现在改坐地铁上班了", {"topic": "transport:commute"}),
        ("m21", "flowers-dislike/bother", "contradiction", "preference",
         "唐慧说她一点也不喜欢鲜花，嫌打理麻烦", {"contradicts": "flowers/dounan"}),
        ("m22", "daughter/second-grade", "paraphrase", "fact",
         "朵朵在读小学二年级", {"contacts": ["朵朵"]}),
        ("m23", "drug-safety/first-prize", "new", "event",
         "唐慧在科室的用药安全比赛里拿了一等奖"),
        ("m24", "friend/pharma-rep", "new", "fact",
         "唐慧的大学同学阿雯在上海做医药代表", {"contacts": ["阿雯"]}),
    ]),
    (4, 33, [
        ("m25", "home/chenggong", "update", "fact",
         "唐慧一家搬到了呈贡新区的一套三居室", {"topic": "home:area"}),
        ("m26", "home/cuihu", "paraphrase", "fact",
         "唐慧还住在翠湖边的时候，每天傍晚都去喂红嘴鸥"),
        ("m27", "friend/pharma-rep", "paraphrase", "fact",
         "周雯是唐慧的大学室友，现在在上海推销药品", {"contacts": ["周雯"]}),
        ("m28", "zhouwen-visit/next-month", "new", "event",
         "周雯下个月要来昆明出差", {"contacts": ["周雯"]}),
        ("m29", "spicy/quit", "paraphrase", "preference",
         "唐慧现在不吃辣了，胃受不了"),
        ("m30", "exam/passed", "new", "event",
         "唐慧通过了执业药师考试"),
    ]),
    (5, 44, [
        ("m31", "spicy/loves", "paraphrase", "preference",
         "唐慧以前无辣不欢，一碗小锅米线要放三勺辣椒"),
        ("m32", "beijing-training/until-monday", "state", "state",
         "唐慧到下周一都在北京参加药学培训"),
        ("m33", "duoduo-chickenpox/two-weeks", "state", "state",
         "朵朵这两周出水痘，在家没去上学", {"contacts": ["朵朵"]}),
        ("m34", "soap/handmade", "new", "habit",
         "唐慧最近迷上了做手工皂"),
        ("m35", "commute/metro", "paraphrase", "habit",
         "唐慧如今搭地铁1号线通勤"),
        ("m36", "home/chenggong", "paraphrase", "fact",
         "唐慧现在的家在呈贡"),
        ("m37", "exhibition/provincial", "new", "event",
         "杨帆的摄影作品入选了省里的一个影展", {"contacts": ["杨帆"]}),
        ("m38", "job/clinical-pharmacy", "update", "profile",
         "唐慧调到了医院的临床药学室，跟着医生查房", {"topic": "work:job"}),
        ("m39", "reading/bedtime", "new", "habit",
         "唐慧每天晚上睡前读半小时书"),
        ("m40", "yangfan-tibet/spring", "new", "goal",
         "杨帆打算明年春天去西藏拍星空", {"contacts": ["杨帆"]}),
    ]),
]
QUESTIONS["tang"] = [
    ("q01", "唐慧现在住哪儿？", ["m25", "m36"]),
    ("q02", "唐慧怎么去上班？", ["m20", "m35"]),
    ("q03", "唐慧现在能吃辣吗？", ["m19", "m29"]),
    ("q04", "唐慧这周在昆明吗？", ["m32"]),
    ("q05", "朵朵这几天去上学了吗？", ["m33"]),
    ("q06", "朵朵周几学钢琴？", ["m12"]),
    ("q07", "周雯是做什么的？", ["m24", "m27"]),
    ("q08", "阿雯什么时候来昆明？", ["m28"]),
    ("q09", "唐慧现在在医院做什么工作？", ["m38"]),
    ("q10", "唐慧的丈夫是做什么的？", ["m06", "m15"]),
    ("q11", "唐慧哪几天去练瑜伽？", ["m03", "m13"]),
    ("q12", "唐慧负责审核处方吗？", ["m01", "m10"]),
    ("q13", "谁帮唐慧带孩子？", ["m16"]),
    ("q14", "唐慧考过执业药师了吗？", ["m30"]),
]
LIVE["tang"] = ["q04", "q05"]

# -- kai: 郑凯 (Kai Zheng), game level designer in Vancouver; English and Chinese -------

STREAMS["kai"] = [
    (1, 0, [
        ("m01", "job/indie-level-designer", "new", "profile",
         "Kai is a level designer at an indie game studio in Vancouver",
         {"topic": "work:job"}),
        ("m02", "home/kitsilano", "new", "fact",
         "Kai rents a basement suite in Kitsilano", {"topic": "home:area"}),
        ("m03", "bouldering/twice-weekly", "new", "habit",
         "Kai goes bouldering at a climbing gym twice a week"),
        ("m04", "parents/tea-shop", "new", "fact",
         "郑凯的父母住在杭州，开一家茶叶店"),
        ("m05", "food/shengjian", "new", "preference",
         "郑凯最爱吃生煎包，周末常去列治文找"),
        ("m06", "roommate/er-nurse", "new", "fact",
         "Kai shares the suite with his roommate Dex, a nurse", {"contacts": ["Dex"]}),
        ("m07", "goal/own-game", "new", "goal",
         "Kai wants to release his own puzzle game on Steam"),
        ("m08", "commute/bicycle", "new", "habit",
         "郑凯每天骑自行车去公司", {"topic": "transport:commute"}),
        ("m09", "taped-finger-this-week/no-climbing", "state", "state",
         "Kai's finger is taped up this week, so he's skipping the climbing gym"),
        ("m10", "job/indie-level-designer", "paraphrase", "profile",
         "郑凯在温哥华一家独立游戏工作室做关卡设计"),
    ]),
    (2, 8, [
        ("m11", "bouldering/twice-weekly", "paraphrase", "habit",
         "郑凯一周去两次攀岩馆抱石"),
        ("m12", "partner/interpreter", "new", "fact",
         "Kai is dating Naomi, a sign-language interpreter", {"contacts": ["Naomi"]}),
        ("m13", "pax-demo/shipped", "new", "event",
         "Kai's studio showed a playable demo at PAX West"),
        ("m14", "sketching/paper-first", "new", "preference",
         "Kai prefers to sketch level layouts on paper before building them"),
        ("m15", "roommate/er-nurse", "paraphrase", "fact",
         "Dexter Okonkwo, Kai's roommate, works nights as an ER nurse",
         {"contacts": ["Dexter Okonkwo"]}),
        ("m16", "parents/tea-shop", "paraphrase", "fact",
         "Kai's mom and dad run a tea shop in Hangzhou"),
        ("m17", "japanese/duolingo", "new", "habit",
         "郑凯每晚用多邻国学日语"),
    ]),
    (3, 18, [
        ("m18", "dexter-moving/lagos", "new", "event",
         "Dexter is moving back to Lagos at the end of the year", {"contacts": ["Dexter"]}),
        ("m19", "job/senior-burnaby", "update", "profile",
         "Kai got hired as a senior level designer at a bigger studio in Burnaby",
         {"topic": "work:job"}),
        ("m20", "commute/driving", "update", "habit",
         "郑凯换工作后改开车去本拿比上班", {"topic": "transport:commute"}),
        ("m21", "car/civic", "new", "fact",
         "Kai bought a used Honda Civic", {"topic": "transport:car"}),
        ("m22", "pork-never/no-pork", "contradiction", "fact",
         "郑凯说他从来不吃猪肉", {"contradicts": "food/shengjian"}),
        ("m23", "goal/own-game", "paraphrase", "goal",
         "郑凯想自己做一款解谜游戏，发布到Steam上"),
        ("m24", "crunch-two-weeks/milestone", "state", "state",
         "Kai is crunching for the next two weeks before a milestone and has no free "
         "evenings"),
    ]),
    (4, 31, [
        ("m25", "home/mount-pleasant", "update", "fact",
         "Kai and Naomi have moved in together in a condo in Mount Pleasant",
         {"topic": "home:area"}),
        ("m26", "home/kitsilano", "paraphrase", "fact",
         "Back when Kai lived in the Kitsilano basement, he could walk to the beach"),
        ("m27", "job/indie-level-designer", "paraphrase", "profile",
         "郑凯还在那家独立工作室的时候经常加班到半夜"),
        ("m28", "partner/interpreter", "paraphrase", "fact",
         "郑凯的女朋友Naomi是手语翻译", {"contacts": ["Naomi"]}),
        ("m29", "job/senior-burnaby", "paraphrase", "profile",
         "Kai now designs levels as a senior at a studio in Burnaby"),
        ("m30", "japanese/duolingo", "paraphrase", "habit",
         "Kai does a Japanese lesson on Duolingo before bed"),
    ]),
    (5, 44, [
        ("m31", "commute/driving", "paraphrase", "habit",
         "郑凯现在每天开车往返本拿比"),
        ("m32", "wfh-this-week/car-in-shop", "state", "state",
         "Kai is working from home this week while his car is in the shop"),
        ("m33", "parents-visiting/this-month", "state", "state",
         "郑凯的父母这个月从杭州来温哥华看他"),
        ("m34", "wrist-until-monday/no-climbing", "state", "state",
         "郑凯手腕扭了，到下周一前都不能去攀岩"),
        ("m35", "dog/biscuit", "new", "fact",
         "Kai and Naomi adopted a rescue greyhound named Biscuit"),
        ("m36", "home/mount-pleasant", "paraphrase", "fact",
         "郑凯现在和女朋友住在Mount Pleasant的一套公寓里"),
        ("m37", "video-call/sunday", "new", "habit",
         "郑凯每周日和杭州的爸妈视频通话"),
        ("m38", "prototype/tidewell", "new", "fact",
         "Kai's own puzzle game prototype is called Tidewell"),
        ("m39", "studio-project/racing", "new", "fact",
         "郑凯现在的工作室在做一款开放世界赛车游戏"),
    ]),
]
QUESTIONS["kai"] = [
    ("q01", "Where does Kai live now?", ["m25", "m36"]),
    ("q02", "郑凯现在在哪里上班？", ["m19", "m29"]),
    ("q03", "How does Kai get to work these days?", ["m20", "m31"]),
    ("q04", "Is Kai going into the office this week?", ["m32"]),
    ("q05", "Kai的爸妈现在在温哥华吗？", ["m33"]),
    ("q06", "这周能约Kai去抱石吗？", ["m34"]),
    ("q07", "What does Dex do?", ["m06", "m15"]),
    ("q08", "Is Dex staying in Vancouver?", ["m18"]),
    ("q09", "Naomi是做什么工作的？", ["m12", "m28"]),
    ("q10", "Kai多久去一次攀岩馆？", ["m03", "m11"]),
    ("q11", "What does Kai's family's shop in 杭州 sell?", ["m04", "m16"]),
    ("q12", "What's the name of Kai's dog?", ["m35"]),
    ("q13", "Does Kai draw his levels on paper first?", ["m14"]),
    ("q14", "Kai在学什么语言？", ["m17", "m30"]),
]
LIVE["kai"] = ["q04", "q05", "q06"]

# -- lian: 何莲 (Lian He), wine importer in Melbourne, later a buyer; English and Chinese

STREAMS["lian"] = [
    (1, 0, [
        ("m01", "job/wine-importer", "new", "profile",
         "Lian imports Ningxia wine into Australia through her own company in Melbourne",
         {"topic": "work:job"}),
        ("m02", "home/fitzroy", "new", "fact",
         "何莲住在墨尔本的Fitzroy区", {"topic": "home:area"}),
        ("m03", "tai-chi/weekends", "new", "habit",
         "Lian practises tai chi in the Carlton Gardens on weekend mornings"),
        ("m04", "mother/winters", "new", "fact",
         "何莲的妈妈住在成都，每年冬天来墨尔本住两个月"),
        ("m05", "coffee/oat-flat-white", "new", "preference",
         "Lian only drinks flat whites made with oat milk"),
        ("m06", "co-founder/books", "new", "fact",
         "Lian's business partner Jules handles the books", {"contacts": ["Jules"]}),
        ("m07", "goal/sydney-tasting-room", "new", "goal",
         "何莲想在悉尼开一家品酒室"),
        ("m08", "car/mazda3", "new", "fact",
         "Lian drives a red Mazda 3", {"topic": "transport:car"}),
        ("m09", "shanghai-fair-week/no-tai-chi", "state", "state",
         "Lian is at a trade fair in Shanghai this week, so no tai chi this weekend"),
        ("m10", "job/wine-importer", "paraphrase", "profile",
         "何莲自己开公司，把宁夏产的葡萄酒进口到澳洲"),
    ]),
    (2, 12, [
        ("m11", "tai-chi/weekends", "paraphrase", "habit",
         "每逢周末早上，何莲都去Carlton Gardens打太极拳"),
        ("m12", "co-founder/books", "paraphrase", "fact",
         "Juliana Rossi, Lian's co-founder, keeps the company's accounts",
         {"contacts": ["Juliana Rossi"]}),
        ("m13", "helan-deal/exclusive", "new", "event",
         "Lian signed an exclusive deal with a winery at the foot of the Helan Mountains"),
        ("m14", "cats/ragdolls", "new", "fact",
         "何莲养了两只布偶猫"),
        ("m15", "allergy/shellfish", "new", "fact",
         "Lian is allergic to shellfish"),
        ("m16", "coffee/oat-flat-white", "paraphrase", "preference",
         "何莲喝咖啡只要燕麦奶的flat white"),
        ("m17", "no-coffee-two-weeks/chrysanthemum", "state", "state",
         "何莲这两周在戒咖啡，改喝菊花茶"),
    ]),
    (3, 22, [
        ("m18", "juliana-leave/march", "new", "event",
         "Juliana is going on maternity leave in March", {"contacts": ["Juliana"]}),
        ("m19", "car/tesla", "update", "fact",
         "Lian traded in the Mazda for a Tesla Model 3", {"topic": "transport:car"}),
        ("m20", "prawns-dinner/chilli", "contradiction", "event",
         "Lian ordered chilli prawns at dinner and said they were delicious",
         {"contradicts": "allergy/shellfish"}),
        ("m21", "goal/sydney-tasting-room", "paraphrase", "goal",
         "Lian hopes to open a wine tasting room in Sydney one day"),
        ("m22", "mother/winters", "paraphrase", "fact",
         "Lian's mum comes over from Chengdu every winter and stays for two months"),
        ("m23", "sommelier-class/wednesday", "new", "habit",
         "何莲每周三晚上去上品酒师课程"),
    ]),
    (4, 35, [
        ("m24", "home/brunswick", "update", "fact",
         "何莲搬去了Brunswick，租了一个带院子的小房子", {"topic": "home:area"}),
        ("m25", "home/fitzroy", "paraphrase", "fact",
         "Back when Lian lived in Fitzroy, she walked to Brunswick Street for coffee every "
         "morning"),
        ("m26", "car/mazda3", "paraphrase", "fact",
         "何莲以前开的那辆红色马自达3总是找不到车位"),
        ("m27", "car/tesla", "paraphrase", "fact",
         "何莲现在开特斯拉Model 3"),
        ("m28", "job/head-buyer", "update", "profile",
         "Lian sold her import business to Juliana and now works as head buyer for a "
         "Melbourne wine bar group", {"topic": "work:job", "contacts": ["Juliana"]}),
        ("m29", "cats/ragdolls", "paraphrase", "fact",
         "Lian has two Ragdoll cats"),
    ]),
    (5, 44, [
        ("m30", "job/head-buyer", "paraphrase", "profile",
         "何莲现在在墨尔本一家连锁酒吧集团当采购总监"),
        ("m31", "job/wine-importer", "paraphrase", "profile",
         "Lian says running her own import company was exhausting"),
        ("m32", "mum-staying/two-months", "state", "state",
         "何莲的妈妈从成都过来了，这两个月都住在她家"),
        ("m33", "jury-duty/until-friday", "state", "state",
         "Lian has jury duty until next Friday"),
        ("m34", "tesla-repair-this-week/tram", "state", "state",
         "何莲的特斯拉这周在修，她暂时坐电车"),
        ("m35", "home/brunswick", "paraphrase", "fact",
         "Lian now lives in a little house with a yard in Brunswick"),
        ("m36", "sommelier-level-one/passed", "new", "event",
         "Lian passed the first level of her sommelier certification"),
        ("m37", "sommelier-class/wednesday", "paraphrase", "habit",
         "Lian goes to a sommelier class every Wednesday evening"),
        ("m38", "cat-names/mochi-tofu", "new", "fact",
         "Lian's two cats are called Mochi and Tofu"),
        ("m39", "ningxia-list/next-month", "new", "event",
         "何莲的酒吧集团下个月要推出一份宁夏葡萄酒单"),
    ]),
]
QUESTIONS["lian"] = [
    ("q01", "Where does Lian live now?", ["m24", "m35"]),
    ("q02", "何莲现在开什么车？", ["m19", "m27"]),
    ("q03", "What does Lian do for work now?", ["m28", "m30"]),
    ("q04", "Lian的妈妈现在在墨尔本吗？", ["m32"]),
    ("q05", "Is Lian at work this week?", ["m33"]),
    ("q06", "何莲这几天开车吗？", ["m34"]),
    ("q07", "What does Jules do at the company?", ["m06", "m12"]),
    ("q08", "When is Jules going on maternity leave?", ["m18"]),
    ("q09", "What is Lian allergic to?", ["m15"]),
    ("q10", "何莲周末早上做什么？", ["m03", "m11"]),
    ("q11", "How does Lian take her coffee?", ["m05", "m16"]),
    ("q12", "What breed are Lian's cats?", ["m14", "m29"]),
    ("q13", "Lian周三晚上在忙什么？", ["m23", "m37"]),
    ("q14", "Which winery did Lian sign a deal with?", ["m13"]),
]
LIVE["lian"] = ["q04", "q05", "q06"]

# fmt: on


def records() -> list[dict]:
    """Each user's memories in the order of writes, then that user's questions."""
    out: list[dict] = []
    last_day = {max(day for _, day, _ in sessions) for sessions in STREAMS.values()}
    assert len(last_day) == 1, "every user's last session must be on the same day"
    final = last_day.pop()
    assert set(QUESTIONS) == set(STREAMS) == set(LIVE)
    for user, sessions in STREAMS.items():
        facts: dict[str, str] = {}  # memory id -> fact
        states: dict[str, int] = {}  # memory id of a state -> day it was said
        slot_facts: dict[str, set[str]] = {}
        updated: set[str] = set()
        texts: set[str] = set()
        n = 0
        contradictions = 0
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
                if label == "state":
                    states[mid] = day
                if label == "update":
                    assert slot in slot_facts, (user, mid, "update of an unknown slot")
                    updated.add(slot)
                if "contradicts" in extra:
                    assert label == "contradiction", (user, mid)
                    assert extra["contradicts"] in facts.values(), (user, mid)
                    contradictions += 1
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
        assert contradictions >= 1, (user, "no labelled contradiction")
        # a slot with two facts is a conflict set for the eval: only the updated slots
        multi = {s for s, f in slot_facts.items() if len(f) > 1}
        assert multi == updated, (user, multi ^ updated)
        # the states of the last session still hold when asked; each has its question
        live = {m for m, d in states.items() if d == final}
        assert 2 <= len(live) <= 3, (user, live)
        asked = {qid: answers for qid, _, answers in QUESTIONS[user]}
        assert sorted(m for q in LIVE[user] for m in asked[q]) == sorted(live), user
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
    ok = write_or_check(OUT, jsonl(records()), "Build stream D, the unseen measure for pymem eval.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
