"""Build bench/data/memory_dev_stream_q.jsonl: stream Q, a measure for `pymem eval`.

Written as a measure nobody tuned on, by a helper that read only the format: docs/eval.md from "The
measures" to the end of its "Format (for `--dataset`)" section (the bundled stream's summary
between them included); pymem/prompts/extract.md; scripts/jsonl_build.py; lines 60-240 of
pymem/eval.py (its targets, the dataclasses, `load_dataset` and the first lines of `Run`);
the module docstring and the ~45 lines after it of scripts/build_memory_dev_stream_p.py for a
builder's shape (its helpers, and of its data the first memories of its first user, no more);
and lines 1-5 and 60-110 of tests/test_eval.py, the test that rebuilds the streams. Not pymem's
decision rules, word lists or SQL, nor any other stream, builder or doc; the helper never ran
pymem on this stream (only `pymem.eval.load_dataset`, to validate the format). Names, places
and trades were checked absent from the repository's .jsonl and .py files by case-insensitive
file counts only (others picked where one was found). Six invented users:

- wilhelmina (English): Wilhelmina Trask from Penzance, a taxidermist at the natural history museum in Ludlow living in Church Stretton, who moves to Inverness to head a museum's taxidermy department.
- augustin (English): Augustin Pellow from Dryden, the ice technician of a hockey arena in Thunder Bay, who becomes head ice technician at a new arena in Sault Ste. Marie and moves there with his family.
- chengxi (Chinese): 阮澄溪 from 湖口, a weather observer (气象观测员) at the 庐山 weather station living in 九江, who becomes head of the station at 那曲 and moves there.
- ruoyun (Chinese, traditional characters): 溫若筠 from 美濃, an oil-paper umbrella maker (油紙傘) at a 美濃 workshop living in 旗山, who opens her own studio in 宜蘭 and moves to 羅東.
- rosalind (both): Rosalind Teoh 张若兰 from Timaru, a foley artist at a film sound studio in Miramar living in Seatoun, who joins a post-production company at the 车墩 film base and moves to 松江.
- kieran (both): Kieran Quah 柯启然 from Lethbridge, an arborist for the City of Kelowna living in Peachland, who moves to 阳朔 to look after the county's old banyan trees.

Each has stable facts (origin, family, pet or hobby, diet, a habit, a preference, a goal),
restatements (in the other language for the two bilingual users, some worded far apart, some
nearly verbatim; an old home or job after the change said as a reminiscence and followed by a
restatement of the current one), updates said in varied ways (a move, a new job, another car,
van, scooter, pickup or bike, another gym, a plan dropped for another, a brother's, wife's,
husband's, mother's or sister's new work), temporary states said as people say them (until
Friday, this week, for two weeks, until Monday, for ten days, until Thursday, this weekend, 这周,
到下周三, 到下周一, 三天, 這個禮拜, 到下週三, 這兩天, 到月底, 這個週末, all ended by question
time; two or three in the last session, for the next three weeks, for the next two weeks,
until the end of next month, 接下来两个星期, 到下个月底, 到下個月底, that still hold and are
asked about), a contact named two ways (a full name and a nickname, or the name in the other
language), one contradiction (no question asks about it or the fact it contradicts), topics on some memories only, and questions about current
values, the live states (yes or no, and asking their value), stable facts, a contact named by
the other name and values before they changed; some are asked in words the memory that
answers them does not use, or in the other language. Each question's answers are every memory
of the fact it asks about. Every user's last session is on day 90; the memories are written in
the order of their days (a user's session stays together), and the questions follow all the
memories. Each memory's kind is what an extractor following pymem/prompts/extract.md would
emit for its sentence, the same for every memory of a fact.

No public dataset is copied.

    python scripts/build_memory_dev_stream_q.py           # write the file
    python scripts/build_memory_dev_stream_q.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_q.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days of its sessions, memories, questions)
LAST_DAY = 90  # every user's last session; the questions are asked after it


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# question tuple: (text, facts it asks about): its answers are every memory of those facts
def q(text, *facts):
    return (text, facts)


# ---------------------------------------------------------------- wilhelmina (English)
wilhelmina = [
    m(
        1,
        "wt-job/ludlow",
        N,
        "profile",
        "Wilhelmina Trask is a taxidermist at the natural history museum in Ludlow, where she prepares birds and small mammals for display",
        topic="work:job",
    ),
    m(
        1,
        "wt-home/church-stretton",
        N,
        "profile",
        "Wilhelmina lives in a terraced house in Church Stretton",
        topic="home:city",
    ),
    m(
        1,
        "wt-origin",
        N,
        "profile",
        "Wilhelmina grew up in Penzance, where her father skippered a crab boat",
    ),
    m(1, "wt-pet", N, "fact", "Wilhelmina has an old lurcher called Bramble"),
    m(1, "wt-hobby", N, "habit", "Wilhelmina sings alto in a community choir on Tuesday evenings"),
    m(
        1,
        "wt-st-owl",
        S,
        "state",
        "Wilhelmina is working late every evening until Friday to finish a barn owl for an exhibition",
    ),
    m(
        2,
        "wt-mentor",
        N,
        "fact",
        "Ambrose Kettleby, the museum's retired chief taxidermist, trained Wilhelmina when she was an apprentice",
        contacts=["Ambrose Kettleby"],
    ),
    m(
        2,
        "wt-pref",
        N,
        "preference",
        "Wilhelmina likes to work with the radio off when she is skinning a specimen",
    ),
    m(2, "wt-origin", P, "profile", "Wilhelmina is Cornish, born and raised in Penzance"),
    m(
        2,
        "wt-brother-job/ferry",
        N,
        "fact",
        "Wilhelmina's brother Jory is a deckhand on the Scilly ferry",
        contacts=["Jory"],
    ),
    m(
        2,
        "wt-car/corsa",
        N,
        "fact",
        "Wilhelmina drives an old blue Vauxhall Corsa",
        topic="vehicle",
    ),
    m(2, "wt-noabroad", N, "fact", "Wilhelmina has never been abroad"),
    m(2, "wt-diet", N, "fact", "Wilhelmina is pescatarian", topic="diet"),
    m(
        3,
        "wt-goal",
        N,
        "goal",
        "Wilhelmina wants to win a gold medal at the national taxidermy championships",
    ),
    m(
        3,
        "wt-pet",
        P,
        "fact",
        "Bramble, Wilhelmina's lurcher, is getting on and sleeps most of the day",
    ),
    m(
        3,
        "wt-hobby",
        P,
        "habit",
        "Every Tuesday night Wilhelmina goes to choir practice, where she sings with the altos",
    ),
    m(
        3,
        "wt-plan/coast-path",
        N,
        "goal",
        "Wilhelmina plans to spend her summer holiday walking the South West Coast Path",
    ),
    m(
        3,
        "wt-st-store",
        S,
        "state",
        "For two weeks Wilhelmina is working at the museum's off-site store while the galleries are rewired",
    ),
    m(3, "wt-diet", P, "fact", "Wilhelmina eats fish but no meat"),
    m(
        4,
        "wt-car/doblo",
        U,
        "fact",
        "Wilhelmina sold the Corsa and bought a secondhand Fiat Doblo van to carry specimens",
        topic="vehicle",
    ),
    m(
        4,
        "wt-brother-job/lifeboat",
        U,
        "fact",
        "Jory has left the ferry and now works as a mechanic at the Newlyn lifeboat station",
        contacts=["Jory"],
    ),
    m(
        4,
        "wt-brose",
        N,
        "habit",
        "Brose phones Wilhelmina every Sunday to ask what she is working on",
        contacts=["Brose"],
    ),
    m(
        4,
        "wt-st-garage",
        S,
        "state",
        "Wilhelmina's van is at the garage until Monday, so she is taking the bus to work",
    ),
    m(4, "wt-dawn-walk", N, "habit", "Wilhelmina walks Bramble at six every morning before work"),
    m(
        5,
        "wt-job/inverness",
        U,
        "profile",
        "Wilhelmina has left the Ludlow museum and is now head of taxidermy at a museum in Inverness",
        topic="work:job",
    ),
    m(
        5,
        "wt-home/inverness",
        U,
        "profile",
        "Wilhelmina moved to Inverness and rents a flat by the Caledonian Canal",
        topic="home:city",
    ),
    m(
        5,
        "wt-plan/farne",
        U,
        "goal",
        "Wilhelmina has given up on the coast path walk; this summer she is going to the Farne Islands to photograph seabirds instead",
    ),
    m(
        5,
        "wt-leiden",
        C,
        "fact",
        "Wilhelmina studied for a year in Leiden when she was at university",
        contradicts="wt-noabroad",
    ),
    m(
        5,
        "wt-st-campbed",
        S,
        "state",
        "Wilhelmina is sleeping on a camp bed in the new flat until her furniture arrives on Thursday",
    ),
    m(
        5,
        "wt-pref",
        P,
        "preference",
        "Wilhelmina keeps the radio switched off while she works on a skin",
    ),
    m(
        6,
        "wt-home/church-stretton",
        P,
        "profile",
        "Wilhelmina misses her old terrace in Church Stretton and the walks up the Long Mynd",
    ),
    m(
        6,
        "wt-home/inverness",
        P,
        "profile",
        "Home for Wilhelmina is now a flat in Inverness, a few minutes from the canal",
    ),
    m(
        6,
        "wt-job/ludlow",
        P,
        "profile",
        "Wilhelmina still thinks fondly of the bird gallery she built at the Ludlow museum",
    ),
    m(
        6,
        "wt-job/inverness",
        P,
        "profile",
        "Wilhelmina runs the taxidermy department at the Inverness museum now",
    ),
    m(
        6,
        "wt-car/doblo",
        P,
        "fact",
        "Wilhelmina gets about in a Doblo van these days, handy for specimen crates",
    ),
    m(
        6,
        "wt-goal",
        P,
        "goal",
        "Wilhelmina is aiming for gold at the national taxidermy championships",
    ),
    m(
        6,
        "wt-st-inspectors",
        S,
        "state",
        "Wilhelmina is busy this week with a visit from the museum inspectors",
    ),
    m(
        7,
        "wt-st-fair-isle",
        S,
        "state",
        "Wilhelmina is on Fair Isle for the next three weeks, collecting storm-killed birds for the museum",
    ),
    m(
        7,
        "wt-st-jory-stay",
        S,
        "state",
        "Jory is staying at Wilhelmina's flat until the end of next month while he does an engine course in Inverness",
        contacts=["Jory"],
    ),
    m(
        7,
        "wt-brother-job/lifeboat",
        P,
        "fact",
        "Jory looks after the engines of the Newlyn lifeboat",
        contacts=["Jory"],
    ),
    m(
        7,
        "wt-mentor",
        P,
        "fact",
        "Wilhelmina learned her trade from Ambrose Kettleby, who ran taxidermy at the Ludlow museum before he retired",
        contacts=["Ambrose Kettleby"],
    ),
    m(7, "wt-pet", P, "fact", "Wilhelmina has an old lurcher named Bramble"),
]
wilhelmina_q = [
    q("Where does Wilhelmina live now?", "wt-home/inverness"),
    q("Which town did Wilhelmina live in before she moved to Scotland?", "wt-home/church-stretton"),
    q("Where does Wilhelmina work?", "wt-job/inverness"),
    q("Which museum employed Wilhelmina before Inverness?", "wt-job/ludlow"),
    q("What does Wilhelmina drive?", "wt-car/doblo"),
    q("Where is Wilhelmina from?", "wt-origin"),
    q("What breed is Wilhelmina's dog?", "wt-pet"),
    q("Which night of the week does Wilhelmina have choir?", "wt-hobby"),
    q("What was Brose's job at the museum?", "wt-mentor"),
    q("How often does Ambrose Kettleby call Wilhelmina?", "wt-brose"),
    q("What does Wilhelmina's brother do for a living now?", "wt-brother-job/lifeboat"),
    q("Where is Wilhelmina going on holiday this summer?", "wt-plan/farne"),
    q("Is Wilhelmina away from Inverness at the moment?", "wt-st-fair-isle"),
    q("Can I visit Wilhelmina at the museum tomorrow?", "wt-st-fair-isle"),
    q("Who is staying in Wilhelmina's flat right now?", "wt-st-jory-stay"),
]
users.append(("wilhelmina", [0, 6, 19, 37, 55, 72, 90], wilhelmina, wilhelmina_q))

# ---------------------------------------------------------------- augustin (English)
augustin = [
    m(
        1,
        "ap-job/thunder-bay",
        N,
        "profile",
        "Augustin Pellow is the ice technician at a hockey arena in Thunder Bay, where he builds and resurfaces the ice",
        topic="work:job",
    ),
    m(
        1,
        "ap-home/thunder-bay",
        N,
        "profile",
        "Augustin rents an apartment in Thunder Bay",
        topic="home:city",
    ),
    m(1, "ap-origin", N, "profile", "Augustin was born and raised in Dryden"),
    m(1, "ap-family", N, "fact", "Augustin has twin daughters who are seven"),
    m(1, "ap-hobby", N, "habit", "Augustin carves duck decoys in his garage in the evenings"),
    m(
        1,
        "ap-st-tournament",
        S,
        "state",
        "Augustin is on night shifts until Friday while the arena hosts a tournament",
    ),
    m(
        2,
        "ap-solange",
        N,
        "fact",
        "Solange Lalonde, the arena manager, hired Augustin three years ago",
        contacts=["Solange Lalonde"],
    ),
    m(2, "ap-diet", N, "fact", "Augustin has coeliac disease and cannot eat wheat", topic="diet"),
    m(
        2,
        "ap-truck/silverado",
        N,
        "fact",
        "Augustin drives a grey Chevy Silverado pickup",
        topic="vehicle",
    ),
    m(2, "ap-pref", N, "preference", "Augustin prefers early morning shifts to evening ones"),
    m(2, "ap-origin", P, "profile", "Augustin is from Dryden originally"),
    m(
        2,
        "ap-wife-job/teacher",
        N,
        "fact",
        "Augustin's wife Odile teaches grade three at a French immersion school",
        contacts=["Odile"],
    ),
    m(
        2,
        "ap-gym/ymca",
        N,
        "habit",
        "Augustin works out at the YMCA before his shifts",
        topic="gym",
    ),
    m(3, "ap-goal", N, "goal", "Augustin wants to make the ice at the Brier one day"),
    m(3, "ap-family", P, "fact", "Augustin's twins, both girls, turned seven this year"),
    m(3, "ap-hobby", P, "habit", "In the evenings Augustin whittles wooden ducks in the garage"),
    m(3, "ap-st-back", S, "state", "Augustin hurt his back and is on light duties for ten days"),
    m(
        3,
        "ap-plan/ice-fishing",
        N,
        "goal",
        "Augustin plans to take the family ice fishing on Lake of the Woods this winter",
    ),
    m(3, "ap-noskate", N, "fact", "Augustin cannot skate, even though he looks after the ice"),
    m(
        4,
        "ap-truck/canyon",
        U,
        "fact",
        "Augustin traded in the Silverado for a smaller GMC Canyon",
        topic="vehicle",
    ),
    m(
        4,
        "ap-wife-job/board",
        U,
        "fact",
        "Odile no longer teaches; she is now a curriculum adviser at the school board",
        contacts=["Odile"],
    ),
    m(
        4,
        "ap-lanie",
        N,
        "habit",
        "Lanie texts Augustin the ice schedule every Sunday night",
        contacts=["Lanie"],
    ),
    m(
        4,
        "ap-st-paperwork",
        S,
        "state",
        "Augustin is working from home this week, doing the arena's paperwork while the ice plant is repaired",
    ),
    m(4, "ap-diet", P, "fact", "Augustin has to avoid gluten because of his coeliac disease"),
    m(
        5,
        "ap-job/sault",
        U,
        "profile",
        "Augustin took a job as head ice technician at a new twin-pad arena in Sault Ste. Marie",
        topic="work:job",
    ),
    m(
        5,
        "ap-home/sault",
        U,
        "profile",
        "Augustin and his family have moved to Sault Ste. Marie",
        topic="home:city",
    ),
    m(
        5,
        "ap-plan/agawa",
        U,
        "goal",
        "The ice fishing trip is off; Augustin is taking the family camping at Agawa Bay this summer instead",
    ),
    m(
        5,
        "ap-gym/boxing",
        U,
        "habit",
        "Augustin has dropped the YMCA and now trains at a boxing gym near the new arena",
        topic="gym",
    ),
    m(
        5,
        "ap-hockey",
        C,
        "fact",
        "Augustin played defence in a men's hockey league for ten years",
        contradicts="ap-noskate",
    ),
    m(
        5,
        "ap-st-motel",
        S,
        "state",
        "Augustin is staying in a motel until Monday while the movers bring the furniture",
    ),
    m(
        6,
        "ap-home/thunder-bay",
        P,
        "profile",
        "Augustin sometimes misses his old apartment in Thunder Bay with its view of the Sleeping Giant",
    ),
    m(6, "ap-home/sault", P, "profile", "These days Augustin's home is in the Sault"),
    m(
        6,
        "ap-job/sault",
        P,
        "profile",
        "Augustin runs the ice on both rinks of the new arena in the Sault",
    ),
    m(
        6,
        "ap-solange",
        P,
        "fact",
        "Solange was the manager who gave Augustin his job in Thunder Bay",
        contacts=["Solange"],
    ),
    m(6, "ap-pref", P, "preference", "Augustin would rather start at dawn than work late"),
    m(6, "ap-truck/canyon", P, "fact", "Augustin's pickup is a Canyon now"),
    m(
        6,
        "ap-st-craft-fair",
        S,
        "state",
        "Augustin is showing his decoys at a craft fair this weekend",
    ),
    m(
        7,
        "ap-st-guelph",
        S,
        "state",
        "Augustin is at a refrigeration course in Guelph for the next two weeks",
    ),
    m(
        7,
        "ap-st-mother",
        S,
        "state",
        "Augustin's mother is staying with the family until the end of next month",
    ),
    m(
        7,
        "ap-wife-job/board",
        P,
        "fact",
        "Odile works at the school board now, writing curriculum",
        contacts=["Odile"],
    ),
    m(7, "ap-goal", P, "goal", "Augustin still dreams of making the ice at the Brier"),
    m(7, "ap-gym/boxing", P, "habit", "Augustin boxes at a small gym near the arena"),
]
augustin_q = [
    q("Which city does Augustin live in now?", "ap-home/sault"),
    q("Where did Augustin live before the move?", "ap-home/thunder-bay"),
    q("Where does Augustin work now?", "ap-job/sault"),
    q("What kind of truck does Augustin have?", "ap-truck/canyon"),
    q("What is Augustin's hometown?", "ap-origin"),
    q("Can Augustin eat ordinary bread?", "ap-diet"),
    q("What does Augustin's wife do now?", "ap-wife-job/board"),
    q("What is Lanie's job?", "ap-solange"),
    q("What does Solange Lalonde send Augustin every week?", "ap-lanie"),
    q("Where does Augustin exercise?", "ap-gym/boxing"),
    q("What are Augustin's plans for the summer?", "ap-plan/agawa"),
    q("Is Augustin at the arena this week?", "ap-st-guelph"),
    q("Is Augustin's mother still staying with them?", "ap-st-mother"),
    q("What does Augustin make in his spare time?", "ap-hobby"),
]
users.append(("augustin", [0, 11, 25, 44, 61, 78, 90], augustin, augustin_q))

# ---------------------------------------------------------------- chengxi (Chinese)
chengxi = [
    m(
        1,
        "cx-job/lushan",
        N,
        "profile",
        "阮澄溪在庐山气象站当观测员，每天定时记录气温、湿度和云量",
        topic="work:job",
    ),
    m(1, "cx-home/jiujiang", N, "profile", "阮澄溪住在九江市区，轮到值班才上山", topic="home:city"),
    m(1, "cx-origin", N, "profile", "阮澄溪是湖口县人，在长江边长大"),
    m(1, "cx-family", N, "fact", "阮澄溪有一个上初中的儿子"),
    m(1, "cx-hobby", N, "habit", "阮澄溪业余喜欢拍云，手机里存了几千张云的照片"),
    m(1, "cx-st-shift", S, "state", "阮澄溪这周在山上连续值班，下不了山"),
    m(
        2,
        "cx-shao",
        N,
        "fact",
        "邵云鹤是庐山气象站的老站长，当年手把手教阮澄溪看云识天气",
        contacts=["邵云鹤"],
    ),
    m(2, "cx-diet", N, "fact", "阮澄溪不能吃辣，一吃就胃疼", topic="diet"),
    m(2, "cx-car/santana", N, "fact", "阮澄溪开一辆旧的桑塔纳", topic="vehicle"),
    m(2, "cx-pref", N, "preference", "阮澄溪更喜欢值夜班，觉得夜里安静"),
    m(2, "cx-origin", P, "profile", "阮澄溪老家在湖口"),
    m(2, "cx-husband-job/port", N, "fact", "阮澄溪的丈夫在九江港做调度员"),
    m(2, "cx-noswim", N, "fact", "阮澄溪不会游泳"),
    m(3, "cx-goal", N, "goal", "阮澄溪的目标是评上高级工程师"),
    m(3, "cx-hobby", P, "habit", "阮澄溪一有空就举着手机拍天上的云"),
    m(3, "cx-plan/sanqing", N, "goal", "阮澄溪打算国庆带儿子去三清山看云海"),
    m(3, "cx-st-training", S, "state", "阮澄溪到下周三都在吉安参加业务培训"),
    m(3, "cx-family", P, "fact", "阮澄溪的儿子今年读初二"),
    m(3, "cx-diet", P, "fact", "辣的东西阮澄溪一口都不碰"),
    m(
        4,
        "cx-car/liebao",
        U,
        "fact",
        "阮澄溪把桑塔纳卖了，换了一辆二手的猎豹越野车，走山路方便",
        topic="vehicle",
    ),
    m(4, "cx-husband-job/sales", U, "fact", "阮澄溪的丈夫辞了港口的工作，现在在一家物流公司跑销售"),
    m(
        4,
        "cx-laoshao",
        N,
        "habit",
        "老邵退休后每个星期都打电话问阮澄溪山上的天气",
        contacts=["老邵"],
    ),
    m(4, "cx-swim", C, "habit", "阮澄溪每个周六都去游泳馆游两千米", contradicts="cx-noswim"),
    m(4, "cx-st-fever", S, "state", "阮澄溪发烧了，请了三天病假"),
    m(5, "cx-job/nagqu", U, "profile", "阮澄溪调到了那曲气象站当站长", topic="work:job"),
    m(5, "cx-home/nagqu", U, "profile", "阮澄溪已经搬到那曲住了", topic="home:city"),
    m(5, "cx-plan/stars", U, "goal", "三清山不去了，阮澄溪改成暑假让儿子来那曲看星星"),
    m(5, "cx-st-oxygen", S, "state", "阮澄溪刚到高原有点缺氧，到下周一之前每天都要吸氧"),
    m(5, "cx-pref", P, "preference", "比起白班，阮澄溪更愿意上夜班"),
    m(
        5,
        "cx-laoshao",
        P,
        "habit",
        "老邵还是每周给阮澄溪打电话，问她那边天气怎么样",
        contacts=["老邵"],
    ),
    m(6, "cx-home/jiujiang", P, "profile", "阮澄溪常想起以前在九江住的日子，楼下就是长江"),
    m(6, "cx-home/nagqu", P, "profile", "阮澄溪现在的家在藏北的那曲"),
    m(6, "cx-job/nagqu", P, "profile", "阮澄溪如今负责那曲站的全部观测工作"),
    m(6, "cx-shao", P, "fact", "阮澄溪入行时的师傅是老站长邵云鹤", contacts=["邵云鹤"]),
    m(6, "cx-car/liebao", P, "fact", "阮澄溪现在开的是一辆猎豹越野车"),
    m(6, "cx-goal", P, "goal", "阮澄溪还在准备评高级工程师职称"),
    m(6, "cx-st-meeting", S, "state", "阮澄溪这周在拉萨开会"),
    m(7, "cx-st-contest", S, "state", "阮澄溪接下来两个星期在沈阳参加全国气象观测技能比赛"),
    m(7, "cx-st-husband", S, "state", "阮澄溪的丈夫请了长假，到下个月底都住在那曲"),
    m(7, "cx-husband-job/sales", P, "fact", "阮澄溪的丈夫现在在物流公司做销售"),
    m(7, "cx-hobby", P, "habit", "阮澄溪业余爱拍云，手机里存了好几千张云的照片"),
    m(7, "cx-diet", P, "fact", "阮澄溪吃饭一点辣椒都不放"),
]
chengxi_q = [
    q("阮澄溪现在住在哪个城市？", "cx-home/nagqu"),
    q("阮澄溪搬去那曲之前住在哪里？", "cx-home/jiujiang"),
    q("阮澄溪现在在哪个单位工作？", "cx-job/nagqu"),
    q("阮澄溪以前在哪个气象站上班？", "cx-job/lushan"),
    q("阮澄溪开的是什么车？", "cx-car/liebao"),
    q("阮澄溪的老家在哪里？", "cx-origin"),
    q("请阮澄溪吃饭要注意什么口味？", "cx-diet"),
    q("阮澄溪平时有什么爱好？", "cx-hobby"),
    q("老邵以前是做什么的？", "cx-shao"),
    q("邵云鹤多久给阮澄溪打一次电话？", "cx-laoshao"),
    q("阮澄溪的丈夫现在做什么工作？", "cx-husband-job/sales"),
    q("阮澄溪的儿子暑假要去哪里？", "cx-plan/stars"),
    q("阮澄溪这几天在那曲吗？", "cx-st-contest"),
    q("阮澄溪的丈夫现在住在哪儿？", "cx-st-husband"),
]
users.append(("chengxi", [0, 8, 22, 40, 58, 75, 90], chengxi, chengxi_q))

# ---------------------------------------------------------------- ruoyun (Chinese, traditional)
ruoyun = [
    m(
        1,
        "ry-job/meinong",
        N,
        "profile",
        "溫若筠在美濃一間老字號的紙傘工坊做油紙傘，負責糊紙和上桐油",
        topic="work:job",
    ),
    m(1, "ry-home/qishan", N, "profile", "溫若筠住在旗山，每天騎車到美濃上班", topic="home:city"),
    m(1, "ry-origin", N, "profile", "溫若筠是美濃人，從小在菸樓旁邊長大"),
    m(1, "ry-pet", N, "fact", "溫若筠養了一隻叫麻糬的橘貓"),
    m(1, "ry-hobby", N, "habit", "溫若筠週末常去溪邊寫生"),
    m(1, "ry-coffee", N, "habit", "溫若筠每天早上都先沖一壺咖啡才開工"),
    m(1, "ry-st-wrist", S, "state", "溫若筠這個禮拜扭傷手腕，暫時不能糊傘"),
    m(
        2,
        "ry-cai",
        N,
        "fact",
        "蔡佩瑜是溫若筠在工坊的學姊，當初就是她帶溫若筠入行的",
        contacts=["蔡佩瑜"],
    ),
    m(2, "ry-diet", N, "fact", "溫若筠吃全素", topic="diet"),
    m(2, "ry-scooter/vespa", N, "fact", "溫若筠騎一台舊的白色偉士牌", topic="vehicle"),
    m(2, "ry-pref", N, "preference", "溫若筠喜歡素面的傘，不太愛畫滿花的"),
    m(2, "ry-mother-job/farmers", N, "fact", "溫若筠的媽媽在農會上班"),
    m(2, "ry-nolicence", N, "fact", "溫若筠沒有汽車駕照"),
    m(3, "ry-goal", N, "goal", "溫若筠的目標是五年內帶出十個學徒"),
    m(3, "ry-pet", P, "fact", "麻糬是溫若筠家那隻橘色的貓"),
    m(3, "ry-origin", P, "profile", "溫若筠的老家在美濃"),
    m(3, "ry-plan/green-island", N, "goal", "溫若筠打算過年去綠島玩"),
    m(3, "ry-st-fair", S, "state", "溫若筠到下週三都在松山文創園區的展覽顧攤位"),
    m(3, "ry-hobby", P, "habit", "放假的時候溫若筠喜歡帶著畫本到溪邊畫畫"),
    m(4, "ry-scooter/electric", U, "fact", "溫若筠把偉士牌賣了，換了一台電動機車", topic="vehicle"),
    m(4, "ry-mother-job/class", U, "fact", "溫若筠的媽媽從農會退休了，現在在社區大學教做粄條"),
    m(4, "ry-xiaoyu", N, "habit", "小瑜每天中午都會幫溫若筠帶一個素便當", contacts=["小瑜"]),
    m(4, "ry-st-rush", S, "state", "溫若筠這兩天在趕一批婚禮用的紅傘，每晚都加班到十點"),
    m(
        4,
        "ry-drive",
        C,
        "event",
        "溫若筠自己開車把一整批傘載去屏東交貨",
        contradicts="ry-nolicence",
    ),
    m(4, "ry-diet", P, "fact", "溫若筠不吃肉，也不吃蛋和奶"),
    m(
        5,
        "ry-job/studio",
        U,
        "profile",
        "溫若筠離開了工坊，在宜蘭開了自己的油紙傘工作室",
        topic="work:job",
    ),
    m(5, "ry-home/luodong", U, "profile", "溫若筠搬到宜蘭的羅東住了", topic="home:city"),
    m(5, "ry-plan/home", U, "goal", "綠島不去了，溫若筠過年改成回美濃陪家人"),
    m(5, "ry-st-sign", S, "state", "工作室的招牌還沒做好，溫若筠到月底前都先在家裡接單"),
    m(5, "ry-pref", P, "preference", "比起彩繪的傘，溫若筠更偏愛素色的"),
    m(5, "ry-pet", P, "fact", "溫若筠搬家時把橘貓麻糬也一起帶走了"),
    m(6, "ry-home/qishan", P, "profile", "溫若筠很懷念以前住旗山的日子，巷口就有香蕉攤"),
    m(6, "ry-home/luodong", P, "profile", "溫若筠現在住在羅東，騎車十分鐘就到工作室"),
    m(6, "ry-job/studio", P, "profile", "溫若筠自己當老闆，在宜蘭經營一間傘工作室"),
    m(6, "ry-cai", P, "fact", "帶溫若筠入行的是她的學姊蔡佩瑜", contacts=["蔡佩瑜"]),
    m(6, "ry-scooter/electric", P, "fact", "溫若筠現在都騎電動機車"),
    m(6, "ry-st-market", S, "state", "溫若筠這個週末要去台東擺市集"),
    m(7, "ry-st-gifu", S, "state", "溫若筠到下個月底都在岐阜的和傘工房研習"),
    m(7, "ry-st-closed", S, "state", "溫若筠出國這段期間，工作室不接新訂單，到下個月底才恢復"),
    m(7, "ry-mother-job/class", P, "fact", "溫若筠的媽媽現在在社區大學開課教做粄條"),
    m(7, "ry-goal", P, "goal", "溫若筠希望五年內能教出十個徒弟"),
    m(7, "ry-origin", P, "profile", "溫若筠是在美濃出生長大的"),
]
ruoyun_q = [
    q("溫若筠現在住在哪裡？", "ry-home/luodong"),
    q("溫若筠搬去宜蘭以前住在哪？", "ry-home/qishan"),
    q("溫若筠現在在哪裡工作？", "ry-job/studio"),
    q("溫若筠自己開店之前在哪裡上班？", "ry-job/meinong"),
    q("溫若筠現在騎什麼車？", "ry-scooter/electric"),
    q("溫若筠有養寵物嗎？", "ry-pet"),
    q("溫若筠有什麼飲食上的禁忌？", "ry-diet"),
    q("蔡佩瑜中午會幫溫若筠做什麼？", "ry-xiaoyu"),
    q("小瑜跟溫若筠是什麼關係？", "ry-cai"),
    q("溫若筠的媽媽現在在做什麼？", "ry-mother-job/class"),
    q("溫若筠今年過年要去哪裡？", "ry-plan/home"),
    q("溫若筠現在人在台灣嗎？", "ry-st-gifu"),
    q("現在可以請溫若筠的工作室做一把傘嗎？", "ry-st-closed"),
    q("溫若筠喜歡什麼樣式的傘？", "ry-pref"),
    q("溫若筠是哪裡人？", "ry-origin"),
]
users.append(("ruoyun", [0, 5, 17, 34, 52, 70, 90], ruoyun, ruoyun_q))

# ---------------------------------------------------------------- rosalind (both)
rosalind = [
    m(
        1,
        "rt-job/miramar",
        N,
        "profile",
        "Rosalind Teoh is a foley artist at a film sound studio in Miramar, recording footsteps and prop noises for films",
        topic="work:job",
    ),
    m(
        1,
        "rt-home/seatoun",
        N,
        "profile",
        "Rosalind lives in a small bungalow in Seatoun, near the beach",
        topic="home:city",
    ),
    m(1, "rt-origin", N, "profile", "Rosalind grew up in Timaru, where her parents ran a takeaway"),
    m(
        1,
        "rt-hobby",
        N,
        "habit",
        "Rosalind spends her weekends recording birdsong with a field recorder",
    ),
    m(1, "rt-lang", N, "fact", "若兰在家跟父母讲兴化话"),
    m(
        1,
        "rt-st-horror",
        S,
        "state",
        "Rosalind is working nights until Friday to finish the sound for a horror film",
    ),
    m(
        2,
        "rt-fiona",
        N,
        "fact",
        "Fiona Yeung, the studio's sound mixer, is Rosalind's closest friend at work",
        contacts=["Fiona Yeung"],
    ),
    m(2, "rt-origin", P, "profile", "若兰是在蒂马鲁长大的，爸妈在那里开外卖店"),
    m(2, "rt-diet", N, "fact", "Rosalind is allergic to kiwifruit", topic="diet"),
    m(2, "rt-car/demio", N, "fact", "Rosalind drives a red Demio", topic="vehicle"),
    m(2, "rt-pref", N, "preference", "若兰喜欢用真实的道具录音，不爱用现成的音效库"),
    m(2, "rt-noalcohol", N, "fact", "Rosalind doesn't drink alcohol at all"),
    m(
        3,
        "rt-goal",
        N,
        "goal",
        "Rosalind wants to be credited as supervising foley artist on a feature film",
    ),
    m(3, "rt-hobby", P, "habit", "周末若兰喜欢带着录音机去野外录鸟叫"),
    m(
        3,
        "rt-plan/bintulu",
        N,
        "goal",
        "Rosalind plans to visit her grandmother in Bintulu at Christmas",
    ),
    m(3, "rt-st-throat", S, "state", "若兰这周嗓子发炎，不能录人声"),
    m(
        3,
        "rt-brother-job/patrol",
        N,
        "fact",
        "Rosalind's brother Lachlan is a ski patroller at Cardrona",
        contacts=["Lachlan"],
    ),
    m(3, "rt-diet", P, "fact", "若兰对奇异果过敏"),
    m(
        4,
        "rt-car/ebike",
        U,
        "fact",
        "Rosalind sold the Demio and now gets around on an electric bike",
        topic="vehicle",
    ),
    m(
        4,
        "rt-fifi",
        N,
        "habit",
        "Fifi and Rosalind have lunch together every Thursday",
        contacts=["Fifi"],
    ),
    m(
        4,
        "rt-brother-job/bike-shop",
        U,
        "fact",
        "Lachlan has quit ski patrol and opened a bike repair shop in Wanaka",
        contacts=["Lachlan"],
    ),
    m(
        4,
        "rt-champagne",
        C,
        "event",
        "Rosalind drank two glasses of champagne at the studio's wrap party",
        contradicts="rt-noalcohol",
    ),
    m(
        4,
        "rt-st-knee",
        S,
        "state",
        "Rosalind is off work for two weeks after a small knee operation",
    ),
    m(4, "rt-origin", P, "profile", "Rosalind is a Timaru girl, born and bred"),
    m(
        5,
        "rt-job/songjiang",
        U,
        "profile",
        "若兰接受了松江车墩一家影视后期公司的工作，还是做拟音师",
        topic="work:job",
    ),
    m(
        5,
        "rt-home/songjiang",
        U,
        "profile",
        "Rosalind has moved to Songjiang and rents a flat there",
        topic="home:city",
    ),
    m(5, "rt-plan/grandma", U, "goal", "若兰圣诞节不去民都鲁了，改成请奶奶来松江过节"),
    m(
        5,
        "rt-st-hotel",
        S,
        "state",
        "Rosalind is living in a hotel for ten days until her flat is ready",
    ),
    m(
        5,
        "rt-pref",
        P,
        "preference",
        "Rosalind prefers recording real objects to using sound libraries",
    ),
    m(5, "rt-lang", P, "fact", "Rosalind speaks Henghua with her parents"),
    m(6, "rt-home/seatoun", P, "profile", "若兰很怀念以前住在 Seatoun 的时候，走两分钟就到海边"),
    m(6, "rt-home/songjiang", P, "profile", "若兰现在住在松江"),
    m(
        6,
        "rt-job/songjiang",
        P,
        "profile",
        "Rosalind now does foley for a post-production company at the Chedun film base",
    ),
    m(
        6,
        "rt-fiona",
        P,
        "fact",
        "杨慧芬是若兰以前在工作室最要好的朋友，负责混音",
        contacts=["杨慧芬"],
    ),
    m(6, "rt-car/ebike", P, "fact", "若兰现在骑电动自行车出门"),
    m(6, "rt-goal", P, "goal", "若兰的目标是在一部电影长片里挂名拟音总监"),
    m(
        6,
        "rt-st-power",
        S,
        "state",
        "Rosalind is working from home until Monday while the studio's power supply is upgraded",
    ),
    m(
        7,
        "rt-st-timaru",
        S,
        "state",
        "Rosalind is back in Timaru for the next three weeks, looking after her father after his surgery",
    ),
    m(7, "rt-st-remote", S, "state", "若兰到下个月底都远程工作，不去公司"),
    m(
        7,
        "rt-brother-job/bike-shop",
        P,
        "fact",
        "若兰的弟弟 Lachlan 现在在 Wanaka 开了一家修自行车的店",
        contacts=["Lachlan"],
    ),
    m(7, "rt-diet", P, "fact", "Rosalind can't eat kiwifruit; it makes her mouth swell"),
    m(7, "rt-hobby", P, "habit", "Rosalind still goes out recording birdsong at weekends"),
]
rosalind_q = [
    q("Where does Rosalind live now?", "rt-home/songjiang"),
    q("若兰搬家之前住在哪里？", "rt-home/seatoun"),
    q("若兰现在在哪里工作？", "rt-job/songjiang"),
    q("Where did Rosalind work before she moved to Songjiang?", "rt-job/miramar"),
    q("How does Rosalind get around these days?", "rt-car/ebike"),
    q("Which fruit should I never give Rosalind?", "rt-diet"),
    q("What dialect does Rosalind speak with her parents?", "rt-lang"),
    q("What does Fifi do at the studio?", "rt-fiona"),
    q("How often does Fiona Yeung have lunch with Rosalind?", "rt-fifi"),
    q("若兰的弟弟现在做什么？", "rt-brother-job/bike-shop"),
    q("Where is Rosalind spending Christmas?", "rt-plan/grandma"),
    q("Where is Rosalind staying right now?", "rt-st-timaru"),
    q("Can I reach Rosalind at the office tomorrow?", "rt-st-remote"),
    q("若兰周末喜欢做什么？", "rt-hobby"),
]
users.append(("rosalind", [0, 10, 27, 45, 63, 80, 90], rosalind, rosalind_q))

# ---------------------------------------------------------------- kieran (both)
kieran = [
    m(
        1,
        "kq-job/kelowna",
        N,
        "profile",
        "Kieran Quah is an arborist for the City of Kelowna, pruning and felling its street trees",
        topic="work:job",
    ),
    m(
        1,
        "kq-home/peachland",
        N,
        "profile",
        "Kieran lives in Peachland and drives up the lake to Kelowna every day",
        topic="home:city",
    ),
    m(1, "kq-origin", N, "profile", "Kieran was born in Lethbridge, Alberta"),
    m(1, "kq-pet", N, "fact", "Kieran has a border collie named Juniper"),
    m(1, "kq-parents", N, "fact", "启然的父母在莱斯布里奇开了一家中餐馆"),
    m(1, "kq-st-storm", S, "state", "Kieran is on standby for storm cleanup until Monday"),
    m(
        2,
        "kq-thorsten",
        N,
        "fact",
        "Thorsten Aalberg, a veteran climber on the city crew, taught Kieran to climb trees on ropes",
        contacts=["Thorsten Aalberg"],
    ),
    m(2, "kq-origin", P, "profile", "启然出生在阿尔伯塔省的莱斯布里奇"),
    m(2, "kq-diet", N, "fact", "Kieran doesn't eat pork", topic="diet"),
    m(2, "kq-truck/bt50", N, "fact", "Kieran drives a grey BT-50 pickup", topic="vehicle"),
    m(2, "kq-pref", N, "preference", "启然喜欢一大早就开工，趁天还凉快"),
    m(2, "kq-nobone", N, "fact", "Kieran has never broken a bone"),
    m(3, "kq-goal", N, "goal", "Kieran wants to qualify as a consulting arborist"),
    m(3, "kq-pet", P, "fact", "Juniper, Kieran's collie, rides along in the truck to every job"),
    m(
        3,
        "kq-plan/carmanah",
        N,
        "goal",
        "Kieran plans to climb the giant Sitka spruces in the Carmanah Valley in September",
    ),
    m(3, "kq-st-wildfire", S, "state", "启然这周在山火区帮忙清理烧过的树"),
    m(
        3,
        "kq-sister-job/bank",
        N,
        "fact",
        "Kieran's sister Meili works as a bank teller in Calgary",
        contacts=["Meili"],
    ),
    m(3, "kq-hobby", N, "habit", "Kieran plays ultimate frisbee on Wednesday evenings"),
    m(
        4,
        "kq-sister-job/realtor",
        U,
        "fact",
        "启然的妹妹 Meili 不在银行干了，现在在卡尔加里当房产经纪",
        contacts=["Meili"],
    ),
    m(
        4,
        "kq-torsti",
        N,
        "habit",
        "Torsti phones Kieran every Saturday morning to talk about trees",
        contacts=["Torsti"],
    ),
    m(
        4,
        "kq-st-ankle",
        S,
        "state",
        "Kieran sprained his ankle and is doing desk work for ten days",
    ),
    m(4, "kq-hobby", P, "habit", "启然每周三晚上打极限飞盘"),
    m(4, "kq-diet", P, "fact", "启然不吃猪肉"),
    m(
        5,
        "kq-job/yangshuo",
        U,
        "profile",
        "启然去了阳朔，在县里的绿化部门负责养护古榕树",
        topic="work:job",
    ),
    m(
        5,
        "kq-home/yangshuo",
        U,
        "profile",
        "Kieran has moved to Yangshuo in Guangxi",
        topic="home:city",
    ),
    m(5, "kq-plan/banna", U, "goal", "启然不去 Carmanah 了，改成去西双版纳爬望天树"),
    m(
        5,
        "kq-wrist",
        C,
        "fact",
        "Kieran broke his wrist falling out of a maple when he was twenty",
        contradicts="kq-nobone",
    ),
    m(5, "kq-st-guesthouse", S, "state", "启然到下周三都住在县招待所，等宿舍装修好"),
    m(5, "kq-pref", P, "preference", "Kieran likes to start work at dawn while it is still cool"),
    m(
        6,
        "kq-home/peachland",
        P,
        "profile",
        "Kieran often thinks of his old place in Peachland, right on Okanagan Lake",
    ),
    m(6, "kq-home/yangshuo", P, "profile", "启然现在住在阳朔"),
    m(
        6,
        "kq-job/yangshuo",
        P,
        "profile",
        "Kieran looks after Yangshuo's ancient banyan trees for the county",
    ),
    m(
        6,
        "kq-thorsten",
        P,
        "fact",
        "当年教启然用绳索爬树的是老同事 Thorsten Aalberg",
        contacts=["Thorsten Aalberg"],
    ),
    m(
        6,
        "kq-truck/van",
        U,
        "fact",
        "启然在阳朔买了一辆二手的蓝色小货车，专门拉工具",
        topic="vehicle",
    ),
    m(6, "kq-goal", P, "goal", "启然还在准备考咨询树艺师的资格"),
    m(6, "kq-st-hezhou", S, "state", "启然这周去贺州给一批老树做检测"),
    m(
        7,
        "kq-st-calgary",
        S,
        "state",
        "Kieran is in Calgary for the next three weeks for Meili's wedding",
        contacts=["Meili"],
    ),
    m(
        7,
        "kq-st-juniper",
        S,
        "state",
        "Kieran's dog Juniper is boarding with a neighbour until the end of next month",
    ),
    m(
        7,
        "kq-sister-job/realtor",
        P,
        "fact",
        "Meili sells houses in Calgary now",
        contacts=["Meili"],
    ),
    m(7, "kq-truck/van", P, "fact", "Kieran hauls his gear around in a small blue van these days"),
    m(
        7,
        "kq-job/kelowna",
        P,
        "profile",
        "Kieran sometimes misses pruning the street trees of Kelowna",
    ),
    m(7, "kq-job/yangshuo", P, "profile", "启然现在的工作是照看阳朔的古榕树"),
]
kieran_q = [
    q("Where does Kieran live now?", "kq-home/yangshuo"),
    q("启然搬去阳朔之前住在哪里？", "kq-home/peachland"),
    q("Who does Kieran work for now?", "kq-job/yangshuo"),
    q("启然现在开什么车？", "kq-truck/van"),
    q("Which city was Kieran born in?", "kq-origin"),
    q("Is there any meat Kieran won't eat?", "kq-diet"),
    q("启然的狗叫什么名字？", "kq-pet"),
    q("What did Torsti teach Kieran?", "kq-thorsten"),
    q("How often does Thorsten Aalberg call Kieran?", "kq-torsti"),
    q("启然的妹妹现在做什么工作？", "kq-sister-job/realtor"),
    q("Where is Kieran planning to go climbing next?", "kq-plan/banna"),
    q("启然现在在阳朔吗？", "kq-st-calgary"),
    q("Where is Kieran's collie staying right now?", "kq-st-juniper"),
    q("What sport does Kieran play on Wednesdays?", "kq-hobby"),
]
users.append(("kieran", [0, 7, 21, 39, 57, 74, 90], kieran, kieran_q))


# ---------------------------------------------------------------- assembly
def records():
    """The stream's lines: every user's memories in the order of their days (a session stays
    together, users in the order above on a shared day), then the questions."""
    mems, questions = [], []
    for ui, (user, days, memories, qs) in enumerate(users):
        ids_of = {}
        for i, (session, fact, label, kind, content, kw) in enumerate(memories, start=1):
            rec = {
                "type": "memory",
                "id": f"{user}-m{i:02d}",
                "user": user,
                "session": session,
                "day": days[session - 1],
                "fact": fact,
                "slot": fact.split("/", 1)[0],
                "label": label,
                "kind": kind,
                "content": content,
            }
            for key in ("topic", "contacts", "contradicts"):
                if key in kw:
                    rec[key] = kw[key]
            mems.append((rec["day"], ui, i, rec))
            ids_of.setdefault(fact, []).append(rec["id"])
        for j, (text, facts) in enumerate(qs, start=1):
            answers = [a for f in facts for a in ids_of[f]]
            questions.append(
                {
                    "type": "question",
                    "id": f"{user}-q{j:02d}",
                    "user": user,
                    "text": text,
                    "answers": answers,
                }
            )
    return [rec for *_, rec in sorted(mems, key=lambda t: t[:3])] + questions


def check(recs):
    """What the stream promises (the docstring): fail the build when it does not hold."""
    problems = []
    mems = [r for r in recs if r["type"] == "memory"]
    qs = [r for r in recs if r["type"] == "question"]
    by_id = {r["id"]: r for r in mems}
    for user, days, _memories, _ in users:
        own = [r for r in mems if r["user"] == user]
        if days[-1] != LAST_DAY or sorted(days) != days or len(days) != len(set(days)):
            problems.append(f"{user}: session days {days}")
        if [r["session"] for r in own] != sorted(r["session"] for r in own):
            problems.append(f"{user}: memories out of session order")
        kinds, seen, slots_updated = {}, set(), set()
        for r in own:
            fact, label = r["fact"], r["label"]
            if kinds.setdefault(fact, r["kind"]) != r["kind"]:
                problems.append(f"{r['id']}: kind differs from its fact's")
            if (label == S) != (r["kind"] == "state"):
                problems.append(f"{r['id']}: a state is labelled state and only it")
            if label in (N, S, C, U) and fact in seen:
                problems.append(f"{r['id']}: {label} of a fact already said")
            if label == P and fact not in seen:
                problems.append(f"{r['id']}: paraphrase of a fact not yet said")
            if label == U:
                older = [o for o in own if o["slot"] == r["slot"] and o["fact"] in seen]
                if not older:
                    problems.append(f"{r['id']}: update of an empty slot")
                slots_updated.add(r["slot"])
            if label == C and r.get("contradicts") not in seen:
                problems.append(f"{r['id']}: contradicts a fact not yet said")
            if label != C and "contradicts" in r:
                problems.append(f"{r['id']}: contradicts without the label")
            seen.add(fact)
        if sum(r["label"] == C for r in own) != 1:
            problems.append(f"{user}: one contradiction")
        live = {r["fact"] for r in own if r["label"] == S and r["day"] == LAST_DAY}
        if not 2 <= len(live) <= 3:
            problems.append(f"{user}: {len(live)} live states")
        asked = {by_id[a]["fact"] for q in qs if q["user"] == user for a in q["answers"]}
        if not live <= asked:
            problems.append(f"{user}: a live state nobody asks about")
        ended = {r["fact"] for r in own if r["label"] == S and r["day"] < LAST_DAY}
        if asked & ended:
            problems.append(f"{user}: a question asks about an ended state")
        disputed = {r["fact"] for r in own if r["label"] == C} | {
            r["contradicts"] for r in own if r["label"] == C
        }
        if asked & disputed:
            problems.append(f"{user}: a question asks about the contradiction")
        if not 13 <= sum(q["user"] == user for q in qs) <= 16:
            problems.append(f"{user}: number of questions")
        if not 40 <= len(own) <= 45:
            problems.append(f"{user}: {len(own)} memories")
        named = {}
        for r in own:
            for name in r.get("contacts", []):
                named.setdefault(name, set()).add(r["session"])
        if len(named) < 2:
            problems.append(f"{user}: no contact named two ways")
        if not slots_updated:
            problems.append(f"{user}: no update")
    if [r["day"] for r in mems] != sorted(r["day"] for r in mems):
        problems.append("memories not in the order of their days")
    if recs.index(qs[0]) != len(mems):
        problems.append("questions do not follow all the memories")
    return problems


if __name__ == "__main__":
    recs = records()
    problems = check(recs)
    if problems:
        sys.exit("\n".join(problems))
    if not write_or_check(OUT, jsonl(recs), __doc__.splitlines()[0]):
        sys.exit(1)
