"""Build bench/data/memory_dev_stream_o.jsonl: stream O, a measure for `pymem eval`.

Written as a measure nobody tuned on, by a helper that read only the format: docs/eval.md from "The
measures" to the end of its "Format (for `--dataset`)" section (the bundled stream's summary
between them included); pymem/prompts/extract.md; scripts/jsonl_build.py; lines 60-240 of
pymem/eval.py (its targets, the dataclasses, `load_dataset` and the first lines of `Run`);
the module docstring and the ~45 lines after it of scripts/build_memory_dev_stream_n.py for a
builder's shape (its helpers and the first three memories of its first user, no more of its
data); and lines 1-5 and 60-110 of tests/test_eval.py, the test that rebuilds the streams.
Not pymem's decision rules, word lists or SQL, nor any other stream, builder or doc; the
helper never ran pymem on this stream. Names, places and trades were checked absent from the
repository's .jsonl and .py files by case-insensitive file counts only (others picked where
one was found). Six invented users:

- ffion (English): Ffion Prytherch from a hill farm above Dolgellau, a falconer who flies Harris hawks to clear starlings off the ferry terminal at Holyhead and becomes head falconer of a bird of prey centre on Orkney, in Kirkwall.
- marisol (English): Marisol Quintanilla from Brownsville, a river pilot living in Houma who takes ships up to New Orleans and becomes a harbour pilot in Prince Rupert.
- yunxiang (Chinese): 缪芸香 from 会理, a 成昆铁路 train attendant living in 西昌 who becomes a passenger duty officer at 攀枝花南站.
- yulian (Chinese, traditional characters): 甘玉蓮 from 澎湖馬公, a glove-puppet (布袋戲) puppeteer in a 虎尾 troupe who opens her own workshop and lives in 臺南鹽水.
- lionel (both): Lionel Sim 沈立安, born in Malacca, a watchmaker at a repair shop in Chinatown living in Tampines who joins a watch manufacture in Glashütte.
- aurelia (both): Aurelia Ng 吴绮岚 from Kalgoorlie, a pearl technician at a farm near Broome who becomes head technician of a pearl farm in 合浦 and lives in 北海.

Each has restatements (in the other language for the two bilingual users, some worded far
apart, some nearly verbatim, an old home, job or vehicle after the change said as a reminiscence
and followed by a restatement of the current one), updates said in varied ways (a move, a
new job, another vehicle, a plan dropped for another, a sister's, brother's, husband's, wife's
or mother's new work), temporary states said as people say them (until Friday, this week, 这周,
這個禮拜, 下周三之前, 下週三之前, for ten days, 十天, all ended by question time; two or three
in the last session, for the next three weeks, 这两个礼拜, 這兩個禮拜, until the end of next
month, 到下个月底, that still hold and are asked about), a contact named two ways (a full name
and a nickname), one contradiction (no question asks about it), topics on some memories, and
questions about current values, the live states (yes or no, and asking their value), stable
facts, a contact named by the other name and values before they changed. Each question's
answers are every memory of the fact it asks about. Every user's last session is on day 96;
the memories are written in the order of their days (a user's session stays together), and
the questions follow all the memories. Each memory's kind is what an extractor following
pymem/prompts/extract.md would emit for its sentence, the same for every memory of a fact.

No public dataset is copied.

    python scripts/build_memory_dev_stream_o.py           # write the file
    python scripts/build_memory_dev_stream_o.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_o.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days of its sessions, memories, questions)
LAST_DAY = 96  # every user's last session; the questions are asked after it


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# question tuple: (text, facts it asks about): its answers are every memory of those facts
def q(text, *facts):
    return (text, facts)


# ---------------------------------------------------------------- ffion (English)
ffion = [
    m(
        1,
        "job/holyhead",
        N,
        "profile",
        "Ffion Prytherch is a falconer who flies Harris hawks to keep starlings and jackdaws away from the ferry terminal at Holyhead",
        topic="work:job",
    ),
    m(
        1,
        "home/holyhead",
        N,
        "profile",
        "Ffion lives in a pebble-dashed terrace in Holyhead, a few streets up from the harbour",
        topic="home:city",
    ),
    m(1, "origin/dolgellau", N, "profile", "Ffion grew up on a hill sheep farm above Dolgellau"),
    m(1, "hawk/gwennol", N, "fact", "Ffion's own bird is a Harris hawk called Gwennol"),
    m(
        1,
        "bird-pref/peregrine",
        N,
        "preference",
        "Ffion would rather fly a peregrine than any hawk",
    ),
    m(
        1,
        "vehicle/fourtrak",
        N,
        "fact",
        "Ffion drives a rusty Daihatsu Fourtrak with a hawk box in the back",
        topic="vehicle",
    ),
    m(
        1,
        "sister-job/nurse",
        N,
        "fact",
        "Ffion's sister Nerys is a nurse on the children's ward at the hospital in Bangor",
        contacts=["Nerys"],
    ),
    m(
        1,
        "apprentice/morfudd",
        N,
        "fact",
        "Ffion's apprentice is Morfudd Probert, who taught maths in Caernarfon for fifteen years before she took up falconry",
        contacts=["Morfudd Probert"],
    ),
    m(1, "alcohol/none", N, "fact", "Ffion doesn't drink alcohol at all"),
    m(
        1,
        "summer-plan/cambrian-way",
        N,
        "goal",
        "Ffion plans to walk the whole Cambrian Way in August",
        topic="plan:summer",
    ),
    m(1, "radio/cymru", N, "habit", "Ffion listens to Radio Cymru all day while she works"),
    m(1, "tea/two-sugars", N, "preference", "Ffion takes her tea strong with two sugars"),
    m(
        2,
        "wrist/strapped",
        S,
        "state",
        "Ffion's wrist is strapped up until Friday after Gwennol footed her through the glove",
    ),
    m(
        2,
        "job/holyhead",
        P,
        "profile",
        "Ffion's job is clearing nuisance birds off the port at Holyhead with her hawks",
    ),
    m(2, "bird-pref/peregrine", P, "preference", "Peregrines are Ffion's favourite birds to fly"),
    m(
        2,
        "show/anglesey",
        N,
        "event",
        "Ffion won the flying class at the Anglesey show last summer",
    ),
    m(
        2,
        "fudd-lure",
        N,
        "event",
        "Fudd flew her first hawk free to the lure last week",
        contacts=["Fudd"],
    ),
    m(
        2,
        "sister-job/nurse",
        P,
        "fact",
        "Nerys, Ffion's sister, works as a children's nurse in Bangor",
        contacts=["Nerys"],
    ),
    m(2, "allergy/wasps", N, "fact", "Ffion is badly allergic to wasp stings"),
    m(2, "hawk/gwennol", P, "fact", "Gwennol, Ffion's Harris hawk, goes with her to every job"),
    m(
        2,
        "tea/two-sugars",
        P,
        "preference",
        "Ffion likes her tea builder's strength, with two sugars",
    ),
    m(
        3,
        "packing/at-nerys",
        S,
        "state",
        "Ffion is sleeping at Nerys's place this week while she packs up the house",
        contacts=["Nerys"],
    ),
    m(
        3,
        "job/orkney",
        U,
        "profile",
        "Ffion has taken the post of head falconer at a bird of prey centre on Orkney",
        topic="work:job",
    ),
    m(
        3,
        "home/kirkwall",
        U,
        "profile",
        "Ffion has moved to Kirkwall and rents a flat above a chandlery by the harbour",
        topic="home:city",
    ),
    m(
        3,
        "summer-plan/st-magnus-way",
        U,
        "goal",
        "Ffion has given up on the Cambrian Way and will walk the St Magnus Way on Orkney instead",
        topic="plan:summer",
    ),
    m(
        3,
        "sister-job/coastguard",
        U,
        "fact",
        "Nerys has left nursing to work as a coastguard watch officer at Holyhead",
        contacts=["Nerys"],
    ),
    m(3, "alcohol/none", P, "fact", "Ffion has never touched a drop of alcohol"),
    m(
        3,
        "origin/dolgellau",
        P,
        "profile",
        "Ffion is a farmer's daughter from the hills above Dolgellau",
    ),
    m(
        3,
        "radio/cymru",
        P,
        "habit",
        "Ffion keeps Radio Cymru playing while she's working, even up on Orkney",
    ),
    m(4, "chest/infection", S, "state", "Ffion is off work for ten days with a chest infection"),
    m(
        4,
        "vehicle/musso",
        U,
        "fact",
        "Ffion sold the Fourtrak and bought a secondhand Ssangyong Musso pickup",
        topic="vehicle",
    ),
    m(
        4,
        "home/holyhead",
        P,
        "profile",
        "Ffion misses watching the ferries come in from her old street in Holyhead",
    ),
    m(
        4,
        "home/kirkwall",
        P,
        "profile",
        "Ffion's flat in Kirkwall looks straight out over the harbour",
    ),
    m(
        4,
        "ceilidh/whisky",
        C,
        "event",
        "Ffion drank three whiskies at a ceilidh in Stromness",
        contradicts="alcohol/none",
    ),
    m(
        4,
        "job/orkney",
        P,
        "profile",
        "Ffion now runs the flying displays at an Orkney bird of prey centre",
    ),
    m(
        4,
        "fudd-moved",
        N,
        "event",
        "Fudd moved up to Orkney to finish her training with Ffion",
        contacts=["Fudd"],
    ),
    m(
        4,
        "allergy/wasps",
        P,
        "fact",
        "Wasp stings are dangerous for Ffion, she reacts badly to them",
    ),
    m(
        4,
        "swim/waulkmill",
        N,
        "habit",
        "Ffion swims in the sea at Waulkmill Bay every Sunday morning",
    ),
    m(
        5,
        "airport/bird-control",
        S,
        "state",
        "For the next three weeks Ffion is doing bird control at Kirkwall airport every morning at dawn",
    ),
    m(5, "knee/brace", S, "state", "Ffion has to wear a knee brace until the end of next month"),
    m(
        5,
        "vehicle/fourtrak",
        P,
        "fact",
        "Ffion used to bump around the hill farms in an old Daihatsu Fourtrak",
    ),
    m(5, "vehicle/musso", P, "fact", "Ffion's pickup now is a secondhand Ssangyong Musso"),
    m(
        5,
        "summer-plan/st-magnus-way",
        P,
        "goal",
        "Ffion still means to walk the St Magnus Way this summer",
    ),
    m(
        5,
        "sister-job/coastguard",
        P,
        "fact",
        "Nerys now keeps watch in the coastguard station at Holyhead",
        contacts=["Nerys"],
    ),
    m(5, "hawk/gwennol", P, "fact", "Ffion flies her Harris hawk Gwennol most days"),
]
ffion_q = [
    q("Where does Ffion live now?", "home/kirkwall"),
    q("What is Ffion's job?", "job/orkney"),
    q("What does Ffion drive these days?", "vehicle/musso"),
    q("Which long walk is Ffion planning for the summer?", "summer-plan/st-magnus-way"),
    q("What does Ffion's sister Nerys do for work?", "sister-job/coastguard"),
    q("Is Ffion doing bird control at the airport at the moment?", "airport/bird-control"),
    q("How long does Ffion have to wear the knee brace?", "knee/brace"),
    q("Where did Ffion grow up?", "origin/dolgellau"),
    q("What did Fudd do before she took up falconry?", "apprentice/morfudd"),
    q("Where did Ffion live before she moved to Orkney?", "home/holyhead"),
    q("What was Ffion's job before Orkney?", "job/holyhead"),
    q("What car did Ffion use to drive?", "vehicle/fourtrak"),
    q("What did Nerys do before she joined the coastguard?", "sister-job/nurse"),
    q("What is Ffion allergic to?", "allergy/wasps"),
    q("What is the name of Ffion's hawk?", "hawk/gwennol"),
]
users.append(("ffion", [0, 16, 37, 65, 96], ffion, ffion_q))


# ---------------------------------------------------------------- marisol (English)
marisol = [
    m(
        1,
        "job/river-pilot",
        N,
        "profile",
        "Marisol Quintanilla is a river pilot who guides cargo ships up the river to New Orleans",
        topic="work:job",
    ),
    m(
        1,
        "home/houma",
        N,
        "profile",
        "Marisol lives in Houma in a raised house on the bayou",
        topic="home:city",
    ),
    m(
        1,
        "origin/brownsville",
        N,
        "profile",
        "Marisol was born in Brownsville into a family of shrimpers",
    ),
    m(
        1,
        "mentor/auguste",
        N,
        "fact",
        "Marisol learned piloting from Auguste Chauvin, who has been bringing ships up the river for thirty years",
        contacts=["Auguste Chauvin"],
    ),
    m(1, "snack/boudin", N, "preference", "Marisol loves boudin balls"),
    m(1, "seasick/never", N, "fact", "Marisol has never been seasick in her life"),
    m(
        1,
        "vehicle/kawasaki",
        N,
        "fact",
        "Marisol rides a dual-sport Kawasaki motorcycle",
        topic="vehicle",
    ),
    m(
        1,
        "brother-job/deckhand",
        N,
        "fact",
        "Marisol's brother Evaristo is a deckhand on a shrimp trawler out of Brownsville",
        contacts=["Evaristo"],
    ),
    m(
        1,
        "band/tejano",
        N,
        "habit",
        "Marisol plays accordion in a tejano band most Saturday nights",
    ),
    m(
        1,
        "savings/sailboat",
        N,
        "goal",
        "Marisol is saving up to buy a sailboat she can live on",
        topic="goal:savings",
    ),
    m(
        1,
        "night-work",
        N,
        "preference",
        "Marisol prefers night transits because the river is quieter",
    ),
    m(
        2,
        "ankle/sprained",
        S,
        "state",
        "Marisol can't climb pilot ladders until Friday because she sprained her ankle",
    ),
    m(
        2,
        "job/river-pilot",
        P,
        "profile",
        "Marisol takes the big ships through the river's bends on their way to the port of New Orleans",
    ),
    m(2, "scar/chin", N, "fact", "Marisol has a scar on her chin from a fall on a pilot ladder"),
    m(2, "languages/spanish-cajun", N, "fact", "Marisol speaks Spanish and some Cajun French"),
    m(
        2,
        "augie-first-bend",
        N,
        "event",
        "Augie let Marisol steer a tanker through the worst bend on the river alone for the first time",
        contacts=["Augie"],
    ),
    m(2, "snack/boudin", P, "preference", "Boudin balls are Marisol's favourite snack"),
    m(
        2,
        "brother-job/deckhand",
        P,
        "fact",
        "Evaristo, Marisol's brother, works the nets on a shrimp boat",
        contacts=["Evaristo"],
    ),
    m(
        2,
        "band/tejano",
        P,
        "habit",
        "On Saturday nights Marisol plays the accordion with a tejano band",
    ),
    m(
        3,
        "job/harbour-pilot",
        U,
        "profile",
        "Marisol has taken a job as a harbour pilot in Prince Rupert",
        topic="work:job",
    ),
    m(
        3,
        "home/prince-rupert",
        U,
        "profile",
        "Marisol has moved north and now lives in Prince Rupert",
        topic="home:city",
    ),
    m(
        3,
        "motel/this-week",
        S,
        "state",
        "Marisol is staying in a motel this week until her apartment is ready",
    ),
    m(
        3,
        "savings/cabin",
        U,
        "goal",
        "Marisol gave up on the sailboat and now wants to buy a small cabin on Haida Gwaii",
        topic="goal:savings",
    ),
    m(3, "seasick/never", P, "fact", "Marisol doesn't get seasick, not even in a storm"),
    m(
        3,
        "cold/dislike",
        N,
        "preference",
        "Marisol can't stand the cold, wet winters on the north coast",
    ),
    m(
        3,
        "languages/spanish-cajun",
        P,
        "fact",
        "Marisol is fluent in Spanish and gets by in Cajun French",
    ),
    m(
        4,
        "vehicle/4runner",
        U,
        "fact",
        "Marisol sold her motorbike and bought a used 4Runner for the winter roads",
        topic="vehicle",
    ),
    m(
        4,
        "brother-job/lineman",
        U,
        "fact",
        "Evaristo has quit the shrimp boats and is training as a lineman for the power company in Corpus Christi",
        contacts=["Evaristo"],
    ),
    m(
        4,
        "home/houma",
        P,
        "profile",
        "Marisol still thinks about her old house on stilts over the bayou in Houma",
    ),
    m(
        4,
        "home/prince-rupert",
        P,
        "profile",
        "Marisol's apartment in Prince Rupert looks out over the container port",
    ),
    m(
        4,
        "bronchitis/ten-days",
        S,
        "state",
        "Marisol is off the pilot roster for ten days with bronchitis",
    ),
    m(
        4,
        "ferry/seasick",
        C,
        "event",
        "Marisol was seasick the whole ferry crossing to Haida Gwaii",
        contradicts="seasick/never",
    ),
    m(
        4,
        "job/harbour-pilot",
        P,
        "profile",
        "Marisol now boards the ships coming into Prince Rupert and brings them in to the berths",
    ),
    m(
        4,
        "augie-visit",
        N,
        "event",
        "Augie came up from Houma to visit Marisol last month",
        contacts=["Augie"],
    ),
    m(
        4,
        "origin/brownsville",
        P,
        "profile",
        "Marisol's family back in Brownsville fished for shrimp",
    ),
    m(4, "scar/chin", P, "fact", "The scar on Marisol's chin is from slipping on a pilot ladder"),
    m(
        5,
        "on-call/night-boardings",
        S,
        "state",
        "Marisol is on call for night boardings for the next three weeks",
    ),
    m(
        5,
        "cousin/yesenia-staying",
        S,
        "state",
        "Marisol's cousin Yesenia is staying with her until the end of next month",
        contacts=["Yesenia"],
    ),
    m(
        5,
        "vehicle/kawasaki",
        P,
        "fact",
        "Marisol used to ride her Kawasaki along the bayou roads to the pilot station",
    ),
    m(5, "vehicle/4runner", P, "fact", "Marisol drives a 4Runner now"),
    m(5, "savings/cabin", P, "goal", "Marisol is still saving for a cabin on Haida Gwaii"),
    m(5, "brother-job/lineman", P, "fact", "Marisol's brother climbs power poles for a living now"),
    m(5, "night-work", P, "preference", "Marisol likes bringing ships in at night best"),
    m(
        5,
        "cold/dislike",
        P,
        "preference",
        "Marisol says she'll never get used to the cold up north",
    ),
]
marisol_q = [
    q("Where does Marisol live now?", "home/prince-rupert"),
    q("What is Marisol's job now?", "job/harbour-pilot"),
    q("What does Marisol drive?", "vehicle/4runner"),
    q("What is Marisol saving up for?", "savings/cabin"),
    q("What does Evaristo do for a living?", "brother-job/lineman"),
    q("Is Marisol on call for night boardings right now?", "on-call/night-boardings"),
    q("Who is staying with Marisol at the moment?", "cousin/yesenia-staying"),
    q("Where was Marisol born?", "origin/brownsville"),
    q("How many years has Augie been bringing ships up the river?", "mentor/auguste"),
    q("Where did Marisol live before she moved to Prince Rupert?", "home/houma"),
    q("What kind of pilot was Marisol before she moved north?", "job/river-pilot"),
    q("What did Marisol ride before she bought her car?", "vehicle/kawasaki"),
    q("What was Evaristo's job before?", "brother-job/deckhand"),
    q("What languages does Marisol speak?", "languages/spanish-cajun"),
]
users.append(("marisol", [0, 13, 40, 68, 96], marisol, marisol_q))


# ---------------------------------------------------------------- yunxiang (Chinese)
yunxiang = [
    m(
        1,
        "job/train-attendant",
        N,
        "profile",
        "缪芸香是成昆铁路上的列车员，跑西昌方向的绿皮车",
        topic="work:job",
    ),
    m(1, "home/xichang", N, "profile", "芸香住在西昌，家离邛海不远", topic="home:city"),
    m(1, "origin/huili", N, "profile", "芸香是会理人"),
    m(
        1,
        "shifu/ran",
        N,
        "fact",
        "芸香的师傅叫冉德厚，在铁路上干了三十年列车员",
        contacts=["冉德厚"],
    ),
    m(1, "husband-job/ertan", N, "fact", "芸香的丈夫在二滩水电站做运行值班员"),
    m(1, "daughter/douya", N, "fact", "芸香的女儿小名叫豆芽，在读小学三年级", contacts=["豆芽"]),
    m(1, "carsick/always", N, "fact", "芸香一坐汽车就晕车"),
    m(1, "dish/tuotuorou", N, "preference", "芸香最爱吃坨坨肉"),
    m(1, "vehicle/ebike", N, "fact", "芸香每天骑一辆红色电动车去车站", topic="vehicle"),
    m(
        1,
        "holiday-plan/pandas",
        N,
        "goal",
        "芸香打算国庆节带豆芽去看大熊猫",
        topic="plan:holiday",
        contacts=["豆芽"],
    ),
    m(1, "call/before-trips", N, "habit", "芸香每次出乘前都会给女儿打个电话"),
    m(1, "run/5km", N, "habit", "芸香每天早上跑五公里"),
    m(2, "training/this-week", S, "state", "这周芸香在局里参加乘务安全培训"),
    m(2, "job/train-attendant", P, "profile", "芸香在成昆线的慢车上当乘务员"),
    m(2, "dish/tuotuorou", P, "preference", "坨坨肉是芸香最喜欢的菜"),
    m(2, "laoran-retired", N, "event", "老冉上个月退休了，芸香还去车站送了他", contacts=["老冉"]),
    m(2, "call/before-trips", P, "habit", "出乘之前芸香总要先跟豆芽通个电话", contacts=["豆芽"]),
    m(2, "daughter/douya", P, "fact", "豆芽是芸香的女儿，今年上三年级", contacts=["豆芽"]),
    m(2, "tea/kuqiao", N, "preference", "芸香喝茶只喝苦荞茶"),
    m(2, "rhinitis", N, "fact", "芸香有过敏性鼻炎，一到春天就犯"),
    m(3, "night-shift/till-wednesday", S, "state", "下周三之前芸香都上夜班"),
    m(
        3,
        "job/duty-officer",
        U,
        "profile",
        "芸香调到攀枝花南站当客运值班员了，不再跑车",
        topic="work:job",
    ),
    m(3, "home/panzhihua", U, "profile", "芸香一家搬到了攀枝花", topic="home:city"),
    m(
        3,
        "husband-job/pomegranate",
        U,
        "fact",
        "芸香的丈夫辞了水电站的工作，去攀枝花一家石榴合作社当技术员",
    ),
    m(
        3,
        "holiday-plan/lugu-lake",
        U,
        "goal",
        "国庆节芸香不去看熊猫了，改成带豆芽去泸沽湖",
        topic="plan:holiday",
        contacts=["豆芽"],
    ),
    m(3, "carsick/always", P, "fact", "芸香坐车特别容易晕"),
    m(3, "run/5km", P, "habit", "芸香坚持每天晨跑五公里"),
    m(4, "ankle/ten-days", S, "state", "芸香把脚扭了，请了十天病假"),
    m(
        4,
        "vehicle/used-car",
        U,
        "fact",
        "芸香把电动车卖了，买了一辆二手的银色小轿车",
        topic="vehicle",
    ),
    m(4, "home/xichang", P, "profile", "芸香还是怀念在西昌的日子，下了班就能去邛海边走走"),
    m(4, "home/panzhihua", P, "profile", "芸香家现在在攀枝花，那边一年到头都很热"),
    m(
        4,
        "bus/not-sick",
        C,
        "event",
        "芸香坐了八个小时山路大巴回会理老家，一点都没晕车",
        contradicts="carsick/always",
    ),
    m(4, "job/duty-officer", P, "profile", "芸香如今在攀枝花南站的客运值班室上班"),
    m(4, "origin/huili", P, "profile", "芸香老家在会理"),
    m(4, "ran-tobacco", N, "event", "冉德厚退休以后回老家种烤烟去了", contacts=["冉德厚"]),
    m(5, "interns/two-weeks", S, "state", "这两个礼拜芸香在带两个新来的实习值班员"),
    m(5, "mother-in-law/staying", S, "state", "芸香的婆婆到下个月底都住在她家"),
    m(5, "vehicle/ebike", P, "fact", "芸香以前骑着那辆红色电动车上下班，风雨无阻"),
    m(5, "vehicle/used-car", P, "fact", "芸香现在开一辆二手小轿车上下班"),
    m(5, "husband-job/pomegranate", P, "fact", "芸香老公现在在石榴合作社做技术指导"),
    m(5, "holiday-plan/lugu-lake", P, "goal", "芸香还是想国庆带豆芽去泸沽湖玩", contacts=["豆芽"]),
    m(5, "tea/kuqiao", P, "preference", "芸香别的茶都不喝，只喝苦荞茶"),
    m(5, "douya-dance", N, "fact", "豆芽在学跳彝族舞", contacts=["豆芽"]),
    m(5, "run/5km", P, "habit", "芸香现在每天早上沿着江边跑五公里"),
    m(5, "rhinitis", P, "fact", "芸香的鼻炎一到春天就犯"),
]
yunxiang_q = [
    q("芸香现在住在哪里？", "home/panzhihua"),
    q("芸香现在做什么工作？", "job/duty-officer"),
    q("芸香现在开什么车上下班？", "vehicle/used-car"),
    q("国庆节芸香打算带女儿去哪儿？", "holiday-plan/lugu-lake"),
    q("芸香的丈夫现在做什么工作？", "husband-job/pomegranate"),
    q("芸香最近在带实习生吗？", "interns/two-weeks"),
    q("芸香的婆婆要在她家住到什么时候？", "mother-in-law/staying"),
    q("芸香是哪里人？", "origin/huili"),
    q("老冉在铁路上干了多少年？", "shifu/ran"),
    q("芸香搬到攀枝花以前住在哪里？", "home/xichang"),
    q("芸香以前是做什么工作的？", "job/train-attendant"),
    q("芸香以前骑什么车上班？", "vehicle/ebike"),
    q("芸香的丈夫以前在哪儿上班？", "husband-job/ertan"),
    q("芸香最爱吃什么菜？", "dish/tuotuorou"),
]
users.append(("yunxiang", [0, 18, 35, 63, 96], yunxiang, yunxiang_q))


# ---------------------------------------------------------------- yulian (Chinese, traditional)
yulian = [
    m(1, "job/troupe", N, "profile", "甘玉蓮是虎尾一個布袋戲班的操偶師", topic="work:job"),
    m(1, "home/huwei", N, "profile", "玉蓮住在雲林虎尾，離糖廠不遠", topic="home:city"),
    m(1, "origin/magong", N, "profile", "玉蓮是澎湖馬公人"),
    m(
        1,
        "shifu/zhuo",
        N,
        "fact",
        "玉蓮的師父是卓添福，他十二歲就開始學布袋戲",
        contacts=["卓添福"],
    ),
    m(1, "brother-job/plant", N, "fact", "玉蓮的弟弟在麥寮的石化廠當工程師"),
    m(1, "coffee/gukeng", N, "preference", "玉蓮最愛喝古坑咖啡"),
    m(1, "dogs/afraid", N, "fact", "玉蓮很怕狗"),
    m(1, "vehicle/scooter", N, "fact", "玉蓮騎一台老舊的山葉機車", topic="vehicle"),
    m(1, "practice/fingers", N, "habit", "玉蓮每天早上練一個小時的指功"),
    m(1, "trip-plan/iida", N, "goal", "玉蓮打算明年去飯田參加人形劇節", topic="plan:trip"),
    m(1, "languages/taigi-hakka", N, "fact", "玉蓮會說臺語和客家話"),
    m(2, "temple-fair/this-week", S, "state", "這個禮拜玉蓮都在嘉義的廟會演出"),
    m(2, "job/troupe", P, "profile", "玉蓮在虎尾的戲班裡操布袋戲偶"),
    m(2, "finger/broken", N, "fact", "玉蓮的左手小指以前骨折過"),
    m(2, "fubo/puppet-head", N, "event", "福伯送了玉蓮一尊他親手雕的戲偶頭", contacts=["福伯"]),
    m(2, "coffee/gukeng", P, "preference", "古坑咖啡是玉蓮的最愛"),
    m(2, "practice/fingers", P, "habit", "玉蓮每天早上都要練指功，一練就是一小時"),
    m(2, "spicy/avoids", N, "preference", "玉蓮不敢吃辣"),
    m(2, "role/clown", N, "preference", "玉蓮最喜歡演丑角，最會逗觀眾笑"),
    m(3, "voice/lost", S, "state", "玉蓮感冒失聲了，禮拜五之前都不能配音"),
    m(
        3,
        "job/studio",
        U,
        "profile",
        "玉蓮離開了虎尾的戲班，在臺南開了自己的布袋戲工作室",
        topic="work:job",
    ),
    m(3, "home/yanshui", U, "profile", "玉蓮搬到臺南鹽水去住了", topic="home:city"),
    m(3, "brother-job/seafood-shop", U, "fact", "玉蓮的弟弟辭掉了石化廠的工作，回澎湖開海產店"),
    m(
        3,
        "trip-plan/charleville",
        U,
        "goal",
        "玉蓮不去飯田了，改成明年去沙勒維爾看世界偶戲節",
        topic="plan:trip",
    ),
    m(3, "dogs/afraid", P, "fact", "玉蓮看到狗就會嚇得躲起來"),
    m(3, "origin/magong", P, "profile", "玉蓮從小在澎湖長大"),
    m(4, "new-puppets/till-wednesday", S, "state", "下週三之前玉蓮都在趕做新戲偶"),
    m(
        4,
        "vehicle/small-truck",
        U,
        "fact",
        "玉蓮把機車賣了，換了一台二手小貨車來載戲台",
        topic="vehicle",
    ),
    m(4, "home/huwei", P, "profile", "玉蓮有時候會想念在虎尾的日子，騎車就能到糖廠吃冰"),
    m(4, "home/yanshui", P, "profile", "玉蓮現在住在鹽水，離工作室走路十分鐘"),
    m(4, "stray/black-dog", C, "event", "玉蓮在路邊撿了一隻黑狗回家養", contradicts="dogs/afraid"),
    m(4, "job/studio", P, "profile", "玉蓮現在經營自己的布袋戲工作室"),
    m(4, "brother-job/seafood-shop", P, "fact", "玉蓮的弟弟在馬公開了一間海產店"),
    m(4, "finger/broken", P, "fact", "玉蓮的左手小指斷過一次"),
    m(4, "languages/taigi-hakka", P, "fact", "玉蓮的臺語和客家話都講得很流利"),
    m(4, "role/clown", P, "preference", "玉蓮最喜歡操丑角的戲偶"),
    m(5, "school-club/two-weeks", S, "state", "這兩個禮拜玉蓮在一間國小教布袋戲社團"),
    m(5, "workshop/renovation", S, "state", "玉蓮的工作室要整修到下個月底，暫時不開放參觀"),
    m(5, "job/troupe", P, "profile", "玉蓮以前在戲班的時候，一年要跑兩百多場"),
    m(5, "job/studio", P, "profile", "玉蓮現在自己當老闆，工作室常接廟口的戲"),
    m(5, "vehicle/small-truck", P, "fact", "玉蓮現在開一台小貨車"),
    m(5, "trip-plan/charleville", P, "goal", "玉蓮還是打算明年去沙勒維爾看偶戲節"),
    m(5, "spicy/avoids", P, "preference", "玉蓮吃東西一點辣都不能碰"),
    m(5, "practice/fingers", P, "habit", "玉蓮搬到臺南以後還是每天早上練指功"),
    m(5, "zhuo-eighty", N, "fact", "卓添福今年八十歲了，還在教學生", contacts=["卓添福"]),
]
yulian_q = [
    q("玉蓮現在住在哪裡？", "home/yanshui"),
    q("玉蓮現在做什麼工作？", "job/studio"),
    q("玉蓮現在開什麼車？", "vehicle/small-truck"),
    q("玉蓮明年打算去哪裡看偶戲節？", "trip-plan/charleville"),
    q("玉蓮的弟弟現在做什麼？", "brother-job/seafood-shop"),
    q("玉蓮最近在國小教布袋戲嗎？", "school-club/two-weeks"),
    q("玉蓮的工作室什麼時候才重新開放？", "workshop/renovation"),
    q("玉蓮是哪裡人？", "origin/magong"),
    q("卓添福送了玉蓮什麼？", "fubo/puppet-head"),
    q("玉蓮搬去臺南以前住在哪裡？", "home/huwei"),
    q("玉蓮以前在哪裡操偶？", "job/troupe"),
    q("玉蓮以前騎什麼車？", "vehicle/scooter"),
    q("玉蓮的弟弟以前在哪裡上班？", "brother-job/plant"),
    q("玉蓮會說哪些語言？", "languages/taigi-hakka"),
]
users.append(("yulian", [0, 15, 39, 67, 96], yulian, yulian_q))


# ---------------------------------------------------------------- lionel (English and Chinese)
lionel = [
    m(
        1,
        "job/chinatown",
        N,
        "profile",
        "Lionel Sim is a watchmaker who services mechanical watches at a small repair shop in Chinatown",
        topic="work:job",
    ),
    m(
        1,
        "home/tampines",
        N,
        "profile",
        "Lionel lives in an HDB flat in Tampines with his wife and son",
        topic="home:city",
    ),
    m(1, "origin/malacca", N, "profile", "Lionel was born in Malacca and moved south as a boy"),
    m(
        1,
        "colleague/hamidah",
        N,
        "fact",
        "Lionel's bench partner is Hamidah binte Yusof, who has been repairing watches for thirty years",
        contacts=["Hamidah binte Yusof"],
    ),
    m(
        1,
        "wife-job/bank",
        N,
        "fact",
        "Lionel's wife Yalin is an accountant at a bank",
        contacts=["Yalin"],
    ),
    m(1, "son/eight", N, "fact", "Lionel's son Zijian is eight years old", contacts=["Zijian"]),
    m(1, "spicy/none", N, "preference", "Lionel doesn't eat anything spicy"),
    m(1, "vehicle/motorbike", N, "fact", "Lionel rides a 150cc motorbike to work", topic="vehicle"),
    m(1, "swim/sundays", N, "habit", "Lionel swims thirty laps every Sunday morning"),
    m(
        1,
        "holiday-plan/hokkaido",
        N,
        "goal",
        "Lionel plans to take the family to Hokkaido for the June school holidays",
        topic="plan:holiday",
    ),
    m(1, "breakfast/lor-mee", N, "preference", "Lionel's favourite breakfast is a bowl of lor mee"),
    m(1, "pocket-watches", N, "fact", "Lionel collects old pocket watches"),
    m(2, "overtime/till-friday", S, "state", "沈立安到礼拜五之前每天都要加班赶修一批表"),
    m(2, "job/chinatown", P, "profile", "沈立安在牛车水的一家钟表店修机械表"),
    m(2, "breakfast/lor-mee", P, "preference", "沈立安早餐最爱吃卤面"),
    m(
        2,
        "kak-midah-tourbillon",
        N,
        "event",
        "Kak Midah 教会了沈立安怎么调校陀飞轮",
        contacts=["Kak Midah"],
    ),
    m(2, "origin/malacca", P, "profile", "沈立安是在马六甲出生的"),
    m(2, "swim/sundays", P, "habit", "沈立安每个星期天早上都去游泳"),
    m(2, "spicy/none", P, "preference", "沈立安一点辣都不吃"),
    m(
        3,
        "trial/this-week",
        S,
        "state",
        "Lionel is in Glashütte this week for a trial at a watch manufacture",
    ),
    m(
        3,
        "job/glashutte",
        U,
        "profile",
        "Lionel has signed on as a watchmaker at a manufacture in Glashütte",
        topic="work:job",
    ),
    m(
        3,
        "home/glashutte",
        U,
        "profile",
        "Lionel and his family have moved to Glashütte in Saxony",
        topic="home:city",
    ),
    m(
        3,
        "wife-job/meissen",
        U,
        "fact",
        "Yalin has found a job doing the books for a porcelain maker in Meissen",
        contacts=["Yalin"],
    ),
    m(
        3,
        "holiday-plan/dolomites",
        U,
        "goal",
        "Lionel dropped the Hokkaido trip; the family will go walking in the Dolomites in June instead",
        topic="plan:holiday",
    ),
    m(3, "son/eight", P, "fact", "Zijian, Lionel's boy, is eight", contacts=["Zijian"]),
    m(
        3,
        "pocket-watches",
        P,
        "fact",
        "Lionel has a whole drawer of antique pocket watches he has collected",
    ),
    m(
        4,
        "son-sick/ten-days",
        S,
        "state",
        "沈立安的儿子得了手足口病，要在家休息十天",
        contacts=["子健"],
    ),
    m(4, "vehicle/peugeot", U, "fact", "沈立安买了一辆二手的标致旅行车", topic="vehicle"),
    m(4, "home/tampines", P, "profile", "沈立安很怀念在淡滨尼组屋楼下吃早餐的日子"),
    m(4, "home/glashutte", P, "profile", "沈立安一家现在住在格拉苏蒂"),
    m(4, "mala/plate", C, "event", "沈立安一口气吃完了一整盘麻辣香锅", contradicts="spicy/none"),
    m(4, "job/glashutte", P, "profile", "沈立安现在在格拉苏蒂的一家制表厂组装机芯"),
    m(
        4,
        "wife-job/meissen",
        P,
        "fact",
        "沈立安的太太现在在迈森一家做餐具的工厂做账",
        contacts=["雅琳"],
    ),
    m(4, "pocket-watches", P, "fact", "沈立安收藏了不少古董怀表"),
    m(
        5,
        "saturdays/three-weeks",
        S,
        "state",
        "Lionel is working Saturdays for the next three weeks to finish a batch of chronographs",
    ),
    m(5, "german-course/two-weeks", S, "state", "这两个礼拜沈立安在上德语速成班"),
    m(
        5,
        "mother/staying",
        S,
        "state",
        "Lionel's mother is staying with them until the end of next month",
    ),
    m(
        5,
        "vehicle/motorbike",
        P,
        "fact",
        "Lionel used to ride his motorbike to Chinatown every morning",
    ),
    m(5, "vehicle/peugeot", P, "fact", "Lionel drives a secondhand Peugeot estate now"),
    m(5, "holiday-plan/dolomites", P, "goal", "沈立安还是打算六月带家人去多洛米蒂走走"),
    m(
        5,
        "wife-job/meissen",
        P,
        "fact",
        "Yalin keeps the accounts for a porcelain factory in Meissen now",
        contacts=["Yalin"],
    ),
    m(
        5,
        "swim/sundays",
        P,
        "habit",
        "Lionel found a pool near Glashütte and still swims every Sunday",
    ),
    m(
        5,
        "breakfast/lor-mee",
        P,
        "preference",
        "Lionel says nothing beats a bowl of lor mee in the morning",
    ),
]
lionel_q = [
    q("Where does Lionel live now?", "home/glashutte"),
    q("沈立安现在在哪里工作？", "job/glashutte"),
    q("What car does Lionel drive?", "vehicle/peugeot"),
    q("Where is Lionel taking his family for the June holidays?", "holiday-plan/dolomites"),
    q("What does Lionel's wife do now?", "wife-job/meissen"),
    q("Is Lionel working on Saturdays at the moment?", "saturdays/three-weeks"),
    q("沈立安最近在上什么课？", "german-course/two-weeks"),
    q("How long is Lionel's mother staying with them?", "mother/staying"),
    q("Where was Lionel born?", "origin/malacca"),
    q("How long has Kak Midah been repairing watches?", "colleague/hamidah"),
    q("沈立安以前住在哪里？", "home/tampines"),
    q("What did Lionel's wife do before?", "wife-job/bank"),
    q("How did Lionel get to work before he moved?", "vehicle/motorbike"),
    q("Where did Lionel work before Glashütte?", "job/chinatown"),
    q("What does Lionel collect?", "pocket-watches"),
]
users.append(("lionel", [0, 17, 41, 69, 96], lionel, lionel_q))


# ---------------------------------------------------------------- aurelia (English and Chinese)
aurelia = [
    m(
        1,
        "job/broome",
        N,
        "profile",
        "Aurelia Ng is a pearl technician who seeds pearl shell at a pearl farm near Broome",
        topic="work:job",
    ),
    m(
        1,
        "home/broome",
        N,
        "profile",
        "Aurelia rents a tin-roofed cottage in Broome near Cable Beach",
        topic="home:city",
    ),
    m(
        1,
        "origin/kalgoorlie",
        N,
        "profile",
        "Aurelia grew up in Kalgoorlie; her parents came from Kaiping",
    ),
    m(
        1,
        "mentor/hamish",
        N,
        "fact",
        "Aurelia learned seeding from Hamish Tregear, who has worked the pearl farms for forty years",
        contacts=["Hamish Tregear"],
    ),
    m(1, "mother-job/laundromat", N, "fact", "Aurelia's mother runs a laundromat in Kalgoorlie"),
    m(1, "pearls/golden", N, "preference", "Aurelia thinks golden pearls are the most beautiful"),
    m(1, "seafood/none", N, "preference", "Aurelia doesn't eat seafood at all"),
    m(
        1,
        "vehicle/troop-carrier",
        N,
        "fact",
        "Aurelia drives a battered old troop carrier",
        topic="vehicle",
    ),
    m(1, "notebook", N, "habit", "Aurelia writes up every seeding day in a notebook before bed"),
    m(
        1,
        "trip-plan/nullarbor",
        N,
        "goal",
        "Aurelia wants to cycle across the Nullarbor in April",
        topic="plan:trip",
    ),
    m(1, "cat/pipsqueak", N, "fact", "Aurelia has a ginger cat called Pipsqueak"),
    m(1, "bagpipes", N, "habit", "Aurelia practises the bagpipes on the beach in the evenings"),
    m(2, "boat/till-friday", S, "state", "插核旺季，绮岚到礼拜五之前都住在珍珠场的船上"),
    m(2, "job/broome", P, "profile", "吴绮岚在布鲁姆附近的珍珠场做插核技术员"),
    m(2, "pearls/golden", P, "preference", "绮岚觉得金色的珍珠最漂亮"),
    m(
        2,
        "treggy-tools",
        N,
        "event",
        "Treggy 把他用了四十年的插核工具送给了绮岚",
        contacts=["Treggy"],
    ),
    m(2, "bagpipes", P, "habit", "绮岚晚上常在海边练风笛"),
    m(2, "mother-job/laundromat", P, "fact", "绮岚的妈妈在卡尔古利开了一家自助洗衣店"),
    m(2, "cat/pipsqueak", P, "fact", "绮岚养了一只叫 Pipsqueak 的橘猫"),
    m(
        3,
        "job/hepu",
        U,
        "profile",
        "Aurelia has been hired as head technician at a pearl farm in Hepu",
        topic="work:job",
    ),
    m(
        3,
        "home/beihai",
        U,
        "profile",
        "Aurelia has moved to Beihai and rents a flat in the old town",
        topic="home:city",
    ),
    m(
        3,
        "luggage/till-friday",
        S,
        "state",
        "Aurelia's luggage is held up at the port until Friday, so she is living out of one bag",
    ),
    m(
        3,
        "mother-job/canteen",
        U,
        "fact",
        "Aurelia's mum has sold the laundromat and now runs the canteen at the Kalgoorlie racecourse",
    ),
    m(
        3,
        "trip-plan/weizhou",
        U,
        "goal",
        "Aurelia has swapped the Nullarbor ride for a cycling trip around Weizhou Island in April",
        topic="plan:trip",
    ),
    m(3, "seafood/none", P, "preference", "Aurelia never touches fish or shellfish"),
    m(
        3,
        "origin/kalgoorlie",
        P,
        "profile",
        "Aurelia is a Kalgoorlie girl whose family is from Kaiping",
    ),
    m(3, "freedive", N, "fact", "Aurelia can free-dive to fifteen metres"),
    m(4, "wrist/ten-days", S, "state", "绮岚的右手腱鞘炎犯了，医生让她休息十天"),
    m(
        4,
        "vehicle/four-wheel-drive",
        U,
        "fact",
        "绮岚在北海买了一辆二手的白色越野车",
        topic="vehicle",
    ),
    m(4, "home/broome", P, "profile", "绮岚常常想起在布鲁姆看海上日落的日子"),
    m(4, "home/beihai", P, "profile", "绮岚现在住在北海老街的一套公寓里"),
    m(
        4,
        "oysters/night-market",
        C,
        "event",
        "绮岚在夜市一口气吃了一大盘烤生蚝",
        contradicts="seafood/none",
    ),
    m(4, "job/hepu", P, "profile", "绮岚在合浦的珍珠场当首席技术员"),
    m(4, "bagpipes", P, "habit", "绮岚晚上还是会去海边练风笛"),
    m(4, "notebook", P, "habit", "绮岚每天插核结束后都会把情况记在本子上"),
    m(
        5,
        "harvest/three-weeks",
        S,
        "state",
        "For the next three weeks Aurelia is out on the rafts every day for the pearl harvest",
    ),
    m(5, "nursery/till-next-month", S, "state", "到下个月底绮岚都在帮隔壁珍珠场代管育苗池"),
    m(
        5,
        "vehicle/troop-carrier",
        P,
        "fact",
        "Aurelia used to drive her old troop carrier up and down the Broome beaches",
    ),
    m(
        5,
        "vehicle/four-wheel-drive",
        P,
        "fact",
        "Aurelia drives a secondhand white four-wheel drive now",
    ),
    m(5, "trip-plan/weizhou", P, "goal", "绮岚四月还是要骑车环涠洲岛"),
    m(5, "mother-job/canteen", P, "fact", "Aurelia's mother cooks for the racecourse canteen now"),
    m(5, "cat/pipsqueak", P, "fact", "Pipsqueak, Aurelia's ginger cat, lives with her in Beihai"),
    m(5, "pearls/golden", P, "preference", "Aurelia still says golden pearls are the loveliest"),
    m(5, "freedive", P, "fact", "绮岚能闭气潜到十五米深"),
]
aurelia_q = [
    q("Where does Aurelia live now?", "home/beihai"),
    q("绮岚现在在哪里工作？", "job/hepu"),
    q("What does Aurelia drive?", "vehicle/four-wheel-drive"),
    q("What is Aurelia planning to do in April?", "trip-plan/weizhou"),
    q("绮岚的妈妈现在做什么？", "mother-job/canteen"),
    q("Is Aurelia out on the rafts for the harvest these days?", "harvest/three-weeks"),
    q("绮岚这段时间在帮隔壁珍珠场管什么？", "nursery/till-next-month"),
    q("Where did Aurelia grow up?", "origin/kalgoorlie"),
    q("What did Hamish Tregear give Aurelia?", "treggy-tools"),
    q("Where did Aurelia live before she moved to Beihai?", "home/broome"),
    q("绮岚以前在哪里工作？", "job/broome"),
    q("What did Aurelia's mother use to run?", "mother-job/laundromat"),
    q("What car did Aurelia use to drive?", "vehicle/troop-carrier"),
    q("What is the name of Aurelia's cat?", "cat/pipsqueak"),
]
users.append(("aurelia", [0, 14, 36, 64, 96], aurelia, aurelia_q))


def records() -> list[dict]:
    memories, questions, owner = [], [], {}
    for order, (user, days, mems, qs) in enumerate(users):
        assert days == sorted(set(days)) and days[-1] == LAST_DAY, f"{user}: its days"
        ids_of: dict[str, list[str]] = {}
        kind_of: dict[str, str] = {}
        slot_facts: dict[str, list[str]] = {}
        for n, (session, fact, label, kind, content, kw) in enumerate(mems, start=1):
            kw = dict(kw)  # the fields are taken out of a copy: records() can run again
            assert owner.setdefault(fact, user) == user, f"{fact} is a fact of two users"
            assert kind_of.setdefault(fact, kind) == kind, f"{user} {fact}: two kinds"
            assert (label == S) == (kind == "state"), f"{user} {fact}: a state is labelled state"
            assert (label == C) == ("contradicts" in kw), (
                f"{user} {fact}: a contradiction names its fact"
            )
            # the labels: a fact's first memory is new (or a state, or a contradiction) when it
            # opens its slot, an update when the slot had another value; its later ones paraphrases
            facts = slot_facts.setdefault(kw.get("slot", fact.split("/", 1)[0]), [])
            if fact in facts:
                assert label == P, f"{user} {fact}: a restatement is a paraphrase"
            else:
                assert label == (U if facts else label) and label in (N, U, S, C), (
                    f"{user} {fact}: {label}"
                )
                assert label in (N, S, C) or facts, f"{user} {fact}: an update of nothing"
                facts.append(fact)
            record = {
                "type": "memory",
                "id": f"{user}-m{n:02d}",
                "user": user,
                "session": session,
                "day": days[session - 1],
                "fact": fact,
                "slot": kw.pop("slot", fact.split("/", 1)[0]),
                "label": label,
                "kind": kind,
                "content": content,
            }
            for key in ("topic", "contacts", "contradicts"):
                if key in kw:
                    record[key] = kw.pop(key)
            assert not kw, f"{user} {fact}: unknown fields {kw}"
            ids_of.setdefault(fact, []).append(record["id"])
            memories.append((record["day"], order, n, record))
        for n, (text, facts) in enumerate(qs, start=1):
            answers = [i for f in facts for i in ids_of[f]]
            questions.append(
                {
                    "type": "question",
                    "id": f"{user}-q{n:02d}",
                    "user": user,
                    "text": text,
                    "answers": answers,
                }
            )
    # the writes in the order of their days (a user's session stays together), then the questions
    return [r for *_, r in sorted(memories, key=lambda t: t[:3])] + questions


if __name__ == "__main__":
    sys.exit(0 if write_or_check(OUT, jsonl(records()), __doc__.splitlines()[0]) else 1)
