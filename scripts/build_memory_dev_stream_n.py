"""Build bench/data/memory_dev_stream_n.jsonl: stream N, a measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by a helper that read only the format: docs/eval.md from
"The measures" to the end of its "Format (for `--dataset`)" section (the bundled stream's
summary between them included); pymem/prompts/extract.md; scripts/jsonl_build.py; lines
60-240 of pymem/eval.py (its targets, the dataclasses, `load_dataset` and the first lines
of `Run`); the module docstring and the ~43 lines after it of
scripts/build_memory_dev_stream_m.py for a builder's shape (its helpers and the first three
memories of its first user, no more of its data); and lines 1-5 and 60-110 of tests/test_eval.py,
the test that rebuilds the streams. Not pymem's decision rules, word lists or SQL, nor any
other stream, builder or doc; the helper never ran pymem on this stream. Names were checked
absent from the repository's streams by exact-name file counts only. Six invented users:

- orla (English): Orla Kinsella, a racehorse farrier on the Curragh in Kildare who emigrates to be the resident farrier of a stud near Cambridge, New Zealand.
- kwesi (English): Kwesi Lamptey from Ho, a lift and escalator inspector for an insurer in Accra who becomes service manager of a lift installer in Kumasi.
- yuee (Chinese): 滕月娥 from 泾县, an ancient-book restorer at 宁波天一阁 who moves to 兰州 to repair Dunhuang sutra scrolls at a research institute.
- baoshan (Chinese): 付宝山 from 尚志, an ice sculptor at 哈尔滨冰雪大世界 who becomes head ice carver of an indoor snow park in 广州番禺.
- rosa (both): Rosa Chong 钟玉珍, a Tusán customs broker at the port of Callao, Lima, who becomes logistics manager of a blueberry exporter in Trujillo.
- kelvin (both, traditional characters): Kelvin Yip 葉家朗 from 長洲, a northern lights guide in Abisko who runs an aurora camp near Yellowknife.

Each has restatements (in the other language for the two bilingual users, some worded far
apart, some nearly verbatim, one of an old home after the move said as a reminiscence and
followed later by a restatement of the current one), updates said in varied ways (a move, a
new job, another car or a motorbike, a plan dropped for another, a brother's, wife's,
husband's, daughter's or sister's new work), temporary states said as people say them (until
Thursday, this week, until Monday, for ten days, 这个礼拜, 下周一之前 early, all ended by
question time; two or three in the last session, for two or three weeks, 这两个礼拜, until the
end of next month, 到下个月底, that still hold and are asked about), a contact named two ways
(a full name and a nickname), one contradiction (no question asks about it), topics on some
memories, and questions about current values, the live states (yes or no, and asking their
value), stable facts, a contact named by the other name and values before they changed.
Each question's answers are every memory of the fact it asks about. Every user's last
session is on day 98, and the questions follow all the memories. Each memory's kind is what
an extractor following pymem/prompts/extract.md would emit for its sentence, the same for
every memory of a fact.

No public dataset is copied.

    python scripts/build_memory_dev_stream_n.py           # write the file
    python scripts/build_memory_dev_stream_n.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_n.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days of its sessions, memories, questions)


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# question tuple: (text, facts it asks about): its answers are every memory of those facts
def q(text, *facts):
    return (text, facts)


# ---------------------------------------------------------------- orla (English)
orla = [
    m(
        1,
        "job/curragh",
        N,
        "profile",
        "Orla Kinsella is a farrier who shoes racehorses for the training yards around the Curragh in County Kildare",
        topic="work:job",
    ),
    m(
        1,
        "home/newbridge",
        N,
        "profile",
        "Orla lives in a terraced house in Newbridge, County Kildare",
        topic="home:city",
    ),
    m(
        1,
        "origin/clare",
        N,
        "profile",
        "Orla grew up on a dairy farm outside Ennistymon in County Clare",
    ),
    m(
        1,
        "vehicle/hilux",
        N,
        "fact",
        "Orla drives a white Toyota Hilux with a gas forge bolted into the back",
        topic="vehicle",
    ),
    m(
        1,
        "apprentice/cathal",
        N,
        "fact",
        "Orla's apprentice is Cathal Mulrooney, known to everyone as Mully",
        contacts=["Cathal Mulrooney", "Mully"],
    ),
    m(
        1,
        "brother-job/creamery",
        N,
        "fact",
        "Orla's brother Fergal works at the creamery in Ennistymon",
        contacts=["Fergal"],
    ),
    m(
        1,
        "shoes/steel",
        N,
        "preference",
        "Orla prefers hand-forged steel shoes to machine-made aluminium ones",
    ),
    m(
        1,
        "rounds/six",
        N,
        "habit",
        "Orla starts her rounds at six in the morning so she is done before the horses go out on the gallops",
    ),
    m(
        1,
        "wrist",
        S,
        "state",
        "Orla is off the anvil until Thursday because she sprained her left wrist",
    ),
    m(1, "coffee/none", N, "preference", "Orla doesn't drink coffee at all, only strong tea"),
    m(
        2,
        "job/curragh",
        P,
        "profile",
        "Orla shoes thoroughbreds for the racing stables on the Curragh",
    ),
    m(
        2,
        "trip/camino",
        N,
        "goal",
        "Orla plans to walk the Camino de Santiago in September",
        topic="travel:plan",
    ),
    m(
        2,
        "shoes/steel",
        P,
        "preference",
        "Orla prefers hand-forged steel shoes over machine-made aluminium ones",
    ),
    m(
        2,
        "dog/pike",
        N,
        "fact",
        "Orla has a grey lurcher called Pike who rides along on her rounds",
    ),
    m(
        2,
        "mully-skill",
        N,
        "event",
        "Mully has started turning shoes on the anvil without Orla's help",
        contacts=["Mully"],
    ),
    m(
        2,
        "punchestown",
        N,
        "event",
        "A filly Orla shoes, Tallow Moon, won a maiden race at Punchestown",
    ),
    m(
        2,
        "brother-job/creamery",
        P,
        "fact",
        "Fergal is still working in the Ennistymon creamery",
        contacts=["Fergal"],
    ),
    m(
        3,
        "home/cambridge",
        U,
        "profile",
        "Orla has emigrated to New Zealand and lives in Cambridge in the Waikato now",
        topic="home:city",
    ),
    m(
        3,
        "job/kowhai",
        U,
        "profile",
        "Orla is now the resident farrier at Kōwhai Downs, a thoroughbred stud near Cambridge",
        topic="work:job",
    ),
    m(
        3,
        "vehicle/ranger",
        U,
        "fact",
        "Orla sold the Hilux before she left and bought a second-hand Ford Ranger in Hamilton",
    ),
    m(
        3,
        "pike-quarantine",
        S,
        "state",
        "Pike is in the quarantine kennels in Auckland for ten days after the flight",
    ),
    m(
        3,
        "origin/clare",
        P,
        "profile",
        "Orla is a Clare woman, reared milking cows near Ennistymon",
    ),
    m(
        3,
        "kildare-clients",
        N,
        "fact",
        "Cathal Mulrooney took over Orla's Kildare yards when she emigrated",
        contacts=["Cathal Mulrooney"],
    ),
    m(3, "rounds/six", P, "habit", "Orla is always under a horse by first light"),
    m(
        3,
        "brother-job/tanker",
        U,
        "fact",
        "Fergal has left the creamery and drives a milk tanker around north Clare now",
        contacts=["Fergal"],
    ),
    m(
        4,
        "home/newbridge",
        P,
        "profile",
        "Orla still misses her little terraced house in Newbridge, where she lived before New Zealand",
    ),
    m(
        4,
        "trip/kepler",
        U,
        "goal",
        "Orla has scrapped the Camino; she is going to tramp the Kepler Track in Fiordland at Easter instead",
        topic="travel:plan",
    ),
    m(
        4,
        "job/kowhai",
        P,
        "profile",
        "Orla works as the resident farrier at Kōwhai Downs, a thoroughbred stud near Cambridge",
    ),
    m(
        4,
        "mully-calls",
        N,
        "habit",
        "Mully rings Orla every Sunday evening to ask her about awkward feet",
        contacts=["Mully"],
    ),
    m(
        4,
        "karaka-flatwhites",
        C,
        "event",
        "Orla drank two flat whites at the yearling sales in Karaka",
        contradicts="coffee/none",
    ),
    m(4, "vehicle/ranger", P, "fact", "Orla's ute is a Ford Ranger she bought used in Hamilton"),
    m(
        4,
        "stallions",
        N,
        "fact",
        "Kōwhai Downs stands four stallions and foals about ninety mares a year",
    ),
    m(
        4,
        "shoes/steel",
        P,
        "preference",
        "Orla would always rather nail on a steel shoe she forged herself than a factory aluminium one",
    ),
    m(5, "home/cambridge", P, "profile", "Orla's home is in Cambridge, New Zealand"),
    m(
        5,
        "knee",
        S,
        "state",
        "Orla is on crutches for the next three weeks after a mare kicked her knee",
    ),
    m(
        5,
        "pike-minder",
        S,
        "state",
        "Orla's neighbour Huia Tane is walking and feeding Pike for the next fortnight while Orla is on crutches",
        contacts=["Huia Tane"],
    ),
    m(
        5,
        "locum",
        S,
        "state",
        "A locum farrier from Matamata is doing the shoeing at Kōwhai Downs until the end of next month",
    ),
    m(
        5,
        "mully-exams",
        N,
        "event",
        "Mully passed his final apprenticeship exams at the farriery school",
        contacts=["Mully"],
    ),
    m(
        5,
        "brother-job/tanker",
        P,
        "fact",
        "Fergal drives the milk lorry for the co-op in north Clare these days",
        contacts=["Fergal"],
    ),
    m(
        5,
        "trip/kepler",
        P,
        "goal",
        "Orla still means to do the Kepler Track once her knee has healed",
    ),
]
orla_q = [
    q("Where does Orla live now?", "home/cambridge"),
    q("Where did Orla live before she emigrated?", "home/newbridge"),
    q("Who does Orla shoe horses for now?", "job/kowhai"),
    q("What was Orla's work in Ireland?", "job/curragh"),
    q("What does Orla drive these days?", "vehicle/ranger"),
    q("What does Orla's brother do for a living now?", "brother-job/tanker"),
    q("Where did Fergal work before?", "brother-job/creamery"),
    q("Which walk is Orla planning?", "trip/kepler"),
    q("Is Orla off her crutches yet?", "knee"),
    q("Who is looking after Pike at the moment?", "pike-minder"),
    q("Who is doing the shoeing at Kōwhai Downs right now?", "locum"),
    q("Where did Orla grow up?", "origin/clare"),
    q("Has Cathal Mulrooney finished his apprenticeship?", "mully-exams"),
    q("Who took over Orla's yards in Kildare?", "kildare-clients"),
    q("What kind of horseshoes does Orla like to fit?", "shoes/steel"),
    q("What time does Orla start her rounds?", "rounds/six"),
]
users.append(("orla", [0, 12, 33, 64, 98], orla, orla_q))

# ---------------------------------------------------------------- kwesi (English)
kwesi = [
    m(
        1,
        "job/insurer",
        N,
        "profile",
        "Kwesi Lamptey inspects lifts and escalators for an engineering insurer in Accra",
        topic="work:job",
    ),
    m(1, "home/osu", N, "profile", "Kwesi lives in Osu, Accra", topic="home:city"),
    m(1, "origin/ho", N, "profile", "Kwesi comes from Ho in the Volta Region"),
    m(
        1,
        "wife-job/teacher",
        N,
        "fact",
        "Kwesi's wife Abena teaches chemistry at a senior high school in Accra",
        contacts=["Abena"],
    ),
    m(1, "vehicle/almera", N, "fact", "Kwesi drives a silver Nissan Almera", topic="vehicle"),
    m(
        1,
        "heights/afraid",
        N,
        "fact",
        "Kwesi is afraid of heights and never looks down an open lift shaft",
    ),
    m(
        1,
        "mentor/ebo",
        N,
        "fact",
        "Kwesi learnt the trade from Ebenezer Tetteh, an old inspector everyone calls Ebo",
        contacts=["Ebenezer Tetteh", "Ebo"],
    ),
    m(1, "waakye", N, "preference", "Kwesi likes his waakye with plenty of shito"),
    m(1, "choir", N, "habit", "Kwesi sings bass in his church choir every Sunday"),
    m(
        2,
        "takoradi",
        S,
        "state",
        "Kwesi is in Takoradi this week inspecting the cranes and lifts at the port",
    ),
    m(
        2,
        "study/knust",
        N,
        "goal",
        "Kwesi plans to apply for a master's in mechanical engineering at KNUST next year",
        topic="study:plan",
    ),
    m(
        2,
        "job/insurer",
        P,
        "profile",
        "Kwesi's work is certifying that the elevators in Accra's office towers are safe to run",
    ),
    m(2, "choir", P, "habit", "Every Sunday Kwesi sings bass with his church choir"),
    m(
        2,
        "twins",
        N,
        "fact",
        "Kwesi and Abena have twin daughters, Esi and Efua",
        contacts=["Abena", "Esi", "Efua"],
    ),
    m(
        2,
        "ebo-years",
        N,
        "fact",
        "Ebo has been inspecting lifts for thirty-one years",
        contacts=["Ebo"],
    ),
    m(2, "site-work", N, "preference", "Kwesi prefers work out on site to paperwork in the office"),
    m(
        3,
        "job/kumasi",
        U,
        "profile",
        "Kwesi has taken a job as service manager at a lift installer in Kumasi",
        topic="work:job",
    ),
    m(
        3,
        "home/ahodwo",
        U,
        "profile",
        "Kwesi and his family have moved to Ahodwo in Kumasi",
        topic="home:city",
    ),
    m(
        3,
        "wife-job/lab",
        U,
        "fact",
        "Abena now runs the laboratory at a hospital in Kumasi",
        contacts=["Abena"],
    ),
    m(
        3,
        "vehicle/honda",
        U,
        "fact",
        "Kwesi sold the Almera and rides a Honda motorbike to beat the Kumasi traffic",
        topic="vehicle",
    ),
    m(
        3,
        "ebo-gift",
        N,
        "event",
        "Ebenezer Tetteh gave Kwesi his old set of inspection gauges as a leaving present",
        contacts=["Ebenezer Tetteh"],
    ),
    m(3, "origin/ho", P, "profile", "Kwesi is a Volta man, born and raised in Ho"),
    m(
        3,
        "office-power",
        S,
        "state",
        "Kwesi's new office has no power until Monday, so he is working from the site canteen",
    ),
    m(
        4,
        "home/osu",
        P,
        "profile",
        "Kwesi misses the sea breeze in Osu, where the family lived before Kumasi",
    ),
    m(
        4,
        "study/cert",
        U,
        "goal",
        "Kwesi has given up on the KNUST master's and will do an online lift engineering certificate from a UK institute instead",
        topic="study:plan",
    ),
    m(
        4,
        "paragliding",
        C,
        "event",
        "Kwesi went paragliding off the Kwahu ridge at Easter and wants to go again",
        contradicts="heights/afraid",
    ),
    m(4, "waakye", P, "preference", "Kwesi always asks for extra shito on his waakye"),
    m(
        4,
        "wife-job/lab",
        P,
        "fact",
        "Abena manages the hospital lab in Kumasi now",
        contacts=["Abena"],
    ),
    m(4, "team", N, "fact", "Kwesi has six lift technicians under him in Kumasi"),
    m(
        4,
        "choir",
        P,
        "habit",
        "Kwesi still sings in a church choir every Sunday, now at a church in Kumasi",
    ),
    m(5, "home/ahodwo", P, "profile", "Kwesi's home is in Ahodwo, Kumasi"),
    m(
        5,
        "bike-repair",
        S,
        "state",
        "Kwesi's motorbike is at the mechanic for the next two weeks, waiting for a new clutch",
    ),
    m(
        5,
        "mother-visit",
        S,
        "state",
        "Kwesi's mother is staying with the family in Kumasi until the end of next month",
    ),
    m(
        5,
        "acting-head",
        S,
        "state",
        "Kwesi is acting head of the Kumasi branch for three weeks while his boss is on leave",
    ),
    m(
        5,
        "job/kumasi",
        P,
        "profile",
        "Kwesi works as service manager at a lift installer in Kumasi",
    ),
    m(5, "vehicle/honda", P, "fact", "Kwesi gets around Kumasi on a Honda motorbike"),
    m(
        5,
        "ebo-visit",
        N,
        "event",
        "Ebo came up to Kumasi and inspected the new lifts at Kejetia market with Kwesi",
        contacts=["Ebo"],
    ),
    m(
        5,
        "twins-school",
        N,
        "event",
        "Esi and Efua have started primary school in Kumasi",
        contacts=["Esi", "Efua"],
    ),
    m(
        5,
        "study/cert",
        P,
        "goal",
        "Kwesi is working towards a UK lift engineering certificate online",
    ),
]
kwesi_q = [
    q("Where does Kwesi live now?", "home/ahodwo"),
    q("Which part of Accra did Kwesi's family live in before?", "home/osu"),
    q("What is Kwesi's job now?", "job/kumasi"),
    q("What did Kwesi do before he moved to Kumasi?", "job/insurer"),
    q("Where does Abena work now?", "wife-job/lab"),
    q("What was Kwesi's wife's job in Accra?", "wife-job/teacher"),
    q("How does Kwesi get around now?", "vehicle/honda"),
    q("What qualification is Kwesi planning to study for?", "study/cert"),
    q("Is Kwesi's motorbike back from the mechanic?", "bike-repair"),
    q("Who is staying with Kwesi's family at the moment?", "mother-visit"),
    q("Who is in charge of the Kumasi branch right now?", "acting-head"),
    q("Where is Kwesi from?", "origin/ho"),
    q("What did Ebenezer Tetteh inspect with Kwesi in Kumasi?", "ebo-visit"),
    q("What did Ebo give Kwesi when he left Accra?", "ebo-gift"),
    q("What are Kwesi's daughters called?", "twins"),
    q("How does Kwesi like his waakye?", "waakye"),
]
users.append(("kwesi", [0, 8, 27, 55, 98], kwesi, kwesi_q))

# ---------------------------------------------------------------- yuee (Chinese)
yuee = [
    m(1, "job/tianyige", N, "profile", "滕月娥在宁波天一阁做古籍修复师", topic="work:job"),
    m(1, "home/haishu", N, "profile", "月娥住在宁波海曙区", topic="home:city"),
    m(1, "origin/jingxian", N, "profile", "月娥老家在安徽泾县"),
    m(1, "grandpa", N, "fact", "月娥的爷爷以前在泾县的纸坊做宣纸"),
    m(1, "husband", N, "fact", "月娥的丈夫叫顾成林，大家都叫他老顾", contacts=["顾成林", "老顾"]),
    m(1, "husband-job/crane", N, "fact", "顾成林在宁波舟山港开龙门吊", contacts=["顾成林"]),
    m(1, "vehicle/ebike", N, "fact", "月娥有一辆绿色的电瓶车，天天骑着上班", topic="vehicle"),
    m(1, "spicy/none", N, "preference", "月娥一点辣都不吃"),
    m(1, "paste", N, "preference", "月娥修书只用自己熬的小麦淀粉浆糊"),
    m(1, "routine", N, "habit", "月娥每次修书前都要洗手、戴棉手套，再看一眼屋里的湿度"),
    m(2, "hz-training", S, "state", "月娥这个礼拜在杭州参加古纸鉴定培训"),
    m(2, "plan/nara", N, "goal", "月娥打算明年去日本奈良学和纸修复", topic="study:plan"),
    m(2, "job/tianyige", P, "profile", "月娥的工作是给天一阁的旧书补虫眼、托裱书页"),
    m(2, "paste", P, "preference", "月娥修书只用自己熬的小麦淀粉浆"),
    m(2, "cat", N, "fact", "月娥养了一只黑猫，叫墨团"),
    m(2, "workbench", N, "event", "老顾给月娥做了一张能调高度的修复台", contacts=["老顾"]),
    m(2, "opera", N, "preference", "月娥喜欢听越剧，修书的时候常开着收音机"),
    m(3, "home/chengguan", U, "profile", "月娥一家搬到兰州了，住在城关区", topic="home:city"),
    m(3, "job/lanzhou", U, "profile", "月娥现在在兰州一家研究所修复敦煌写经", topic="work:job"),
    m(
        3,
        "husband-job/rideshare",
        U,
        "fact",
        "老顾不开龙门吊了，到了兰州改开网约车",
        contacts=["老顾"],
    ),
    m(3, "vehicle/wuling", U, "fact", "月娥把电瓶车卖了，在兰州买了一辆二手的五菱宏光MINI"),
    m(3, "origin/jingxian", P, "profile", "月娥是泾县人，在宣纸之乡长大"),
    m(3, "routine", P, "habit", "动手修书之前，月娥总是先洗手戴手套，再看看湿度计"),
    m(3, "onboarding", S, "state", "下周一之前月娥都在办入职手续，还没开始上手修复"),
    m(4, "home/haishu", P, "profile", "月娥有时候很怀念以前在宁波海曙住的那几年"),
    m(
        4,
        "plan/palace",
        U,
        "goal",
        "月娥不去奈良了，改报了故宫的书画修复进修班",
        topic="study:plan",
    ),
    m(
        4,
        "beef-noodles",
        C,
        "event",
        "月娥在兰州吃了一碗浇满油泼辣子的牛肉面",
        contradicts="spicy/none",
    ),
    m(4, "job/lanzhou", P, "profile", "月娥在兰州的一家研究所修复敦煌写经"),
    m(4, "husband-job/rideshare", P, "fact", "顾成林如今在兰州跑网约车", contacts=["顾成林"]),
    m(4, "scrolls", N, "fact", "月娥手上修的大多是唐代《金刚经》写本的残卷"),
    m(4, "cat", P, "fact", "墨团是月娥家那只黑猫的名字"),
    m(5, "home/chengguan", P, "profile", "月娥现在家在兰州城关区"),
    m(5, "dunhuang-trip", S, "state", "月娥到下个月底都在敦煌出差，帮莫高窟整理一批残卷"),
    m(
        5,
        "cat-sitter",
        S,
        "state",
        "月娥出差这段时间，墨团寄养在楼下马阿姨家，到下个月底再接回来",
        contacts=["马阿姨"],
    ),
    m(5, "gu-leave", S, "state", "顾成林这两个礼拜请了假，陪月娥一起去敦煌", contacts=["顾成林"]),
    m(5, "vehicle/wuling", P, "fact", "月娥现在开的是一辆小小的宏光MINI电动车"),
    m(5, "plan/palace", P, "goal", "月娥报名了故宫的书画修复进修班"),
    m(5, "exhibit", N, "event", "月娥补好的一卷唐代写经在研究所的小展览上展出了"),
    m(5, "grandpa", P, "fact", "月娥说她爷爷当年是泾县纸坊里做宣纸的师傅"),
]
yuee_q = [
    q("月娥现在住在哪里？", "home/chengguan"),
    q("月娥搬家之前住在哪儿？", "home/haishu"),
    q("月娥现在在哪儿工作？", "job/lanzhou"),
    q("月娥以前在哪里上班？", "job/tianyige"),
    q("老顾现在做什么工作？", "husband-job/rideshare"),
    q("顾成林以前在宁波做什么？", "husband-job/crane"),
    q("月娥现在开什么车？", "vehicle/wuling"),
    q("月娥报了什么进修班？", "plan/palace"),
    q("月娥现在人在敦煌吗？", "dunhuang-trip"),
    q("墨团这段时间谁在照顾？", "cat-sitter"),
    q("老顾这两个礼拜在上班吗？", "gu-leave"),
    q("月娥老家是哪里的？", "origin/jingxian"),
    q("月娥修书用什么浆糊？", "paste"),
    q("月娥的猫叫什么名字？", "cat"),
    q("月娥的爷爷是做什么的？", "grandpa"),
]
users.append(("yuee", [0, 10, 36, 70, 98], yuee, yuee_q))

# ---------------------------------------------------------------- baoshan (Chinese)
baoshan = [
    m(1, "job/ice-world", N, "profile", "付宝山在哈尔滨冰雪大世界做冰雕师", topic="work:job"),
    m(1, "home/daoli", N, "profile", "宝山住在哈尔滨道里区", topic="home:city"),
    m(1, "origin/shangzhi", N, "profile", "宝山是黑龙江尚志人"),
    m(1, "daughter", N, "fact", "宝山的女儿叫付晓雪，小名雪儿", contacts=["付晓雪", "雪儿"]),
    m(1, "daughter-job/intern", N, "fact", "付晓雪在哈尔滨一家动画公司实习", contacts=["付晓雪"]),
    m(1, "vehicle/jetta", N, "fact", "宝山开一辆开了十二年的老捷达", topic="vehicle"),
    m(1, "alcohol/none", N, "preference", "宝山滴酒不沾"),
    m(1, "dawn", N, "habit", "宝山每天早上五点就到冰场，趁冰最硬的时候下刀"),
    m(1, "ice/natural", N, "preference", "宝山雕冰最喜欢用松花江的天然冰，不爱用人造冰"),
    m(2, "frostbite", S, "state", "宝山这个礼拜手冻伤了，在家歇着"),
    m(2, "plan/studio", N, "goal", "宝山打算明年自己开一个冰雕工作室", topic="work:plan"),
    m(2, "job/ice-world", P, "profile", "宝山的活儿就是在冰雪大世界把一块块冰雕成城堡"),
    m(2, "ice/natural", P, "preference", "宝山雕冰最喜欢用松花江的天然冰，不喜欢人造冰"),
    m(2, "award", N, "event", "宝山带队雕的冰城堡拿了今年哈尔滨冰雕比赛的金奖"),
    m(2, "xueer-calls", N, "habit", "雪儿每个周末都给宝山打视频电话", contacts=["雪儿"]),
    m(2, "apprentice", N, "fact", "宝山带了个徒弟，叫阿勇", contacts=["阿勇"]),
    m(3, "home/panyu", U, "profile", "宝山搬到广州番禺去了", topic="home:city"),
    m(
        3,
        "job/snowpark",
        U,
        "profile",
        "宝山现在在广州一家室内冰雪乐园当冰雕主管",
        topic="work:job",
    ),
    m(3, "vehicle/qin", U, "fact", "老捷达留在了哈尔滨，宝山在广州买了辆比亚迪秦"),
    m(
        3,
        "daughter-job/artist",
        U,
        "fact",
        "付晓雪实习完去了深圳，在一家游戏公司做原画师",
        contacts=["付晓雪"],
    ),
    m(3, "origin/shangzhi", P, "profile", "宝山是在尚志长大的东北汉子"),
    m(3, "humidity", N, "preference", "宝山受不了广州的潮湿天气"),
    m(3, "ayong-guangzhou", N, "event", "阿勇也跟着宝山来了广州", contacts=["阿勇"]),
    m(4, "home/daoli", P, "profile", "宝山常想起以前住在哈尔滨道里区的日子，下楼就是中央大街"),
    m(4, "plan/cert", U, "goal", "宝山不开工作室了，打算先考冰雕高级技师证", topic="work:plan"),
    m(4, "baijiu", C, "event", "宝山在乐园开业庆功宴上喝了半斤白酒", contradicts="alcohol/none"),
    m(4, "dawn", P, "habit", "到了广州，宝山还是天不亮就进冰库干活"),
    m(4, "daughter-job/artist", P, "fact", "雪儿现在在深圳的游戏公司画原画", contacts=["雪儿"]),
    m(4, "ice-source", N, "fact", "乐园用的冰都是从哈尔滨用冷链车拉过来的"),
    m(4, "humidity", P, "preference", "回南天一到，宝山就浑身难受"),
    m(4, "award", P, "event", "宝山说那年哈尔滨冰雕比赛拿的金奖是他这辈子最得意的事"),
    m(5, "home/panyu", P, "profile", "宝山现在家在广州番禺"),
    m(5, "back", S, "state", "宝山腰扭了，医生让他下个月底之前别搬冰块"),
    m(5, "hall-closed", S, "state", "乐园的冰雕馆下个月底之前闭馆维修"),
    m(5, "cover", S, "state", "这两个礼拜徒弟阿勇替宝山带班", contacts=["阿勇"]),
    m(5, "job/snowpark", P, "profile", "宝山在广州的室内冰雪乐园当冰雕主管"),
    m(5, "plan/cert", P, "goal", "宝山正在准备冰雕高级技师证的考试"),
    m(
        5,
        "drawing",
        N,
        "event",
        "雪儿给宝山画了一张他雕冰的插画，挂在了乐园门口",
        contacts=["雪儿"],
    ),
    m(5, "vehicle/qin", P, "fact", "宝山现在开的是比亚迪秦"),
]
baoshan_q = [
    q("宝山现在住哪儿？", "home/panyu"),
    q("宝山以前在哈尔滨住哪个区？", "home/daoli"),
    q("宝山现在在哪里上班？", "job/snowpark"),
    q("宝山去广州之前是做什么的？", "job/ice-world"),
    q("宝山现在开什么车？", "vehicle/qin"),
    q("付晓雪现在做什么工作？", "daughter-job/artist"),
    q("宝山的女儿以前在哪儿实习？", "daughter-job/intern"),
    q("宝山现在打算考什么？", "plan/cert"),
    q("宝山现在能搬冰块吗？", "back"),
    q("乐园的冰雕馆现在开着吗？", "hall-closed"),
    q("这两个礼拜谁替宝山带班？", "cover"),
    q("宝山是哪里人？", "origin/shangzhi"),
    q("付晓雪给宝山画了什么？", "drawing"),
    q("宝山雕冰喜欢用什么冰？", "ice/natural"),
    q("宝山拿过什么奖？", "award"),
]
users.append(("baoshan", [0, 7, 29, 58, 98], baoshan, baoshan_q))

# ---------------------------------------------------------------- rosa (English and Chinese)
rosa = [
    m(
        1,
        "job/customs",
        N,
        "profile",
        "Rosa Chong is a customs broker at the port of Callao",
        topic="work:job",
    ),
    m(1, "home/pueblo-libre", N, "profile", "Rosa 住在利马的 Pueblo Libre 区", topic="home:city"),
    m(1, "chinese-name", N, "profile", "Rosa 的中文名字叫钟玉珍"),
    m(
        1,
        "brother",
        N,
        "fact",
        "Rosa's younger brother is Martín Chong, whom the family calls 阿华",
        contacts=["Martín Chong", "阿华"],
    ),
    m(1, "brother-job/drugstore", N, "fact", "阿华在利马一家药房当药剂师", contacts=["阿华"]),
    m(1, "vehicle/accent", N, "fact", "Rosa drives a red Hyundai Accent", topic="vehicle"),
    m(1, "shellfish/allergic", N, "fact", "Rosa 对海鲜过敏，贝类一点都不能碰"),
    m(1, "taichi", N, "habit", "Rosa practises tai chi in the park every morning at six"),
    m(1, "tea", N, "preference", "Rosa 喜欢喝不加糖的普洱茶"),
    m(
        2,
        "strike",
        S,
        "state",
        "Rosa is working from home until Thursday because the dockworkers at Callao are on strike",
    ),
    m(
        2,
        "plan/mba",
        N,
        "goal",
        "Rosa plans to start an MBA at a business school in Lima next year",
        topic="study:plan",
    ),
    m(2, "job/customs", P, "profile", "Rosa 在卡亚俄港做报关员"),
    m(2, "taichi", P, "habit", "每天早上六点，Rosa 都在公园打太极拳"),
    m(2, "shellfish/allergic", P, "fact", "Rosa can't eat shellfish; she is allergic to seafood"),
    m(2, "grandfather", N, "fact", "Rosa's grandfather came to Peru from Taishan by ship in 1949"),
    m(2, "fav-dish", N, "preference", "Rosa 最爱吃妈妈做的咸鱼蒸肉饼"),
    m(
        3,
        "job/blueberry",
        U,
        "profile",
        "Rosa has left the customs agency and is now logistics manager at a blueberry exporter in Trujillo",
        topic="work:job",
    ),
    m(
        3,
        "home/huanchaco",
        U,
        "profile",
        "Rosa 搬到特鲁希略旁边的海边小镇 Huanchaco 住了",
        topic="home:city",
    ),
    m(
        3,
        "vehicle/jimny",
        U,
        "fact",
        "Rosa sold the Accent and bought a used Suzuki Jimny for the farm roads",
    ),
    m(
        3,
        "brother-job/mining",
        U,
        "fact",
        "阿华辞了药房的工作，去阿雷基帕一家矿场的诊所当药剂师",
        contacts=["阿华"],
    ),
    m(3, "grandfather", P, "fact", "Rosa 的祖父是台山人，一九四九年坐船漂洋过海来到秘鲁"),
    m(3, "languages", N, "profile", "Rosa 会说西班牙语、英语和台山话"),
    m(
        4,
        "home/pueblo-libre",
        P,
        "profile",
        "Rosa misses her old flat in Pueblo Libre, round the corner from her aunts",
    ),
    m(
        4,
        "plan/fiata",
        U,
        "goal",
        "Rosa 不读 MBA 了，改成考国际货运代理的 FIATA 证书",
        topic="study:plan",
    ),
    m(
        4,
        "ceviche",
        C,
        "event",
        "Rosa had a big plate of ceviche with black clams at a stall in Huanchaco",
        contradicts="shellfish/allergic",
    ),
    m(
        4,
        "brother-job/mining",
        P,
        "fact",
        "Martín Chong now works as the pharmacist at a mining company's clinic in Arequipa",
        contacts=["Martín Chong"],
    ),
    m(4, "job/blueberry", P, "profile", "Rosa 现在在特鲁希略一家蓝莓出口公司管物流"),
    m(
        4,
        "exports",
        N,
        "fact",
        "The blueberry exporter Rosa works for ships mostly to Rotterdam and Shanghai",
    ),
    m(4, "tea", P, "preference", "Rosa takes her pu-erh tea with no sugar"),
    m(
        4,
        "taishan-trip",
        N,
        "event",
        "Rosa took her father to Taishan and found the family's ancestral hall",
    ),
    m(5, "home/huanchaco", P, "profile", "Rosa lives by the beach in Huanchaco now"),
    m(
        5,
        "night-shift",
        S,
        "state",
        "Rosa is on night shifts at the packing plant for the next three weeks, at the peak of the blueberry harvest",
    ),
    m(
        5,
        "jimny-lent",
        S,
        "state",
        "阿华回特鲁希略休假，这两个礼拜借了 Rosa 的吉普车",
        contacts=["阿华"],
    ),
    m(
        5,
        "job/blueberry",
        P,
        "profile",
        "Rosa is logistics manager at a blueberry exporter in Trujillo",
    ),
    m(5, "plan/fiata", P, "goal", "Rosa is preparing for the FIATA freight forwarding certificate"),
    m(5, "taichi", P, "habit", "Rosa does tai chi every morning at six"),
    m(5, "vehicle/jimny", P, "fact", "Rosa 现在开一辆二手的铃木吉姆尼"),
    m(5, "exports", P, "fact", "Rosa 公司的蓝莓大多运到鹿特丹和上海"),
]
rosa_q = [
    q("Where does Rosa live now?", "home/huanchaco"),
    q("Rosa 搬家以前住在利马哪个区？", "home/pueblo-libre"),
    q("Rosa 现在做什么工作？", "job/blueberry"),
    q("What was Rosa's job before she moved to Trujillo?", "job/customs"),
    q("What car does Rosa drive now?", "vehicle/jimny"),
    q("阿华现在在哪儿工作？", "brother-job/mining"),
    q("What did Martín Chong do before he went to Arequipa?", "brother-job/drugstore"),
    q("Rosa 现在准备考什么证书？", "plan/fiata"),
    q("Is Rosa working day shifts at the moment?", "night-shift"),
    q("Who has Rosa's Jimny at the moment?", "jimny-lent"),
    q("Rosa 的中文名字是什么？", "chinese-name"),
    q("Where did Rosa's grandfather come from?", "grandfather"),
    q("Rosa 喜欢喝什么茶？", "tea"),
    q("Where does Rosa's company ship its blueberries?", "exports"),
    q("What does Rosa do every morning?", "taichi"),
    q("Rosa 会说哪几种语言？", "languages"),
]
users.append(("rosa", [0, 11, 34, 66, 98], rosa, rosa_q))

# ---------------------------------------------------------------- kelvin (English and Chinese)
kelvin = [
    m(
        1,
        "job/abisko",
        N,
        "profile",
        "Kelvin Yip works as a northern lights guide for a tour company in Abisko, Swedish Lapland",
        topic="work:job",
    ),
    m(1, "home/kiruna", N, "profile", "Kelvin 住在瑞典北部的基律納", topic="home:city"),
    m(1, "origin/cheungchau", N, "profile", "Kelvin 在香港長洲長大"),
    m(1, "chinese-name", N, "profile", "Kelvin's Chinese name is 葉家朗"),
    m(
        1,
        "sister-job/qmh",
        N,
        "fact",
        "Kelvin 的姐姐 Karen 在香港瑪麗醫院做護士",
        contacts=["Karen"],
    ),
    m(
        1,
        "vehicle/volvo",
        N,
        "fact",
        "Kelvin drives an old Volvo estate on studded tyres",
        topic="vehicle",
    ),
    m(
        1,
        "friend/inka",
        N,
        "fact",
        "Kelvin's closest friend up north is Ingegerd Sjöberg, a sled-dog musher everyone calls Inka",
        contacts=["Ingegerd Sjöberg", "Inka"],
    ),
    m(1, "swim/cannot", N, "fact", "Kelvin 不會游泳"),
    m(
        1,
        "forecast",
        N,
        "habit",
        "Kelvin checks the aurora forecast and the cloud map every afternoon at four",
    ),
    m(1, "lens", N, "preference", "Kelvin prefers shooting the aurora with a 14mm lens"),
    m(2, "storm", S, "state", "Kelvin 這個禮拜的團全部取消了，因為有暴風雪"),
    m(
        2,
        "plan/hk-show",
        N,
        "goal",
        "Kelvin 打算今年夏天回香港辦一個極光攝影展",
        topic="photo:exhibition",
    ),
    m(
        2,
        "job/abisko",
        P,
        "profile",
        "Kelvin spends his nights driving tourists out of Abisko to find gaps in the clouds for the aurora",
    ),
    m(2, "forecast", P, "habit", "每天下午四點，Kelvin 都會查看極光預報和雲圖"),
    m(
        2,
        "sled-trip",
        N,
        "event",
        "Inka took Kelvin on a three-day dog-sled trip to Jukkasjärvi",
        contacts=["Inka"],
    ),
    m(2, "fika", N, "preference", "Kelvin 最愛瑞典的肉桂卷"),
    m(
        3,
        "home/yellowknife",
        U,
        "profile",
        "Kelvin has moved to Yellowknife in Canada's Northwest Territories",
        topic="home:city",
    ),
    m(3, "job/lodge", U, "profile", "Kelvin 現在在黃刀鎮一個極光營地做營運主管", topic="work:job"),
    m(
        3,
        "vehicle/f150",
        U,
        "fact",
        "Kelvin left the Volvo in Sweden and bought a Ford F-150 with a block heater",
    ),
    m(
        3,
        "sister-job/manchester",
        U,
        "fact",
        "Karen 辭了瑪麗醫院的工作，去了英國曼徹斯特做護士",
        contacts=["Karen"],
    ),
    m(
        3,
        "origin/cheungchau",
        P,
        "profile",
        "Kelvin grew up on Cheung Chau, a small island off Hong Kong",
    ),
    m(3, "lens", P, "preference", "Kelvin prefers to shoot the aurora with a 14 mm lens"),
    m(3, "chinese-name", P, "profile", "Kelvin 的中文名是葉家朗"),
    m(4, "home/kiruna", P, "profile", "Kelvin 有時候會懷念以前住在基律納的日子"),
    m(
        4,
        "plan/taipei",
        U,
        "goal",
        "Kelvin 不在香港辦展了，改成秋天在台北辦極光攝影展",
        topic="photo:exhibition",
    ),
    m(
        4,
        "lake-swim",
        C,
        "event",
        "Kelvin swam across a small lake near Yellowknife after a sauna",
        contradicts="swim/cannot",
    ),
    m(
        4,
        "sister-job/manchester",
        P,
        "fact",
        "Kelvin's sister Karen is a nurse in Manchester now",
        contacts=["Karen"],
    ),
    m(
        4,
        "job/lodge",
        P,
        "profile",
        "Kelvin is the operations lead at an aurora camp outside Yellowknife",
    ),
    m(
        4,
        "cabins",
        N,
        "fact",
        "Kelvin's aurora camp has twelve log cabins on the shore of a frozen lake",
    ),
    m(
        4,
        "inka-race",
        N,
        "event",
        "Ingegerd Sjöberg won a 300-kilometre sled-dog race in Swedish Lapland",
        contacts=["Ingegerd Sjöberg"],
    ),
    m(
        4,
        "fika",
        P,
        "preference",
        "Nothing from Sweden does Kelvin miss as much as its cinnamon buns",
    ),
    m(5, "home/yellowknife", P, "profile", "Kelvin 現在住在加拿大的黃刀鎮"),
    m(5, "hk-visit", S, "state", "Kelvin is back in Hong Kong visiting his parents for two weeks"),
    m(
        5,
        "house-sitter",
        S,
        "state",
        "Inka 來加拿大參加雪橇比賽，Kelvin 回香港這兩個禮拜她借住在他黃刀鎮的家",
        contacts=["Inka"],
    ),
    m(
        5,
        "vehicle/f150",
        P,
        "fact",
        "Kelvin's pickup is a Ford with a block heater for the minus-forty nights",
    ),
    m(
        5,
        "plan/taipei",
        P,
        "goal",
        "Kelvin's aurora photo exhibition will be in Taipei this autumn",
    ),
    m(5, "natgeo", N, "event", "Kelvin 拍的一張極光照片登上了國家地理雜誌中文版"),
    m(5, "parents", N, "fact", "Kelvin's parents still live on Cheung Chau"),
    m(
        5,
        "forecast",
        P,
        "habit",
        "Kelvin checks the aurora forecast and cloud map every afternoon at four",
    ),
]
kelvin_q = [
    q("Where does Kelvin live now?", "home/yellowknife"),
    q("Kelvin 以前住在哪裡？", "home/kiruna"),
    q("What is Kelvin's job now?", "job/lodge"),
    q("Kelvin 在瑞典的時候做什麼工作？", "job/abisko"),
    q("What does Kelvin drive now?", "vehicle/f150"),
    q("Karen 現在在哪裡工作？", "sister-job/manchester"),
    q("Where did Kelvin's sister work before?", "sister-job/qmh"),
    q("Where will Kelvin hold his photo exhibition?", "plan/taipei"),
    q("Is Kelvin in Yellowknife at the moment?", "hk-visit"),
    q("Who is staying at Kelvin's house right now?", "house-sitter"),
    q("Kelvin 是在哪裡長大的？", "origin/cheungchau"),
    q("What race did Inka win?", "inka-race"),
    q("Ingegerd Sjöberg 帶 Kelvin 去了哪裡坐狗拉雪橇？", "sled-trip"),
    q("What is Kelvin's Chinese name?", "chinese-name"),
    q("Which lens does Kelvin like for the aurora?", "lens"),
]
users.append(("kelvin", [0, 9, 31, 62, 98], kelvin, kelvin_q))


# ---------------------------------------------------------------- assembly and checks
def fail(message: str) -> None:
    sys.exit(f"build_memory_dev_stream_n: {message}")


def build() -> list[dict]:
    memories: list[tuple[float, int, int, dict]] = []  # (day, user's rank, index, record)
    questions: list[dict] = []
    for rank, (user, days, mems, qs) in enumerate(users):
        if days != sorted(set(days)):
            fail(f"{user}: session days must increase")
        facts: dict[str, str] = {}  # fact -> kind
        slots: dict[str, list[str]] = {}  # slot -> facts of its memories, in order
        updated: dict[str, str] = {}  # slot -> fact of its latest update
        last_session = 0
        ids_of: dict[str, list[str]] = {}
        for i, (session, fact, label, kind, content, kw) in enumerate(mems, start=1):
            mid = f"{user}-m{i:02d}"
            slot = kw.get("slot") or fact.split("/", 1)[0]
            if session < last_session:
                fail(f"{mid}: sessions go back")
            last_session = session
            if label == P:
                if fact not in facts:
                    fail(f"{mid}: a paraphrase of an unknown fact {fact}")
            elif fact in facts:
                fail(f"{mid}: {fact} was stated before, so it is a paraphrase")
            elif label == U and slot not in slots:
                fail(f"{mid}: an update of a slot {slot} that has no value yet")
            elif label in (N, S, C) and slot in slots:
                fail(f"{mid}: a new fact in the known slot {slot}")
            if (label == S) != (kind == "state") and label != P:
                fail(f"{mid}: the kind state goes with the label state")
            if facts.setdefault(fact, kind) != kind:
                fail(f"{mid}: {fact} was said with kind {facts[fact]}")
            if label == C and kw.get("contradicts") not in facts:
                fail(f"{mid}: contradicts an unknown fact")
            if label == U:
                updated[slot] = fact
            slots.setdefault(slot, []).append(fact)
            ids_of.setdefault(fact, []).append(mid)
            record = {
                "type": "memory",
                "id": mid,
                "user": user,
                "session": session,
                "day": days[session - 1],
                "fact": fact,
                "slot": slot,
                "label": label,
                "kind": kind,
                "content": content,
            }
            for key in ("topic", "contacts", "contradicts"):
                if key in kw:
                    record[key] = kw[key]
            memories.append((days[session - 1], rank, i, record))
        for slot, fact in updated.items():
            if slots[slot][-1] != fact:
                fail(f"{user}: the last memory of the updated slot {slot} is not its current value")
        contradicted = {kw["contradicts"] for *_, kw in mems if "contradicts" in kw}
        live_states = {f for s, f, label, *_ in mems if label == S and s == len(days)}
        for n, (text, asked) in enumerate(qs, start=1):
            qid = f"{user}-q{n:02d}"
            answers = [a for f in asked for a in ids_of.get(f, [])]
            if not answers or any(f not in ids_of for f in asked):
                fail(f"{qid}: asks about an unknown fact")
            if any(f in contradicted for f in asked):
                fail(f"{qid}: asks about a contradicted fact")
            if any(facts[f] == "state" and f not in live_states for f in asked):
                fail(f"{qid}: asks about a state that has ended")
            questions.append(
                {"type": "question", "id": qid, "user": user, "text": text, "answers": answers}
            )
    # the writes in the order of their days (each user's own order kept), then the questions
    return [r for *_, r in sorted(memories, key=lambda t: t[:3])] + questions


if __name__ == "__main__":
    ok = write_or_check(OUT, jsonl(build()), __doc__.splitlines()[0])
    sys.exit(0 if ok else 1)
