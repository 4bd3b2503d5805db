"""Build bench/data/memory_dev_stream_k.jsonl: stream K, an unseen measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by a helper that read only the format (docs/eval.md up
to its dataset format, the first lines and the questions of stream E, the helper code of
its builder, scripts/jsonl_build.py and the loader in pymem/eval.py), not pymem's word
lists or decision rules, and who never ran pymem on it. Six invented users, other people,
places and jobs than every other stream:

- akosua (English): a cocoa purity clerk in Goaso who moves to a port warehouse in Takoradi
- tevita (English): a vanilla grower on Vava'u who turns game-fishing charter captain in Neiafu
- chunmei (Chinese): 杨春梅, a batik painter in 雷山 who goes to teach batik at a school in 丹寨
- jiawang (Chinese): 罗家旺, an animal-health worker in 元阳 who moves to the livestock station of 红河县
- xiaolan (both): 周晓岚, an anaesthetist of a Chinese medical team in Stone Town, then Pemba
- ruby (both): 骆思雨, a concrete-lab engineer in Port Vila, then a road site engineer on Santo

Each has restatements (some in the other language, some worded far apart, some nearly
verbatim, two of an old value after it changed), updates said in varied ways, temporary
states said as people say them (until Friday, this week, for two weeks, 这两周, 到月底):
one early that has ended by question time and three in the last session that still hold
and are asked about, contacts named two ways, one contradiction, and questions about a
value before it changed. Each question's answers are every memory of the fact it asks
about.

No public dataset is copied.

    python scripts/build_memory_dev_stream_k.py           # write the file
    python scripts/build_memory_dev_stream_k.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import collections
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_k.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days, memories, questions)


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# ---------------------------------------------------------------- akosua (English)
akosua = [
    m(
        1,
        "job/cocoa-clerk",
        N,
        "profile",
        "Akosua works as a purity clerk for a cocoa buying company in Goaso, checking the farmers' beans before they are bagged",
        topic="work:job",
    ),
    m(
        1,
        "home/goaso",
        N,
        "fact",
        "Akosua lives with her aunt in a compound house in Goaso",
        topic="home:area",
    ),
    m(
        1,
        "commute/okada",
        N,
        "habit",
        "Akosua gets to the buying shed every morning on the back of an okada",
        topic="transport:commute",
    ),
    m(
        1,
        "allergy/groundnuts",
        N,
        "fact",
        "Akosua is allergic to groundnuts; even a spoon of groundnut paste makes her lips swell",
        topic="health:allergy",
    ),
    m(
        1,
        "frimpi/co-clerk",
        N,
        "fact",
        "Frimpi is the other clerk at the buying shed and Akosua's closest friend at work",
        contacts=["Frimpi"],
    ),
    m(
        1,
        "sick-until-friday/malaria",
        S,
        "state",
        "Akosua has malaria and is off work until Friday",
    ),
    m(
        1,
        "food/kontomire",
        N,
        "preference",
        "Akosua's favourite meal is kontomire stew with ampesi",
    ),
    m(
        1,
        "job/cocoa-clerk",
        P,
        "profile",
        "At a buying station in Goaso, Akosua cuts open farmers' cocoa beans to test them for mould and moisture",
    ),
    m(
        1,
        "goal/agribusiness-masters",
        N,
        "goal",
        "Akosua hopes to do a part-time master's in agribusiness at the University of Cape Coast",
    ),
    m(
        2,
        "singing-band/thursday",
        N,
        "habit",
        "Akosua sings in her Presbyterian church's singing band and never misses Thursday practice",
        topic="hobby:music",
    ),
    m(
        2,
        "dog/bronya",
        N,
        "fact",
        "Akosua has a brown mongrel called Bronya who follows her everywhere",
        topic="pets:dog",
    ),
    m(
        2,
        "frimpi/co-clerk",
        P,
        "fact",
        "Kwaku Frimpong works alongside Akosua as a purity clerk; they have been friends since school",
        contacts=["Kwaku Frimpong"],
    ),
    m(
        2,
        "draughts/uncle",
        N,
        "habit",
        "On Sunday afternoons Akosua plays draughts with her uncle Yaw under the neem tree",
        contacts=["Yaw"],
    ),
    m(
        2,
        "sister/nutritionist",
        N,
        "fact",
        "Akosua's younger sister Adwoa is training as a nutritionist in Sunyani",
        topic="family:siblings",
        contacts=["Adwoa"],
    ),
    m(2, "home/goaso", P, "fact", "Akosua shares a room in her aunt's compound house in Goaso"),
    m(
        2,
        "food/kontomire",
        P,
        "preference",
        "Give Akosua kontomire stew with boiled yam and plantain and she is happy",
    ),
    m(
        2,
        "waakye/saturday",
        N,
        "habit",
        "Akosua buys waakye from the same roadside seller every Saturday morning",
    ),
    m(
        3,
        "job/takoradi-warehouse",
        U,
        "profile",
        "Akosua has taken a job as a bean grader at a cocoa warehouse at Takoradi port",
        topic="work:job",
    ),
    m(
        3,
        "home/effia",
        U,
        "fact",
        "Akosua now rents a chamber-and-hall in Effia, Takoradi",
        topic="home:area",
    ),
    m(
        3,
        "commute/staff-bus",
        U,
        "habit",
        "The warehouse's staff bus picks Akosua up at the junction each morning",
        topic="transport:commute",
    ),
    m(3, "dog/bronya", P, "fact", "Bronya, Akosua's brown dog, came down to Takoradi with her"),
    m(
        3,
        "draughts/uncle",
        P,
        "habit",
        "Years of Sunday draughts with Uncle Yaw have made Akosua the best player in the family",
        contacts=["Yaw"],
    ),
    m(
        3,
        "job/cocoa-clerk",
        P,
        "profile",
        "Back when she was a purity clerk in Goaso, Akosua could tell a mouldy bean just by the smell of the sack",
    ),
    m(
        3,
        "goal/agribusiness-masters",
        P,
        "goal",
        "Akosua still wants that agribusiness master's from Cape Coast, studying on weekends",
    ),
    m(
        3,
        "sister/nutritionist",
        P,
        "fact",
        "Adwoa, Akosua's sister, is doing her nutrition course in Sunyani",
        contacts=["Adwoa"],
    ),
    m(
        4,
        "singing-band/wednesday-effia",
        U,
        "habit",
        "Akosua has joined the singing band of a church in Effia, and practice there is on Wednesdays",
        topic="hobby:music",
    ),
    m(
        4,
        "groundnut-soup/wedding",
        C,
        "event",
        "Akosua had two bowls of groundnut soup with rice balls at a friend's wedding",
        contradicts="allergy/groundnuts",
    ),
    m(
        4,
        "home/effia",
        P,
        "fact",
        "Akosua's place in Effia is a single room with a little hall, ten minutes from the market",
    ),
    m(
        4,
        "job/takoradi-warehouse",
        P,
        "profile",
        "Akosua checks the grades of export lots before they are loaded onto the ships at Takoradi",
    ),
    m(
        4,
        "home/goaso",
        P,
        "fact",
        "Akosua misses the quiet evenings she had when she lived at her aunt's in Goaso",
    ),
    m(
        4,
        "frimpi/co-clerk",
        P,
        "fact",
        "Frimpi is still a clerk at the Goaso buying shed and phones Akosua every Sunday",
        contacts=["Frimpi"],
    ),
    m(4, "garden-eggs/dislike", N, "preference", "Akosua doesn't like garden eggs in her stew"),
    m(5, "commute/staff-bus", P, "habit", "Akosua rides the warehouse staff bus to work"),
    m(
        5,
        "job/takoradi-warehouse",
        P,
        "profile",
        "Akosua has taken a job as bean grader at a cocoa warehouse in Takoradi port",
    ),
    m(
        5,
        "singing-band/wednesday-effia",
        P,
        "habit",
        "Wednesday evenings are for singing band practice at Akosua's new church in Effia",
    ),
    m(
        5,
        "mother-staying/two-weeks",
        S,
        "state",
        "Akosua's mother has come down from Goaso to stay with her for two weeks after a cataract operation",
        topic="family:parents",
    ),
    m(
        5,
        "nights-this-week/ship-loading",
        S,
        "state",
        "A ship is loading at the port, so Akosua is working nights all this week",
    ),
    m(
        5,
        "bronya-clinic/until-saturday",
        S,
        "state",
        "Bronya is being kept at the animal clinic until Saturday after an okada knocked him down",
    ),
    m(
        5,
        "grading-test/top-mark",
        N,
        "event",
        "Akosua passed the warehouse's grading test with the top mark in her group",
    ),
    m(
        5,
        "uncle/retired-farmer",
        N,
        "fact",
        "Akosua's uncle Yaw is a retired cocoa farmer",
        contacts=["Yaw"],
    ),
]
akosua_q = [
    ("Where does Akosua live now?", ["home/effia"]),
    ("Where does Akosua work at the moment?", ["job/takoradi-warehouse"]),
    ("How does Akosua get to work these days?", ["commute/staff-bus"]),
    ("Which evening is Akosua's singing practice now?", ["singing-band/wednesday-effia"]),
    ("Who is staying with Akosua right now?", ["mother-staying/two-weeks"]),
    ("Is Akosua working days or nights this week?", ["nights-this-week/ship-loading"]),
    ("Where is Bronya at the moment?", ["bronya-clinic/until-saturday"]),
    ("Can Akosua eat groundnuts?", ["allergy/groundnuts"]),
    ("Who is Kwaku Frimpong?", ["frimpi/co-clerk"]),
    ("What job did Akosua have before she moved to Takoradi?", ["job/cocoa-clerk"]),
    ("What is Akosua's favourite meal?", ["food/kontomire"]),
    ("What does Akosua want to study?", ["goal/agribusiness-masters"]),
    ("What is Akosua's sister training to be?", ["sister/nutritionist"]),
    ("What does Akosua do on Sunday afternoons?", ["draughts/uncle"]),
]
users.append(("akosua", [0, 10, 22, 33, 45], akosua, akosua_q))

# ---------------------------------------------------------------- tevita (English)
tevita = [
    m(
        1,
        "job/vanilla",
        N,
        "profile",
        "Tevita grows vanilla on his family's bush allotment on Vava'u",
        topic="work:job",
    ),
    m(
        1,
        "home/leimatua",
        N,
        "fact",
        "Tevita lives in the village of Leimatu'a with his wife Lupe and their two children",
        topic="home:area",
        contacts=["Lupe"],
    ),
    m(
        1,
        "commute/land-cruiser",
        N,
        "habit",
        "Tevita drives his uncle's old Land Cruiser out to the vanilla plot every morning",
    ),
    m(
        1,
        "flying/never",
        N,
        "fact",
        "Tevita has never been on an aeroplane; he always goes between the islands by boat",
    ),
    m(
        1,
        "stay-nukualofa/until-thursday",
        S,
        "state",
        "Tevita is staying with his sister in Nuku'alofa until Thursday for the church conference",
    ),
    m(
        1,
        "kava-band/friday",
        N,
        "habit",
        "Every Friday night Tevita plays the banjo in the string band at the village kava circle",
        topic="hobby:music",
    ),
    m(
        1,
        "food/lu-pulu",
        N,
        "preference",
        "Tevita's favourite dish is lu pulu, taro leaves baked with corned beef and coconut cream",
    ),
    m(
        1,
        "job/vanilla",
        P,
        "profile",
        "Tevita pollinates the vanilla flowers by hand, one by one, on the family plot",
    ),
    m(
        1,
        "goal/marine-licence",
        N,
        "goal",
        "Tevita is studying for his marine licence so he can take paying passengers out beyond the reef",
    ),
    m(
        1,
        "siaosi/boat-owner",
        N,
        "fact",
        "Fo'i, Tevita's cousin, owns two tourist boats in Neiafu harbour",
        contacts=["Fo'i"],
    ),
    m(
        2,
        "daughter/school",
        N,
        "fact",
        "Tevita's daughter Mele boards at a college in Nuku'alofa",
        topic="family:children",
        contacts=["Mele"],
    ),
    m(
        2,
        "siaosi/boat-owner",
        P,
        "fact",
        "Siaosi Taufa runs a couple of tourist boats out of Neiafu; he's Tevita's cousin",
        contacts=["Siaosi Taufa"],
    ),
    m(
        2,
        "volleyball/coach",
        N,
        "habit",
        "Tevita coaches the village girls' volleyball team on Wednesday afternoons",
        topic="hobby:sport",
    ),
    m(
        2,
        "kava-band/friday",
        P,
        "habit",
        "Friday nights Tevita is at the kava circle, playing with the string band",
    ),
    m(
        2,
        "dog/mosi",
        N,
        "fact",
        "Tevita has a black dog called Mosi who sleeps under the Land Cruiser",
    ),
    m(
        2,
        "food/lu-pulu",
        P,
        "preference",
        "Tevita would eat lu pulu every Sunday if Lupe let him",
        contacts=["Lupe"],
    ),
    m(
        2,
        "church/lay-preacher",
        N,
        "profile",
        "Tevita is a lay preacher at the Methodist church in Leimatu'a",
    ),
    m(
        3,
        "job/charter-boat",
        U,
        "profile",
        "Tevita has stopped farming vanilla and now captains a game-fishing charter boat for Fo'i out of Neiafu",
        topic="work:job",
        contacts=["Fo'i"],
    ),
    m(
        3,
        "home/neiafu",
        U,
        "fact",
        "Tevita and his family have moved into a house above the harbour in Neiafu",
        topic="home:area",
    ),
    m(3, "commute/walk", U, "habit", "Tevita walks down the hill to the wharf each morning now"),
    m(
        3,
        "job/vanilla",
        P,
        "profile",
        "Back when Tevita grew vanilla, the whole family helped lay the pods out in the sun to cure",
    ),
    m(
        3,
        "flying/never",
        P,
        "fact",
        "Tevita won't fly; a boat is the only way he'll travel between the islands",
    ),
    m(
        3,
        "goal/marine-licence",
        P,
        "goal",
        "Tevita wants his marine licence so he can take the boat out himself",
    ),
    m(
        3,
        "volleyball/coach",
        P,
        "habit",
        "Tevita trains a girls' volleyball side from the village every Wednesday",
    ),
    m(
        3,
        "marlin/landed",
        N,
        "event",
        "Tevita's passengers landed a blue marlin longer than the boat's deck",
    ),
    m(
        4,
        "flew-tongatapu/funeral",
        C,
        "event",
        "Tevita flew down to Tongatapu on the morning flight for his uncle's funeral",
        contradicts="flying/never",
    ),
    m(
        4,
        "home/neiafu",
        P,
        "fact",
        "Tevita's new house in Neiafu looks straight down over the harbour",
    ),
    m(
        4,
        "job/charter-boat",
        P,
        "profile",
        "Tevita takes visitors out past the reef to troll for marlin and yellowfin",
    ),
    m(
        4,
        "home/leimatua",
        P,
        "fact",
        "Back when they lived in Leimatu'a, Lupe could walk to her mother's in five minutes",
        contacts=["Lupe"],
    ),
    m(
        4,
        "daughter/school",
        P,
        "fact",
        "Mele is at boarding school on Tongatapu",
        contacts=["Mele"],
    ),
    m(4, "watermelon/favourite", N, "preference", "Tevita prefers watermelon to any other fruit"),
    m(
        4,
        "lupe/mats",
        N,
        "fact",
        "Lupe weaves pandanus mats and sells them at the market",
        topic="family:partner",
        contacts=["Lupe"],
    ),
    m(
        5,
        "job/charter-boat",
        P,
        "profile",
        "Tevita now captains a game-fishing charter boat out of Neiafu for his cousin",
    ),
    m(
        5,
        "commute/walk",
        P,
        "habit",
        "Tevita goes to work on foot now; it's only five minutes downhill",
    ),
    m(
        5,
        "boat-hauled-out/two-weeks",
        S,
        "state",
        "The charter boat is hauled out for repainting for the next two weeks, so Tevita isn't taking any trips",
    ),
    m(
        5,
        "mele-home/holidays",
        S,
        "state",
        "Mele is home from boarding school for the long holidays",
        contacts=["Mele"],
    ),
    m(
        5,
        "ankle-crutches/this-week",
        S,
        "state",
        "Tevita twisted his ankle on the wharf and is on crutches this week",
    ),
    m(
        5,
        "licence-written/passed",
        N,
        "event",
        "Tevita passed the written part of his marine licence exam",
    ),
    m(
        5,
        "lupe/mats",
        P,
        "fact",
        "Lupe sells the mats she weaves at the Saturday market in Neiafu",
        contacts=["Lupe"],
    ),
    m(
        5,
        "ota-ika/raw-fish",
        N,
        "preference",
        "Tevita likes his fish raw, as 'ota ika in coconut milk",
    ),
]
tevita_q = [
    ("Where does Tevita live now?", ["home/neiafu"]),
    ("What does Tevita do for a living now?", ["job/charter-boat"]),
    ("How does Tevita get to work these days?", ["commute/walk"]),
    ("Is Tevita taking tourists out this week?", ["boat-hauled-out/two-weeks"]),
    ("Is Mele away at school right now?", ["mele-home/holidays"]),
    ("Can Tevita walk properly at the moment?", ["ankle-crutches/this-week"]),
    ("What does Siaosi Taufa do?", ["siaosi/boat-owner"]),
    ("Which village did Tevita live in before he moved to Neiafu?", ["home/leimatua"]),
    ("What did Tevita do for work before the charter boat?", ["job/vanilla"]),
    ("Would Tevita take a plane?", ["flying/never"]),
    ("What does Tevita do on Friday nights?", ["kava-band/friday"]),
    ("What should I cook for Tevita?", ["food/lu-pulu"]),
    ("Where does Mele go to school?", ["daughter/school"]),
    ("What does Tevita do on Wednesday afternoons?", ["volleyball/coach"]),
    ("Which church does Tevita preach at?", ["church/lay-preacher"]),
]
users.append(("tevita", [0, 8, 21, 35, 47], tevita, tevita_q))

# ---------------------------------------------------------------- chunmei (Chinese)
chunmei = [
    m(
        1,
        "job/leishan-batik",
        N,
        "profile",
        "杨春梅在雷山一家蜡染坊画蜡，干了快十年了",
        topic="work:job",
    ),
    m(
        1,
        "home/leishan",
        N,
        "fact",
        "杨春梅和老公吴国华住在雷山巴拉河边的老房子里",
        topic="home:area",
        contacts=["吴国华"],
    ),
    m(1, "commute/carpool", N, "habit", "杨春梅每天搭同事的顺风车去蜡染坊"),
    m(1, "carsick/long-bus", N, "fact", "杨春梅晕车很厉害，坐不了长途车"),
    m(
        1,
        "wedding-until-monday/rongjiang",
        S,
        "state",
        "杨春梅到下周一都在榕江喝喜酒，蜡染坊那边请了假",
    ),
    m(1, "food/zheergen", N, "preference", "杨春梅特别爱吃凉拌折耳根，顿顿都要有"),
    m(1, "zhenjie/master", N, "fact", "珍姐是杨春梅学蜡染的师傅", contacts=["珍姐"]),
    m(1, "job/leishan-batik", P, "profile", "杨春梅的活儿是在雷山的蜡染坊里用蜡刀往布上画苗族花纹"),
    m(1, "goal/inheritor", N, "goal", "杨春梅想申请成为蜡染技艺的县级传承人"),
    m(
        2,
        "lusheng/saturday",
        N,
        "habit",
        "每周六晚上杨春梅都跟寨子里的芦笙队一起跳芦笙舞",
        topic="hobby:dance",
    ),
    m(2, "dog/ciba", N, "fact", "杨春梅家养了一条叫糍粑的黄土狗"),
    m(2, "zhenjie/master", P, "fact", "潘玉珍手把手教会了杨春梅画蜡", contacts=["潘玉珍"]),
    m(
        2,
        "daughter/archery",
        N,
        "fact",
        "杨春梅的女儿吴小禾在县体校练射箭",
        topic="family:children",
        contacts=["吴小禾"],
    ),
    m(2, "bitter-melon/no", N, "preference", "杨春梅一口苦瓜都不吃"),
    m(2, "food/zheergen", P, "preference", "折耳根是杨春梅最喜欢的菜，凉拌的最好"),
    m(2, "home/leishan", P, "fact", "杨春梅家在雷山，就在巴拉河边上"),
    m(2, "embroidery/evening", N, "habit", "杨春梅晚上看电视的时候喜欢绣花"),
    m(
        3,
        "job/danzhai-school",
        U,
        "profile",
        "杨春梅不在蜡染坊干了，现在去丹寨一所职业学校教学生做蜡染",
        topic="work:job",
    ),
    m(3, "home/danzhai", U, "fact", "杨春梅一家搬到了丹寨，住在学校分的房子里", topic="home:area"),
    m(3, "commute/walk", U, "habit", "现在杨春梅走路去上课，出门五分钟就到学校"),
    m(3, "goal/inheritor", P, "goal", "评上蜡染传承人一直是杨春梅的心愿"),
    m(3, "job/leishan-batik", P, "profile", "以前在雷山蜡染坊画蜡的时候，杨春梅一天要画好几米布"),
    m(
        3,
        "daughter/archery",
        P,
        "fact",
        "小禾在体校是练射箭的，杨春梅很为她骄傲",
        contacts=["小禾"],
    ),
    m(3, "lusheng/saturday", P, "habit", "杨春梅周六晚上雷打不动要去跳芦笙舞"),
    m(3, "batik-prize/second", N, "event", "杨春梅的一幅蜡染作品在州里的比赛拿了二等奖"),
    m(
        4,
        "bus-dongguan/fine",
        C,
        "event",
        "杨春梅坐了十个小时的长途汽车去东莞看她妹妹，一路上一点事都没有",
        contradicts="carsick/long-bus",
    ),
    m(4, "home/danzhai", P, "fact", "现在杨春梅住在丹寨，房子是学校给的"),
    m(4, "job/danzhai-school", P, "profile", "杨春梅在丹寨的职校当蜡染老师"),
    m(4, "home/leishan", P, "fact", "住在雷山那几年，杨春梅每天早上都去巴拉河边洗衣服"),
    m(4, "zhenjie/master", P, "fact", "杨春梅常说她画蜡的本事全是珍姐教的", contacts=["珍姐"]),
    m(
        4,
        "husband/taxi",
        N,
        "fact",
        "吴国华在丹寨开出租车",
        topic="family:partner",
        contacts=["吴国华"],
    ),
    m(4, "rice-wine/homemade", N, "preference", "杨春梅爱喝自家酿的米酒"),
    m(5, "commute/walk", P, "habit", "杨春梅现在上班不用搭车了，走几步就到"),
    m(5, "job/danzhai-school", P, "profile", "杨春梅现在在丹寨一所职业学校教学生做蜡染"),
    m(
        5,
        "daughter-duyun/two-weeks",
        S,
        "state",
        "吴小禾这两周在都匀参加射箭集训，不在家",
        contacts=["吴小禾"],
    ),
    m(5, "wrist-sprain/until-month-end", S, "state", "杨春梅手腕扭伤了，到月底都不能画蜡"),
    m(5, "mother-staying/this-month", S, "state", "这个月杨春梅的妈妈从雷山过来住，帮她做饭带家务"),
    m(5, "students/two-apprentices", N, "event", "杨春梅收了两个学生，周末专门教她们画蜡"),
    m(5, "embroidery/evening", P, "habit", "看电视时杨春梅手里总拿着绣花针"),
    m(5, "dog/ciba", P, "fact", "糍粑跟着杨春梅一家搬到了丹寨"),
]
chunmei_q = [
    ("杨春梅现在住在哪里？", ["home/danzhai"]),
    ("杨春梅现在做什么工作？", ["job/danzhai-school"]),
    ("杨春梅现在怎么去上班？", ["commute/walk"]),
    ("吴小禾这两周在家吗？", ["daughter-duyun/two-weeks"]),
    ("杨春梅这段时间能画蜡吗？", ["wrist-sprain/until-month-end"]),
    ("最近谁在杨春梅家帮忙？", ["mother-staying/this-month"]),
    ("潘玉珍是杨春梅的什么人？", ["zhenjie/master"]),
    ("杨春梅搬到丹寨之前在哪里工作？", ["job/leishan-batik"]),
    ("杨春梅能坐长途车吗？", ["carsick/long-bus"]),
    ("杨春梅最爱吃什么菜？", ["food/zheergen"]),
    ("杨春梅周六晚上一般做什么？", ["lusheng/saturday"]),
    ("小禾练的是什么运动？", ["daughter/archery"]),
    ("杨春梅有什么心愿？", ["goal/inheritor"]),
    ("杨春梅有什么菜不吃？", ["bitter-melon/no"]),
]
users.append(("chunmei", [0, 11, 23, 34, 46], chunmei, chunmei_q))

# ---------------------------------------------------------------- jiawang (Chinese)
jiawang = [
    m(
        1,
        "job/animal-health-worker",
        N,
        "profile",
        "罗家旺在元阳县新街镇当动物防疫员，天天跑寨子给猪牛打针看病",
        topic="work:job",
    ),
    m(1, "home/xinjie", N, "fact", "罗家旺住在新街镇上，家对面就是梯田", topic="home:area"),
    m(1, "commute/on-foot", N, "habit", "罗家旺出诊都是背着药箱走山路去各个寨子"),
    m(1, "dogs/afraid", N, "fact", "罗家旺小时候被狗咬过，到现在还是怕狗"),
    m(1, "training-until-friday/mengzi", S, "state", "罗家旺到周五都在蒙自参加防疫员培训"),
    m(1, "food/rice-field-fish", N, "preference", "罗家旺最爱吃稻田鱼，配一碗红米饭"),
    m(1, "datou/classmate", N, "fact", "大头是罗家旺的发小，在县医院放射科上班", contacts=["大头"]),
    m(1, "job/animal-health-worker", P, "profile", "罗家旺在新街一带给老乡的牲口打针看病"),
    m(1, "goal/animal-husbandry-title", N, "goal", "罗家旺想考畜牧师职称"),
    m(
        2,
        "photos/terraces",
        N,
        "habit",
        "罗家旺一有空就去拍梯田的照片，尤其是日出的时候",
        topic="hobby:photography",
    ),
    m(2, "myna/ahei", N, "fact", "罗家旺养了一只鹩哥，叫阿黑，会说“吃饭了”"),
    m(
        2,
        "datou/classmate",
        P,
        "fact",
        "白云飞和罗家旺是从小一起长大的，现在在县医院给人拍片子",
        contacts=["白云飞"],
    ),
    m(
        2,
        "wife/noodle-shop",
        N,
        "fact",
        "罗家旺的老婆卢春燕在镇上开卷粉店",
        topic="family:partner",
        contacts=["卢春燕"],
    ),
    m(2, "bawu/evenings", N, "habit", "晚饭后罗家旺喜欢坐在门口吹巴乌"),
    m(2, "food/rice-field-fish", P, "preference", "稻田鱼是罗家旺的心头好"),
    m(2, "myna/ahei", P, "fact", "阿黑是罗家旺养的鹩哥，特别会学人说话"),
    m(2, "son/school", N, "fact", "罗家旺的儿子在红河县读初中", topic="family:children"),
    m(
        3,
        "job/honghe-station",
        U,
        "profile",
        "罗家旺调到了红河县畜牧站，不用再在新街跑寨子了",
        topic="work:job",
    ),
    m(3, "home/yisa", U, "fact", "罗家旺一家搬到了红河县的迤萨", topic="home:area"),
    m(
        3,
        "commute/small-truck",
        U,
        "habit",
        "现在罗家旺每天开一辆二手小货车去站里上班",
        topic="transport:commute",
    ),
    m(
        3,
        "job/animal-health-worker",
        P,
        "profile",
        "在新街当防疫员那些年，罗家旺几乎走遍了周围所有的寨子",
    ),
    m(3, "photos/terraces", P, "habit", "罗家旺迷上了拍梯田，手机里存了几千张照片"),
    m(3, "goal/animal-husbandry-title", P, "goal", "罗家旺还在准备畜牧师职称的考试"),
    m(3, "dogs/afraid", P, "fact", "罗家旺一看到大狗就腿软"),
    m(3, "photo-newspaper/published", N, "event", "罗家旺拍的梯田照片登上了州里的报纸"),
    m(
        4,
        "black-dog/carried",
        C,
        "event",
        "罗家旺一个人把邻居家那条大黑狗抱上车，送去打针",
        contradicts="dogs/afraid",
    ),
    m(4, "home/yisa", P, "fact", "罗家旺现在住在迤萨"),
    m(4, "job/honghe-station", P, "profile", "罗家旺现在在县畜牧站上班，管全县牲口的防疫"),
    m(4, "home/xinjie", P, "fact", "以前住新街的时候，罗家旺一开门就能看见满山的梯田"),
    m(4, "wife/noodle-shop", P, "fact", "春燕的卷粉店生意一直不错", contacts=["春燕"]),
    m(4, "mengguo-wine/a-little", N, "preference", "罗家旺不爱喝烈酒，只喝一点自家的焖锅酒"),
    m(4, "bawu/evenings", P, "habit", "罗家旺巴乌吹得很好，晚上常吹给邻居听"),
    m(5, "commute/small-truck", P, "habit", "罗家旺上下班开的是那辆旧小货车"),
    m(5, "job/honghe-station", P, "profile", "罗家旺调到了红河县的畜牧站工作"),
    m(5, "vaccination/two-weeks", S, "state", "这两周站上搞牲口防疫，罗家旺天天下村，晚上都不回家"),
    m(5, "tooth-pulled/these-days", S, "state", "罗家旺这几天牙疼，刚拔了一颗牙，只能吃稀饭"),
    m(
        5,
        "wife-gejiu/month-end",
        S,
        "state",
        "卢春燕带着儿子去个旧她姐家住了，到月底才回来",
        contacts=["卢春燕"],
    ),
    m(5, "skills-contest/first", N, "event", "罗家旺在县里的动物防疫技能比赛上拿了第一名"),
    m(5, "son/school", P, "fact", "罗家旺的儿子在迤萨念初中"),
    m(5, "myna/ahei", P, "fact", "搬家的时候，罗家旺特意把阿黑的笼子放在副驾驶上"),
]
jiawang_q = [
    ("罗家旺现在住在哪儿？", ["home/yisa"]),
    ("罗家旺现在在哪里上班？", ["job/honghe-station"]),
    ("罗家旺现在怎么去上班？", ["commute/small-truck"]),
    ("罗家旺这两周晚上在家吗？", ["vaccination/two-weeks"]),
    ("罗家旺这几天吃东西有什么不方便吗？", ["tooth-pulled/these-days"]),
    ("卢春燕现在在迤萨吗？", ["wife-gejiu/month-end"]),
    ("白云飞是做什么的？", ["datou/classmate"]),
    ("罗家旺调走以前是做什么的？", ["job/animal-health-worker"]),
    ("罗家旺怕狗吗？", ["dogs/afraid"]),
    ("罗家旺最喜欢吃什么？", ["food/rice-field-fish"]),
    ("罗家旺喜欢拍什么照片？", ["photos/terraces"]),
    ("阿黑会说什么话？", ["myna/ahei"]),
    ("罗家旺在准备什么考试？", ["goal/animal-husbandry-title"]),
    ("罗家旺的老婆是做什么的？", ["wife/noodle-shop"]),
]
users.append(("jiawang", [0, 9, 19, 32, 44], jiawang, jiawang_q))

# ---------------------------------------------------------------- xiaolan (mixed)
xiaolan = [
    m(
        1,
        "job/mnazi-anaesthetist",
        N,
        "profile",
        "Xiaolan is an anaesthetist with the Chinese medical team at Mnazi Mmoja Hospital in Stone Town",
        topic="work:job",
    ),
    m(
        1,
        "home/stone-town",
        N,
        "fact",
        "周晓岚住在 Stone Town 医疗队的驻地，和另外五个队员合住一栋楼",
        topic="home:area",
    ),
    m(
        1,
        "commute/team-minibus",
        N,
        "habit",
        "Every morning the team minibus takes Xiaolan from the compound to the hospital",
        topic="transport:commute",
    ),
    m(1, "seafood/hates", N, "preference", "周晓岚从不吃海里的东西，闻到鱼腥味就难受"),
    m(
        1,
        "food-poisoning-this-week/resting",
        S,
        "state",
        "Xiaolan has food poisoning and is resting in the compound this week",
    ),
    m(
        1,
        "juma/orderly",
        N,
        "fact",
        "Mzee Juma is the old orderly in the operating theatre, and he puts Xiaolan's words into Swahili for her patients",
        contacts=["Mzee Juma"],
    ),
    m(
        1,
        "swahili/tuesday",
        N,
        "habit",
        "周晓岚每周二晚上跟一个当地老师学 Swahili",
        topic="hobby:language",
    ),
    m(1, "job/mnazi-anaesthetist", P, "profile", "周晓岚在桑给巴尔的 Mnazi Mmoja 医院当麻醉医生"),
    m(
        1,
        "goal/train-nurses",
        N,
        "goal",
        "Before her two years are up, Xiaolan wants to train a few local nurses to give spinal anaesthesia",
    ),
    m(
        1,
        "mishkaki/favourite",
        N,
        "preference",
        "Xiaolan's favourite street food is mishkaki from the night market at Forodhani",
    ),
    m(
        2,
        "cat/mchele",
        N,
        "fact",
        "周晓岚在驻地收养了一只流浪猫，取名 Mchele，斯瓦希里语里是“米”的意思",
        topic="pets:cat",
    ),
    m(
        2,
        "juma/orderly",
        P,
        "fact",
        "Juma Khamis 是手术室的老护工，晓岚查房时都请他帮忙说斯瓦希里语",
        contacts=["Juma Khamis"],
    ),
    m(
        2,
        "mother/silk-mill-cashier",
        N,
        "fact",
        "Xiaolan's mother was the cashier of a silk mill in 乐山 for thirty years",
        topic="family:parents",
    ),
    m(2, "swahili/tuesday", P, "habit", "Tuesday evenings Xiaolan has her Swahili lesson"),
    m(
        2,
        "seafood/hates",
        P,
        "preference",
        "Xiaolan won't touch anything from the sea; even the smell of fish puts her off",
    ),
    m(2, "snorkel/weekends", N, "habit", "周末有空的时候，周晓岚喜欢去 Nungwi 那边浮潜"),
    m(2, "mishkaki/favourite", P, "preference", "晓岚最爱吃 Forodhani 夜市的 mishkaki 烤肉串"),
    m(
        3,
        "job/pemba",
        U,
        "profile",
        "周晓岚被调到了 Pemba 岛上的 Abdulla Mzee 医院，还是做麻醉",
        topic="work:job",
    ),
    m(
        3,
        "home/mkoani",
        U,
        "fact",
        "Xiaolan has moved to Mkoani on Pemba island",
        topic="home:area",
    ),
    m(3, "commute/walk", U, "habit", "On Pemba Xiaolan just walks to the hospital, 五分钟就到"),
    m(
        3,
        "job/mnazi-anaesthetist",
        P,
        "profile",
        "When she was still at Mnazi Mmoja, Xiaolan sometimes put eight patients to sleep in one day",
    ),
    m(3, "goal/train-nurses", P, "goal", "周晓岚希望回国前能带出几个会做腰麻的当地护士"),
    m(3, "cat/mchele", P, "fact", "Mchele came along to Pemba with Xiaolan in a cardboard box"),
    m(3, "mother/silk-mill-cashier", P, "fact", "晓岚她妈在乐山的丝绸厂做了三十年出纳"),
    m(
        3,
        "torchlight-operation/power-cut",
        N,
        "event",
        "Xiaolan kept a patient asleep through an emergency operation during a power cut, working by torchlight",
    ),
    m(
        4,
        "octopus-curry/chake",
        C,
        "event",
        "周晓岚在 Chake Chake 的海边餐厅吃了一大盘 octopus curry，说特别好吃",
        contradicts="seafood/hates",
    ),
    m(4, "home/mkoani", P, "fact", "周晓岚现在住在奔巴岛的 Mkoani"),
    m(
        4,
        "job/pemba",
        P,
        "profile",
        "Xiaolan is the anaesthetist at Abdulla Mzee Hospital on Pemba now",
    ),
    m(
        4,
        "home/stone-town",
        P,
        "fact",
        "Back in Stone Town, Xiaolan used to fall asleep to the call to prayer from the mosque next to the team compound",
    ),
    m(4, "snorkel/weekends", P, "habit", "Xiaolan goes snorkelling on her free weekends"),
    m(4, "tea/zhuyeqing", N, "preference", "周晓岚只喝家里从乐山寄来的竹叶青"),
    m(
        4,
        "juma/orderly",
        P,
        "fact",
        "Mzee Juma 也跟着去了 Pemba，还是在手术室当护工，帮晓岚跟病人说话",
        contacts=["Mzee Juma"],
    ),
    m(5, "commute/walk", P, "habit", "周晓岚现在走路上班，不用再坐医疗队的车了"),
    m(5, "job/pemba", P, "profile", "周晓岚被调到了 Pemba 岛的 Abdulla Mzee 医院，继续做麻醉"),
    m(
        5,
        "mother-visiting/two-weeks",
        S,
        "state",
        "Xiaolan's mother has flown out from 乐山 and is staying with her for two weeks",
    ),
    m(
        5,
        "theatre-closed/until-monday",
        S,
        "state",
        "医院手术室在修空调，下周一之前所有择期手术都停了",
    ),
    m(
        5,
        "night-duty/month-end",
        S,
        "state",
        "A colleague has gone home early, so Xiaolan covers the night duty every other night until the end of the month",
    ),
    m(
        5,
        "nurses-talk/given",
        N,
        "event",
        "Xiaolan gave a talk on spinal anaesthesia to the nurses of Pemba",
    ),
    m(
        5,
        "swahili/tuesday",
        P,
        "habit",
        "Xiaolan still has her Swahili lesson every Tuesday, now over a video call",
    ),
    m(
        5,
        "word-notebook/ward",
        N,
        "habit",
        "Xiaolan keeps a notebook of new Swahili words she hears on the ward",
    ),
]
xiaolan_q = [
    ("Where does Xiaolan live now?", ["home/mkoani"]),
    ("周晓岚现在在哪家医院工作？", ["job/pemba"]),
    ("How does Xiaolan get to the hospital now?", ["commute/walk"]),
    ("周晓岚的妈妈现在在哪儿？", ["mother-visiting/two-weeks"]),
    ("Can Xiaolan's hospital do planned operations this week?", ["theatre-closed/until-monday"]),
    ("这个月晚上能约周晓岚出来吗？", ["night-duty/month-end"]),
    ("Juma Khamis 是做什么的？", ["juma/orderly"]),
    ("Which hospital did Xiaolan work at before Pemba?", ["job/mnazi-anaesthetist"]),
    ("Does Xiaolan eat fish or shellfish?", ["seafood/hates"]),
    ("周晓岚最喜欢吃什么小吃？", ["mishkaki/favourite"]),
    ("What does Xiaolan do on Tuesday evenings?", ["swahili/tuesday"]),
    ("Mchele 是谁？", ["cat/mchele"]),
    ("What does Xiaolan hope to do before she leaves?", ["goal/train-nurses"]),
    ("周晓岚周末喜欢去哪里玩？", ["snorkel/weekends"]),
]
users.append(("xiaolan", [0, 12, 24, 36, 48], xiaolan, xiaolan_q))

# ---------------------------------------------------------------- ruby (mixed)
ruby = [
    m(
        1,
        "job/concrete-lab",
        N,
        "profile",
        "Ruby runs the concrete testing lab for the wharf extension project in Port Vila",
        topic="work:job",
    ),
    m(
        1,
        "home/nambatu",
        N,
        "fact",
        "骆思雨在 Port Vila 的 Nambatu 租了一间房，楼下是一家杂货店",
        topic="home:area",
    ),
    m(
        1,
        "commute/b-bus",
        N,
        "habit",
        "Ruby gets to the site on the little minibuses with a B on the number plate",
    ),
    m(1, "alcohol/never", N, "fact", "骆思雨滴酒不沾，聚会上只喝椰子水"),
    m(
        1,
        "cyclone-until-sunday/site-shut",
        S,
        "state",
        "Because of the cyclone warning the site is shut, and Ruby is stuck at home until Sunday",
    ),
    m(
        1,
        "papa-wil/foreman",
        N,
        "fact",
        "Papa Wil is the local foreman on Ruby's site; he taught her her first words of Bislama",
        contacts=["Papa Wil"],
    ),
    m(
        1,
        "hulusi/evenings",
        N,
        "habit",
        "Ruby plays the 葫芦丝 for half an hour every evening",
        topic="hobby:music",
    ),
    m(1, "job/concrete-lab", P, "profile", "骆思雨在维拉港的码头扩建项目上管混凝土试验室"),
    m(1, "goal/structural-engineer", N, "goal", "Ruby 想在三十岁之前考下注册结构工程师"),
    m(
        1,
        "laplap/favourite",
        N,
        "preference",
        "Ruby's favourite local dish is lap lap, grated yam baked in coconut cream",
    ),
    m(
        2,
        "kitten/pamplemousse",
        N,
        "fact",
        "Ruby adopted a ginger kitten and named it Pamplemousse",
        topic="pets:cat",
    ),
    m(
        2,
        "papa-wil/foreman",
        P,
        "fact",
        "工地上的工头 Wilson Kalo 人特别好，Ruby 的 Bislama 都是跟他学的",
        contacts=["Wilson Kalo"],
    ),
    m(
        2,
        "boyfriend/chemistry",
        N,
        "fact",
        "骆思雨的男朋友哲哥在宜宾一所高中教化学",
        topic="family:partner",
        contacts=["哲哥"],
    ),
    m(2, "hulusi/evenings", P, "habit", "骆思雨每天晚上都要吹一会儿葫芦丝"),
    m(2, "alcohol/never", P, "fact", "Ruby doesn't drink at all, not even a sip at parties"),
    m(2, "laplap/favourite", P, "preference", "骆思雨最爱吃当地的 lap lap"),
    m(2, "hometown/yibin", N, "fact", "Ruby grew up in 宜宾, by the Yangtze"),
    m(
        3,
        "job/santo-road",
        U,
        "profile",
        "Ruby has been moved to Espiritu Santo as site engineer on the East Coast road upgrade",
        topic="work:job",
    ),
    m(
        3,
        "home/luganville",
        U,
        "fact",
        "骆思雨搬到了 Luganville，住在公司租的平房里",
        topic="home:area",
    ),
    m(
        3,
        "commute/company-ute",
        U,
        "habit",
        "Ruby now drives the company ute out to site every morning",
        topic="transport:commute",
    ),
    m(
        3,
        "boyfriend/chemistry",
        P,
        "fact",
        "Han Zhe, Ruby's boyfriend, is back in 宜宾 teaching 化学 at a senior high",
        contacts=["Han Zhe"],
    ),
    m(
        3,
        "job/concrete-lab",
        P,
        "profile",
        "以前在 Port Vila 管试验室的时候，Ruby 每天要压几十个混凝土试块",
    ),
    m(
        3,
        "goal/structural-engineer",
        P,
        "goal",
        "Ruby is studying for the registered structural engineer exam, hoping to pass before she turns thirty",
    ),
    m(3, "kitten/pamplemousse", P, "fact", "Pamplemousse 跟着 Ruby 搬到了 Santo"),
    m(
        3,
        "first-kilometre/ahead",
        N,
        "event",
        "Ruby's team finished the first kilometre of new road on Santo ahead of schedule",
    ),
    m(
        4,
        "tusker-barbecue/two-bottles",
        C,
        "event",
        "At the Friday barbecue Ruby drank two bottles of Tusker with the site crew",
        contradicts="alcohol/never",
    ),
    m(4, "home/luganville", P, "fact", "Ruby lives in Luganville these days"),
    m(4, "job/santo-road", P, "profile", "骆思雨现在是 Santo 东海岸公路项目的现场工程师"),
    m(
        4,
        "home/nambatu",
        P,
        "fact",
        "Back when she lived in Nambatu, Ruby could walk down to the seafront market for breakfast",
    ),
    m(
        4,
        "papa-wil/foreman",
        P,
        "fact",
        "Papa Wil 还在 Port Vila 的码头工地当工头",
        contacts=["Papa Wil"],
    ),
    m(4, "ranmian/misses", N, "preference", "Ruby misses 燃面 from home more than anything"),
    m(
        4,
        "sunday-call/boyfriend",
        N,
        "habit",
        "Ruby 每个星期天晚上都跟哲哥打电话",
        contacts=["哲哥"],
    ),
    m(5, "commute/company-ute", P, "habit", "骆思雨现在每天自己开公司的车去工地"),
    m(
        5,
        "job/santo-road",
        P,
        "profile",
        "Ruby has been moved to Espiritu Santo as the site engineer on the East Coast road upgrade",
    ),
    m(
        5,
        "boyfriend-visit/two-weeks",
        S,
        "state",
        "哲哥来 Santo 看 Ruby 了，这两周都住在她那儿",
        contacts=["哲哥"],
    ),
    m(
        5,
        "landslide/ten-days",
        S,
        "state",
        "A landslide has closed the site road, so Ruby's crew can't pour any concrete for the next ten days",
    ),
    m(5, "coral-cut/this-week", S, "state", "骆思雨脚被珊瑚划伤感染了，这周在吃抗生素，不能下海"),
    m(
        5,
        "bislama-briefing/first",
        N,
        "event",
        "Ruby gave the crew's safety briefing in Bislama for the first time, and they clapped",
    ),
    m(
        5,
        "hulusi/evenings",
        P,
        "habit",
        "Ruby 晚上吹葫芦丝, and the neighbours have got used to it",
    ),
    m(5, "only-child/yes", N, "fact", "骆思雨是家里的独生女"),
]
ruby_q = [
    ("Where does Ruby live now?", ["home/luganville"]),
    ("骆思雨现在在哪个项目上？", ["job/santo-road"]),
    ("How does Ruby get to site these days?", ["commute/company-ute"]),
    ("Is Han Zhe with Ruby at the moment?", ["boyfriend-visit/two-weeks"]),
    ("Ruby 的工地这几天能浇混凝土吗？", ["landslide/ten-days"]),
    ("Can Ruby go swimming this week?", ["coral-cut/this-week"]),
    ("Wilson Kalo 是谁？", ["papa-wil/foreman"]),
    ("What was Ruby's job in Port Vila before she moved?", ["job/concrete-lab"]),
    ("Does Ruby drink alcohol?", ["alcohol/never"]),
    ("骆思雨最喜欢吃当地的什么？", ["laplap/favourite"]),
    ("What instrument does Ruby play?", ["hulusi/evenings"]),
    ("Ruby 的猫叫什么名字？", ["kitten/pamplemousse"]),
    ("哲哥是做什么工作的？", ["boyfriend/chemistry"]),
    ("Ruby 想考什么证？", ["goal/structural-engineer"]),
]
users.append(("ruby", [0, 10, 20, 33, 43], ruby, ruby_q))

# ---------------------------------------------------------------- emit + checks
out = []
errors = []
per_user = []
label_counts = collections.Counter()
for user, days, mems, qs in users:
    seen_facts = {}  # fact -> first label
    slot_latest = {}
    ids_by_fact = collections.defaultdict(list)
    last_session = 0
    contents = set()
    states = []  # (session, fact)
    for i, (session, fact, label, kind, content, kw) in enumerate(mems, 1):
        mid = f"{user}-m{i:02d}"
        slot = fact.split("/", 1)[0]
        if session < last_session:
            errors.append(f"{mid} session order")
        last_session = session
        if content in contents:
            errors.append(f"{mid} repeats a text")
        contents.add(content)
        if label == P:
            if fact not in seen_facts:
                errors.append(f"{mid} paraphrase of unknown fact {fact}")
        elif label == U:
            if slot not in slot_latest or fact in seen_facts:
                errors.append(f"{mid} bad update {fact}")
        else:
            if fact in seen_facts:
                errors.append(f"{mid} {label} reuses fact {fact}")
            if slot in slot_latest and label != U:
                errors.append(f"{mid} {label} reuses slot {slot}")
        if label == S and kind != "state":
            errors.append(f"{mid} state kind")
        if kind == "state" and label != S:
            errors.append(f"{mid} state label")
        if label == C and kw.get("contradicts") not in seen_facts:
            errors.append(f"{mid} contradicts unknown")
        if label == S:
            states.append((session, fact))
        if label in (N, U, S, C):
            slot_latest[slot] = fact
        seen_facts.setdefault(fact, label)
        ids_by_fact[fact].append(mid)
        label_counts[label] += 1
        rec = {
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
        for k in ("topic", "contacts", "contradicts"):
            if k in kw:
                rec[k] = kw[k]
        out.append(rec)
    # one early state that has ended, three in the last session that still hold and are asked about
    last = max(s for s, *_ in mems)
    live_states = [f for s, f in states if s == last]
    if len(live_states) != 3 or len(states) != 4 or min(s for s, _ in states) != 1:
        errors.append(f"{user} states {states}")
    asked = {f for _, facts in qs for f in facts}
    for f in live_states:
        if f not in asked:
            errors.append(f"{user} live state {f} not asked")
    if sum(label == C for _, _, label, *_ in mems) != 1:
        errors.append(f"{user} needs one contradiction")
    # a question about a value before it changed: a fact of an updated slot that is not its latest
    old_values = {f for f in seen_facts if slot_latest[f.split("/", 1)[0]] != f}
    if not asked & old_values:
        errors.append(f"{user} asks about no earlier value")
    for j, (text, facts) in enumerate(qs, 1):
        answers = []
        for f in facts:
            if f not in ids_by_fact:
                errors.append(f"{user}-q{j:02d} unknown fact {f}")
            answers += ids_by_fact[f]
        out.append(
            {
                "type": "question",
                "id": f"{user}-q{j:02d}",
                "user": user,
                "text": text,
                "answers": answers,
            }
        )
    per_user.append((user, len(mems), len(seen_facts), len(qs)))

if errors:
    print("\n".join(errors))
    raise SystemExit(1)
if not write_or_check(OUT, jsonl(out), "Build stream K, a measure for pymem eval."):
    raise SystemExit(1)
for user, n_mem, n_fact, n_q in per_user:
    print(f"{user}: {n_mem} memories of {n_fact} facts, {n_q} questions")
print(
    f"{sum(u[1] for u in per_user)} memories, {sum(u[3] for u in per_user)} questions;",
    ", ".join(f"{n} {label}" for label, n in sorted(label_counts.items())),
)
print("written", len(out))
