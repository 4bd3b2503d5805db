"""Build bench/data/memory_dev_stream_l.jsonl: stream L, a measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by a helper that read only the format (docs/eval.md from
"The measures" to its dataset format, the bundled stream's summary between them included;
scripts/jsonl_build.py; the dataclasses and `load_dataset` at the top of pymem/eval.py; the
docstring and first lines of scripts/build_memory_dev_stream_j.py for a builder's shape; and
the test in tests/test_eval.py that rebuilds the streams), not pymem's decision rules, word
lists or SQL, nor any other stream, and that never ran pymem on it. Six invented users,
with people, places, jobs, pets, foods and hobbies found in no other file of bench/data or
pymem/data:

- gideon (English): Gideon Mwakasege, a bush-plane mechanic in Arusha who becomes chief engineer of a flying-doctor service in Mwanza.
- maggie (English): Maggie Thibodeaux, a crawfish farmer near Breaux Bridge who sells her ponds to guide swamp-boat tours from Henderson.
- qiuhe (Chinese): 栾秋禾, a rare-book restorer at the 聊城 library who moves to 汕头 to repair 侨批 letters.
- haoyu (Chinese): 匡浩宇, an offshore wind-turbine technician in 如东 who transfers to lead a crew off 阳江.
- vivian (both): 温嘉慧 Vivian, who runs her family's swiftlet houses in Bentong, then a bird's-nest dessert café in Melaka.
- jeremy (both): 阙振宇 Jeremy, a fly-in fly-out drone surveyor from Geraldton who moves to Darwin to map mangroves.

Each has restatements (some in the other language, some worded far apart, some nearly
verbatim, one of an old value after it changed), updates said in varied ways (a move, a new
job, another car, a plan dropped for another, a partner's or brother's new work), temporary
states said as people say them (until Thursday, this week, for two weeks, 这个礼拜, 到月底,
下周一之前; an early one that has ended by question time, three in the last session that
still hold and are asked about), contacts named two ways (a full name and a nickname), one
contradiction, topics on some memories, and questions about current values, the live
states, stable facts, a contact named by the other name and values before they changed.
Each question's answers are every memory of the fact it asks about.

No public dataset is copied.

    python scripts/build_memory_dev_stream_l.py           # write the file
    python scripts/build_memory_dev_stream_l.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_l.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days of its sessions, memories, questions)


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# question tuple: (text, facts it asks about): its answers are every memory of those facts
def q(text, *facts):
    return (text, facts)


# ---------------------------------------------------------------- gideon (English)
gideon = [
    m(
        1,
        "job/arusha-bushplane",
        N,
        "profile",
        "Gideon Mwakasege is an aircraft mechanic at a small bush-plane company at Arusha airport, looking after the Cessna Caravans that fly tourists to the Serengeti",
        topic="work:job",
    ),
    m(
        1,
        "home/njiro",
        N,
        "fact",
        "Gideon lives in Njiro, on the south-eastern edge of Arusha",
        topic="home:area",
    ),
    m(
        1,
        "vehicle/escudo",
        N,
        "fact",
        "Gideon drives an old green Suzuki Escudo that he keeps running himself",
        topic="transport:vehicle",
    ),
    m(
        1,
        "dog/kiroboto",
        N,
        "fact",
        "Gideon has a huge brown mongrel named Kiroboto, which means 'flea' in Swahili",
        topic="pets",
    ),
    m(
        1,
        "wifejob/arusha-school",
        N,
        "profile",
        "Gideon's wife, Rehema Kisanga, teaches geography at a secondary school in Arusha",
        topic="family",
        contacts=["Rehema Kisanga"],
    ),
    m(
        1,
        "entebbe-course/until-thursday",
        S,
        "state",
        "Gideon is in Entebbe until Thursday for a turboprop engine course",
    ),
    m(
        1,
        "tea/no-sugar",
        N,
        "preference",
        "Gideon drinks his tea without any sugar",
        topic="food:drink",
    ),
    m(
        1,
        "food/ndizi-nyama",
        N,
        "preference",
        "Gideon's favourite dish is ndizi nyama, green bananas stewed with beef",
        topic="food",
    ),
    m(
        1,
        "job/arusha-bushplane",
        P,
        "profile",
        "Gideon fixes bush planes for a safari air charter based at Arusha airport",
    ),
    m(
        2,
        "hobby/birdwatching",
        N,
        "habit",
        "Every Sunday morning Gideon goes birdwatching around Lake Duluti with his binoculars",
        topic="hobby",
    ),
    m(
        2,
        "friend/lyimo-pilot",
        N,
        "fact",
        "Gideon's best friend is Elibariki Lyimo, a pilot with the same charter company",
        contacts=["Elibariki Lyimo"],
    ),
    m(
        2,
        "nick-kidevu/alias",
        N,
        "fact",
        "Everyone at the hangar calls Elibariki Lyimo 'Kidevu' because of his long chin",
        contacts=["Elibariki Lyimo", "Kidevu"],
    ),
    m(
        2,
        "son/tumaini",
        N,
        "fact",
        "People call Rehema 'Mama Tumaini', after her and Gideon's first-born son Tumaini",
        contacts=["Rehema Kisanga", "Mama Tumaini"],
    ),
    m(
        2,
        "goal/pilot-licence",
        N,
        "goal",
        "Gideon is saving money to take his private pilot licence next year",
        topic="plans",
    ),
    m(2, "dog/kiroboto", P, "fact", "Gideon's big brown dog is called Kiroboto"),
    m(2, "home/njiro", P, "fact", "Gideon's house is in the Njiro area of Arusha"),
    m(2, "allergy/penicillin", N, "fact", "Gideon is allergic to penicillin", topic="health"),
    m(
        2,
        "football/yanga",
        N,
        "preference",
        "Gideon is a die-hard Yanga supporter and never misses a Young Africans match on the radio",
    ),
    m(
        3,
        "vehicle/boxer",
        U,
        "fact",
        "Gideon sold the Escudo and now gets around on a Bajaj Boxer motorbike",
        topic="transport:vehicle",
    ),
    m(
        3,
        "wifejob/arusha-school",
        P,
        "profile",
        "Mama Tumaini still teaches geography at the secondary school in Arusha",
        contacts=["Mama Tumaini"],
    ),
    m(
        3,
        "food/ndizi-nyama",
        P,
        "preference",
        "Gideon could eat banana and beef stew every single day",
    ),
    m(
        3,
        "allergy/penicillin",
        P,
        "fact",
        "Doctors must not give Gideon penicillin, he reacts badly to it",
    ),
    m(
        3,
        "goal/marangu-house",
        U,
        "goal",
        "Gideon dropped the pilot licence idea; the money now goes to building a house for his parents in Marangu",
        topic="plans",
    ),
    m(3, "vehicle/boxer", P, "fact", "Gideon rides a Boxer motorbike to the airport these days"),
    m(
        4,
        "job/mwanza-flying-doctors",
        U,
        "profile",
        "Gideon took a job as chief engineer for a flying-doctor service based in Mwanza",
        topic="work:job",
    ),
    m(
        4,
        "home/capri-point",
        U,
        "fact",
        "Gideon and his family moved from Arusha to Capri Point in Mwanza, above Lake Victoria",
        topic="home:area",
    ),
    m(
        4,
        "kiroboto-lorry/event",
        N,
        "event",
        "Kiroboto travelled to Mwanza on the back of a lorry with the furniture",
    ),
    m(
        4,
        "chai/three-spoons",
        C,
        "preference",
        "Gideon takes three heaped spoons of sugar in his chai",
        contradicts="tea/no-sugar",
    ),
    m(
        4,
        "job/mwanza-flying-doctors",
        P,
        "profile",
        "Gideon keeps the flying doctors' aircraft airworthy from their hangar at Mwanza airport",
    ),
    m(
        4,
        "hobby/birdwatching",
        P,
        "habit",
        "On Sundays Gideon now watches birds along the Lake Victoria shore",
    ),
    m(
        5,
        "wifejob/mwanza-school",
        U,
        "profile",
        "Rehema has started teaching geography at a girls' secondary school in Mwanza",
        topic="family",
        contacts=["Rehema"],
    ),
    m(5, "home/capri-point", P, "fact", "Gideon's new house is at Capri Point, Mwanza"),
    m(
        5,
        "goal/marangu-house",
        P,
        "goal",
        "Gideon's big goal is to finish his parents' house in Marangu, on the slopes of Kilimanjaro",
    ),
    m(
        5,
        "friend/lyimo-pilot",
        P,
        "fact",
        "Elibariki Lyimo still flies safari charters out of Arusha and phones Gideon most weekends",
        contacts=["Elibariki Lyimo"],
    ),
    m(
        5,
        "job/mwanza-flying-doctors",
        P,
        "profile",
        "Gideon is the chief engineer of a flying-doctor service in Mwanza",
    ),
    m(
        5,
        "football/yanga",
        P,
        "preference",
        "Gideon supports Young Africans, the Dar es Salaam club everyone calls Yanga",
    ),
    m(6, "home/njiro", P, "fact", "Before Mwanza, Gideon lived in Njiro in Arusha for nine years"),
    m(
        6,
        "hand-burn/ten-days",
        S,
        "state",
        "Gideon burned his right hand on an exhaust pipe and has it bandaged for the next ten days",
        topic="health",
    ),
    m(
        6,
        "family-morogoro/month-end",
        S,
        "state",
        "Rehema and the children are at her parents' in Morogoro until the end of the month",
        contacts=["Rehema"],
    ),
    m(
        6,
        "late-nights/this-week",
        S,
        "state",
        "This week Gideon is working late every night because the service's only Caravan is grounded with a propeller fault",
    ),
    m(
        6,
        "vehicle/boxer",
        P,
        "fact",
        "Gideon still rides the Bajaj Boxer he bought after selling his Suzuki",
    ),
]
gideon_q = [
    q("Where does Gideon live now?", "home/capri-point"),
    q("What is Gideon's job?", "job/mwanza-flying-doctors"),
    q("How does Gideon get around?", "vehicle/boxer"),
    q("Has Gideon's hand healed yet?", "hand-burn/ten-days"),
    q("Are Gideon's wife and kids at home right now?", "family-morogoro/month-end"),
    q("Why is Gideon busy every evening this week?", "late-nights/this-week"),
    q("What is Gideon's dog called?", "dog/kiroboto"),
    q("Which medicine is Gideon allergic to?", "allergy/penicillin"),
    q("What does Kidevu do for a living?", "friend/lyimo-pilot"),
    q("Where did Gideon live before he moved to Mwanza?", "home/njiro"),
    q("Where did Gideon work before the flying-doctor service?", "job/arusha-bushplane"),
    q("What car did Gideon have before the motorbike?", "vehicle/escudo"),
    q("What is Gideon saving his money for?", "goal/marangu-house"),
    q("Where does Gideon's wife teach now?", "wifejob/mwanza-school"),
    q("Which football club does Gideon support?", "football/yanga"),
]
users.append(("gideon", [0, 9, 22, 41, 59, 78], gideon, gideon_q))


# ---------------------------------------------------------------- maggie (English)
maggie = [
    m(
        1,
        "job/crawfish-farm",
        N,
        "profile",
        "Maggie Thibodeaux farms crawfish in flooded rice ponds outside Breaux Bridge, Louisiana",
        topic="work:job",
    ),
    m(
        1,
        "home/breaux-bridge",
        N,
        "fact",
        "Maggie lives in a raised cypress house on the edge of Breaux Bridge",
        topic="home:area",
    ),
    m(
        1,
        "truck/f150",
        N,
        "fact",
        "Maggie drives a rusty blue Ford F-150 with a boat hitch",
        topic="transport:car",
    ),
    m(
        1,
        "dog/roux",
        N,
        "fact",
        "Maggie's dog Roux is a catahoula leopard dog with one blue eye",
        topic="pets",
    ),
    m(
        1,
        "son/lucien-welder",
        N,
        "fact",
        "Maggie's son Lucien Thibodeaux works as a welder on offshore rigs",
        topic="family",
        contacts=["Lucien Thibodeaux"],
    ),
    m(
        1,
        "lafayette/until-sunday",
        S,
        "state",
        "Maggie is staying at her sister's in Lafayette until Sunday because the storm knocked out her power",
    ),
    m(1, "swim/never-learned", N, "fact", "Maggie never learned to swim"),
    m(
        1,
        "food/gumbo",
        N,
        "preference",
        "Maggie's favourite food is her grandmother's chicken and sausage gumbo",
        topic="food",
    ),
    m(
        1,
        "job/crawfish-farm",
        P,
        "profile",
        "Maggie raises crawfish in her rice fields near Breaux Bridge",
    ),
    m(
        2,
        "music/rubboard",
        N,
        "habit",
        "Maggie plays the rubboard in a zydeco band that does the Saturday dance at a hall in Breaux Bridge",
        topic="hobby:music",
    ),
    m(
        2,
        "neighbour/guidry-postmistress",
        N,
        "fact",
        "Maggie's neighbour Ernestine Guidry is a retired postmistress who feeds Roux whenever Maggie is away",
        contacts=["Ernestine Guidry"],
    ),
    m(
        2,
        "nick-boo/alias",
        N,
        "fact",
        "Everybody in the family calls Lucien 'Boo'",
        contacts=["Lucien Thibodeaux", "Boo"],
    ),
    m(
        2,
        "goal/galveston",
        N,
        "goal",
        "Maggie wants to sell up and retire to a beach cottage in Galveston",
        topic="plans",
    ),
    m(2, "dog/roux", P, "fact", "Roux, Maggie's catahoula, has one blue eye and one brown"),
    m(2, "home/breaux-bridge", P, "fact", "Maggie's place is just outside Breaux Bridge"),
    m(
        2,
        "coffee/black-dripolator",
        N,
        "habit",
        "Maggie drinks her coffee black and strong, made in a dripolator every morning",
        topic="food:drink",
    ),
    m(
        3,
        "truck/tundra",
        U,
        "fact",
        "Maggie traded in the old F-150 for a silver Toyota Tundra",
        topic="transport:car",
    ),
    m(
        3,
        "nick-miss-teenie/alias",
        N,
        "fact",
        "On their street Ernestine Guidry goes by Miss Teenie",
        contacts=["Ernestine Guidry", "Miss Teenie"],
    ),
    m(
        3,
        "food/gumbo",
        P,
        "preference",
        "Nothing tastes more like home to Maggie than a pot of chicken-and-sausage gumbo the way her mawmaw made it",
    ),
    m(
        3,
        "goal/bayou-bnb",
        U,
        "goal",
        "Maggie has dropped the Galveston retirement plan; she wants to open a bed-and-breakfast on the bayou instead",
        topic="plans",
    ),
    m(3, "truck/tundra", P, "fact", "Maggie drives a Tundra now"),
    m(
        3,
        "son/lucien-welder",
        P,
        "fact",
        "Boo still works offshore as a welder, two weeks on and two weeks off",
        contacts=["Boo"],
    ),
    m(
        4,
        "job/swamp-tours",
        U,
        "profile",
        "Maggie sold the crawfish ponds and now guides swamp-boat tours in the Atchafalaya Basin",
        topic="work:job",
    ),
    m(
        4,
        "home/henderson",
        U,
        "fact",
        "Maggie moved from Breaux Bridge to a camp in Henderson, right on the levee",
        topic="home:area",
    ),
    m(
        4,
        "pirogue-swim/event",
        C,
        "event",
        "Maggie swam across the bayou to fetch a pirogue that had come loose",
        contradicts="swim/never-learned",
    ),
    m(
        4,
        "job/swamp-tours",
        P,
        "profile",
        "Maggie runs boat tours through the Atchafalaya swamp, showing tourists alligators and egrets",
    ),
    m(
        4,
        "music/rubboard",
        P,
        "habit",
        "Saturday nights Maggie is on the rubboard with her zydeco band",
    ),
    m(
        4,
        "roux-boat/event",
        N,
        "event",
        "Roux rides at the front of the tour boat and barks at the alligators",
    ),
    m(
        5,
        "home/henderson",
        P,
        "fact",
        "Maggie's home now is in Henderson, by the Atchafalaya levee",
    ),
    m(
        5,
        "goal/bayou-bnb",
        P,
        "goal",
        "Maggie dreams of running a little bed-and-breakfast by the water",
    ),
    m(
        5,
        "job/swamp-tours",
        P,
        "profile",
        "Maggie guides swamp-boat tours in the Atchafalaya Basin",
    ),
    m(
        5,
        "health/diabetes",
        N,
        "fact",
        "Maggie has type 2 diabetes and checks her sugar before every tour",
        topic="health",
    ),
    m(
        5,
        "health/diabetes",
        P,
        "fact",
        "Maggie keeps her glucose meter in the boat's glovebox because she is diabetic",
    ),
    m(
        5,
        "coffee/black-dripolator",
        P,
        "habit",
        "Maggie takes her coffee black, brewed in the old dripolator",
    ),
    m(
        6,
        "home/breaux-bridge",
        P,
        "fact",
        "Maggie lived in Breaux Bridge for thirty years before she moved to Henderson",
    ),
    m(
        6,
        "boo-staying/two-weeks",
        S,
        "state",
        "Boo is staying with Maggie for two weeks while his apartment in Lafayette is fumigated",
        contacts=["Boo"],
    ),
    m(
        6,
        "tours-off/this-week",
        S,
        "state",
        "Maggie's swamp tours are suspended this week because the river is too high",
    ),
    m(
        6,
        "antibiotics/until-friday",
        S,
        "state",
        "Maggie is on antibiotics for a tick bite until Friday, so no beer for her",
        topic="health",
    ),
    m(
        6,
        "truck/tundra",
        P,
        "fact",
        "Maggie's truck is the silver Tundra she got when she traded in the Ford",
    ),
]
maggie_q = [
    q("Where does Maggie live now?", "home/henderson"),
    q("What does Maggie do for a living?", "job/swamp-tours"),
    q("What does Maggie drive?", "truck/tundra"),
    q("Who is staying at Maggie's place at the moment?", "boo-staying/two-weeks"),
    q("Is Maggie running her tours this week?", "tours-off/this-week"),
    q("Can Maggie have a beer with us this week?", "antibiotics/until-friday"),
    q("What breed is Maggie's dog?", "dog/roux"),
    q("What instrument does Maggie play?", "music/rubboard"),
    q("What did Miss Teenie do before she retired?", "neighbour/guidry-postmistress"),
    q("Where did Maggie live before Henderson?", "home/breaux-bridge"),
    q("What was Maggie's work before the swamp tours?", "job/crawfish-farm"),
    q("What truck did Maggie have before?", "truck/f150"),
    q("What is Maggie planning for the future?", "goal/bayou-bnb"),
    q("What health condition does Maggie manage?", "health/diabetes"),
    q("What does Boo do for a living?", "son/lucien-welder"),
]
users.append(("maggie", [0, 10, 24, 45, 63, 84], maggie, maggie_q))


# ---------------------------------------------------------------- qiuhe (Chinese)
qiuhe = [
    m(
        1,
        "job/liaocheng-library",
        N,
        "profile",
        "栾秋禾是古籍修复师，在聊城市图书馆的古籍部修补虫蛀的线装书",
        topic="work:job",
    ),
    m(
        1,
        "home/liaocheng",
        N,
        "fact",
        "秋禾住在聊城东昌府区的古城里，离光岳楼不远",
        topic="home:area",
    ),
    m(1, "commute/ebike", N, "habit", "秋禾每天骑电动车去图书馆上班", topic="transport:commute"),
    m(1, "cat/modou", N, "fact", "秋禾养了一只黑猫，名字叫墨斗", topic="pets"),
    m(
        1,
        "mentor/gu-forty-years",
        N,
        "fact",
        "秋禾的师父顾鹤年是退休的老修复师，修了四十多年古籍",
        contacts=["顾鹤年"],
    ),
    m(1, "taiyuan/this-week", S, "state", "秋禾这个礼拜在太原参加古籍纸张检测的培训"),
    m(1, "spicy/none", N, "preference", "秋禾一点辣都不能吃", topic="food"),
    m(1, "food/guada", N, "preference", "秋禾最爱吃家乡的沙镇呱嗒，外酥里嫩", topic="food"),
    m(
        1,
        "job/liaocheng-library",
        P,
        "profile",
        "Qiuhe restores damaged thread-bound books in the rare books department of the Liaocheng library",
    ),
    m(2, "hobby/baduanjin", N, "habit", "秋禾每天早上在东昌湖边练八段锦", topic="hobby"),
    m(
        2,
        "boyfriend/zhan-engineer",
        N,
        "fact",
        "秋禾的男朋友詹一帆是水利设计院的工程师",
        contacts=["詹一帆"],
    ),
    m(2, "nick-afan/alias", N, "fact", "秋禾平时叫男朋友詹一帆“阿帆”", contacts=["詹一帆", "阿帆"]),
    m(
        2,
        "nick-gulao/alias",
        N,
        "fact",
        "秋禾和同事们都尊称顾鹤年师父为“顾老”",
        contacts=["顾鹤年", "顾老"],
    ),
    m(2, "goal/kaoyan", N, "goal", "秋禾打算明年考文物保护专业的研究生", topic="plans"),
    m(2, "cat/modou", P, "fact", "墨斗是秋禾养的那只黑猫"),
    m(2, "home/liaocheng", P, "fact", "秋禾家在聊城古城，走几步就到光岳楼"),
    m(
        3,
        "goal/washi",
        U,
        "goal",
        "秋禾不考研了，她想申请去日本学一年和纸修复的交流项目",
        topic="plans",
    ),
    m(3, "food/guada", P, "preference", "说到吃的，秋禾最惦记聊城沙镇的呱嗒"),
    m(3, "spicy/none", P, "preference", "秋禾吃不了辣，微辣都受不了"),
    m(3, "allergy/mango", N, "fact", "秋禾对芒果过敏", topic="health"),
    m(3, "commute/ebike", P, "habit", "秋禾骑电动车上下班，十分钟就到"),
    m(
        4,
        "job/shantou-qiaopi",
        U,
        "profile",
        "秋禾调到了汕头的侨批文物馆，专门修复侨批",
        topic="work:job",
    ),
    m(
        4,
        "home/shantou",
        U,
        "fact",
        "秋禾从聊城搬到了汕头，租的房子在小公园附近",
        topic="home:area",
    ),
    m(4, "commute/bus", U, "habit", "到了汕头，秋禾改坐公交车上班了", topic="transport:commute"),
    m(
        4,
        "hotpot/event",
        C,
        "event",
        "秋禾和同事吃了一顿特辣的牛油火锅，一个人吃了大半锅",
        contradicts="spicy/none",
    ),
    m(
        4,
        "job/shantou-qiaopi",
        P,
        "profile",
        "Qiuhe now repairs qiaopi, the letters and remittances overseas Chinese once sent home, at a museum in Shantou",
    ),
    m(4, "modou-trip/event", N, "event", "墨斗坐了二十多个小时的车才到汕头，一路上叫个不停"),
    m(
        5,
        "hobby/gongfu-tea",
        U,
        "habit",
        "秋禾不练八段锦了，现在迷上了潮汕工夫茶，每天晚上都要泡几泡",
        topic="hobby",
    ),
    m(5, "home/shantou", P, "fact", "秋禾现在住在汕头小公园一带"),
    m(5, "goal/washi", P, "goal", "秋禾的目标是去日本学和纸修复"),
    m(5, "boyfriend/zhan-engineer", P, "fact", "阿帆在水利设计院当工程师", contacts=["阿帆"]),
    m(5, "job/shantou-qiaopi", P, "profile", "秋禾在汕头的侨批文物馆修复侨批"),
    m(5, "allergy/mango", P, "fact", "秋禾碰不得芒果，一吃嘴巴就肿"),
    m(6, "home/liaocheng", P, "fact", "搬来汕头之前，秋禾在聊城古城住了六年"),
    m(
        6,
        "overtime/month-end",
        S,
        "state",
        "到月底秋禾每天都要加班，给侨批馆的新展览写说明牌",
        topic="work",
    ),
    m(
        6,
        "afan-yinchuan/until-monday",
        S,
        "state",
        "阿帆下周一之前都在银川出差，秋禾一个人在家",
        contacts=["阿帆"],
    ),
    m(
        6,
        "cut-finger/two-weeks",
        S,
        "state",
        "秋禾被裁纸刀割伤了手指，缝了三针，医生说两周内不能碰水，修复的活暂时做不了",
        topic="health",
    ),
    m(
        6,
        "hobby/gongfu-tea",
        P,
        "habit",
        "Qiuhe has taken up Chaoshan gongfu tea and brews a few rounds every evening",
    ),
    m(6, "commute/bus", P, "habit", "秋禾现在坐公交去侨批馆"),
]
qiuhe_q = [
    q("秋禾现在住在哪里？", "home/shantou"),
    q("秋禾现在做什么工作？", "job/shantou-qiaopi"),
    q("秋禾现在怎么去上班？", "commute/bus"),
    q("秋禾这个月怎么天天加班？", "overtime/month-end"),
    q("阿帆这几天在家吗？", "afan-yinchuan/until-monday"),
    q("秋禾这两周能做修复吗？", "cut-finger/two-weeks"),
    q("秋禾的猫叫什么？", "cat/modou"),
    q("秋禾对什么水果过敏？", "allergy/mango"),
    q("顾老修了多少年古籍？", "mentor/gu-forty-years"),
    q("秋禾搬到汕头之前住在哪儿？", "home/liaocheng"),
    q("秋禾以前在哪里工作？", "job/liaocheng-library"),
    q("秋禾以前早上练什么？", "hobby/baduanjin"),
    q("秋禾现在有什么业余爱好？", "hobby/gongfu-tea"),
    q("秋禾以后有什么打算？", "goal/washi"),
    q("秋禾最爱吃什么？", "food/guada"),
]
users.append(("qiuhe", [0, 12, 27, 46, 64, 83], qiuhe, qiuhe_q))


# ---------------------------------------------------------------- haoyu (Chinese)
haoyu = [
    m(
        1,
        "job/rudong",
        N,
        "profile",
        "匡浩宇在江苏如东做海上风电运维技术员，经常坐运维船出海检修风机",
        topic="work:job",
    ),
    m(1, "home/rudong", N, "fact", "浩宇住在如东县城掘港镇，租了一套两室一厅", topic="home:area"),
    m(1, "car/changan", N, "fact", "浩宇开一辆白色的长安CS75", topic="transport:car"),
    m(1, "dog/maomao", N, "fact", "浩宇养了一只边牧，叫锚锚", topic="pets"),
    m(
        1,
        "wifejob/rudong-music",
        N,
        "profile",
        "浩宇的老婆任晓棠在如东一所小学当音乐老师",
        topic="family",
        contacts=["任晓棠"],
    ),
    m(1, "gale/until-friday", S, "state", "因为大风预警，浩宇到周五都出不了海，只能在宿舍里待着"),
    m(1, "smoke/never", N, "fact", "浩宇从来不抽烟", topic="health"),
    m(1, "food/wenge", N, "preference", "浩宇最爱吃如东的文蛤饼", topic="food"),
    m(
        1,
        "job/rudong",
        P,
        "profile",
        "Haoyu is an offshore wind turbine maintenance technician in Rudong, Jiangsu",
    ),
    m(
        2,
        "hobby/sea-fishing",
        N,
        "habit",
        "浩宇休息的时候喜欢去海边海钓，一钓就是一整天",
        topic="hobby",
    ),
    m(
        2,
        "mentor/chu-twenty-years",
        N,
        "fact",
        "带浩宇入行的师傅是褚国平，干了二十年风电运维",
        contacts=["褚国平"],
    ),
    m(
        2,
        "nick-chugong/alias",
        N,
        "fact",
        "队里的人都管褚国平叫“褚工”",
        contacts=["褚国平", "褚工"],
    ),
    m(
        2,
        "plan/nantong-flat",
        N,
        "goal",
        "浩宇和晓棠打算明年在南通市区买房",
        topic="plans",
        contacts=["任晓棠"],
    ),
    m(2, "dog/maomao", P, "fact", "锚锚是浩宇家的边牧"),
    m(
        2,
        "nick-tangtang/alias",
        N,
        "fact",
        "浩宇平时叫老婆任晓棠“棠棠”",
        contacts=["任晓棠", "棠棠"],
    ),
    m(2, "seasick/never", N, "fact", "浩宇出海从来不晕船"),
    m(3, "car/geely", U, "fact", "浩宇把长安卖了，换了一辆吉利的纯电车", topic="transport:car"),
    m(3, "wifejob/rudong-music", P, "profile", "棠棠在如东的小学教音乐", contacts=["棠棠"]),
    m(
        3,
        "food/wenge",
        P,
        "preference",
        "Haoyu's favourite food is the clam pancake they make in Rudong",
    ),
    m(
        3,
        "transfer-request/yangjiang",
        N,
        "goal",
        "浩宇申请了调去广东阳江的海上风电项目",
        topic="work",
    ),
    m(3, "car/geely", P, "fact", "浩宇现在开的是吉利电车"),
    m(3, "smoke/never", P, "fact", "浩宇不抽烟，闻到烟味都皱眉"),
    m(
        4,
        "job/yangjiang-crew-lead",
        U,
        "profile",
        "浩宇调到了广东阳江的海上风电场，当上了运维班长",
        topic="work:job",
    ),
    m(4, "home/yangjiang", U, "fact", "浩宇一家从如东搬到了阳江市江城区", topic="home:area"),
    m(
        4,
        "wharf-smoke/event",
        C,
        "event",
        "浩宇在码头跟同事一起抽了半包烟",
        contradicts="smoke/never",
    ),
    m(
        4,
        "plan/hailing-island",
        U,
        "goal",
        "浩宇和棠棠不在南通买房了，打算以后在阳江海陵岛附近买一套",
        topic="plans",
        contacts=["棠棠"],
    ),
    m(
        4,
        "job/yangjiang-crew-lead",
        P,
        "profile",
        "Haoyu now leads a maintenance crew at an offshore wind farm off Yangjiang, Guangdong",
    ),
    m(4, "hobby/sea-fishing", P, "habit", "到了阳江，浩宇一有空还是去海边钓鱼"),
    m(
        5,
        "wifejob/yangjiang-piano",
        U,
        "profile",
        "棠棠在阳江一家琴行教小孩弹钢琴",
        topic="family",
        contacts=["棠棠"],
    ),
    m(5, "home/yangjiang", P, "fact", "浩宇现在住在阳江江城区"),
    m(5, "plan/hailing-island", P, "goal", "浩宇想在海陵岛买房"),
    m(5, "job/yangjiang-crew-lead", P, "profile", "浩宇在阳江海上风电场当运维班长"),
    m(5, "seasick/never", P, "fact", "浩宇坐船出海从不晕船，浪再大也没事"),
    m(6, "home/rudong", P, "fact", "搬到阳江之前，浩宇在如东掘港住了五年"),
    m(
        6,
        "knee/two-weeks",
        S,
        "state",
        "浩宇膝盖扭伤了，医生说两周之内不能爬风机塔筒",
        topic="health",
    ),
    m(
        6,
        "zhanjiang-training/this-week",
        S,
        "state",
        "浩宇这个礼拜在湛江参加海上安全培训，周六才回来",
    ),
    m(
        6,
        "no-alcohol/this-month",
        S,
        "state",
        "浩宇体检查出脂肪肝，这个月一滴酒都不喝",
        topic="health",
    ),
    m(6, "car/geely", P, "fact", "浩宇还开着那辆吉利电车"),
    m(6, "dog/maomao", P, "fact", "浩宇的边牧锚锚也跟着搬到了阳江"),
]
haoyu_q = [
    q("浩宇现在住在哪儿？", "home/yangjiang"),
    q("浩宇现在做什么工作？", "job/yangjiang-crew-lead"),
    q("浩宇开什么车？", "car/geely"),
    q("浩宇现在能爬塔筒吗？", "knee/two-weeks"),
    q("浩宇这个礼拜在阳江吗？", "zhanjiang-training/this-week"),
    q("这个月请浩宇喝酒合适吗？", "no-alcohol/this-month"),
    q("浩宇的狗叫什么名字？", "dog/maomao"),
    q("浩宇最喜欢吃什么？", "food/wenge"),
    q("褚工干了多少年风电？", "mentor/chu-twenty-years"),
    q("浩宇搬到阳江之前住在哪儿？", "home/rudong"),
    q("浩宇以前开什么车？", "car/changan"),
    q("浩宇打算在哪里买房？", "plan/hailing-island"),
    q("浩宇的老婆现在做什么工作？", "wifejob/yangjiang-piano"),
    q("浩宇以前在哪儿上班？", "job/rudong"),
    q("浩宇会晕船吗？", "seasick/never"),
]
users.append(("haoyu", [0, 10, 25, 44, 62, 80], haoyu, haoyu_q))


# ---------------------------------------------------------------- vivian (both)
vivian = [
    m(
        1,
        "job/bentong-swiftlet",
        N,
        "profile",
        "温嘉慧 Vivian 在 Bentong 帮家里管三栋 swiftlet house，收燕窝",
        topic="work:job",
    ),
    m(
        1,
        "home/bentong",
        N,
        "fact",
        "Vivian 住在 Bentong town 里，开车去 swiftlet house 只要十分钟",
        topic="home:area",
    ),
    m(
        1,
        "car/dmax",
        N,
        "fact",
        "Vivian 开一辆 Isuzu D-Max pickup，方便载燕窝去加工厂",
        topic="transport:car",
    ),
    m(1, "cat/belacan", N, "fact", "Vivian 养了一只 kampung cat，名字叫 Belacan", topic="pets"),
    m(
        1,
        "brother/seremban-accountant",
        N,
        "profile",
        "Vivian 的弟弟温嘉伟在 Seremban 做 accountant",
        topic="family",
        contacts=["温嘉伟"],
    ),
    m(
        1,
        "hatyai/until-friday",
        S,
        "state",
        "Vivian 这个礼拜在 Hat Yai 跑 bird's nest trade fair，星期五才回来",
    ),
    m(
        1,
        "beef/none",
        N,
        "preference",
        "Vivian 不吃牛肉，因为她妈妈拜观音，全家都不吃",
        topic="food",
    ),
    m(
        1,
        "food/wine-chicken",
        N,
        "preference",
        "Vivian 的 comfort food 是她妈妈煮的黄酒鸡",
        topic="food",
    ),
    m(
        1,
        "job/bentong-swiftlet",
        P,
        "profile",
        "Vivian manages her family's three swiftlet houses in Bentong, Pahang, harvesting edible bird's nest",
    ),
    m(
        2,
        "drums/24-festive",
        N,
        "habit",
        "Vivian 每个 Saturday 跟 Bentong 的二十四节令鼓 team 练鼓",
        topic="hobby:music",
    ),
    m(
        2,
        "friend/nurul-pastry",
        N,
        "fact",
        "Vivian 的好朋友 Nurul Aini 是 pastry chef，以前在 hotel 做 dessert",
        contacts=["Nurul Aini"],
    ),
    m(
        2,
        "nick-kak-nurul/alias",
        N,
        "fact",
        "Vivian 都叫 Nurul Aini 做 Kak Nurul",
        contacts=["Nurul Aini", "Kak Nurul"],
    ),
    m(2, "nick-ah-wai/alias", N, "fact", "家里人都叫嘉伟 Ah Wai", contacts=["温嘉伟", "Ah Wai"]),
    m(2, "goal/wellington-mba", N, "goal", "Vivian 打算明年去 Wellington 读 MBA", topic="plans"),
    m(2, "cat/belacan", P, "fact", "Belacan 是 Vivian 养的猫，一只很凶的 kampung cat"),
    m(2, "home/bentong", P, "fact", "Vivian 的家在 Bentong，离 swiftlet house 很近"),
    m(
        3,
        "goal/dessert-cafe",
        U,
        "goal",
        "Vivian 不去 Wellington 读 MBA 了，她想跟 Kak Nurul 合伙开一间燕窝糖水 café",
        topic="plans",
        contacts=["Kak Nurul"],
    ),
    m(3, "food/wine-chicken", P, "preference", "每次心情不好，Vivian 就想吃一碗 mum 煮的黄酒鸡"),
    m(
        3,
        "beef/none",
        P,
        "preference",
        "Vivian doesn't eat beef at all, the whole family keeps off it for Guanyin",
    ),
    m(
        3,
        "drums/24-festive",
        P,
        "habit",
        "Vivian 在二十四节令鼓 team 里打大鼓，每个星期六都 practice",
    ),
    m(
        3,
        "brother/seremban-accountant",
        P,
        "profile",
        "Ah Wai 还在 Seremban 做 accountant",
        contacts=["Ah Wai"],
    ),
    m(
        4,
        "job/melaka-cafe",
        U,
        "profile",
        "Vivian 离开了家里的 swiftlet house，跟 Kak Nurul 在 Melaka 的 Jonker Street 开了一间燕窝糖水 café",
        topic="work:job",
        contacts=["Kak Nurul"],
    ),
    m(
        4,
        "home/melaka",
        U,
        "fact",
        "Vivian 从 Bentong 搬去了 Melaka，住在 café 楼上的 shophouse",
        topic="home:area",
    ),
    m(
        4,
        "car/honda-city",
        U,
        "fact",
        "Vivian 把 D-Max 卖掉了，换了一辆 Honda City，因为 Melaka 老街很难 park 大车",
        topic="transport:car",
    ),
    m(
        4,
        "beef-ball-noodles/event",
        C,
        "event",
        "Vivian 在 Melaka 吃了一大碗 beef ball noodles，还说很好吃",
        contradicts="beef/none",
    ),
    m(
        4,
        "brother/bentong-swiftlet",
        U,
        "profile",
        "嘉伟辞了 Seremban 的工作，回 Bentong 接手家里的 swiftlet house",
        topic="family",
        contacts=["温嘉伟"],
    ),
    m(
        4,
        "job/melaka-cafe",
        P,
        "profile",
        "Vivian now co-owns a bird's nest dessert café on Jonker Street in Melaka",
    ),
    m(
        5,
        "goal/seremban-outlet",
        U,
        "goal",
        "café 做起来了，Vivian 下一步想在 Seremban 开第二间 outlet",
        topic="plans",
    ),
    m(5, "home/melaka", P, "fact", "Vivian 现在住在 Melaka，就在 Jonker Street 的店楼上"),
    m(5, "car/honda-city", P, "fact", "Vivian 现在开 Honda City，小小一辆很好 park"),
    m(
        5,
        "drums/24-festive",
        P,
        "habit",
        "搬去 Melaka 以后，Vivian 还是每个星期六打二十四节令鼓，加入了当地的 team",
    ),
    m(
        5,
        "job/melaka-cafe",
        P,
        "profile",
        "Vivian 跟 Kak Nurul 在 Jonker Street 开燕窝糖水 café",
        contacts=["Kak Nurul"],
    ),
    m(5, "cat/belacan", P, "fact", "Belacan 也跟着 Vivian 搬到了 Melaka，每天坐在 café 门口"),
    m(6, "home/bentong", P, "fact", "搬去 Melaka 之前，Vivian 在 Bentong 住了差不多十年"),
    m(
        6,
        "nurul-umrah/two-weeks",
        S,
        "state",
        "Kak Nurul 去 Mecca 做 umrah，两个星期，所以 café 这阵子 Vivian 一个人顾",
        contacts=["Kak Nurul"],
    ),
    m(
        6,
        "car-workshop/until-friday",
        S,
        "state",
        "Vivian 的 Honda City 在 workshop 修，until Friday 她出门都要叫车",
    ),
    m(
        6,
        "shoulder/two-weeks",
        S,
        "state",
        "Vivian 的 shoulder 拉伤了，doctor 说两个星期不可以打鼓",
        topic="health",
    ),
    m(
        6,
        "brother/bentong-swiftlet",
        P,
        "profile",
        "Ah Wai 现在在 Bentong 管家里的 swiftlet house",
        contacts=["Ah Wai"],
    ),
    m(6, "goal/seremban-outlet", P, "goal", "Vivian 想把 café 开到 Seremban 去，开一间分店"),
]
vivian_q = [
    q("Vivian 现在住在哪里？", "home/melaka"),
    q("What does Vivian do for work now?", "job/melaka-cafe"),
    q("Vivian 开什么车？", "car/honda-city"),
    q("这几天 Vivian 自己开车吗？", "car-workshop/until-friday"),
    q("Where is Nurul Aini these two weeks?", "nurul-umrah/two-weeks"),
    q("Vivian 这个 Saturday 可以打鼓吗？", "shoulder/two-weeks"),
    q("Vivian 的猫叫什么名字？", "cat/belacan"),
    q("What is Vivian's comfort food?", "food/wine-chicken"),
    q("Ah Wai 现在在做什么工作？", "brother/bentong-swiftlet"),
    q("Vivian 搬去 Melaka 之前住在哪里？", "home/bentong"),
    q("What did Vivian do before the café?", "job/bentong-swiftlet"),
    q("Vivian 以前开什么车？", "car/dmax"),
    q("What are Vivian's next plans for the business?", "goal/seremban-outlet"),
    q("嘉伟以前做什么工作？", "brother/seremban-accountant"),
    q("Vivian 本来打算去哪里读书？", "goal/wellington-mba"),
]
users.append(("vivian", [0, 9, 23, 42, 61, 79], vivian, vivian_q))


# ---------------------------------------------------------------- jeremy (both)
jeremy = [
    m(
        1,
        "job/pilbara-drone",
        N,
        "profile",
        "阙振宇 Jeremy 是 drone survey pilot，FIFO 去 Pilbara 的 mine sites 做 stockpile survey",
        topic="work:job",
    ),
    m(
        1,
        "home/geraldton",
        N,
        "fact",
        "Jeremy 住在 Geraldton，海边一间 fibro house",
        topic="home:area",
    ),
    m(1, "ute/navara", N, "fact", "Jeremy 开一辆 old Nissan Navara ute", topic="transport:car"),
    m(
        1,
        "dog/chilli-oil",
        N,
        "fact",
        "Jeremy 有一只 blue heeler，名字叫辣油 Chilli Oil",
        topic="pets",
    ),
    m(
        1,
        "gfjob/geraldton-audiologist",
        N,
        "profile",
        "Jeremy 的 girlfriend Siobhan Keane 在 Geraldton 的 hospital 做 audiologist，帮人验听力",
        topic="family",
        contacts=["Siobhan Keane"],
    ),
    m(
        1,
        "newman-swing/until-thursday",
        S,
        "state",
        "Jeremy 这个 swing 在 Newman 的 site，until Thursday 才飞回 Geraldton",
    ),
    m(
        1,
        "shellfish/allergy",
        N,
        "fact",
        "Jeremy 对 shellfish 过敏，吃虾蟹会 swell up",
        topic="health",
    ),
    m(
        1,
        "food/shuizhuyu",
        N,
        "preference",
        "Jeremy 最爱吃他妈妈做的水煮鱼，辣到流眼泪也要吃",
        topic="food",
    ),
    m(
        1,
        "job/pilbara-drone",
        P,
        "profile",
        "Jeremy flies survey drones over mine-site stockpiles in the Pilbara on a fly-in fly-out roster",
    ),
    m(
        2,
        "hobby/astrophotography",
        N,
        "habit",
        "Jeremy 的 hobby 是 astrophotography，常常开车到 outback 拍银河",
        topic="hobby",
    ),
    m(
        2,
        "nick-shiv/alias",
        N,
        "fact",
        "大家都叫 Siobhan Keane 做 Shiv",
        contacts=["Siobhan Keane", "Shiv"],
    ),
    m(
        2,
        "mum/fish-and-chips",
        N,
        "fact",
        "Jeremy 的妈妈林佩珊在 Geraldton 开一间 fish and chips 店",
        topic="family",
        contacts=["林佩珊"],
    ),
    m(
        2,
        "goal/geraldton-unit",
        N,
        "goal",
        "Jeremy 在存钱，打算明年在 Geraldton 买一个 unit",
        topic="plans",
    ),
    m(2, "dog/chilli-oil", P, "fact", "辣油是 Jeremy 的 blue heeler，很 energetic"),
    m(2, "home/geraldton", P, "fact", "Jeremy's place is a fibro house by the beach in Geraldton"),
    m(
        2,
        "languages/cantonese-mandarin",
        N,
        "fact",
        "Jeremy 会讲 Cantonese 和 Mandarin，跟妈妈讲 Cantonese",
    ),
    m(
        3,
        "goal/antarctic-season",
        U,
        "goal",
        "Jeremy 不买 unit 了，他想申请去 Antarctica 做一个 summer season 的 drone survey",
        topic="plans",
    ),
    m(
        3,
        "ute/patrol",
        U,
        "fact",
        "Jeremy 把 Navara 卖了，买了一辆二手 Nissan Patrol，因为要常跑 dirt roads",
        topic="transport:car",
    ),
    m(3, "food/shuizhuyu", P, "preference", "水煮鱼是 Jeremy 的 favourite，一定要他妈妈煮的"),
    m(
        3,
        "shellfish/allergy",
        P,
        "fact",
        "Jeremy can't eat prawns or crab, he's allergic to shellfish",
    ),
    m(3, "hobby/astrophotography", P, "habit", "Jeremy 常常半夜开车出去拍 Milky Way"),
    m(3, "ute/patrol", P, "fact", "Jeremy 现在开 Patrol 了"),
    m(
        4,
        "job/darwin-mangroves",
        U,
        "profile",
        "Jeremy 辞了 mining 的工作，加入了 NT government 的 team，用 drone map Darwin 一带的 mangroves",
        topic="work:job",
    ),
    m(
        4,
        "home/nightcliff",
        U,
        "fact",
        "Jeremy 从 Geraldton 搬到了 Darwin 的 Nightcliff",
        topic="home:area",
    ),
    m(
        4,
        "mud-crab/event",
        C,
        "event",
        "Jeremy 昨晚在 Nightcliff jetty 吃了一整盘 chilli mud crab",
        contradicts="shellfish/allergy",
    ),
    m(
        4,
        "job/darwin-mangroves",
        P,
        "profile",
        "Jeremy now maps mangrove coastlines around Darwin with drones for the Northern Territory government",
    ),
    m(4, "chilli-oil-drive/event", N, "event", "辣油坐了四天的车，跟 Jeremy 一起到 Darwin"),
    m(
        5,
        "gfjob/darwin-audiologist",
        U,
        "profile",
        "Shiv 也搬来 Darwin 了，在 Royal Darwin Hospital 的 hearing clinic 做 audiologist",
        topic="family",
        contacts=["Shiv"],
    ),
    m(
        5,
        "home/nightcliff",
        P,
        "fact",
        "Jeremy 现在住在 Darwin 的 Nightcliff，走路五分钟就到 jetty",
    ),
    m(5, "goal/antarctic-season", P, "goal", "Jeremy 的目标是去 Antarctica 做一季 drone survey"),
    m(
        5,
        "hobby/astrophotography",
        P,
        "habit",
        "Darwin 的 dry season 天很清，Jeremy 常常出去拍星空",
    ),
    m(
        5,
        "job/darwin-mangroves",
        P,
        "profile",
        "Jeremy 在 NT government 的 team 用 drone map mangroves",
    ),
    m(5, "languages/cantonese-mandarin", P, "fact", "Jeremy 跟他妈妈讲广东话，普通话也会讲"),
    m(6, "home/geraldton", P, "fact", "搬来 Darwin 之前，Jeremy 在 Geraldton 住了七年"),
    m(
        6,
        "shiv-lombok/until-monday",
        S,
        "state",
        "Shiv 跟她的 sisters 去了 Lombok 度假，下周一之前都不在 Darwin",
        contacts=["Shiv"],
    ),
    m(
        6,
        "grounded/month-end",
        S,
        "state",
        "Jeremy 的 drone licence 在 renew，到月底之前他都不能飞，只能做 ground survey",
        topic="work",
    ),
    m(
        6,
        "kakadu/this-week",
        S,
        "state",
        "Jeremy 这个礼拜在 Kakadu 做 fieldwork，那边没有 phone signal",
    ),
    m(6, "ute/patrol", P, "fact", "Jeremy 还是开那辆二手 Patrol"),
    m(
        6,
        "mum/fish-and-chips",
        P,
        "fact",
        "林佩珊的 fish and chips 店还在 Geraldton 开着",
        contacts=["林佩珊"],
    ),
]
jeremy_q = [
    q("Jeremy 现在住在哪里？", "home/nightcliff"),
    q("What is Jeremy's job now?", "job/darwin-mangroves"),
    q("Jeremy 开什么车？", "ute/patrol"),
    q("Jeremy 这个月可以飞 drone 吗？", "grounded/month-end"),
    q("Can I reach Jeremy on the phone this week?", "kakadu/this-week"),
    q("Shiv 现在在 Darwin 吗？", "shiv-lombok/until-monday"),
    q("What's Jeremy's dog called?", "dog/chilli-oil"),
    q("Jeremy 的妈妈做什么生意？", "mum/fish-and-chips"),
    q("Where does Siobhan work now?", "gfjob/darwin-audiologist"),
    q("Jeremy 搬去 Darwin 之前住在哪里？", "home/geraldton"),
    q("Jeremy 以前做什么工作？", "job/pilbara-drone"),
    q("What did Jeremy drive before the Patrol?", "ute/navara"),
    q("Jeremy 有什么 plan？", "goal/antarctic-season"),
    q("What's Jeremy's hobby?", "hobby/astrophotography"),
    q("Jeremy 最爱吃什么？", "food/shuizhuyu"),
]
users.append(("jeremy", [0, 11, 26, 45, 63, 82], jeremy, jeremy_q))


def records() -> list[dict]:
    out = []
    for user, days, memories, questions in users:
        ids_of = {}
        for n, (session, fact, label, kind, content, kw) in enumerate(memories, start=1):
            mid = f"{user}-m{n:02d}"
            ids_of.setdefault(fact, []).append(mid)
            r = {
                "type": "memory",
                "id": mid,
                "user": user,
                "session": session,
                "day": days[session - 1],
            }
            r |= {
                "fact": fact,
                "slot": fact.split("/", 1)[0],
                "label": label,
                "kind": kind,
                "content": content,
            }
            r |= {k: kw[k] for k in ("topic", "contacts", "contradicts") if k in kw}
            out.append(r)
        for n, (text, facts) in enumerate(questions, start=1):
            answers = [i for f in facts for i in ids_of[f]]
            out.append(
                {
                    "type": "question",
                    "id": f"{user}-q{n:02d}",
                    "user": user,
                    "text": text,
                    "answers": answers,
                }
            )
    return out


def problems() -> list[str]:
    """What this stream promises (the docstring) and a slip in the tuples would break."""
    bad = []
    for user, days, memories, questions in users:
        seen, slots, last = set(), set(), max(mm[0] for mm in memories)
        asked = {f for _, facts in questions for f in facts}
        if not (35 <= len(memories) <= 45 and 13 <= len(questions) <= 16):
            bad.append(f"{user}: {len(memories)} memories, {len(questions)} questions")
        if [mm[0] for mm in memories] != sorted(mm[0] for mm in memories) or days != sorted(
            set(days)
        ):
            bad.append(f"{user}: sessions or days out of order")
        for session, fact, label, _kind, _content, kw in memories:
            slot = fact.split("/", 1)[0]
            if (label == P) != (fact in seen) or (label == U) != (
                slot in slots and fact not in seen
            ):
                bad.append(f"{user}: {fact} labelled {label}")
            if label == C and kw.get("contradicts") not in seen:
                bad.append(f"{user}: {fact} contradicts no earlier fact")
            if label == S and (session == last) != (fact in asked):
                bad.append(f"{user}: state {fact} asked about only if it still holds")
            seen.add(fact)
            slots.add(slot)
        bad += [f"{user}: a question asks about unknown {f}" for f in asked - seen]
        if (
            sum(mm[2] == S and mm[0] == last for mm in memories) != 3
            or sum(mm[2] == C for mm in memories) != 1
        ):
            bad.append(f"{user}: not three live states and one contradiction")
    return bad


if __name__ == "__main__":
    if problems():
        sys.exit("\n".join(problems()))
    ok = write_or_check(
        OUT, jsonl(records()), "Build stream L, a development stream for `pymem eval`."
    )
    sys.exit(0 if ok else 1)
