"""Build bench/data/memory_dev_stream_b.jsonl: a second development stream for `pymem eval`.

Written by hand on 2026-12-06 for issue 34: temporary states that still hold when the
questions are asked (said the ways people say them: "for two weeks", "until the end of
the month", "这两周", "这个月"), states of an earlier session that have long ended beside
the habit they shadowed, updates whose old value is restated in passing later ("back when
Kai lived in Chengdu..."), and people named by a nickname in one session and by their full
name in another. Six users, other people and other domains than the bundled stream's: two
write English (nadia, a nurse; marco, a chef), two Chinese (zhou, a truck driver; liu, a
grandmother raising her grandson), two both (mei, a biology PhD student; kai, a freelance
translator), with paraphrases across languages. Every user's sessions end on day 40, so
the questions (day 41) come one day after each user's last session.

A development stream: it is for diagnosing and fitting, and is never used to tune the
bundled stream (pymem/datasets/eval_stream.jsonl). No public dataset is copied.

    python scripts/build_memory_dev_stream_b.py           # write the file
    python scripts/build_memory_dev_stream_b.py --check   # fail if it is not current
"""

from __future__ import annotations

import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_b.jsonl"

LABELS = {"new", "paraphrase", "update", "state", "contradiction"}
KINDS = {"fact", "preference", "habit", "state", "event", "profile", "goal"}

# fmt: off
# user -> [(session, day, [(id, fact, label, kind, content[, extra]), ...]), ...]
# extra: optional "topic", "contacts" (names as written), "contradicts" (a fact).
# The slot of a memory is its fact up to the "/".
STREAMS: dict[str, list[tuple[int, int, list[tuple]]]] = {}
# user -> [(id, text, [answering memory ids]), ...]
QUESTIONS: dict[str, list[tuple[str, str, list[str]]]] = {}

# -- nadia: ICU nurse in Manchester, nights then days; English ---------------------------

STREAMS["nadia"] = [
    (1, 0, [
        ("m01", "job/icu-nurse", "new", "profile",
         "Nadia works as an ICU nurse at Manchester Royal Infirmary", {"topic": "work:job"}),
        ("m02", "shift/nights", "new", "habit",
         "Nadia works night shifts, 7pm to 7:30am, three nights a week", {"topic": "work:shift"}),
        ("m03", "sleep/daytime", "new", "habit",
         "After a night shift Nadia sleeps from about 9am until 3pm"),
        ("m04", "exercise/swimming", "new", "habit",
         "Nadia swims thirty lengths at her local leisure centre most afternoons"),
        ("m05", "swim-today/skipped", "state", "state",
         "Nadia is too exhausted to swim today after four nights in a row"),
        ("m06", "flatmate/paediatric-nurse", "new", "fact",
         "Nadia's flatmate Bex works on the children's ward", {"contacts": ["Bex"]}),
        ("m07", "caffeine/none-after-3am", "new", "preference",
         "Nadia avoids caffeine after 3am on a shift so she can sleep afterwards"),
        ("m08", "car/fiesta", "new", "fact",
         "Nadia drives a blue Ford Fiesta to the hospital", {"topic": "transport:car"}),
        ("m09", "diet/vegetarian", "new", "fact",
         "Nadia has been vegetarian for ten years"),
        ("m10", "goal/acp", "new", "goal",
         "Nadia wants to become an advanced clinical practitioner within three years"),
        ("m11", "shift/nights", "paraphrase", "habit",
         "Nadia's rota is mostly nights: three twelve-hour night shifts each week"),
    ]),
    (2, 12, [
        ("m12", "job/icu-nurse", "paraphrase", "profile",
         "Nadia is a critical care nurse in Manchester"),
        ("m13", "mother/leeds-diabetes", "new", "fact",
         "Nadia's mum, Grace, lives in Leeds and has type 2 diabetes", {"contacts": ["Grace"]}),
        ("m14", "course/cannulation", "new", "event",
         "Nadia passed her IV cannulation refresher course"),
        ("m15", "audiobooks/crime", "new", "preference",
         "Nadia likes listening to crime novels as audiobooks on the drive home"),
        ("m16", "sleep/daytime", "paraphrase", "habit",
         "Nadia's usual sleep after nights runs from mid-morning to mid-afternoon"),
        ("m17", "meal/bacon-sandwich", "contradiction", "event",
         "Nadia had a bacon sandwich in the canteen after her shift",
         {"contradicts": "diet/vegetarian"}),
        ("m18", "manager/dev", "new", "fact",
         "Nadia's ward manager is called Dev", {"contacts": ["Dev"]}),
        ("m19", "car/fiesta", "paraphrase", "fact",
         "Nadia's car is an old blue Fiesta"),
        ("m20", "calls/sunday", "new", "habit",
         "Nadia calls her mum every Sunday morning"),
        ("m21", "goal/acp", "paraphrase", "goal",
         "Nadia is aiming to train as an advanced clinical practitioner"),
    ]),
    (3, 26, [
        ("m22", "car/yaris", "update", "fact",
         "Nadia replaced her Fiesta with a second-hand Toyota Yaris hybrid",
         {"topic": "transport:car"}),
        ("m23", "shift/days", "update", "habit",
         "Nadia has moved to a day-shift rota, 7am to 7:30pm", {"topic": "work:shift"}),
        ("m24", "flatmate/paediatric-nurse", "paraphrase", "fact",
         "Rebecca Hale, who shares Nadia's flat, is a paediatric nurse",
         {"contacts": ["Rebecca Hale"]}),
        ("m25", "leave/study-approved", "new", "event",
         "Devendra Patel approved Nadia's study leave for the ACP course",
         {"contacts": ["Devendra Patel"]}),
        ("m26", "acp-course/salford", "new", "fact",
         "Nadia's ACP course starts in January at the University of Salford"),
        ("m27", "migraine/tonight", "state", "state",
         "Nadia has a migraine tonight and is lying in a dark room"),
        ("m28", "mother/leeds-diabetes", "paraphrase", "fact",
         "Grace, Nadia's mother, is diabetic and lives over in Leeds", {"contacts": ["Grace"]}),
        ("m29", "calls/sunday", "paraphrase", "habit",
         "Every Sunday morning Nadia rings her mum"),
        ("m30", "study-place/library", "new", "preference",
         "Nadia prefers to study in the hospital library rather than at home"),
        ("m31", "audiobooks/crime", "paraphrase", "preference",
         "Crime audiobooks keep Nadia company on her commute"),
    ]),
    (4, 40, [
        ("m32", "off-work/ankle", "state", "state",
         "Nadia is off work for two weeks after spraining her ankle"),
        ("m33", "guest/mum", "state", "state",
         "Nadia's mum Grace is staying with her until the end of the month",
         {"contacts": ["Grace"]}),
        ("m34", "off-work/ankle", "paraphrase", "state",
         "Nadia is on sick leave this fortnight with a sprained ankle"),
        ("m35", "sleep/night", "update", "habit",
         "Now that she works days, Nadia sleeps from 11pm to 6am"),
        ("m36", "shift/nights", "paraphrase", "habit",
         "Back when Nadia was on nights she hardly saw daylight all winter"),
        ("m37", "car/fiesta", "paraphrase", "fact",
         "The Fiesta Nadia used to drive kept failing its MOT"),
        ("m38", "car/yaris", "paraphrase", "fact",
         "Nadia's car these days is a Yaris hybrid"),
        ("m39", "shift/days", "paraphrase", "habit",
         "Nadia works days now, seven in the morning to half past seven at night"),
        ("m40", "cake/leaving-party", "new", "event",
         "Nadia baked a lemon drizzle cake for a colleague's leaving party"),
    ]),
]
QUESTIONS["nadia"] = [
    ("q01", "What does Nadia do for a living?", ["m01", "m12"]),
    ("q02", "Is Nadia going in to work this week?", ["m32", "m34"]),
    ("q03", "Does Nadia have anyone staying over at the moment?", ["m33"]),
    ("q04", "What is Nadia driving now?", ["m22", "m38"]),
    ("q05", "What are Nadia's working hours currently?", ["m23", "m39"]),
    ("q06", "What time does Nadia go to bed these days?", ["m35"]),
    ("q07", "Does Nadia do any regular exercise?", ["m04"]),
    ("q08", "What does the woman Nadia lives with do for work?", ["m06", "m24"]),
    ("q09", "Who is in charge of Nadia's ward?", ["m18"]),
    ("q10", "Which city is Nadia's mother in?", ["m13", "m28"]),
    ("q11", "Where is Nadia going to do her ACP training?", ["m26"]),
    ("q12", "What does Nadia listen to in the car?", ["m15", "m31"]),
    ("q13", "When does Nadia phone her mother?", ["m20", "m29"]),
]

# -- marco: chef leaving a hotel kitchen to open his own restaurant in Bristol; English ---

STREAMS["marco"] = [
    (1, 0, [
        ("m01", "job/sous-chef-bath", "new", "profile",
         "Marco works as a sous chef at a hotel restaurant in Bath", {"topic": "work:job"}),
        ("m02", "goal-restaurant/sicilian-bristol", "new", "goal",
         "Marco plans to open his own Sicilian restaurant in Bristol"),
        ("m03", "restaurant-name/la-tana", "new", "fact",
         "Marco's restaurant is going to be called La Tana", {"topic": "restaurant:name"}),
        ("m04", "partner/salvo-front-of-house", "new", "fact",
         "Marco's business partner is his cousin Salvo, who will run front of house",
         {"contacts": ["Salvo"]}),
        ("m05", "fish/market-friday", "new", "habit",
         "Marco buys fish at the wholesale market at 5am every Friday"),
        ("m06", "fish-today/skipped", "state", "state",
         "Marco isn't going to the fish market today because his van is in the garage"),
        ("m07", "truffle-oil/refuses", "new", "preference",
         "Marco hates truffle oil and refuses to cook with it"),
        ("m08", "gluten/coeliac", "new", "fact",
         "Marco has coeliac disease and has to avoid gluten"),
        ("m09", "budget/60k", "new", "fact",
         "Marco has £60,000 for fitting out the restaurant", {"topic": "restaurant:budget"}),
        ("m10", "goal-restaurant/sicilian-bristol", "paraphrase", "goal",
         "Marco's dream is a Sicilian place of his own in Bristol"),
    ]),
    (2, 9, [
        ("m11", "partner/salvo-front-of-house", "paraphrase", "fact",
         "Salvo, Marco's cousin, is going to look after the dining room and the bookings",
         {"contacts": ["Salvo"]}),
        ("m12", "premises/north-street", "new", "fact",
         "Marco signed a lease on a former bakery on North Street in Bedminster"),
        ("m13", "truffle-oil/refuses", "paraphrase", "preference",
         "Truffle oil is banned from Marco's kitchen"),
        ("m14", "menu/opening", "new", "fact",
         "Marco's opening menu will have arancini, caponata and swordfish involtini"),
        ("m15", "gluten/coeliac", "paraphrase", "fact",
         "Marco gets ill from any gluten because he is coeliac"),
        ("m16", "hire/pastry-chef", "new", "event",
         "Marco hired a pastry chef called Aisling", {"contacts": ["Aisling"]}),
        ("m17", "job/sous-chef-bath", "paraphrase", "profile",
         "Marco is still second in command of a hotel kitchen in Bath"),
        ("m18", "recipe-testing/monday", "new", "habit",
         "Marco tests new recipes at home on Monday evenings"),
        ("m19", "fish/market-friday", "paraphrase", "habit",
         "On Friday mornings Marco is at the fish market before dawn"),
        ("m20", "wine/sicilian-natural", "new", "preference",
         "Marco wants only Sicilian natural wines on the list"),
    ]),
    (3, 21, [
        ("m21", "job/chef-owner", "update", "profile",
         "Marco handed in his notice at the hotel and now works full time on his restaurant",
         {"topic": "work:job"}),
        ("m22", "restaurant-name/casa-ferri", "update", "fact",
         "Marco renamed the restaurant Casa Ferri because another business already owns "
         "the name La Tana", {"topic": "restaurant:name"}),
        ("m23", "budget/85k", "update", "fact",
         "Marco's fit-out budget went up to £85,000 once the bank approved his loan",
         {"topic": "restaurant:budget"}),
        ("m24", "meal/wheat-tagliatelle", "contradiction", "event",
         "Marco ate a big plate of Salvatore's fresh wheat tagliatelle at the family tasting",
         {"contacts": ["Salvatore"], "contradicts": "gluten/coeliac"}),
        ("m25", "pastry-chef/ballymaloe", "new", "fact",
         "Aisling Byrne, Marco's pastry chef, trained at Ballymaloe",
         {"contacts": ["Aisling Byrne"]}),
        ("m26", "goal-award/bib-gourmand", "new", "goal",
         "Marco wants Casa Ferri to earn a Bib Gourmand within two years"),
        ("m27", "premises/north-street", "paraphrase", "fact",
         "The restaurant's premises used to be a bakery, on North Street in Bedminster"),
        ("m28", "menu/opening", "paraphrase", "fact",
         "Arancini, caponata and swordfish rolls are on Marco's first menu"),
        ("m29", "recipe-testing/monday", "paraphrase", "habit",
         "Monday nights Marco tries out dishes in his own kitchen"),
        ("m30", "gas/off-this-week", "state", "state",
         "Marco has no gas in the restaurant kitchen this week while the fitters work"),
    ]),
    (4, 40, [
        ("m31", "lodging/salvo", "state", "state",
         "Marco is sleeping at Salvo's flat for the next two weeks while his own flat is "
         "damp-proofed", {"contacts": ["Salvo"]}),
        ("m32", "opening/delayed", "state", "state",
         "Casa Ferri can't open until the end of the month because it is still waiting for "
         "the fire safety sign-off"),
        ("m33", "opening/delayed", "paraphrase", "state",
         "The restaurant's launch is on hold this month until the fire inspection passes"),
        ("m34", "restaurant-name/la-tana", "paraphrase", "fact",
         "Marco still has a box of menus printed with the old name, La Tana"),
        ("m35", "job/sous-chef-bath", "paraphrase", "profile",
         "In his years as a hotel sous chef in Bath, Marco learned to cook for three hundred "
         "covers"),
        ("m36", "restaurant-name/casa-ferri", "paraphrase", "fact",
         "Marco's restaurant goes by Casa Ferri now"),
        ("m37", "job/chef-owner", "paraphrase", "profile",
         "Marco no longer has a hotel job; the restaurant is his full-time work"),
        ("m38", "oven/combi", "new", "event",
         "Marco bought a second-hand Rational combi oven for the kitchen"),
        ("m39", "budget/85k", "paraphrase", "fact",
         "Marco has £85k to fit the place out"),
    ]),
]
QUESTIONS["marco"] = [
    ("q01", "What's the name of Marco's restaurant?", ["m22", "m36"]),
    ("q02", "Is Marco still working at the hotel?", ["m21", "m37"]),
    ("q03", "How much can Marco spend on kitting out the place?", ["m23", "m39"]),
    ("q04", "Where is Marco staying at the moment?", ["m31"]),
    ("q05", "Has Casa Ferri opened to customers yet?", ["m32", "m33"]),
    ("q06", "Where does Marco get his fish?", ["m05", "m19"]),
    ("q07", "Who looks after the guests and reservations?", ["m04", "m11"]),
    ("q08", "Which part of Bristol is the restaurant in?", ["m12", "m27"]),
    ("q09", "What dishes will be served when they open?", ["m14", "m28"]),
    ("q10", "Is there an ingredient Marco won't use?", ["m07", "m13"]),
    ("q11", "Where did the pastry chef learn her trade?", ["m25"]),
    ("q12", "What recognition is Marco hoping the restaurant will get?", ["m26"]),
    ("q13", "When does Marco try out new dishes?", ["m18", "m29"]),
    ("q14", "What kind of wine will Marco serve?", ["m20"]),
]

# -- zhou: 周建国（老周），长途货车司机，郑州；中文 -----------------------------------------

STREAMS["zhou"] = [
    (1, 0, [
        ("m01", "job/truck-driver", "new", "profile",
         "周建国是跑长途的货车司机，开大车十五年了", {"topic": "work:job"}),
        ("m02", "route/zhengzhou-guangzhou", "new", "fact",
         "老周现在主要跑郑州到广州的线，拉电子配件", {"topic": "work:route"}),
        ("m03", "truck/dongfeng", "new", "fact",
         "老周开的是一辆东风天龙牵引车", {"topic": "truck"}),
        ("m04", "medicine/amlodipine-5mg", "new", "fact",
         "老周有高血压，每天早上吃一片5毫克的氨氯地平", {"topic": "health:medicine"}),
        ("m05", "rest/service-area", "new", "habit",
         "跑长途时老周一般在服务区睡四五个小时再上路"),
        ("m06", "video-call/9pm", "new", "habit",
         "老周每天晚上九点跟女儿视频"),
        ("m07", "video-call-tonight/no-signal", "state", "state",
         "今晚老周在山里没信号，没法跟女儿视频"),
        ("m08", "daughter/grade-11-zhengzhou", "new", "fact",
         "老周的女儿周小雨在郑州读高二", {"contacts": ["周小雨"]}),
        ("m09", "food/homemade-flatbread", "new", "preference",
         "老周吃不惯服务区的快餐，爱吃老婆烙的饼"),
        ("m10", "wife/shop", "new", "fact",
         "老周的老婆李秀芬在家门口开了个小超市", {"contacts": ["李秀芬"]}),
        ("m11", "smoking/quit", "new", "fact",
         "老周去年春节把烟戒了，一根都不抽"),
        ("m12", "job/truck-driver", "paraphrase", "profile",
         "老周干长途运输已经有十五个年头"),
    ]),
    (2, 10, [
        ("m13", "codriver/haizi", "new", "fact",
         "老周最近跟海子搭班，两个人轮流开车", {"contacts": ["海子"]}),
        ("m14", "medicine/amlodipine-5mg", "paraphrase", "fact",
         "老周血压高，降压药氨氯地平一次吃5mg"),
        ("m15", "route/zhengzhou-guangzhou", "paraphrase", "fact",
         "老周常跑的是郑州—广州这条线"),
        ("m16", "fine/speeding", "new", "event",
         "老周在京港澳高速上超速，被罚了200块"),
        ("m17", "daughter/grade-11-zhengzhou", "paraphrase", "fact",
         "雨雨今年上高二，学校在郑州", {"contacts": ["雨雨"]}),
        ("m18", "goal/tuition", "new", "goal",
         "老周想再干三年，攒够钱供小雨上大学", {"contacts": ["小雨"]}),
        ("m19", "rest/service-area", "paraphrase", "habit",
         "开夜车时老周习惯在服务区眯几个小时"),
        ("m20", "food/homemade-flatbread", "paraphrase", "preference",
         "比起服务区的饭，老周更想吃家里带来的烙饼"),
        ("m21", "radio/pingshu", "new", "preference",
         "老周开车时喜欢听单田芳的评书"),
    ]),
    (3, 25, [
        ("m22", "truck/jiefang-j7", "update", "fact",
         "老周把东风天龙卖了，换了一辆解放J7", {"topic": "truck"}),
        ("m23", "route/zhengzhou-urumqi", "update", "fact",
         "车队给老周换了线路，现在跑郑州到乌鲁木齐", {"topic": "work:route"}),
        ("m24", "medicine/amlodipine-10mg", "update", "fact",
         "医生把老周的氨氯地平加到了每天10毫克", {"topic": "health:medicine"}),
        ("m25", "smoke/half-pack", "contradiction", "event",
         "老周在服务区跟人聊天，一口气抽了半包烟", {"contradicts": "smoking/quit"}),
        ("m26", "codriver/haizi", "paraphrase", "fact",
         "海子跟老周开同一辆车，两人换着开", {"contacts": ["海子"]}),
        ("m27", "back/herniated-disc", "new", "fact",
         "老周腰椎间盘突出，坐久了腰就疼"),
        ("m28", "video-call/9pm", "paraphrase", "habit",
         "晚上九点左右老周总要跟闺女视频聊一会儿"),
        ("m29", "shop/new-register", "new", "event",
         "李秀芬的小超市换了一台新收银机", {"contacts": ["李秀芬"]}),
        ("m30", "goal/tuition", "paraphrase", "goal",
         "老周打算再跑三年车，给女儿攒大学学费"),
    ]),
    (4, 40, [
        ("m31", "off-road/back-rest", "state", "state",
         "老周这两周在家养腰，不出车"),
        ("m32", "wife-away/hometown", "state", "state",
         "秀芬这个月回信阳老家照顾她妈，超市交给老周看着", {"contacts": ["秀芬"]}),
        ("m33", "off-road/back-rest", "paraphrase", "state",
         "腰不好，老周最近两个礼拜都歇在家里"),
        ("m34", "route/zhengzhou-guangzhou", "paraphrase", "fact",
         "以前跑广州那条线的时候，老周最怕夏天刮台风"),
        ("m35", "truck/dongfeng", "paraphrase", "fact",
         "老周还挺想那辆开了八年的东风天龙"),
        ("m36", "medicine/amlodipine-10mg", "paraphrase", "fact",
         "老周现在每天吃10mg的氨氯地平"),
        ("m37", "visit/haitao", "new", "event",
         "王海涛来家里看老周，拎了两箱牛奶", {"contacts": ["王海涛"]}),
        ("m38", "route/zhengzhou-urumqi", "paraphrase", "fact",
         "老周的新线路是从郑州跑新疆乌鲁木齐"),
        ("m39", "truck/jiefang-j7", "paraphrase", "fact",
         "老周如今开的是解放J7"),
        ("m40", "physio/tue-fri", "new", "habit",
         "老周每周二、周五去社区医院做腰椎理疗"),
    ]),
]
QUESTIONS["zhou"] = [
    ("q01", "老周现在开什么车？", ["m22", "m39"]),
    ("q02", "老周最近跑哪条线？", ["m23", "m38"]),
    ("q03", "老周的降压药现在一天吃多少？", ["m24", "m36"]),
    ("q04", "这周能叫老周出车拉一趟货吗？", ["m31", "m33"]),
    ("q05", "老周老婆这个月在哪儿？", ["m32"]),
    ("q06", "老周一般几点给女儿打视频？", ["m06", "m28"]),
    ("q07", "老周的闺女在哪念书？", ["m08", "m17"]),
    ("q08", "老周跟谁一起开车？", ["m13", "m26"]),
    ("q09", "老周跑长途在哪儿休息？", ["m05", "m19"]),
    ("q10", "老周拼命跑车是为了攒什么钱？", ["m18", "m30"]),
    ("q11", "老周的腰怎么了？", ["m27"]),
    ("q12", "老周开车时听什么解闷？", ["m21"]),
    ("q13", "老周在路上吃饭有什么讲究？", ["m09", "m20"]),
]

# -- liu: 刘桂兰（刘奶奶），带六岁的孙子豆豆，成都；中文 ---------------------------------

STREAMS["liu"] = [
    (1, 0, [
        ("m01", "profile/retired-textile", "new", "profile",
         "刘桂兰今年67岁，退休前是纺织厂女工，现在一个人带孙子"),
        ("m02", "grandson/doudou-six", "new", "fact",
         "孙子豆豆六岁，爸妈都在深圳打工", {"contacts": ["豆豆"]}),
        ("m03", "school/sunshine-kindergarten", "new", "fact",
         "豆豆在小区旁边的阳光幼儿园上大班",
         {"topic": "grandson:school", "contacts": ["豆豆"]}),
        ("m04", "exercise/square-dance", "new", "habit",
         "刘奶奶每天早上六点半去公园跳广场舞"),
        ("m05", "dance-today/knee", "state", "state",
         "刘奶奶今天膝盖疼得厉害，没去跳舞"),
        ("m06", "medicine/glucosamine", "new", "fact",
         "刘桂兰有膝关节炎，每天吃一粒氨糖", {"topic": "health:knee"}),
        ("m07", "food/no-coriander", "new", "preference",
         "豆豆不吃香菜，碗里一点都不能有", {"contacts": ["豆豆"]}),
        ("m08", "pickup/4pm", "new", "habit",
         "每天下午四点刘奶奶去幼儿园接豆豆", {"topic": "grandson:pickup"}),
        ("m09", "son/shenzhen-factory", "new", "fact",
         "刘奶奶的儿子刘强和儿媳在深圳电子厂上班", {"contacts": ["刘强"]}),
        ("m10", "grandson/doudou-six", "paraphrase", "fact",
         "刘奶奶的孙子小名叫豆豆，今年六岁"),
    ]),
    (2, 14, [
        ("m11", "medicine/glucosamine", "paraphrase", "fact",
         "刘桂兰的关节炎靠每天吃一粒氨基葡萄糖顶着"),
        ("m12", "weiqi/saturday", "new", "habit",
         "豆豆每周六上午去少年宫学围棋"),
        ("m13", "exercise/square-dance", "paraphrase", "habit",
         "天一亮刘桂兰就跟老姐妹们在公园跳广场舞"),
        ("m14", "neighbor/helps-pickup", "new", "fact",
         "楼下的张阿姨经常帮刘奶奶接豆豆", {"contacts": ["张阿姨"]}),
        ("m15", "son/shenzhen-factory", "paraphrase", "fact",
         "豆豆他爸刘强在深圳的工厂打工", {"contacts": ["刘强"]}),
        ("m16", "goal/wechat-video", "new", "goal",
         "刘奶奶想学会用微信视频，好让豆豆跟爸妈见上面"),
        ("m17", "school/sunshine-kindergarten", "paraphrase", "fact",
         "豆豆还在念幼儿园大班，幼儿园就在小区边上"),
        ("m18", "fever/drip", "new", "event",
         "豆豆发烧，在社区医院打了两天点滴"),
        ("m19", "opera/sichuan", "new", "preference",
         "刘奶奶喜欢听川剧，最爱《白蛇传》"),
    ]),
    (3, 30, [
        ("m20", "school/experimental-primary", "update", "fact",
         "九月开学，豆豆上了实验小学一年级", {"topic": "grandson:school"}),
        ("m21", "pickup/5pm", "update", "habit",
         "豆豆上小学以后，刘奶奶每天下午五点去校门口接他", {"topic": "grandson:pickup"}),
        ("m22", "medicine/celecoxib", "update", "fact",
         "医生让刘奶奶停了氨糖，膝盖疼的时候吃一粒塞来昔布", {"topic": "health:knee"}),
        ("m23", "meal/coriander-noodles", "contradiction", "event",
         "豆豆在同学家吃了一大碗撒满香菜的牛肉面，还说好吃",
         {"contradicts": "food/no-coriander"}),
        ("m24", "wechat/learned", "new", "event",
         "刘奶奶学会了用微信跟儿子视频"),
        ("m25", "neighbor/helps-pickup", "paraphrase", "fact",
         "张秀英住刘奶奶楼下，常常顺路把豆豆接回家", {"contacts": ["张秀英"]}),
        ("m26", "weiqi/saturday", "paraphrase", "habit",
         "周六上午豆豆在少年宫下围棋"),
        ("m27", "teacher/chen", "new", "fact",
         "豆豆的班主任是教语文的陈老师", {"contacts": ["陈老师"]}),
        ("m28", "opera/sichuan", "paraphrase", "preference",
         "刘桂兰爱听川戏，白蛇传听多少遍都不腻"),
    ]),
    (4, 40, [
        ("m29", "son-home/month", "state", "state",
         "刘强这个月请假从深圳回来了，在家住到月底", {"contacts": ["刘强"]}),
        ("m30", "chickenpox/week", "state", "state",
         "豆豆这周出水痘，在家休息，不能去上学", {"contacts": ["豆豆"]}),
        ("m31", "son-home/month", "paraphrase", "state",
         "儿子这几个礼拜都在家，月底才回深圳上班"),
        ("m32", "school/sunshine-kindergarten", "paraphrase", "fact",
         "豆豆还在阳光幼儿园那会儿，最爱玩那里的滑梯"),
        ("m33", "medicine/glucosamine", "paraphrase", "fact",
         "以前天天吃氨糖的时候，刘奶奶觉得没啥效果"),
        ("m34", "pickup/5pm", "paraphrase", "habit",
         "现在刘奶奶五点钟到小学门口等豆豆放学"),
        ("m35", "school/experimental-primary", "paraphrase", "fact",
         "豆豆如今是实验小学的一年级学生"),
        ("m36", "math/full-marks", "new", "event",
         "刘子轩一年级数学小测考了满分", {"contacts": ["刘子轩"]}),
        ("m37", "diet/less-salt", "new", "fact",
         "刘奶奶血压偏高，医生让她少吃咸菜"),
        ("m38", "chickenpox/week", "paraphrase", "state",
         "孙子长水痘了，这个星期都没去学校"),
    ]),
]
QUESTIONS["liu"] = [
    ("q01", "豆豆现在在哪个学校？", ["m20", "m35"]),
    ("q02", "刘奶奶现在每天几点去接孙子放学？", ["m21", "m34"]),
    ("q03", "刘奶奶膝盖疼现在吃什么药？", ["m22"]),
    ("q04", "豆豆这几天去上学了吗？", ["m30", "m38"]),
    ("q05", "刘奶奶的儿子现在还在深圳吗？", ["m29", "m31"]),
    ("q06", "刘奶奶早上一般做什么锻炼？", ["m04", "m13"]),
    ("q07", "谁会帮刘奶奶接孩子？", ["m14", "m25"]),
    ("q08", "豆豆周末上什么兴趣班？", ["m12", "m26"]),
    ("q09", "豆豆的班主任是哪位？", ["m27"]),
    ("q10", "刘奶奶平时爱听什么戏？", ["m19", "m28"]),
    ("q11", "豆豆的爸妈在哪儿工作？", ["m09", "m15"]),
    ("q12", "刘奶奶多大年纪了？以前做什么的？", ["m01"]),
    ("q13", "医生对刘奶奶的饮食有什么交代？", ["m37"]),
]

# -- mei: 许美, biology PhD student in Edinburgh (zebrafish hearts); English and Chinese --

STREAMS["mei"] = [
    (1, 0, [
        ("m01", "job/phd-edinburgh", "new", "profile",
         "Mei is a second-year PhD student in developmental biology at the University of "
         "Edinburgh", {"topic": "work:phd"}),
        ("m02", "research/zebrafish-heart", "new", "fact",
         "Mei 的博士课题是斑马鱼的心脏再生"),
        ("m03", "home/marchmont", "new", "fact",
         "Mei lives in a shared flat in Marchmont", {"topic": "home"}),
        ("m04", "fish-check/8am", "new", "habit",
         "Mei checks on her zebrafish tanks every morning at eight"),
        ("m05", "fish-check-today/overslept", "state", "state",
         "今天 Mei 睡过头了，早上没去鱼房看鱼"),
        ("m06", "supervisor/alison-grant", "new", "fact",
         "Mei's PhD supervisor is Professor Alison Grant", {"contacts": ["Alison Grant"]}),
        ("m07", "diet/lactose-intolerant", "new", "fact",
         "Mei is lactose intolerant"),
        ("m08", "goal/thesis-september", "new", "goal",
         "Mei wants to submit her thesis by September next year"),
        ("m09", "teaching/wednesday-afternoon", "new", "habit",
         "Mei 每周三下午给本科生带实验课", {"topic": "work:teaching"}),
        ("m10", "research/zebrafish-heart", "paraphrase", "fact",
         "Mei studies how zebrafish regrow damaged heart tissue"),
    ]),
    (2, 8, [
        ("m11", "job/phd-edinburgh", "paraphrase", "profile",
         "Mei 在爱丁堡大学读发育生物学博士，今年博二"),
        ("m12", "mentor/heart-injury", "new", "fact",
         "Jonty, a postdoc in Mei's lab, taught her the heart injury technique",
         {"contacts": ["Jonty"]}),
        ("m13", "home/marchmont", "paraphrase", "fact",
         "Mei 跟两个室友在 Marchmont 合租"),
        ("m14", "diet/lactose-intolerant", "paraphrase", "fact",
         "Mei 乳糖不耐受，牛奶和奶酪都碰不得"),
        ("m15", "fish-check/8am", "paraphrase", "habit",
         "每天早上八点 Mei 都要去鱼房看一圈斑马鱼"),
        ("m16", "funding/csc", "new", "fact",
         "Mei 拿的是国家留学基金委（CSC）的全额奖学金"),
        ("m17", "work-rhythm/writing-mornings", "new", "preference",
         "Mei prefers to write in the mornings and do bench work in the afternoons"),
        ("m18", "poster/dundee", "new", "event",
         "Mei presented a poster at a developmental biology meeting in Dundee"),
        ("m19", "climbing/saturday", "new", "habit",
         "Mei goes bouldering at Ratho on Saturday mornings"),
    ]),
    (3, 22, [
        ("m20", "home/leith", "update", "fact",
         "Mei moved out of Marchmont into a studio flat in Leith", {"topic": "home"}),
        ("m21", "teaching/thursday-morning", "update", "habit",
         "这学期 Mei 带实验课的时间改到了每周四上午", {"topic": "work:teaching"}),
        ("m22", "exchange/harvard", "new", "event",
         "导师 Ali 同意 Mei 明年春天去哈佛交流三个月", {"contacts": ["Ali"]}),
        ("m23", "gelato/dairy", "contradiction", "event",
         "Mei had two scoops of proper dairy gelato at the lab's summer party",
         {"contradicts": "diet/lactose-intolerant"}),
        ("m24", "mentor/heart-injury", "paraphrase", "fact",
         "Jonty 是组里的博后，Mei 做心脏损伤的手法是跟他学的", {"contacts": ["Jonty"]}),
        ("m25", "work-rhythm/writing-mornings", "paraphrase", "preference",
         "Mei 喜欢上午写论文，下午做实验"),
        ("m26", "goal/thesis-september", "paraphrase", "goal",
         "Mei is aiming to hand in her thesis next September"),
        ("m27", "climbing/saturday", "paraphrase", "habit",
         "周六上午 Mei 一般去 Ratho 攀岩"),
        ("m28", "fish-line/cmlc2-gfp", "new", "fact",
         "Mei 用的斑马鱼品系是 cmlc2:GFP 转基因鱼"),
    ]),
    (4, 40, [
        ("m29", "away/beijing-wedding", "state", "state",
         "Mei 回北京参加表姐的婚礼，这两周都不在爱丁堡"),
        ("m30", "fish-care/jonathan", "state", "state",
         "Jonathan Reid is feeding Mei's zebrafish for the next two weeks while she is away",
         {"contacts": ["Jonathan Reid"]}),
        ("m31", "away/beijing-wedding", "paraphrase", "state",
         "Mei is back home in Beijing for a fortnight for her cousin's wedding"),
        ("m32", "home/marchmont", "paraphrase", "fact",
         "When she lived in Marchmont, Mei could walk across the Meadows to the lab"),
        ("m33", "teaching/wednesday-afternoon", "paraphrase", "habit",
         "以前周三下午带本科实验课的时候，Mei 经常顾不上吃午饭"),
        ("m34", "home/leith", "paraphrase", "fact",
         "Mei 现在住在 Leith 的一间单身公寓"),
        ("m35", "teaching/thursday-morning", "paraphrase", "habit",
         "Mei now runs the undergraduate practicals on Thursday mornings"),
        ("m36", "paper/development", "new", "event",
         "Mei's first-author paper was accepted by the journal Development"),
        ("m37", "committee/february", "new", "fact",
         "Mei's thesis committee meeting is set for February"),
        ("m38", "funding/csc", "paraphrase", "fact",
         "Mei's PhD is fully funded by a China Scholarship Council scholarship"),
    ]),
]
QUESTIONS["mei"] = [
    ("q01", "Where is Mei living now?", ["m20", "m34"]),
    ("q02", "Mei 现在哪天带本科生的实验？", ["m21", "m35"]),
    ("q03", "Is Mei in Edinburgh at the moment?", ["m29", "m31"]),
    ("q04", "这段时间谁在帮 Mei 喂斑马鱼？", ["m30"]),
    ("q05", "Mei 每天早上第一件事是什么？", ["m04", "m15"]),
    ("q06", "Who supervises Mei's PhD?", ["m06"]),
    ("q07", "Mei 的研究方向是什么？", ["m02", "m10"]),
    ("q08", "How is Mei's PhD paid for?", ["m16", "m38"]),
    ("q09", "Mei 周末做什么运动？", ["m19", "m27"]),
    ("q10", "When does Mei plan to finish her thesis?", ["m08", "m26"]),
    ("q11", "Mei 明年要去哪里做访问？", ["m22"]),
    ("q12", "Who showed Mei how to do the heart injury procedure?", ["m12", "m24"]),
    ("q13", "Which journal took Mei's paper?", ["m36"]),
]

# -- kai: 何凯, freelance translator (legal, games), Chengdu then Dali; English and Chinese -

STREAMS["kai"] = [
    (1, 0, [
        ("m01", "job/freelance-translator", "new", "profile",
         "Kai is a freelance translator working between English and Chinese",
         {"topic": "work:job"}),
        ("m02", "specialism/legal-games", "new", "fact",
         "何凯主要接法律合同和游戏本地化的活"),
        ("m03", "city/chengdu", "new", "fact",
         "Kai lives in Chengdu, in a flat near Yulin Road", {"topic": "home:city"}),
        ("m04", "rate/180", "new", "fact",
         "Kai 的法律翻译按每千字 180 元收费", {"topic": "work:rate"}),
        ("m05", "hours/mornings", "new", "habit",
         "Kai translates from 9 to 1 every morning and keeps afternoons for revising"),
        ("m06", "work-today/dentist", "state", "state",
         "Kai took today off for a dentist appointment and isn't translating this morning"),
        ("m07", "client/shanghai-law-firm", "new", "fact",
         "Kai's biggest client is a law firm in Shanghai"),
        ("m08", "tool/trados", "new", "preference",
         "Kai 做翻译用 Trados，不喜欢 memoQ", {"topic": "work:tool"}),
        ("m09", "wrist/tendonitis", "new", "fact",
         "Kai has tendonitis in his wrist from years of typing"),
        ("m10", "job/freelance-translator", "paraphrase", "profile",
         "何凯是自由译者，做中英互译"),
    ]),
    (2, 11, [
        ("m11", "specialism/legal-games", "paraphrase", "fact",
         "Kai's work is mostly legal contracts, plus some video game localisation"),
        ("m12", "referrer/lulu", "new", "fact",
         "Lulu, Kai's university classmate, is a paralegal at the Shanghai firm and passes "
         "jobs to him", {"contacts": ["Lulu"]}),
        ("m13", "hours/mornings", "paraphrase", "habit",
         "每天上午九点到一点是 Kai 的翻译时间，下午用来改稿"),
        ("m14", "cat/zhima", "new", "fact",
         "Kai 养了一只猫，叫芝麻"),
        ("m15", "goal/catti", "new", "goal",
         "Kai wants to pass the CATTI level-one translation exam next year"),
        ("m16", "alcohol/none", "new", "fact",
         "Kai doesn't drink alcohol at all"),
        ("m17", "rate/180", "paraphrase", "fact",
         "Kai charges 180 yuan per thousand characters for legal work"),
        ("m18", "deadlines/no-rush", "new", "preference",
         "Kai 不接 24 小时内就要交稿的急活"),
        ("m19", "wrist/tendonitis", "paraphrase", "fact",
         "打字打多了，Kai 的手腕得了腱鞘炎"),
    ]),
    (3, 27, [
        ("m20", "city/dali", "update", "fact",
         "Kai 搬到大理了，在古城边上租了个带院子的房子", {"topic": "home:city"}),
        ("m21", "rate/220", "update", "fact",
         "Kai raised his legal rate to 220 yuan per thousand characters",
         {"topic": "work:rate"}),
        ("m22", "tool/memoq", "update", "preference",
         "Kai 换成了 memoQ，因为一个游戏客户要求用它", {"topic": "work:tool"}),
        ("m23", "baijiu/wedding", "contradiction", "event",
         "Kai 在表弟的婚礼上喝白酒喝醉了", {"contradicts": "alcohol/none"}),
        ("m24", "referrer/lulu", "paraphrase", "fact",
         "陆露是 Kai 的大学同学，在上海那家律所当律师助理，常给他介绍活",
         {"contacts": ["陆露"]}),
        ("m25", "cat/zhima", "paraphrase", "fact",
         "Kai's cat is called Zhima, which means sesame"),
        ("m26", "goal/catti", "paraphrase", "goal",
         "明年 Kai 打算考 CATTI 一级笔译"),
        ("m27", "rpg/localisation", "new", "event",
         "Kai finished localising a 200,000-character RPG for a studio in Hangzhou"),
        ("m28", "deadlines/no-rush", "paraphrase", "preference",
         "Kai turns down any job due in less than 24 hours"),
    ]),
    (4, 40, [
        ("m29", "booked/month", "state", "state",
         "Kai is fully booked until the end of the month with a merger contract and won't "
         "take new work"),
        ("m30", "chengdu-visit/father-surgery", "state", "state",
         "Kai 这两周回成都照顾刚做完手术的爸爸"),
        ("m31", "booked/month", "paraphrase", "state",
         "这个月 Kai 档期全满，在赶一份并购合同，不接新稿"),
        ("m32", "city/chengdu", "paraphrase", "fact",
         "Back when Kai lived in Chengdu, hotpot on Yulin Road was his Friday treat"),
        ("m33", "rate/180", "paraphrase", "fact",
         "Kai 以前每千字只收 180 元，现在想想太便宜了"),
        ("m34", "city/dali", "paraphrase", "fact",
         "Kai's home is in Dali now, a house with a courtyard near the old town"),
        ("m35", "rate/220", "paraphrase", "fact",
         "现在 Kai 法律稿的价格是每千字 220 元"),
        ("m36", "tool/memoq", "paraphrase", "preference",
         "Kai now does his translations in memoQ"),
        ("m37", "vet/vaccines", "new", "event",
         "芝麻在大理的宠物医院打了疫苗"),
        ("m38", "girlfriend/ceramics", "new", "fact",
         "Kai's girlfriend 小顾 is a ceramic artist in Dali", {"contacts": ["小顾"]}),
    ]),
]
QUESTIONS["kai"] = [
    ("q01", "Which city does Kai live in these days?", ["m20", "m34"]),
    ("q02", "Kai 现在翻法律文件怎么收费？", ["m21", "m35"]),
    ("q03", "What translation software is Kai using now?", ["m22", "m36"]),
    ("q04", "Could Kai take on a new translation job this month?", ["m29", "m31"]),
    ("q05", "Kai 这阵子人在大理吗？", ["m30"]),
    ("q06", "What are Kai's usual working hours?", ["m05", "m13"]),
    ("q07", "Kai 主要翻译哪些领域的东西？", ["m02", "m11"]),
    ("q08", "Who sends Kai jobs from the Shanghai law firm?", ["m12", "m24"]),
    ("q09", "Kai 的猫叫什么名字？", ["m14", "m25"]),
    ("q10", "Kai 明年想考什么证？", ["m15", "m26"]),
    ("q11", "Why does Kai's wrist hurt?", ["m09", "m19"]),
    ("q12", "What kind of deadlines does Kai refuse?", ["m18", "m28"]),
    ("q13", "Kai 的女朋友是做什么的？", ["m38"]),
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
        n = 0
        for session, day, rows in sessions:
            for row in rows:
                mid, fact, label, kind, content = row[:5]
                extra = row[5] if len(row) > 5 else {}
                n += 1
                assert mid == f"m{n:02d}", (user, mid)
                assert label in LABELS and kind in KINDS, (user, mid)
                assert set(extra) <= {"topic", "contacts", "contradicts"}, (user, mid)
                slot = fact.split("/", 1)[0]
                first = fact not in facts.values()
                assert (label == "paraphrase") == (not first), (user, mid, "paraphrase")
                assert (label == "state") == (kind == "state") or label == "paraphrase", mid
                if label == "update":
                    assert slot in slot_facts, (user, mid, "update of an unknown slot")
                    updated.add(slot)
                if "contradicts" in extra:
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
    ok = write_or_check(
        OUT, jsonl(records()), "Build the second development stream for pymem eval."
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
