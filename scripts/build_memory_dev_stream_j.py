"""Build bench/data/memory_dev_stream_j.jsonl: stream J, a measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by a helper that read only the format (docs/eval.md up to
its dataset format, the first lines and the questions of stream E, the helper code of its
builder, scripts/jsonl_build.py and the loader in pymem/eval.py), not pymem's decision
rules, word lists or SQL, nor streams F to I, and that never ran pymem on it. Six invented
users, with people, places, jobs, pets, foods and hobbies found in no other file of
bench/data or pymem/data:

- doina (English): Doina Rusu, a cellar master at Cricova in Moldova who moves south to run a small wine house near Purcari.
- nayra (English): Nayra Mamani, a teleférico maintenance technician in El Alto who moves to the control room and to Sopocachi.
- zheng (Chinese): 郑立峰, a crane-reserve ranger at 扎龙 who moves into 齐齐哈尔 to work at a bird rescue centre.
- yizhen (Chinese): 蔡宜蓁, a temple painter in 台南 who moves to 花莲 to lead a temple's repainting.
- wenbo (both): 戴文博, a Chinese railway track engineer near Novi Sad, promoted to run the Subotica section.
- rocio (both): 廖若曦, Rocío, who leaves her family's phone shop in Ciudad del Este for an embassy job in Asunción.

Each has restatements (some in the other language, some worded far apart, some nearly
verbatim, two of an old value after it changed), updates said in varied ways, temporary
states said as people say them (this week, until Friday, 这个礼拜, 到月底; an early one
that has ended by question time, three in the last session that still hold and are asked
about), contacts named two ways, one contradiction, and questions about current values,
the live states, stable facts, an alias and values before they changed. Each question's
answers are every memory of the fact it asks about.

No public dataset is copied.

    python scripts/build_memory_dev_stream_j.py           # write the file
    python scripts/build_memory_dev_stream_j.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import collections
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_j.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days, memories, questions)


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# ---------------------------------------------------------------- doina (English)
doina = [
    m(
        1,
        "job/cricova-cellar",
        N,
        "profile",
        "Doina is a cellar master at Cricova, in charge of the sparkling wines aged in its underground tunnels",
        topic="work:job",
    ),
    m(
        1,
        "home/botanica",
        N,
        "fact",
        "Doina lives in a flat in the Botanica district of Chișinău",
        topic="home:area",
    ),
    m(
        1,
        "commute/staff-bus",
        N,
        "habit",
        "Doina takes the staff bus from Chișinău out to Cricova every morning",
        topic="transport:commute",
    ),
    m(1, "licence/none", N, "fact", "Doina has never had a driving licence"),
    m(1, "dog/zmeu", N, "fact", "Doina has a Carpathian shepherd dog called Zmeu", topic="pets"),
    m(
        1,
        "bucharest-until-friday/bottling-fair",
        S,
        "state",
        "Doina is at a bottling fair in Bucharest until Friday",
    ),
    m(
        1,
        "job/cricova-cellar",
        P,
        "profile",
        "Doina works down in the Cricova cellars, where the sparkling wine is her responsibility",
    ),
    m(
        1,
        "food/placinta",
        N,
        "preference",
        "Doina's favourite food is plăcintă filled with brânză, the salty sheep's cheese",
    ),
    m(
        1,
        "brother/vitea",
        N,
        "fact",
        "Doina's younger brother Vitea is a blacksmith in Orhei",
        contacts=["Vitea"],
    ),
    m(
        1,
        "goal/sparkling-house",
        N,
        "goal",
        "Doina dreams of opening her own small wine house that makes only sparkling wine",
    ),
    m(
        2,
        "music/ensemble-thursday",
        N,
        "habit",
        "Doina plays the pan flute in a traditional music ensemble that rehearses on Thursday evenings in Chișinău",
        topic="hobby:music",
    ),
    m(
        2,
        "grew-up/trebujeni",
        N,
        "profile",
        "Doina grew up in Trebujeni, a village in the valley below Old Orhei",
    ),
    m(
        2,
        "brother/vitea",
        P,
        "fact",
        "Vitalie Rusu, Doina's brother, has his own smithy in Orhei, where he forges gates and railings",
        contacts=["Vitalie Rusu"],
    ),
    m(
        2,
        "harvest-this-month/long-days",
        S,
        "state",
        "It's harvest, so Doina is working twelve-hour days for the rest of this month",
    ),
    m(
        2,
        "tea/linden",
        N,
        "preference",
        "In the evenings Doina prefers linden-blossom tea to a glass of wine",
    ),
    m(
        2,
        "home/botanica",
        P,
        "fact",
        "Doina rents an apartment in Chișinău's Botanica neighbourhood",
    ),
    m(
        2,
        "medal/feteasca-gold",
        N,
        "event",
        "A Fetească Neagră that Doina made won a gold medal at a national wine contest",
    ),
    m(
        2,
        "daughter/mirela-iasi",
        N,
        "fact",
        "Doina's daughter Mirela studies set design in Iași",
        contacts=["Mirela"],
        topic="family:children",
    ),
    m(
        2,
        "food/placinta",
        P,
        "preference",
        "Nothing makes Doina happier than a cheese plăcintă baked the way her grandmother did it",
    ),
    m(
        3,
        "job/purcari-head",
        U,
        "profile",
        "Doina has left Cricova and become head winemaker at a small family wine house near Purcari, in the south",
        topic="work:job",
    ),
    m(
        3,
        "home/purcari",
        U,
        "fact",
        "Doina moved out of Chișinău to a house in the village of Purcari",
        topic="home:area",
    ),
    m(
        3,
        "music/ensemble-thursday",
        P,
        "habit",
        "Every Thursday evening Doina rehearses with her ensemble in Chișinău, playing the nai",
    ),
    m(3, "dog/zmeu", P, "fact", "Doina's dog Zmeu is a Carpathian shepherd"),
    m(3, "languages/three", N, "fact", "Doina speaks Romanian, Russian and fairly good Ukrainian"),
    m(
        3,
        "daughter/mirela-iasi",
        P,
        "fact",
        "Mirela Rusu, Doina's daughter, is a set design student at the arts university in Iași",
        contacts=["Mirela Rusu"],
    ),
    m(
        3,
        "job/cricova-cellar",
        P,
        "profile",
        "Back when she ran the Cricova cellars, Doina used to joke that she only saw daylight at weekends",
    ),
    m(
        3,
        "tea/linden",
        P,
        "preference",
        "A cup of tei, linden-flower tea, is what Doina drinks before bed",
    ),
    m(
        4,
        "commute/walk-vines",
        U,
        "habit",
        "Now that she lives in Purcari, Doina simply walks through the vineyard to work",
        topic="transport:commute",
    ),
    m(
        4,
        "music/school-saturday",
        U,
        "habit",
        "Doina has dropped the Chișinău ensemble; on Saturday mornings she teaches pan flute to the children at the village school",
        topic="hobby:music",
    ),
    m(
        4,
        "van-odesa/drove",
        C,
        "event",
        "Doina drove the wine house's van to Odesa herself to deliver forty cases of wine",
        contradicts="licence/none",
    ),
    m(
        4,
        "home/botanica",
        P,
        "fact",
        "When Doina still lived in Botanica she bought her vegetables at the Piața Centrală every Sunday",
    ),
    m(
        4,
        "job/purcari-head",
        P,
        "profile",
        "At the Purcari family wine house Doina is the one who decides every blend",
    ),
    m(
        4,
        "home/purcari",
        P,
        "fact",
        "Doina lives in Purcari now, in an old stone house with a walnut tree in the yard",
    ),
    m(
        4,
        "grew-up/trebujeni",
        P,
        "profile",
        "Doina spent her childhood in Trebujeni near Orheiul Vechi",
    ),
    m(
        4,
        "exhibition/mirela",
        N,
        "event",
        "Doina went up to Iași for Mirela's first exhibition of stage models",
        contacts=["Mirela"],
    ),
    m(
        5,
        "tbilisi-this-week/judging",
        S,
        "state",
        "Doina is in Tbilisi this week judging at a wine competition and flies back on Sunday",
    ),
    m(
        5,
        "zmeu-with-vitea/while-away",
        S,
        "state",
        "While Doina is away, Zmeu is staying with Vitea in Orhei",
        contacts=["Vitea"],
    ),
    m(
        5,
        "press-broken/until-part",
        S,
        "state",
        "The grape press at Doina's wine house has broken down and won't work until the spare part comes from Italy, probably next week",
    ),
    m(
        5,
        "commute/walk-vines",
        P,
        "habit",
        "Doina's commute these days is a ten-minute stroll between the rows of vines",
    ),
    m(
        5,
        "music/school-saturday",
        P,
        "habit",
        "On Saturdays Doina teaches the village kids to play the nai",
    ),
    m(
        5,
        "goal/sparkling-house",
        P,
        "goal",
        "One day Doina wants a little wine house of her own that makes nothing but sparkling wine",
    ),
]
doina_q = [
    ("Where does Doina work now?", ["job/purcari-head"]),
    ("Where does Doina live these days?", ["home/purcari"]),
    ("How does Doina get to work now?", ["commute/walk-vines"]),
    ("What does Doina do on Saturday mornings?", ["music/school-saturday"]),
    ("Is Doina in Moldova this week?", ["tbilisi-this-week/judging"]),
    ("Who is looking after Zmeu right now?", ["zmeu-with-vitea/while-away"]),
    ("Can they press grapes at Doina's wine house at the moment?", ["press-broken/until-part"]),
    ("What does Vitalie Rusu do for a living?", ["brother/vitea"]),
    ("Does Doina have a driving licence?", ["licence/none"]),
    ("What kind of dog does Doina have?", ["dog/zmeu"]),
    ("What's Doina's favourite dish?", ["food/placinta"]),
    ("Where did Doina work before she moved south?", ["job/cricova-cellar"]),
    ("Which part of Chișinău did Doina live in before?", ["home/botanica"]),
    ("What is Mirela studying?", ["daughter/mirela-iasi"]),
    ("What does Doina like to drink in the evening?", ["tea/linden"]),
]
users.append(("doina", [0, 11, 23, 34, 47], doina, doina_q))

# ---------------------------------------------------------------- nayra (English)
nayra = [
    m(
        1,
        "job/teleferico-tech",
        N,
        "profile",
        "Nayra is a maintenance technician on the Red Line of the teleférico, the cable car between La Paz and El Alto",
        topic="work:job",
    ),
    m(
        1,
        "home/villa-adela",
        N,
        "fact",
        "Nayra lives with her grandmother in Villa Adela, in El Alto",
        topic="home:area",
    ),
    m(
        1,
        "commute/red-line",
        N,
        "habit",
        "Nayra rides the Red Line cabins down to the station where her shift starts",
        topic="transport:commute",
    ),
    m(1, "alcohol/none", N, "fact", "Nayra doesn't drink alcohol at all"),
    m(
        1,
        "abuela/api-stall",
        N,
        "fact",
        "Nayra's grandmother Tomasa sells hot api and buñuelos from a stall at the 16 de Julio feria",
        contacts=["Tomasa"],
    ),
    m(
        1,
        "night-shifts-this-week/inspections",
        S,
        "state",
        "Nayra is on night shifts this week doing the line inspections",
    ),
    m(
        1,
        "food/saltena",
        N,
        "preference",
        "Nayra's favourite breakfast is a juicy beef salteña from the bakery by her stop",
    ),
    m(1, "cat/chuspi", N, "fact", "Nayra has a black cat called Chuspi", topic="pets"),
    m(
        1,
        "job/teleferico-tech",
        P,
        "profile",
        "Nayra keeps the cabins and towers of the teleférico's Red Line in working order",
    ),
    m(
        1,
        "goal/engineer-umsa",
        N,
        "goal",
        "Nayra studies electrical engineering at night at UMSA and wants to graduate as an engineer",
    ),
    m(
        2,
        "sunday/wrestling",
        N,
        "habit",
        "On Sunday afternoons Nayra goes to watch the cholita wrestling in El Alto",
        topic="hobby",
    ),
    m(
        2,
        "partner/efra",
        N,
        "fact",
        "Nayra's boyfriend Efra builds charangos in a small workshop on Calle Sagárnaga",
        contacts=["Efra"],
    ),
    m(
        2,
        "abuela/api-stall",
        P,
        "fact",
        "Doña Tomasa Condori, Nayra's abuela, has a stand at the 16 de Julio feria where she sells api with buñuelos",
        contacts=["Tomasa Condori"],
    ),
    m(
        2,
        "llajwa/everything",
        N,
        "preference",
        "Nayra puts llajwa, the spicy tomato sauce, on almost everything she eats",
    ),
    m(2, "home/villa-adela", P, "fact", "Nayra shares a house in Villa Adela with her abuela"),
    m(
        2,
        "safety-award/tower-12",
        N,
        "event",
        "Nayra got a safety award after she spotted a worn grip on tower 12",
    ),
    m(2, "cat/chuspi", P, "fact", "Chuspi, Nayra's cat, is black all over"),
    m(
        2,
        "sister/wara-cochabamba",
        N,
        "fact",
        "Nayra's younger sister Wara is studying tourism in Cochabamba",
        contacts=["Wara"],
    ),
    m(2, "food/saltena", P, "preference", "Nayra can't start her day without a salteña"),
    m(
        3,
        "job/control-room",
        U,
        "profile",
        "Nayra has been promoted off the maintenance crew; she now supervises the Red Line from the control room",
        topic="work:job",
    ),
    m(
        3,
        "home/sopocachi",
        U,
        "fact",
        "Nayra has moved down from El Alto to a flat in Sopocachi",
        topic="home:area",
    ),
    m(
        3,
        "partner/efra",
        P,
        "fact",
        "Efraín Quispe, Nayra's partner, makes charangos by hand on Sagárnaga street",
        contacts=["Efraín Quispe"],
    ),
    m(
        3,
        "goal/engineer-umsa",
        P,
        "goal",
        "Becoming an electrical engineer is Nayra's big goal, so she takes classes at the public university in the evenings",
    ),
    m(
        3,
        "sunday/wrestling",
        P,
        "habit",
        "Nayra loves spending her Sundays at the cholitas' wrestling matches",
    ),
    m(
        3,
        "racquetball/wednesday",
        N,
        "habit",
        "Nayra plays racquetball with her workmates on Wednesday nights",
    ),
    m(
        3,
        "job/teleferico-tech",
        P,
        "profile",
        "Back when she was on the maintenance crew, Nayra had to climb the towers in a harness twice a week",
    ),
    m(
        3,
        "born/achacachi",
        N,
        "profile",
        "Nayra was born in Achacachi, not far from the shore of Titicaca",
    ),
    m(
        4,
        "commute/minibus",
        U,
        "habit",
        "These days Nayra gets to work by minibus",
        topic="transport:commute",
    ),
    m(
        4,
        "sunday/morenada",
        U,
        "habit",
        "Nayra has given up the wrestling matches; her Sundays now go on rehearsing morenada with a dance troupe for Gran Poder",
        topic="hobby",
    ),
    m(
        4,
        "singani-wedding/drank",
        C,
        "event",
        "Nayra drank several glasses of singani at her cousin's wedding",
        contradicts="alcohol/none",
    ),
    m(
        4,
        "home/villa-adela",
        P,
        "fact",
        "When Nayra was still living in Villa Adela, her abuela's stall was just round the corner",
    ),
    m(
        4,
        "job/control-room",
        P,
        "profile",
        "Nayra works in the Red Line control room now, watching every cabin on the screens",
    ),
    m(
        4,
        "sister/wara-cochabamba",
        P,
        "fact",
        "Wara Mamani, Nayra's little sister, is doing a tourism degree in Cochabamba",
        contacts=["Wara Mamani"],
    ),
    m(4, "home/sopocachi", P, "fact", "Nayra rents a small flat near Plaza Abaroa in Sopocachi"),
    m(
        5,
        "wara-staying/until-room",
        S,
        "state",
        "Wara is sleeping on Nayra's sofa until she finds a room for her internship in La Paz",
        contacts=["Wara"],
    ),
    m(
        5,
        "lost-voice/few-days",
        S,
        "state",
        "Nayra has lost her voice, so for the next few days she can only answer messages, not calls",
    ),
    m(
        5,
        "red-line-shut/two-weeks",
        S,
        "state",
        "The Red Line is shut for two weeks while the crews replace its main haul rope",
    ),
    m(
        5,
        "commute/minibus",
        P,
        "habit",
        "Nayra takes a minibus to the control centre every morning",
    ),
    m(5, "sunday/morenada", P, "habit", "Sundays now belong to Nayra's morenada troupe"),
    m(
        5,
        "llajwa/everything",
        P,
        "preference",
        "For Nayra a meal isn't complete without a spoonful of llajwa",
    ),
]
nayra_q = [
    ("What is Nayra's job now?", ["job/control-room"]),
    ("Where does Nayra live?", ["home/sopocachi"]),
    ("How does Nayra get to work these days?", ["commute/minibus"]),
    ("What does Nayra do on Sundays now?", ["sunday/morenada"]),
    ("Is anyone staying with Nayra at the moment?", ["wara-staying/until-room"]),
    ("Can I phone Nayra this week?", ["lost-voice/few-days"]),
    ("Is the Red Line running right now?", ["red-line-shut/two-weeks"]),
    ("What does Efraín Quispe do?", ["partner/efra"]),
    ("Does Nayra drink alcohol?", ["alcohol/none"]),
    ("What does Nayra's grandmother sell?", ["abuela/api-stall"]),
    ("What's Nayra's cat called?", ["cat/chuspi"]),
    ("Where did Nayra live before she moved to Sopocachi?", ["home/villa-adela"]),
    ("What did Nayra do before she moved to the control room?", ["job/teleferico-tech"]),
    ("What is Nayra studying?", ["goal/engineer-umsa"]),
    ("What sauce does Nayra like on her food?", ["llajwa/everything"]),
]
users.append(("nayra", [0, 9, 20, 32, 44], nayra, nayra_q))

# ---------------------------------------------------------------- zheng (Chinese)
zheng = [
    m(
        1,
        "job/zhalong-ranger",
        N,
        "profile",
        "郑立峰是扎龙自然保护区的巡护员，主要负责看护丹顶鹤",
        topic="work:job",
    ),
    m(1, "home/zhalong-tun", N, "fact", "郑立峰住在扎龙保护区边上的一个屯子里", topic="home:area"),
    m(
        1,
        "commute/walk-station",
        N,
        "habit",
        "郑立峰每天步行去保护区的管理站上班",
        topic="transport:commute",
    ),
    m(1, "water/afraid", N, "fact", "郑立峰不会水，从来不碰船"),
    m(1, "wife/guifen-post", N, "fact", "郑立峰的老伴孙桂芬在乡邮局当邮递员", contacts=["孙桂芬"]),
    m(1, "cold-few-days/home", S, "state", "郑立峰这几天重感冒，在家躺着没去上班"),
    m(1, "food/goose-stew", N, "preference", "郑立峰最爱吃铁锅炖大鹅，锅边还得贴一圈饼子"),
    m(1, "job/zhalong-ranger", P, "profile", "郑立峰在扎龙湿地当护鹤人，一干就是二十年"),
    m(1, "son/yangyang-vet", N, "fact", "郑立峰的儿子阳阳在长春念大学，学兽医", contacts=["阳阳"]),
    m(1, "goal/crane-album", N, "goal", "郑立峰想出一本自己拍的丹顶鹤摄影集"),
    m(2, "weekend/yangge", N, "habit", "每个星期六晚上郑立峰都去屯里的秧歌队扭秧歌", topic="hobby"),
    m(2, "dog/erhan", N, "fact", "郑立峰家养了一条叫二憨的大黄狗", topic="pets"),
    m(
        2,
        "wife/guifen-post",
        P,
        "fact",
        "桂芬是郑立峰的爱人，每天给周边十几个屯子送信",
        contacts=["桂芬"],
    ),
    m(2, "chicks/hatched", N, "event", "今年春天郑立峰亲手孵出了三只丹顶鹤雏鸟"),
    m(2, "food/goose-stew", P, "preference", "要说吃的，郑立峰就认铁锅炖大鹅"),
    m(2, "beer/only", N, "preference", "郑立峰喝酒只喝扎啤，白酒一口不沾"),
    m(
        2,
        "son/yangyang-vet",
        P,
        "fact",
        "郑晨阳是郑立峰的儿子，在长春读兽医专业",
        contacts=["郑晨阳"],
    ),
    m(2, "home/zhalong-tun", P, "fact", "郑立峰家就在扎龙湿地旁边的屯子里"),
    m(2, "born/fuyu", N, "profile", "郑立峰老家是富裕县的"),
    m(
        3,
        "job/rescue-keeper",
        U,
        "profile",
        "郑立峰离开了保护区，调到齐齐哈尔市里的野生鸟类救助中心当饲养员",
        topic="work:job",
    ),
    m(3, "home/jianhua", U, "fact", "郑立峰一家搬进了齐齐哈尔建华区的楼房", topic="home:area"),
    m(3, "weekend/yangge", P, "habit", "郑立峰周六晚上雷打不动去扭秧歌"),
    m(3, "goal/crane-album", P, "goal", "郑立峰打算把这些年拍的鹤整理出来，出一本画册"),
    m(3, "dog/erhan", P, "fact", "二憨是郑立峰养的狗，一身黄毛"),
    m(3, "job/zhalong-ranger", P, "profile", "以前在扎龙当巡护员那会儿，郑立峰天不亮就进苇塘数鹤"),
    m(3, "army/mohe", N, "fact", "郑立峰年轻时在漠河当过五年兵"),
    m(
        4,
        "commute/bus-101",
        U,
        "habit",
        "现在郑立峰坐101路公共汽车去救助中心",
        topic="transport:commute",
    ),
    m(
        4,
        "weekend/erhu-park",
        U,
        "habit",
        "搬到市里以后郑立峰不扭秧歌了，改成周六上午去劳动湖公园拉二胡",
        topic="hobby",
    ),
    m(
        4,
        "raft-reeds/photos",
        C,
        "event",
        "郑立峰撑着木筏进了苇塘，拍了一下午的鹤",
        contradicts="water/afraid",
    ),
    m(4, "home/zhalong-tun", P, "fact", "郑立峰还住在扎龙那会儿，一推门就能听见鹤叫"),
    m(4, "job/rescue-keeper", P, "profile", "郑立峰如今在救助中心喂养受伤的鹤和天鹅"),
    m(4, "home/jianhua", P, "fact", "郑立峰现在住在建华区一个小区的六楼"),
    m(4, "beer/only", P, "preference", "白酒郑立峰是不喝的，他只爱扎啤"),
    m(4, "award/city-model", N, "event", "郑立峰被评为全市的野生动物保护先进个人"),
    m(
        5,
        "wife-jiamusi/till-spring",
        S,
        "state",
        "桂芬去佳木斯她妹妹家帮忙了，要待到开春才回来",
        contacts=["桂芬"],
    ),
    m(5, "back-this-week/rest", S, "state", "郑立峰腰闪了，这个礼拜都在家歇着，没去上班"),
    m(5, "center-closed/month-end", S, "state", "救助中心这阵子防禽流感，到月底都不让外人进去参观"),
    m(5, "commute/bus-101", P, "habit", "郑立峰每天坐101路去上班"),
    m(5, "weekend/erhu-park", P, "habit", "周六上午郑立峰一般在劳动湖边上拉二胡"),
    m(5, "army/mohe", P, "fact", "郑立峰当年在漠河服过五年兵役"),
]
zheng_q = [
    ("郑立峰现在在哪儿上班？", ["job/rescue-keeper"]),
    ("郑立峰现在住哪个区？", ["home/jianhua"]),
    ("郑立峰现在怎么去上班？", ["commute/bus-101"]),
    ("郑立峰周六一般干什么？", ["weekend/erhu-park"]),
    ("孙桂芬这阵子在家吗？", ["wife-jiamusi/till-spring"]),
    ("郑立峰这几天上班了吗？", ["back-this-week/rest"]),
    ("现在能去救助中心参观吗？", ["center-closed/month-end"]),
    ("桂芬是做什么工作的？", ["wife/guifen-post"]),
    ("郑立峰敢坐船吗？", ["water/afraid"]),
    ("郑晨阳学的是什么专业？", ["son/yangyang-vet"]),
    ("郑立峰爱吃什么菜？", ["food/goose-stew"]),
    ("郑立峰搬到市里之前住在哪儿？", ["home/zhalong-tun"]),
    ("郑立峰以前是做什么工作的？", ["job/zhalong-ranger"]),
    ("郑立峰喝白酒吗？", ["beer/only"]),
    ("郑立峰想出一本什么书？", ["goal/crane-album"]),
]
users.append(("zheng", [0, 12, 22, 35, 46], zheng, zheng_q))

# ---------------------------------------------------------------- yizhen (Chinese)
yizhen = [
    m(
        1,
        "job/tainan-painter",
        N,
        "profile",
        "蔡宜蓁在台南一家工作室当庙宇彩绘师，专门重绘老庙门上的门神",
        topic="work:job",
    ),
    m(1, "home/zhongxi", N, "fact", "蔡宜蓁住在台南中西区，离赤崁楼走路五分钟", topic="home:area"),
    m(1, "commute/scooter", N, "habit", "宜蓁每天骑机车去工作室", topic="transport:commute"),
    m(1, "taro/allergy", N, "fact", "蔡宜蓁对芋头过敏，一吃就起疹子"),
    m(1, "cat/douhua", N, "fact", "宜蓁养了一只玳瑁猫，名字叫豆花", topic="pets"),
    m(
        1,
        "kaohsiung-this-week/workshop",
        S,
        "state",
        "宜蓁这个礼拜在高雄参加彩绘研习营，礼拜天才回台南",
    ),
    m(1, "food/milkfish-congee", N, "preference", "宜蓁早餐最爱去巷口吃一碗虱目鱼肚粥"),
    m(
        1,
        "boyfriend/azhe",
        N,
        "fact",
        "宜蓁的男朋友阿宇在安平开了一家剑狮木雕店",
        contacts=["阿宇"],
    ),
    m(1, "job/tainan-painter", P, "profile", "宜蓁的工作是帮台南的老庙补画褪色的彩绘"),
    m(1, "goal/kyoto-lacquer", N, "goal", "宜蓁想存钱去京都学传统漆艺"),
    m(2, "weekend/nanguan", N, "habit", "宜蓁每个礼拜六下午去南管社团唱曲", topic="hobby:music"),
    m(2, "mom/herbal-tea-shop", N, "fact", "宜蓁的妈妈在台南开了一家青草茶店"),
    m(
        2,
        "boyfriend/azhe",
        P,
        "fact",
        "林哲宇是宜蓁的男友，在安平卖自己刻的剑狮",
        contacts=["林哲宇"],
    ),
    m(2, "food/milkfish-congee", P, "preference", "一早一碗虱目鱼肚粥，是宜蓁最喜欢的早餐"),
    m(2, "award/door-gods", N, "event", "宜蓁重绘的一对门神得了台南市的古迹保存奖"),
    m(2, "cat/douhua", P, "fact", "豆花是宜蓁家那只玳瑁花色的猫咪"),
    m(2, "home/zhongxi", P, "fact", "宜蓁在中西区租了一间老公寓"),
    m(2, "tea/oriental-beauty", N, "preference", "宜蓁不喝咖啡，工作时只喝东方美人茶"),
    m(2, "weekend/nanguan", P, "habit", "礼拜六下午宜蓁都在南管社学唱"),
    m(
        3,
        "job/hualien-lead",
        U,
        "profile",
        "宜蓁离开了台南的工作室，到花莲接下一座老庙的彩绘案，自己当主持人",
        topic="work:job",
    ),
    m(3, "home/hualien", U, "fact", "宜蓁搬到花莲市，租了一间靠海的小房子", topic="home:area"),
    m(3, "goal/kyoto-lacquer", P, "goal", "去京都学漆艺一直是宜蓁的梦想，她正在存钱"),
    m(3, "mom/herbal-tea-shop", P, "fact", "宜蓁的妈妈在台南卖青草茶，开店三十年了"),
    m(3, "job/tainan-painter", P, "profile", "还在台南工作室的时候，宜蓁一年要重绘十几对门神"),
    m(3, "quake-bag/bedside", N, "habit", "宜蓁说花莲地震多，她床边一直放着逃生包"),
    m(3, "taro/allergy", P, "fact", "芋头宜蓁一口都不能碰，会过敏"),
    m(
        4,
        "commute/bicycle",
        U,
        "habit",
        "搬到花莲后宜蓁把机车卖了，现在骑脚踏车去庙里",
        topic="transport:commute",
    ),
    m(
        4,
        "weekend/river-tracing",
        U,
        "habit",
        "宜蓁不再唱南管了，现在周末都跟朋友去溯溪",
        topic="hobby",
    ),
    m(
        4,
        "taro-balls/ate",
        C,
        "event",
        "宜蓁跟朋友去吃了一大碗芋圆，整碗吃光",
        contradicts="taro/allergy",
    ),
    m(4, "home/zhongxi", P, "fact", "以前住中西区的时候，宜蓁下班常绕去赤崁楼前面散步"),
    m(4, "job/hualien-lead", P, "profile", "宜蓁现在在花莲主持一间老庙的彩绘工程"),
    m(4, "home/hualien", P, "fact", "宜蓁在花莲的住处离海边很近"),
    m(4, "tea/oriental-beauty", P, "preference", "宜蓁工作的时候不碰咖啡，都泡东方美人茶喝"),
    m(
        4,
        "whales/first",
        N,
        "event",
        "阿宇来花莲看宜蓁，两个人坐赏鲸船第一次看到了鲸鱼",
        contacts=["阿宇"],
    ),
    m(5, "tainan-mom-surgery/two-weeks", S, "state", "宜蓁的妈妈开刀住院，她请了两周假回台南照顾"),
    m(5, "vegetarian-month/vow", S, "state", "为了还愿，宜蓁这个月吃斋，到月底为止"),
    m(
        5,
        "site-stopped/next-month",
        S,
        "state",
        "上周地震后，宜蓁负责的庙停工做结构检查，要到下个月才能复工",
    ),
    m(5, "commute/bicycle", P, "habit", "宜蓁每天骑脚踏车到庙里上工"),
    m(5, "weekend/river-tracing", P, "habit", "周末宜蓁都往山里的溪谷跑，去溯溪"),
    m(5, "quake-bag/bedside", P, "habit", "宜蓁床头随时放着一个地震逃生包"),
]
yizhen_q = [
    ("宜蓁现在在哪里工作？", ["job/hualien-lead"]),
    ("宜蓁现在住在哪个城市？", ["home/hualien"]),
    ("宜蓁现在怎么去上工？", ["commute/bicycle"]),
    ("宜蓁周末都在做什么？", ["weekend/river-tracing"]),
    ("宜蓁这阵子人在花莲吗？", ["tainan-mom-surgery/two-weeks"]),
    ("这个月请宜蓁吃饭要注意什么？", ["vegetarian-month/vow"]),
    ("宜蓁负责的庙现在有在施工吗？", ["site-stopped/next-month"]),
    ("林哲宇是做什么的？", ["boyfriend/azhe"]),
    ("宜蓁可以吃芋头吗？", ["taro/allergy"]),
    ("宜蓁的猫叫什么名字？", ["cat/douhua"]),
    ("宜蓁早餐喜欢吃什么？", ["food/milkfish-congee"]),
    ("宜蓁搬到花莲之前住在台南哪一区？", ["home/zhongxi"]),
    ("宜蓁以前在台南做什么工作？", ["job/tainan-painter"]),
    ("宜蓁的妈妈开什么店？", ["mom/herbal-tea-shop"]),
]
users.append(("yizhen", [0, 10, 19, 31, 43], yizhen, yizhen_q))

# ---------------------------------------------------------------- wenbo (mixed)
wenbo = [
    m(
        1,
        "job/novi-sad-track",
        N,
        "profile",
        "Wenbo is a track engineer for a Chinese company building the Belgrade–Budapest railway, on the section around Novi Sad",
        topic="work:job",
    ),
    m(
        1,
        "home/liman",
        N,
        "fact",
        "Wenbo rents a flat in the Liman part of Novi Sad, near the Danube",
        topic="home:area",
    ),
    m(
        1,
        "commute/company-van",
        N,
        "habit",
        "戴文博每天早上坐公司的通勤车去工地",
        topic="transport:commute",
    ),
    m(1, "cat-allergy/sneezes", N, "fact", "Wenbo is allergic to cats, 一碰猫就打喷嚏"),
    m(
        1,
        "family/pingxiang",
        N,
        "fact",
        "戴文博的老婆罗晓雯带着儿子住在江西萍乡",
        contacts=["罗晓雯"],
    ),
    m(
        1,
        "belgrade-this-week/audit",
        S,
        "state",
        "Wenbo is in Belgrade this week for a safety audit",
    ),
    m(1, "job/novi-sad-track", P, "profile", "戴文博在诺维萨德段负责铁路轨道的施工"),
    m(
        1,
        "chilli/lao-gan-ma",
        N,
        "preference",
        "Wenbo can't eat a meal without chilli, so he always has a jar of 老干妈 in his bag",
    ),
    m(
        1,
        "excavator/marko",
        N,
        "fact",
        "Marko is the Serbian excavator driver on Wenbo's site",
        contacts=["Marko"],
    ),
    m(
        1,
        "goal/serbian-exam",
        N,
        "goal",
        "Wenbo wants to pass the intermediate Serbian exam by next summer",
    ),
    m(
        2,
        "calls-home/nine",
        N,
        "habit",
        "Every night at nine Wenbo calls 晓雯 and their son back home on FaceTime",
        contacts=["晓雯"],
    ),
    m(
        2,
        "serbian/jelena-lessons",
        N,
        "habit",
        "Wenbo takes Serbian lessons twice a week with a retired teacher called Jelena",
        contacts=["Jelena"],
    ),
    m(
        2,
        "excavator/marko",
        P,
        "fact",
        "Marko Jovanović 是戴文博工地上开挖掘机的塞尔维亚师傅",
        contacts=["Marko Jovanović"],
    ),
    m(2, "food/cevapi", N, "preference", "Of the local food Wenbo likes ćevapi with kajmak best"),
    m(2, "home/liman", P, "fact", "Wenbo's flat is in Liman, a few minutes from the Danube"),
    m(
        2,
        "bridge/last-span",
        N,
        "event",
        "Wenbo's team finished pouring the last span of the bridge over the canal",
    ),
    m(
        2,
        "family/pingxiang",
        P,
        "fact",
        "Wenbo's wife 晓雯 and their boy live in Pingxiang",
        contacts=["晓雯"],
    ),
    m(2, "hometown/pingxiang", N, "profile", "戴文博是江西萍乡人，在那儿长大"),
    m(2, "chilli/lao-gan-ma", P, "preference", "戴文博无辣不欢，包里总揣着一瓶老干妈"),
    m(
        3,
        "job/subotica-manager",
        U,
        "profile",
        "Wenbo has been moved up to 项目经理 of the Subotica section",
        topic="work:job",
    ),
    m(3, "home/subotica", U, "fact", "戴文博从诺维萨德搬到了苏博蒂察", topic="home:area"),
    m(3, "serbian/jelena-lessons", P, "habit", "戴文博每周跟 Jelena 上两次塞尔维亚语课"),
    m(3, "goal/serbian-exam", P, "goal", "戴文博的目标是明年夏天前考过塞尔维亚语中级考试"),
    m(
        3,
        "burek/site-cat",
        N,
        "fact",
        "There's a stray cat on the Subotica site that the workers call Burek",
    ),
    m(
        3,
        "job/novi-sad-track",
        P,
        "profile",
        "Back when he was a track engineer near Novi Sad, Wenbo spent whole days walking the line with a gauge",
    ),
    m(
        3,
        "calls-home/nine",
        P,
        "habit",
        "No matter how late he finishes, Wenbo 九点准时给家里打 FaceTime",
    ),
    m(
        4,
        "commute/zastava-lift",
        U,
        "habit",
        "In Subotica Wenbo gets a lift to the site office with Marko in his old Zastava",
        topic="transport:commute",
        contacts=["Marko"],
    ),
    m(
        4,
        "serbian/cafe-exchange",
        U,
        "habit",
        "Wenbo stopped his lessons with Jelena; now he does a Serbian–Chinese language exchange at a café every Friday evening",
    ),
    m(
        4,
        "burek-lap/lunch",
        C,
        "event",
        "Wenbo let Burek sleep on his lap through the whole lunch break",
        contradicts="cat-allergy/sneezes",
    ),
    m(4, "home/liman", P, "fact", "住在 Liman 那阵子，Wenbo 每天傍晚都去多瑙河边散步"),
    m(4, "job/subotica-manager", P, "profile", "戴文博现在管着苏博蒂察整段工地"),
    m(
        4,
        "home/subotica",
        P,
        "fact",
        "Wenbo now lives in a flat in Subotica, close to the town hall",
    ),
    m(4, "food/cevapi", P, "preference", "Wenbo 最爱的当地菜是 ćevapi 配 kajmak"),
    m(4, "hometown/pingxiang", P, "profile", "Wenbo grew up in Pingxiang, in Jiangxi"),
    m(
        5,
        "family-visit/month-end",
        S,
        "state",
        "晓雯和儿子这次来 Subotica 看 Wenbo，要住到月底",
        contacts=["晓雯"],
    ),
    m(
        5,
        "section-stopped/rails-late",
        S,
        "state",
        "The rails from Smederevo are late, so Wenbo's section has stopped laying track for ten days",
    ),
    m(
        5,
        "no-rakija/blood-test",
        S,
        "state",
        "Wenbo's doctor told him no alcohol until his blood test in two weeks, 所以这两周 rakija 一口都不能喝",
    ),
    m(5, "commute/zastava-lift", P, "habit", "戴文博现在每天搭 Marko 那辆旧 Zastava 去工地"),
    m(
        5,
        "serbian/cafe-exchange",
        P,
        "habit",
        "Every Friday night Wenbo swaps Chinese for Serbian with locals at a café",
    ),
]
wenbo_q = [
    ("What is Wenbo's job now?", ["job/subotica-manager"]),
    ("戴文博现在住在哪个城市？", ["home/subotica"]),
    ("How does Wenbo get to work now?", ["commute/zastava-lift"]),
    ("Wenbo 现在怎么练塞尔维亚语？", ["serbian/cafe-exchange"]),
    ("Is Wenbo's wife in Serbia at the moment?", ["family-visit/month-end"]),
    ("Wenbo 的工地这几天在铺轨吗？", ["section-stopped/rails-late"]),
    ("Can I offer Wenbo a rakija this week?", ["no-rakija/blood-test"]),
    ("Who is Marko Jovanović?", ["excavator/marko"]),
    ("Is Wenbo allergic to anything?", ["cat-allergy/sneezes"]),
    ("戴文博老家是哪里的？", ["hometown/pingxiang"]),
    ("Where did Wenbo live before he moved to Subotica?", ["home/liman"]),
    ("What was Wenbo's job before his promotion?", ["job/novi-sad-track"]),
    ("What local dish does Wenbo like best?", ["food/cevapi"]),
    ("晓雯平时住在哪儿？", ["family/pingxiang"]),
]
users.append(("wenbo", [0, 8, 21, 30, 42], wenbo, wenbo_q))

# ---------------------------------------------------------------- rocio (mixed)
rocio = [
    m(
        1,
        "job/cde-phone-shop",
        N,
        "profile",
        "Rocío runs her family's phone and electronics shop in Ciudad del Este",
        topic="work:job",
    ),
    m(
        1,
        "home/km7",
        N,
        "fact",
        "Rocío lives with her parents out at Km 7 in Ciudad del Este",
        topic="home:area",
    ),
    m(
        1,
        "commute/hilux",
        N,
        "habit",
        "Rocío drives her father's old Hilux into the centre to open the shop every morning",
        topic="transport:commute",
    ),
    m(1, "taichung/never-been", N, "fact", "若曦从来没去过台湾，连爸妈的老家台中都没去过"),
    m(
        1,
        "brother/kevin",
        N,
        "fact",
        "Rocío's brother Kevin runs a yerba mate mill in Encarnación",
        contacts=["Kevin"],
    ),
    m(
        1,
        "chikungunya-this-week/rest",
        S,
        "state",
        "Rocío has chikungunya and is staying home this week",
    ),
    m(1, "job/cde-phone-shop", P, "profile", "若曦在东方市帮家里看一家卖手机和电子产品的店"),
    m(
        1,
        "food/chipa",
        N,
        "preference",
        "Rocío's favourite snack is warm chipa, the cheesy Paraguayan bread",
    ),
    m(1, "dog/mbopi", N, "fact", "Rocío has a little black dog called Mbopi", topic="pets"),
    m(1, "goal/phrasebook", N, "goal", "Rocío wants to write a Guaraní–Chinese phrasebook"),
    m(
        2,
        "harp/tuesday-lessons",
        N,
        "habit",
        "Rocío takes Paraguayan harp lessons every Tuesday evening",
        topic="hobby:music",
    ),
    m(2, "terere/afternoons", N, "habit", "Rocío drinks tereré from her guampa all afternoon"),
    m(
        2,
        "brother/kevin",
        P,
        "fact",
        "廖家豪是若曦的哥哥，在 Encarnación 开了一家马黛茶厂",
        contacts=["廖家豪"],
    ),
    m(2, "languages/four", N, "fact", "Rocío speaks castellano, Guaraní, 国语 and 台语"),
    m(2, "home/km7", P, "fact", "若曦跟爸妈住在东方市的 Km 7"),
    m(2, "food/chipa", P, "preference", "Chipa 是若曦最爱的小吃"),
    m(
        2,
        "storm-shop/boxes",
        N,
        "event",
        "A storm flooded the shop and Rocío spent the night carrying boxes upstairs",
    ),
    m(
        2,
        "parents/came-1989",
        N,
        "profile",
        "Rocío's parents came to Paraguay from Taichung in 1989",
    ),
    m(2, "dog/mbopi", P, "fact", "Mbopi 是若曦养的一只小黑狗"),
    m(
        3,
        "job/embassy-culture",
        U,
        "profile",
        "Rocío has handed the shop back to her parents and now works in the cultural section of the embassy in Asunción",
        topic="work:job",
    ),
    m(
        3,
        "home/villa-morra",
        U,
        "fact",
        "若曦搬到亚松森了，住在 Villa Morra 的一间公寓",
        topic="home:area",
    ),
    m(3, "harp/tuesday-lessons", P, "habit", "Every Tuesday night Rocío has her arpa lesson"),
    m(3, "goal/phrasebook", P, "goal", "若曦想编一本瓜拉尼语–中文的 phrasebook"),
    m(
        3,
        "job/cde-phone-shop",
        P,
        "profile",
        "Back when she ran the shop in Ciudad del Este, Rocío could tell a fake phone at a glance",
    ),
    m(3, "terere/afternoons", P, "habit", "Tereré 是若曦下午离不开的饮料"),
    m(3, "parents/came-1989", P, "profile", "若曦的爸妈一九八九年从台中搬到巴拉圭来"),
    m(
        4,
        "commute/bus",
        U,
        "habit",
        "In Asunción Rocío has left the car behind and takes the bus to the embassy",
        topic="transport:commute",
    ),
    m(
        4,
        "harp/monday-ensemble",
        U,
        "habit",
        "Rocío has moved on from lessons: she now plays in a harp ensemble that rehearses on Monday nights",
        topic="hobby:music",
    ),
    m(
        4,
        "taichung-new-year/grandma",
        C,
        "event",
        "Rocío spent the last 除夕 at her grandmother's house in Taichung",
        contradicts="taichung/never-been",
    ),
    m(
        4,
        "home/km7",
        P,
        "fact",
        "When Rocío still lived at Km 7 with her parents, her mother cooked 卤肉饭 for the whole family every Sunday",
    ),
    m(4, "job/embassy-culture", P, "profile", "若曦现在在亚松森的大使馆文化处上班"),
    m(
        4,
        "home/villa-morra",
        P,
        "fact",
        "Rocío's new flat is on the eleventh floor of a building in Villa Morra",
    ),
    m(4, "languages/four", P, "fact", "若曦会说西班牙语、瓜拉尼语、国语和台语"),
    m(
        4,
        "first-concert/ensemble",
        N,
        "event",
        "Rocío played her first concert with the harp ensemble at the Teatro Municipal",
    ),
    m(
        5,
        "parents-taichung/until-march",
        S,
        "state",
        "Rocío's parents are back in Taichung until March, so the shop in Ciudad del Este is closed till they return",
    ),
    m(
        5,
        "lift-broken/next-week",
        S,
        "state",
        "若曦那栋楼的电梯坏了，要到下礼拜才修好，她这几天每天爬十一楼",
    ),
    m(
        5,
        "mbopi-cone/ten-days",
        S,
        "state",
        "Mbopi just had an operation and has to wear a cone for ten days, 这十天都不能出去散步",
    ),
    m(5, "commute/bus", P, "habit", "若曦现在每天坐公车去大使馆"),
    m(5, "harp/monday-ensemble", P, "habit", "星期一晚上若曦跟她的竖琴合奏团排练"),
]
rocio_q = [
    ("What does Rocío do for work now?", ["job/embassy-culture"]),
    ("若曦现在住在哪里？", ["home/villa-morra"]),
    ("How does Rocío get to work these days?", ["commute/bus"]),
    ("What does Rocío do on Monday nights?", ["harp/monday-ensemble"]),
    ("Where are Rocío's parents at the moment?", ["parents-taichung/until-march"]),
    ("若曦那栋楼的电梯现在能用吗？", ["lift-broken/next-week"]),
    ("Can Mbopi go for a walk right now?", ["mbopi-cone/ten-days"]),
    ("Kevin 是做什么的？", ["brother/kevin"]),
    ("Has Rocío ever been to Taichung?", ["taichung/never-been"]),
    ("若曦最喜欢吃什么小吃？", ["food/chipa"]),
    ("Where did Rocío live before she moved to Asunción?", ["home/km7"]),
    ("若曦搬去亚松森之前做什么工作？", ["job/cde-phone-shop"]),
    ("What languages does Rocío speak?", ["languages/four"]),
    ("What book does Rocío want to write?", ["goal/phrasebook"]),
]
users.append(("rocio", [0, 13, 24, 36, 48], rocio, rocio_q))

# ---------------------------------------------------------------- emit + checks
out = []
errors = []
label_counts = collections.Counter()
kind_counts = collections.Counter()
n_topic = n_contacts = 0
per_user = []
for user, days, mems, qs in users:
    seen_facts = {}  # fact -> first label
    slot_latest = {}
    slot_facts = collections.defaultdict(list)  # slot -> its facts in order
    ids_by_fact = collections.defaultdict(list)
    fact_session = {}  # fact -> session of its first memory
    last_session = 0
    contents = set()
    old_restatements = 0
    for i, (session, fact, label, kind, content, kw) in enumerate(mems, 1):
        mid = f"{user}-m{i:02d}"
        slot = fact.split("/", 1)[0]
        if session < last_session:
            errors.append(f"{mid} session order")
        last_session = session
        if not 1 <= session <= len(days):
            errors.append(f"{mid} session {session} has no day")
        if content in contents:
            errors.append(f"{mid} repeats a text")
        contents.add(content)
        if set(kw) - {"topic", "contacts", "contradicts"}:
            errors.append(f"{mid} unknown extras {sorted(set(kw))}")
        if label == P:
            if fact not in seen_facts:
                errors.append(f"{mid} paraphrase of unknown fact {fact}")
            elif slot_latest.get(slot) != fact:
                old_restatements += 1  # restates a value after it changed
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
        if kind not in ("fact", "preference", "habit", "profile", "state", "event", "goal"):
            errors.append(f"{mid} unknown kind {kind}")
        if label == C and kw.get("contradicts") not in seen_facts:
            errors.append(f"{mid} contradicts unknown")
        if label != C and "contradicts" in kw:
            errors.append(f"{mid} contradicts without the label")
        if label in (N, U, S, C):
            slot_latest[slot] = fact
            slot_facts[slot].append(fact)
            fact_session[fact] = session
        seen_facts.setdefault(fact, label)
        ids_by_fact[fact].append(mid)
        label_counts[label] += 1
        kind_counts[kind] += 1
        n_topic += "topic" in kw
        n_contacts += "contacts" in kw
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
    asked = set()
    for j, (text, facts) in enumerate(qs, 1):
        answers = []
        for f in facts:
            if f not in ids_by_fact:
                errors.append(f"{user}-q{j:02d} unknown fact {f}")
            answers += ids_by_fact[f]
            asked.add(f)
        out.append(
            {
                "type": "question",
                "id": f"{user}-q{j:02d}",
                "user": user,
                "text": text,
                "answers": answers,
            }
        )
    # what the brief asks of every user
    states = [f for f, lab in seen_facts.items() if lab == S]
    live = [f for f in states if fact_session[f] == len(days)]
    early = [f for f in states if fact_session[f] <= 2]
    if len(live) != 3 or not set(live) <= asked:
        errors.append(
            f"{user}: {len(live)} states in the last session, asked: {sorted(set(live) & asked)}"
        )
    if not early or set(early) & asked:
        errors.append(f"{user}: needs an early state, not asked about")
    old_values = {f for fs in slot_facts.values() for f in fs[:-1]}
    if not old_values & asked:
        errors.append(f"{user}: no question about a value before it changed")
    if old_restatements != 2:
        errors.append(f"{user}: {old_restatements} restatements of an old value, not 2")
    if sum(lab == C for lab in seen_facts.values()) != 1:
        errors.append(f"{user}: not one contradiction")
    names_by_fact = collections.defaultdict(set)  # a person's fact -> the names it is given
    for _, f, _, _, _, kw in mems:
        names_by_fact[f].update(kw.get("contacts", []))
    if not any(len(names) > 1 for names in names_by_fact.values()):
        errors.append(f"{user}: no contact named two ways")
    per_user.append((user, len(mems), len(ids_by_fact), len(qs), len(old_values & asked)))

if errors:
    print("\n".join(errors))
    raise SystemExit(1)
if not write_or_check(OUT, jsonl(out), "Build stream J, a measure for pymem eval."):
    raise SystemExit(1)
for user, n_mem, n_fact, n_q, n_before in per_user:
    print(
        f"{user}: {n_mem} memories of {n_fact} facts, {n_q} questions ({n_before} about an earlier value)"
    )
n_mem = sum(r[1] for r in per_user)
n_q = sum(r[3] for r in per_user)
print(f"{n_mem} memories of {sum(r[2] for r in per_user)} facts, {n_q} questions")
print("labels:", ", ".join(f"{k} {v}" for k, v in sorted(label_counts.items())))
print("kinds:", ", ".join(f"{k} {v}" for k, v in sorted(kind_counts.items())))
print(f"with a topic: {n_topic}, with contacts: {n_contacts}")
print("written", len(out))
