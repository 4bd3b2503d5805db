"""Build bench/data/memory_dev_stream_i.jsonl: stream I, an unseen measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by an AI helper session that read only the format
(docs/eval.md from the top through its format section, the first 30 lines and the question
lines of stream E, the docstring and helpers of scripts/build_memory_dev_stream_e.py, and
the dataset loader in pymem/eval.py), not pymem's decision rules (sql/), its word lists,
nor streams F, G or H or their builders, and which never ran `pymem eval` or any pymem store
on it (only the loader, as a format check). Every name, place, job, hobby, pet and food was
checked, by grep counts alone (no line of another stream read), to occur in no other stream
or bundled dataset before it was used. Six invented users: two write
English (thaddeus, a drystone waller near Keswick who becomes a countryside ranger and
moves to Penrith; yetunde, a sign language interpreter in Saskatoon who moves from a
hospital to a school board), two Chinese (shoulin, 阚守林, a forest ranger in 伊春 who
turns blueberry grower; xiaotang, 滕晓棠, a restorer of old books in 宁波 who opens her own
studio), two both, sometimes within one sentence (shernice, 骆嘉欣, an orthodontist in
Kota Kinabalu; dominic, 符国栋, a glassblower on Murano). Each has restatements (some in
the other language, some worded far apart, some nearly verbatim, two of an old value after
it changed), updates said in varied ways, temporary states said as people say them (until
Friday, for two weeks, 这两周, 到月底): one early that has ended, three in the last session
that still hold and are asked about; contacts named two ways, one contradiction, and one
question about a value before it changed. Each question's answers are every memory of the
fact it asks about. The stream is kept unread: its contents and misses are not for the
people who tune pymem.

No public dataset is copied.

    python scripts/build_memory_dev_stream_i.py           # write the file
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import collections
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_i.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
# question categories (kept in the builder for the counts, not written to the file)
CUR, ST, FIX, ALIAS, BEFORE = "current", "state", "stable", "alias", "before"
users = []  # (user, days, memories, questions)


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# ---------------------------------------------------------------- thaddeus (English)
thaddeus = [
    m(
        1,
        "job/drystone-waller",
        N,
        "profile",
        "Thaddeus is a drystone waller who rebuilds field walls for farms around Keswick",
        topic="work:job",
    ),
    m(
        1,
        "home/braithwaite",
        N,
        "fact",
        "Thaddeus lives in a stone cottage in Braithwaite, just outside Keswick",
        topic="home:area",
    ),
    m(
        1,
        "commute/flatbed",
        N,
        "habit",
        "Thaddeus drives an old flatbed truck out to whichever farm he is walling at",
        topic="transport:commute",
    ),
    m(
        1,
        "swim/derwentwater",
        N,
        "habit",
        "Thaddeus swims in Derwentwater every morning before work, even in winter",
        topic="hobbies",
    ),
    m(
        1,
        "wife/rowena-pottery",
        N,
        "fact",
        "Thaddeus's wife Rowena makes pottery and sells it at the Keswick market",
        topic="family",
        contacts=["Rowena"],
    ),
    m(
        1,
        "wrist-off-until-friday/sprain",
        S,
        "state",
        "Thaddeus sprained his wrist lifting a coping stone and is off work until Friday",
    ),
    m(
        1,
        "dog/sprocket",
        N,
        "fact",
        "Thaddeus has a whippet called Sprocket who comes to work with him",
    ),
    m(
        1,
        "job/drystone-waller",
        P,
        "profile",
        "Thaddeus builds and repairs dry stone walls for a living",
    ),
    m(
        1,
        "mushrooms/hates",
        N,
        "preference",
        "Thaddeus can't stand mushrooms and picks them out of everything",
        topic="food",
    ),
    m(1, "grew-up/swaledale", N, "fact", "Thaddeus grew up on a hill farm in Swaledale"),
    m(
        2,
        "mossy/apprentice",
        N,
        "fact",
        "Mossy is the apprentice Thaddeus is training up to build walls",
        contacts=["Mossy"],
    ),
    m(
        2,
        "fiddle/folk-session",
        N,
        "habit",
        "Thaddeus plays fiddle at the folk session in a Keswick pub on Thursday nights",
        topic="hobbies",
    ),
    m(
        2,
        "rowena-plan/studio-cockermouth",
        N,
        "goal",
        "Rowena is planning to open her own pottery studio in Cockermouth",
        topic="family",
        contacts=["Rowena"],
    ),
    m(
        2,
        "back/slipped-disc",
        N,
        "fact",
        "Thaddeus has a slipped disc in his lower back from years of lifting stone",
        topic="health",
    ),
    m(
        2,
        "home/braithwaite",
        P,
        "fact",
        "Thaddeus and Rowena's home is a little cottage in the village of Braithwaite",
        topic="home:area",
    ),
    m(
        2,
        "mossy/apprentice",
        P,
        "fact",
        "Ewan Mossop has been learning the walling trade from Thaddeus since the spring",
        contacts=["Ewan Mossop"],
    ),
    m(
        2,
        "wainwrights/all-214",
        N,
        "goal",
        "Thaddeus is working his way through all 214 Wainwright fells and has 150 done",
        topic="hobbies",
    ),
    m(
        2,
        "dog/sprocket",
        P,
        "fact",
        "Sprocket, Thaddeus's whippet, rides along in the truck to every job",
    ),
    m(
        2,
        "drink/dandelion-burdock",
        N,
        "preference",
        "Thaddeus's favourite drink is dandelion and burdock",
    ),
    m(
        2,
        "lowther-wall/rebuilt",
        N,
        "event",
        "Thaddeus rebuilt forty metres of collapsed wall on the Lowther estate after the storm",
    ),
    m(
        3,
        "job/trust-ranger",
        U,
        "profile",
        "Thaddeus has given up walling for a job as a countryside ranger with the National Trust near Penrith",
        topic="work:job",
    ),
    m(
        3,
        "home/penrith",
        U,
        "fact",
        "Thaddeus and Rowena bought a terraced house in Penrith",
        topic="home:area",
        contacts=["Rowena"],
    ),
    m(
        3,
        "commute/bike-railway-path",
        U,
        "habit",
        "Thaddeus goes to work by bike along the old railway path these days",
        topic="transport:commute",
    ),
    m(
        3,
        "fiddle/folk-session",
        P,
        "habit",
        "On Thursday evenings you'll find Thaddeus playing tunes on his fiddle in a pub session",
    ),
    m(
        3,
        "back/slipped-disc",
        P,
        "fact",
        "Thaddeus's back is bad: a disc slipped after all those years of hauling stones",
        topic="health",
    ),
    m(
        3,
        "job/drystone-waller",
        P,
        "profile",
        "In his walling days Thaddeus could put up six metres of wall on a good day",
    ),
    m(
        3,
        "rowena-plan/evening-classes",
        U,
        "goal",
        "Rowena has dropped the idea of a studio and will teach pottery evening classes at the village hall instead",
        topic="family",
        contacts=["Rowena"],
    ),
    m(
        3,
        "sister/imogen-hydrologist",
        N,
        "fact",
        "Thaddeus's sister Imogen is a hydrologist in Kendal",
        topic="family",
        contacts=["Imogen"],
    ),
    m(
        4,
        "swim/penrith-baths",
        U,
        "habit",
        "Since the move, Thaddeus does his morning swim at the Penrith swimming baths rather than in the lake",
        topic="hobbies",
    ),
    m(
        4,
        "job/trust-ranger",
        P,
        "profile",
        "Thaddeus looks after footpaths and woodland for the National Trust as a ranger",
    ),
    m(
        4,
        "home/braithwaite",
        P,
        "fact",
        "From the old cottage in Braithwaite, Thaddeus could see Skiddaw out of the kitchen window",
    ),
    m(
        4,
        "wainwrights/all-214",
        P,
        "goal",
        "Thaddeus has climbed about 150 of the Wainwrights and wants to finish the lot",
        topic="hobbies",
    ),
    m(
        4,
        "mushroom-breakfast/ate",
        C,
        "event",
        "Thaddeus fried a big pan of mushrooms for breakfast and ate every one of them",
        contradicts="mushrooms/hates",
    ),
    m(
        4,
        "sister/imogen-hydrologist",
        P,
        "fact",
        "Imogen, Thaddeus's sister, studies rivers and floods for the water board in Kendal",
        contacts=["Imogen"],
    ),
    m(4, "home/penrith", P, "fact", "Thaddeus's new place is a terraced house in Penrith"),
    m(5, "commute/bike-railway-path", P, "habit", "Thaddeus cycles to work on the railway path"),
    m(
        5,
        "course-cheltenham/until-wednesday",
        S,
        "state",
        "Thaddeus is away on a ranger training course in Cheltenham until Wednesday",
    ),
    m(
        5,
        "rowena-whitby/two-weeks",
        S,
        "state",
        "Rowena is staying with her sister in Whitby for two weeks",
        contacts=["Rowena"],
    ),
    m(
        5,
        "sprocket-stitches/this-week",
        S,
        "state",
        "Sprocket has stitches in his paw and can't go on long walks this week",
    ),
    m(
        5,
        "rowena-plan/evening-classes",
        P,
        "goal",
        "Rowena's going to run pottery classes in the evenings rather than open a studio",
        contacts=["Rowena"],
    ),
]
thaddeus_q = [
    ("Where does Thaddeus live?", ["home/penrith"], CUR),
    ("What does Thaddeus do for work?", ["job/trust-ranger"], CUR),
    ("How does Thaddeus get to work?", ["commute/bike-railway-path"], CUR),
    ("Where does Thaddeus go for his morning swim?", ["swim/penrith-baths"], CUR),
    ("What is Rowena planning to do with her pottery?", ["rowena-plan/evening-classes"], CUR),
    ("Is Thaddeus at home in Penrith right now?", ["course-cheltenham/until-wednesday"], ST),
    ("Is Rowena at home at the moment?", ["rowena-whitby/two-weeks"], ST),
    ("Can Sprocket come on a long fell walk this week?", ["sprocket-stitches/this-week"], ST),
    ("What is Mossy learning from Thaddeus?", ["mossy/apprentice"], ALIAS),
    ("What instrument does Thaddeus play, and where?", ["fiddle/folk-session"], FIX),
    ("Does Thaddeus like mushrooms?", ["mushrooms/hates"], FIX),
    ("What's wrong with Thaddeus's back?", ["back/slipped-disc"], FIX),
    ("What work did Thaddeus do before he became a ranger?", ["job/drystone-waller"], BEFORE),
    ("What does Thaddeus's sister do?", ["sister/imogen-hydrologist"], FIX),
]
users.append(("thaddeus", [0, 11, 24, 36, 47], thaddeus, thaddeus_q))

# ---------------------------------------------------------------- yetunde (English)
yetunde = [
    m(
        1,
        "job/hospital-interpreter",
        N,
        "profile",
        "Yetunde works as a sign language interpreter at Royal University Hospital in Saskatoon",
        topic="work:job",
    ),
    m(
        1,
        "home/nutana",
        N,
        "fact",
        "Yetunde rents the top floor of an old house in Nutana",
        topic="home",
    ),
    m(
        1,
        "car/corolla",
        N,
        "fact",
        "Yetunde drives a 2008 Corolla with a cracked windscreen",
        topic="car",
    ),
    m(
        1,
        "brother/dayo",
        N,
        "fact",
        "Yetunde learned sign language growing up because her older brother Dayo is hard of hearing",
        topic="family",
        contacts=["Dayo"],
    ),
    m(
        1,
        "quilting/tuesday",
        N,
        "habit",
        "Yetunde goes to a quilting circle at the public library every Tuesday evening",
        topic="hobbies",
    ),
    m(
        1,
        "husband/surveyor",
        N,
        "fact",
        "Yetunde's husband Kobby works as a land surveyor",
        topic="family",
        contacts=["Kobby"],
    ),
    m(
        1,
        "cold-sick-until-thursday/off",
        S,
        "state",
        "Yetunde has a bad cold and has called in sick until Thursday",
    ),
    m(1, "allergy/buckwheat", N, "fact", "Yetunde is allergic to buckwheat", topic="health"),
    m(
        1,
        "job/hospital-interpreter",
        P,
        "profile",
        "Yetunde interprets between sign language and English for patients at the hospital",
    ),
    m(
        1,
        "tea/evaporated-milk",
        N,
        "preference",
        "Yetunde drinks her tea with a spoon of evaporated milk and no sugar",
    ),
    m(2, "abroad/never-left-canada", N, "fact", "Yetunde has never been outside Canada"),
    m(
        2,
        "mum/braiding-shop",
        N,
        "fact",
        "Yetunde's mum runs a hair braiding shop on 20th Street",
        topic="family",
    ),
    m(
        2,
        "husband/surveyor",
        P,
        "fact",
        "Kwabena Boateng, Yetunde's husband, surveys land for a living",
        contacts=["Kwabena Boateng"],
    ),
    m(
        2,
        "quilting/tuesday",
        P,
        "habit",
        "Tuesday nights Yetunde sews with a group of quilters at the library",
    ),
    m(
        2,
        "goal/waskesiu-cabin",
        N,
        "goal",
        "Yetunde and Kobby are saving to buy a cabin at Waskesiu Lake",
        contacts=["Kobby"],
    ),
    m(
        2,
        "home/nutana",
        P,
        "fact",
        "Yetunde's flat is upstairs in an old house in the Nutana neighbourhood",
    ),
    m(
        2,
        "citizenship-ceremony/interpreted",
        N,
        "event",
        "Yetunde interpreted at a citizenship ceremony for forty new Canadians",
    ),
    m(
        2,
        "iron/supplement",
        N,
        "fact",
        "Yetunde has low iron and takes a supplement every morning",
        topic="health",
    ),
    m(
        3,
        "job/school-board",
        U,
        "profile",
        "Yetunde left the hospital and interprets in classrooms for the Saskatoon public school board",
        topic="work:job",
    ),
    m(
        3,
        "car/sorento",
        U,
        "fact",
        "Yetunde got rid of the Corolla and bought a second-hand Sorento with all-wheel drive",
        topic="car",
    ),
    m(
        3,
        "brother/dayo",
        P,
        "fact",
        "Yetunde picked up signing as a kid so she could talk with her brother Dayo, who can't hear well",
        contacts=["Dayo"],
    ),
    m(
        3,
        "allergy/buckwheat",
        P,
        "fact",
        "Buckwheat gives Yetunde an allergic reaction",
        topic="health",
    ),
    m(
        3,
        "quilt-prize/star",
        N,
        "event",
        "Yetunde won second prize for a star quilt at the Saskatoon Ex",
    ),
    m(
        3,
        "tea/evaporated-milk",
        P,
        "preference",
        "Yetunde likes her tea with evaporated milk, unsweetened",
    ),
    m(
        3,
        "sister/folake-geography",
        N,
        "fact",
        "Yetunde's little sister Folake studies geography in Regina",
        topic="family",
        contacts=["Folake"],
    ),
    m(
        3,
        "food/pepper-soup",
        N,
        "preference",
        "Yetunde's favourite meal is her mum's goat pepper soup",
        topic="food",
    ),
    m(
        4,
        "home/sutherland",
        U,
        "fact",
        "Yetunde and Kobby have their own place at last, a bungalow in Sutherland",
        topic="home",
        contacts=["Kobby"],
    ),
    m(
        4,
        "quilting/saturday",
        U,
        "habit",
        "The library quilting circle Yetunde goes to switched to Saturday mornings",
        topic="hobbies",
    ),
    m(
        4,
        "car/corolla",
        P,
        "fact",
        "Yetunde's old Corolla never started when it was colder than minus thirty",
    ),
    m(
        4,
        "job/school-board",
        P,
        "profile",
        "Yetunde spends her days signing lessons for students at a Saskatoon high school",
    ),
    m(
        4,
        "husband/surveyor",
        P,
        "fact",
        "Kobby spends most weeks out in the field surveying land",
        contacts=["Kobby"],
    ),
    m(
        4,
        "reykjavik-trip/week",
        C,
        "event",
        "Yetunde spent a week in Reykjavik last winter for her cousin's wedding",
        contradicts="abroad/never-left-canada",
    ),
    m(
        4,
        "home/nutana",
        P,
        "fact",
        "Back in the Nutana flat, Yetunde could walk down to the river in five minutes",
    ),
    m(
        5,
        "home/sutherland",
        P,
        "fact",
        "Yetunde lives in a bungalow in Sutherland with her husband",
    ),
    m(5, "car/sorento", P, "fact", "Yetunde drives a Sorento now"),
    m(
        5,
        "folake-staying/two-weeks",
        S,
        "state",
        "Folake is staying at Yetunde's for two weeks over her reading break",
        contacts=["Folake"],
    ),
    m(
        5,
        "kobby-north/month-end",
        S,
        "state",
        "Kobby is on a survey job up north near La Ronge until the end of the month",
        contacts=["Kobby"],
    ),
    m(
        5,
        "tendinitis-off/this-week",
        S,
        "state",
        "Yetunde's wrists are sore with tendinitis, so she isn't interpreting this week",
    ),
    m(
        5,
        "mum/braiding-shop",
        P,
        "fact",
        "Yetunde's mother owns a braiding shop on 20th Street",
        topic="family",
    ),
    m(
        5,
        "goal/waskesiu-cabin",
        P,
        "goal",
        "A cabin at Waskesiu Lake is what Yetunde and Kobby are putting money aside for",
    ),
]
yetunde_q = [
    ("Where do Yetunde and Kobby live?", ["home/sutherland"], CUR),
    ("Who does Yetunde interpret for these days?", ["job/school-board"], CUR),
    ("What does Yetunde drive?", ["car/sorento"], CUR),
    ("When does Yetunde's quilting group meet?", ["quilting/saturday"], CUR),
    ("Who is staying with Yetunde right now?", ["folake-staying/two-weeks"], ST),
    ("Is Kobby home in Saskatoon this month?", ["kobby-north/month-end"], ST),
    ("Is Yetunde working this week?", ["tendinitis-off/this-week"], ST),
    ("What does Kwabena do for a living?", ["husband/surveyor"], ALIAS),
    ("Why does Yetunde know sign language?", ["brother/dayo"], FIX),
    ("Is there any food Yetunde can't eat?", ["allergy/buckwheat"], FIX),
    ("How does Yetunde take her tea?", ["tea/evaporated-milk"], FIX),
    ("What are Yetunde and Kobby saving up for?", ["goal/waskesiu-cabin"], FIX),
    ("What car did Yetunde have before?", ["car/corolla"], BEFORE),
    ("What does Yetunde's sister study?", ["sister/folake-geography"], FIX),
]
users.append(("yetunde", [0, 9, 20, 32, 44], yetunde, yetunde_q))

# ---------------------------------------------------------------- shoulin (Chinese)
shoulin = [
    m(
        1,
        "job/forest-ranger",
        N,
        "profile",
        "阚守林是伊春一个林场的护林员，每天进山巡林",
        topic="work:job",
    ),
    m(1, "home/forest-farm-dorm", N, "fact", "阚守林住在林场的职工宿舍里", topic="home:area"),
    m(1, "commute/jeep", N, "habit", "阚守林开一辆旧吉普车巡山", topic="transport:commute"),
    m(
        1,
        "wife/post-office",
        N,
        "fact",
        "阚守林的爱人萍萍在镇上的邮政所上班",
        topic="family",
        contacts=["萍萍"],
    ),
    m(
        1,
        "daughter/tongtong",
        N,
        "fact",
        "阚守林的女儿桐桐在伊春一中读高二",
        topic="family",
        contacts=["桐桐"],
    ),
    m(1, "fever-sick-leave/three-days", S, "state", "阚守林这几天发烧，请了三天假在家躺着"),
    m(1, "bird/tiedan", N, "fact", "阚守林家养了一只八哥，叫铁蛋，会学人说“下雨了”"),
    m(1, "job/forest-ranger", P, "profile", "阚守林在林场干护林员，天天上山巡查防火"),
    m(1, "alcohol/never", N, "fact", "阚守林从不碰酒"),
    m(1, "hometown/juxian", N, "fact", "阚守林老家在莒县，小时候跟着爹妈闯关东过来的"),
    m(2, "rheumatism/legs", N, "fact", "阚守林有风湿，一到阴天腿就疼", topic="health"),
    m(2, "root-carving/hobby", N, "habit", "阚守林没事的时候喜欢做根雕", topic="hobbies"),
    m(
        2,
        "wife-plan/mountain-goods-shop",
        N,
        "goal",
        "萍萍打算辞职，在镇上开个山货店卖木耳和榛蘑",
        topic="family",
        contacts=["萍萍"],
    ),
    m(2, "video-call/nightly", N, "habit", "阚守林每天晚上九点跟女儿打视频电话", topic="family"),
    m(2, "home/forest-farm-dorm", P, "fact", "阚守林一家住的是林场分的宿舍房"),
    m(2, "wife/post-office", P, "fact", "樊丽萍在镇上邮政所工作", contacts=["樊丽萍"]),
    m(2, "lynx/rescued", N, "event", "阚守林巡山时救了一只被夹子夹伤的猞猁"),
    m(2, "food/shazhucai", N, "preference", "阚守林最爱吃杀猪菜", topic="food"),
    m(2, "bird/tiedan", P, "fact", "铁蛋是阚守林养的八哥，会说好几句话"),
    m(
        3,
        "job/blueberry-grower",
        U,
        "profile",
        "阚守林不干护林员了，承包了十五亩地种蓝莓",
        topic="work:job",
    ),
    m(3, "home/yimei-flat", U, "fact", "阚守林一家搬进了伊美区的楼房", topic="home:area"),
    m(
        3,
        "commute/e-tricycle",
        U,
        "habit",
        "阚守林现在骑电动三轮车去蓝莓地",
        topic="transport:commute",
    ),
    m(3, "rheumatism/legs", P, "fact", "阚守林腿上有风湿的老毛病，天一阴就疼", topic="health"),
    m(3, "hometown/juxian", P, "fact", "阚守林祖籍莒县，是小时候随家里人闯关东来的"),
    m(3, "alcohol/never", P, "fact", "阚守林一口酒都不喝"),
    m(3, "goal/hazelnuts", N, "goal", "阚守林想再承包一片山地种榛子"),
    m(3, "suona/plays", N, "habit", "阚守林会吹唢呐，村里办喜事常请他去", topic="hobbies"),
    m(
        4,
        "wife-plan/nanny-cert",
        U,
        "goal",
        "萍萍不打算开店了，改成去考育婴师证",
        topic="family",
        contacts=["萍萍"],
    ),
    m(
        4,
        "video-call/sunday",
        U,
        "habit",
        "女儿功课紧了，阚守林改成周日晚上才跟她视频",
        topic="family",
    ),
    m(4, "job/forest-ranger", P, "profile", "当护林员那几年，阚守林一年要走坏好几双胶鞋"),
    m(
        4,
        "wedding-baijiu/half-jin",
        C,
        "event",
        "阚守林在战友的婚宴上喝了半斤高粱酒",
        contradicts="alcohol/never",
    ),
    m(4, "root-carving/hobby", P, "habit", "阚守林的爱好是根雕，家里摆了好几个", topic="hobbies"),
    m(4, "job/blueberry-grower", P, "profile", "阚守林如今是种蓝莓的，地有十五亩"),
    m(4, "daughter/tongtong", P, "fact", "桐桐是阚守林的闺女，在一中上学", contacts=["桐桐"]),
    m(5, "home/yimei-flat", P, "fact", "阚守林住在伊美区的楼房里"),
    m(5, "home/forest-farm-dorm", P, "fact", "以前住林场宿舍的时候，阚守林冬天得自己烧炕"),
    m(
        5,
        "tongtong-camp/month-end",
        S,
        "state",
        "桐桐去北戴河参加研学营，到月底才回来",
        contacts=["桐桐"],
    ),
    m(5, "training-dandong/two-weeks", S, "state", "阚守林这两周在丹东学蓝莓种植技术"),
    m(
        5,
        "tiedan-neighbour/this-week",
        S,
        "state",
        "铁蛋这个星期放在邻居老葛家帮忙照看",
        contacts=["老葛"],
    ),
    m(5, "commute/e-tricycle", P, "habit", "阚守林去地里都是骑那辆电动三轮"),
]
shoulin_q = [
    ("阚守林住在哪儿？", ["home/yimei-flat"], CUR),
    ("阚守林干的是什么活？", ["job/blueberry-grower"], CUR),
    ("阚守林去地里骑什么车？", ["commute/e-tricycle"], CUR),
    ("樊丽萍打算做什么？", ["wife-plan/nanny-cert"], CUR),
    ("阚守林多久跟女儿视频一次？", ["video-call/sunday"], CUR),
    ("桐桐这阵子在家吗？", ["tongtong-camp/month-end"], ST),
    ("这两周能在伊春找到阚守林吗？", ["training-dandong/two-weeks"], ST),
    ("铁蛋最近在谁那儿？", ["tiedan-neighbour/this-week"], ST),
    ("萍萍在哪里上班？", ["wife/post-office"], ALIAS),
    ("阚守林喝酒吗？", ["alcohol/never"], FIX),
    ("阚守林身体有什么老毛病？", ["rheumatism/legs"], FIX),
    ("阚守林以前是做什么工作的？", ["job/forest-ranger"], BEFORE),
    ("阚守林老家是哪里的？", ["hometown/juxian"], FIX),
    ("阚守林喜欢吃什么？", ["food/shazhucai"], FIX),
    ("阚守林闲着的时候做什么手工？", ["root-carving/hobby"], FIX),
]
users.append(("shoulin", [0, 13, 26, 38, 50], shoulin, shoulin_q))

# ---------------------------------------------------------------- xiaotang (Chinese)
xiaotang = [
    m(
        1,
        "job/tianyige-restorer",
        N,
        "profile",
        "滕晓棠在宁波天一阁博物院做古籍修复",
        topic="work:job",
    ),
    m(
        1,
        "home/gulou-old-house",
        N,
        "fact",
        "滕晓棠住在宁波鼓楼附近外婆留下的老房子里",
        topic="home:area",
    ),
    m(1, "xiaokai/morning", N, "habit", "滕晓棠每天早上六点起来练小楷", topic="hobbies"),
    m(1, "cat/nuomi", N, "fact", "滕晓棠养了一只狸花猫，叫糯米"),
    m(
        1,
        "boyfriend/customs-broker",
        N,
        "fact",
        "滕晓棠的男朋友阿斌在一家外贸公司做报关员",
        topic="family",
        contacts=["阿斌"],
    ),
    m(1, "wrist-sprain/few-days", S, "state", "滕晓棠手腕扭了，这几天修不了书"),
    m(1, "yueju/weekends", N, "habit", "滕晓棠周末跟着戏迷社唱越剧", topic="hobbies"),
    m(1, "job/tianyige-restorer", P, "profile", "滕晓棠的工作是修补天一阁里的古书"),
    m(1, "cable-car/never", N, "fact", "滕晓棠一坐缆车就腿软，从来不坐"),
    m(1, "mentor/kuang", N, "fact", "邝老师是带滕晓棠入行的修复师傅", contacts=["邝老师"]),
    m(2, "abin-plan/grad-exam", N, "goal", "阿斌打算考研", topic="family", contacts=["阿斌"]),
    m(2, "neck/cervical", N, "fact", "滕晓棠颈椎不好，低头久了就头晕", topic="health"),
    m(2, "grandpa/seal-carver", N, "fact", "滕晓棠的爷爷以前是刻图章的篆刻师傅", topic="family"),
    m(
        2,
        "mentor/kuang",
        P,
        "fact",
        "邝秀琴手把手教会了滕晓棠怎么补虫蛀的书页",
        contacts=["邝秀琴"],
    ),
    m(2, "food/croaker-noodles", N, "preference", "滕晓棠最爱吃黄鱼面", topic="food"),
    m(2, "home/gulou-old-house", P, "fact", "滕晓棠住的是外婆传下来的老屋，就在鼓楼边上"),
    m(2, "genealogy/ming", N, "event", "滕晓棠花了三个月修好一部明代的族谱"),
    m(2, "cat/nuomi", P, "fact", "糯米是滕晓棠家的狸花猫"),
    m(
        3,
        "job/own-studio",
        U,
        "profile",
        "滕晓棠从天一阁辞职了，自己开了间修复工作室，接私人藏书的活",
        topic="work:job",
    ),
    m(3, "xiaokai/bedtime", U, "habit", "滕晓棠练小楷的时间改到了晚上睡觉前", topic="hobbies"),
    m(3, "neck/cervical", P, "fact", "滕晓棠的颈椎有毛病，伏案时间一长就晕", topic="health"),
    m(3, "yueju/weekends", P, "habit", "滕晓棠是个越剧迷，周末会去戏迷社唱两段"),
    m(3, "goal/restorer-cert", N, "goal", "滕晓棠想考文物修复师的职业资格证"),
    m(3, "paste/wheat-starch", N, "fact", "滕晓棠补书用的浆糊都是自己拿小麦淀粉熬的", topic="work"),
    m(3, "boyfriend/customs-broker", P, "fact", "柯文斌在外贸公司当报关员", contacts=["柯文斌"]),
    m(3, "mother/chinese-teacher", N, "fact", "滕晓棠的妈妈是中学语文老师", topic="family"),
    m(
        4,
        "home/cixi",
        U,
        "fact",
        "滕晓棠搬去慈溪跟阿斌一起住了",
        topic="home:area",
        contacts=["阿斌"],
    ),
    m(
        4,
        "abin-plan/waxberry-farm",
        U,
        "goal",
        "阿斌不考研了，准备回家接手杨梅园",
        topic="family",
        contacts=["阿斌"],
    ),
    m(4, "job/tianyige-restorer", P, "profile", "在天一阁那几年，滕晓棠一年能修三百多页残书"),
    m(
        4,
        "siming-cable-car/rode",
        C,
        "event",
        "滕晓棠上周末坐缆车上了四明山看红枫",
        contradicts="cable-car/never",
    ),
    m(4, "job/own-studio", P, "profile", "滕晓棠现在自己做老板，专门帮藏书人修古籍"),
    m(4, "grandpa/seal-carver", P, "fact", "滕晓棠的爷爷是个篆刻匠人，一辈子都在刻印章"),
    m(5, "home/cixi", P, "fact", "滕晓棠如今住在慈溪"),
    m(5, "home/gulou-old-house", P, "fact", "滕晓棠搬走前住的鼓楼老房子，冬天特别阴冷"),
    m(
        5,
        "abin-away/two-weeks",
        S,
        "state",
        "阿斌这两周在杨梅园忙着搭棚，吃住都在山上",
        contacts=["阿斌"],
    ),
    m(5, "studio-painting/this-week", S, "state", "滕晓棠的工作室这周在刷墙，暂时不接活"),
    m(5, "hoarse-no-rehearsal/this-week", S, "state", "滕晓棠感冒嗓子哑了，这周戏迷社的排练去不了"),
    m(5, "xiaokai/bedtime", P, "habit", "滕晓棠现在都是晚上临睡前练一会儿小楷"),
    m(5, "abin-plan/waxberry-farm", P, "goal", "阿斌打算把家里的杨梅园接过来"),
    m(5, "mother/retired", U, "fact", "滕晓棠的妈妈上个月退休了，不再教书", topic="family"),
]
xiaotang_q = [
    ("滕晓棠住在哪里？", ["home/cixi"], CUR),
    ("滕晓棠在哪儿上班？", ["job/own-studio"], CUR),
    ("滕晓棠一般什么时候练字？", ["xiaokai/bedtime"], CUR),
    ("柯文斌接下来有什么打算？", ["abin-plan/waxberry-farm"], CUR),
    ("阿斌这阵子在家吗？", ["abin-away/two-weeks"], ST),
    ("这周能把古书送到滕晓棠那里修吗？", ["studio-painting/this-week"], ST),
    ("滕晓棠这周会去唱越剧吗？", ["hoarse-no-rehearsal/this-week"], ST),
    ("邝老师是谁？", ["mentor/kuang"], ALIAS),
    ("滕晓棠敢坐缆车吗？", ["cable-car/never"], FIX),
    ("滕晓棠有什么健康问题？", ["neck/cervical"], FIX),
    ("滕晓棠的爷爷是做什么的？", ["grandpa/seal-carver"], FIX),
    ("请滕晓棠吃饭点什么好？", ["food/croaker-noodles"], FIX),
    ("滕晓棠之前在哪个单位上班？", ["job/tianyige-restorer"], BEFORE),
    ("滕晓棠的猫叫什么？", ["cat/nuomi"], FIX),
]
users.append(("xiaotang", [0, 10, 22, 35, 46], xiaotang, xiaotang_q))

# ---------------------------------------------------------------- shernice (English and Chinese)
shernice = [
    m(
        1,
        "job/private-clinic",
        N,
        "profile",
        "Shernice is an orthodontist at a private clinic in Kota Kinabalu",
        topic="work:job",
    ),
    m(
        1,
        "home/likas-parents",
        N,
        "fact",
        "Shernice 跟爸妈一起住在 Likas 的老家",
        topic="home:area",
    ),
    m(1, "car/bezza", N, "fact", "Shernice drives a little white Bezza", topic="car"),
    m(
        1,
        "paddleboard/saturday",
        N,
        "habit",
        "Shernice 每个礼拜六早上去 Tanjung Aru 玩 paddleboard",
        topic="hobbies",
    ),
    m(
        1,
        "boyfriend/electrician",
        N,
        "fact",
        "Shernice's boyfriend Ah Keong works as an electrician",
        topic="family",
        contacts=["Ah Keong"],
    ),
    m(
        1,
        "wisdom-tooth-leave/until-friday",
        S,
        "state",
        "Shernice 这个礼拜拔了 wisdom tooth, 请假到礼拜五",
    ),
    m(
        1,
        "dog/rambutan",
        N,
        "fact",
        "Shernice has a dog called Rambutan that she took in as a stray",
    ),
    m(1, "job/private-clinic", P, "profile", "骆嘉欣是牙齿矫正医生，在亚庇一家私人诊所上班"),
    m(1, "bedtime/by-ten", N, "habit", "Shernice never stays up late, she's always in bed by ten"),
    m(1, "allergy/crab", N, "fact", "Shernice is allergic to crab", topic="health"),
    m(
        2,
        "ahkeong-plan/taiwan-barista",
        N,
        "goal",
        "Ah Keong plans to go to Taiwan to do a barista course",
        topic="family",
        contacts=["Ah Keong"],
    ),
    m(
        2,
        "brother/jayden-actuarial",
        N,
        "fact",
        "Shernice 的弟弟 Jayden 在 Christchurch 读 actuarial science",
        topic="family",
        contacts=["Jayden"],
    ),
    m(2, "ink-painting/weekends", N, "habit", "Shernice 周末会画国画 to unwind", topic="hobbies"),
    m(
        2,
        "boyfriend/electrician",
        P,
        "fact",
        "钟伟强是做电工的，哪里有电线要接就去哪里",
        contacts=["钟伟强"],
    ),
    m(2, "trained/dunedin", N, "fact", "Shernice did her orthodontics training in Dunedin"),
    m(2, "paddleboard/saturday", P, "habit", "Saturday mornings 她都在 Tanjung Aru 划 paddleboard"),
    m(
        2,
        "amah/sandakan-hakka",
        N,
        "fact",
        "Shernice 的阿婆住在 Sandakan, 只会讲 Hakka",
        topic="family",
    ),
    m(2, "dog/rambutan", P, "fact", "Rambutan 是 Shernice 在街上捡回来的流浪狗"),
    m(
        3,
        "job/own-practice",
        U,
        "profile",
        "Shernice left the clinic and opened her own orthodontic practice in Penampang",
        topic="work:job",
    ),
    m(
        3,
        "home/tanjung-aru-unit",
        U,
        "fact",
        "Shernice 搬出来了, 自己买了一间 one-bedroom unit near Tanjung Aru",
        topic="home:area",
    ),
    m(3, "allergy/crab", P, "fact", "Shernice 一吃螃蟹就会过敏", topic="health"),
    m(
        3,
        "goal/mount-kinabalu",
        N,
        "goal",
        "Shernice wants to climb Mount Kinabalu before the end of next year",
    ),
    m(3, "bedtime/by-ten", P, "habit", "Shernice 每天晚上十点前就上床了，从不熬夜"),
    m(
        3,
        "food/ngiu-chap",
        N,
        "preference",
        "Shernice's favourite food is ngiu chap, the KK beef noodles",
        topic="food",
    ),
    m(
        3,
        "bangkok-talk/aligners",
        N,
        "event",
        "Shernice gave a talk on clear aligners at a conference in Bangkok",
    ),
    m(4, "car/vios", U, "fact", "Shernice 换车了, 开一部 second-hand Vios", topic="car"),
    m(
        4,
        "ahkeong-plan/father-stall",
        U,
        "goal",
        "Ah Keong 决定不去 Taiwan 了, 留下来帮他爸爸顾 Tuaran mee 的档口",
        topic="family",
        contacts=["Ah Keong"],
    ),
    m(
        4,
        "home/likas-parents",
        P,
        "fact",
        "When Shernice still lived at home in Likas, 妈妈每天帮她打包午餐",
    ),
    m(4, "job/own-practice", P, "profile", "骆嘉欣 runs her own practice in Penampang"),
    m(
        4,
        "karaoke-3am/party",
        C,
        "event",
        "Shernice 昨晚 at a friend's party 玩到凌晨三点才回家",
        contradicts="bedtime/by-ten",
    ),
    m(
        4,
        "brother/jayden-actuarial",
        P,
        "fact",
        "Jayden, Shernice's little brother, is doing an actuarial science degree in Christchurch",
        contacts=["Jayden"],
    ),
    m(
        4,
        "ink-painting/weekends",
        P,
        "habit",
        "Shernice paints Chinese ink landscapes on weekends",
        topic="hobbies",
    ),
    m(
        4,
        "paddleboard/sunday-evening",
        U,
        "habit",
        "礼拜六早上诊所要开, so Shernice 改成礼拜天傍晚去 paddleboard",
        topic="hobbies",
    ),
    m(
        5,
        "home/tanjung-aru-unit",
        P,
        "fact",
        "Shernice lives on her own in a one-bedroom unit near Tanjung Aru",
    ),
    m(5, "car/bezza", P, "fact", "那部旧 Bezza 的 aircond 老是坏"),
    m(
        5,
        "ahkeong-tawau/until-friday",
        S,
        "state",
        "Ah Keong 在 Tawau 的工地接了个电工的活, until Friday",
        contacts=["Ah Keong"],
    ),
    m(
        5,
        "jayden-staying/two-weeks",
        S,
        "state",
        "Jayden 放假回来, staying with Shernice for two weeks",
        contacts=["Jayden"],
    ),
    m(
        5,
        "xray-broken/until-monday",
        S,
        "state",
        "The X-ray machine at Shernice's practice is broken until next Monday, 这几天拍不了片",
    ),
    m(5, "car/vios", P, "fact", "Shernice drives a used Vios these days"),
    m(5, "food/ngiu-chap", P, "preference", "Shernice 最爱吃 ngiu chap, 就是亚庇的牛杂面"),
]
shernice_q = [
    ("Where does Shernice live?", ["home/tanjung-aru-unit"], CUR),
    ("骆嘉欣在哪里上班？", ["job/own-practice"], CUR),
    ("Shernice 开什么车？", ["car/vios"], CUR),
    ("What is Ah Keong planning to do?", ["ahkeong-plan/father-stall"], CUR),
    ("Shernice 什么时候去玩 paddleboard？", ["paddleboard/sunday-evening"], CUR),
    ("Is Ah Keong in KK this week?", ["ahkeong-tawau/until-friday"], ST),
    ("Who is staying with Shernice at the moment?", ["jayden-staying/two-weeks"], ST),
    ("这几天可以去 Shernice 的诊所拍 X-ray 吗？", ["xray-broken/until-monday"], ST),
    ("钟伟强是做什么的？", ["boyfriend/electrician"], ALIAS),
    ("Is there anything Shernice can't eat?", ["allergy/crab"], FIX),
    ("Where did Shernice train as an orthodontist?", ["trained/dunedin"], FIX),
    ("Shernice 以前开的是什么车？", ["car/bezza"], BEFORE),
    ("What language does Shernice's grandmother speak?", ["amah/sandakan-hakka"], FIX),
    ("Shernice 的狗叫什么名字？", ["dog/rambutan"], FIX),
]
users.append(("shernice", [0, 12, 23, 33, 45], shernice, shernice_q))

# ---------------------------------------------------------------- dominic (English and Chinese)
dominic = [
    m(
        1,
        "job/furnace-assistant",
        N,
        "profile",
        "Dominic works as an assistant to a glass master at a furnace on Murano",
        topic="work:job",
    ),
    m(
        1,
        "home/cannaregio",
        N,
        "fact",
        "Dominic rents a small flat in Cannaregio",
        topic="home:area",
    ),
    m(
        1,
        "commute/vaporetto",
        N,
        "habit",
        "Dominic 每天坐 vaporetto 从 Cannaregio 去 Murano 上班",
        topic="transport:commute",
    ),
    m(
        1,
        "girlfriend/art-history",
        N,
        "fact",
        "Dominic's girlfriend Chiara teaches art history at a liceo in Venice",
        topic="family",
        contacts=["Chiara"],
    ),
    m(
        1,
        "rowing/thursday",
        N,
        "habit",
        "Dominic 每个礼拜四晚上跟 rowing club 去划 voga alla veneta",
        topic="hobbies",
    ),
    m(
        1,
        "burned-hand/this-week",
        S,
        "state",
        "Dominic burned his hand at the furnace, 这个礼拜都不能吹玻璃",
    ),
    m(1, "driving/no-licence", N, "fact", "Dominic 没有驾照，也从来没开过车"),
    m(1, "job/furnace-assistant", P, "profile", "符国栋在 Murano 的玻璃工坊给 maestro 当助手"),
    m(
        1,
        "parents/coconut-chicken",
        N,
        "fact",
        "Dominic 的爸妈在海口开了一家椰子鸡店",
        topic="family",
    ),
    m(
        1,
        "mentor/tavio",
        N,
        "fact",
        "Tavio is the glass master Dominic assists at the furnace",
        contacts=["Tavio"],
    ),
    m(
        2,
        "chiara-plan/phd-bologna",
        N,
        "goal",
        "Chiara wants to do a PhD in Bologna",
        topic="family",
        contacts=["Chiara"],
    ),
    m(
        2,
        "eczema/hands",
        N,
        "fact",
        "Dominic's hands get eczema from the heat of the furnace",
        topic="health",
    ),
    m(2, "canary/tiramisu", N, "fact", "Chiara 养了一只金丝雀，叫 Tiramisu", contacts=["Chiara"]),
    m(
        2,
        "mentor/tavio",
        P,
        "fact",
        "Ottavio Ghezzi 是带 Dominic 的 glass master, 在 Murano 吹了四十年玻璃",
        contacts=["Ottavio Ghezzi"],
    ),
    m(
        2,
        "food/sarde-in-saor",
        N,
        "preference",
        "Dominic's favourite Venetian dish is sarde in saor",
        topic="food",
    ),
    m(2, "home/cannaregio", P, "fact", "Dominic 租住在 Cannaregio 的一间小公寓"),
    m(2, "chandelier/vienna", N, "event", "Dominic sold his first chandelier to a hotel in Vienna"),
    m(
        2,
        "rowing/thursday",
        P,
        "habit",
        "Thursday evenings Dominic goes out rowing Venetian-style with his club",
    ),
    m(
        3,
        "job/own-studio",
        U,
        "profile",
        "Dominic left Tavio's furnace and set up his own small glass studio on Giudecca",
        topic="work:job",
    ),
    m(
        3,
        "home/mestre",
        U,
        "fact",
        "Dominic and Chiara found a flat across the lagoon in Mestre and moved in together",
        topic="home:area",
        contacts=["Chiara"],
    ),
    m(
        3,
        "commute/train-and-boat",
        U,
        "habit",
        "These days Dominic takes the train over the bridge and then a boat to Giudecca",
        topic="transport:commute",
    ),
    m(3, "eczema/hands", P, "fact", "Dominic 手上的湿疹是被炉子的热气弄出来的", topic="health"),
    m(3, "goal/glass-week-show", N, "goal", "Dominic 想在 Venice Glass Week 办一个自己的展览"),
    m(
        3,
        "parents/coconut-chicken",
        P,
        "fact",
        "Dominic's parents run a coconut chicken restaurant in Haikou",
        topic="family",
    ),
    m(3, "colour-blind/red-green", N, "fact", "Dominic 是红绿色弱", topic="health"),
    m(
        4,
        "chiara-plan/teaching-post",
        U,
        "goal",
        "Chiara 放弃读 PhD 了, she's taken a permanent teaching post in Mestre instead",
        topic="family",
        contacts=["Chiara"],
    ),
    m(
        4,
        "rowing/saturday-morning",
        U,
        "habit",
        "Dominic's rowing club moved its outings to Saturday mornings",
        topic="hobbies",
    ),
    m(
        4,
        "job/furnace-assistant",
        P,
        "profile",
        "Back when he was assisting Tavio, Dominic 每天要在炉子边站十个小时",
    ),
    m(
        4,
        "verona-drive/fiat",
        C,
        "event",
        "Dominic drove Chiara's Fiat to Verona for a glass fair",
        contradicts="driving/no-licence",
    ),
    m(4, "job/own-studio", P, "profile", "符国栋现在在 Giudecca 有自己的玻璃工作室"),
    m(4, "canary/tiramisu", P, "fact", "Tiramisu is Chiara's yellow canary", contacts=["Chiara"]),
    m(
        4,
        "colour-blind/red-green",
        P,
        "fact",
        "Dominic can't tell some reds from greens, which makes mixing colours tricky",
    ),
    m(
        4,
        "murano-beads/collects",
        N,
        "habit",
        "Dominic collects old Murano glass beads from flea markets",
        topic="hobbies",
    ),
    m(5, "home/mestre", P, "fact", "Dominic lives in Mestre with Chiara"),
    m(5, "home/cannaregio", P, "fact", "In the old Cannaregio flat, Dominic 楼下就是一家 bacaro"),
    m(
        5,
        "parents-visiting/month-end",
        S,
        "state",
        "Dominic 的爸妈从海口过来看他，住到月底",
        topic="family",
    ),
    m(
        5,
        "chiara-bologna/until-sunday",
        S,
        "state",
        "Chiara is in Bologna for a conference until Sunday",
        contacts=["Chiara"],
    ),
    m(
        5,
        "furnace-relined/this-week",
        S,
        "state",
        "Dominic's furnace is being relined this week, so he can't blow any glass",
    ),
    m(5, "commute/train-and-boat", P, "habit", "Dominic 每天先坐火车过桥，再坐船去 Giudecca"),
    m(5, "rowing/saturday-morning", P, "habit", "Dominic 现在礼拜六早上去划船"),
]
dominic_q = [
    ("Where does Dominic live?", ["home/mestre"], CUR),
    ("符国栋在哪里工作？", ["job/own-studio"], CUR),
    ("How does Dominic get to work?", ["commute/train-and-boat"], CUR),
    ("Chiara 接下来有什么打算？", ["chiara-plan/teaching-post"], CUR),
    ("When does Dominic go rowing?", ["rowing/saturday-morning"], CUR),
    ("Dominic 的爸妈现在在海口吗？", ["parents-visiting/month-end"], ST),
    ("Is Chiara at home at the moment?", ["chiara-bologna/until-sunday"], ST),
    ("Can Dominic make a glass piece for me this week?", ["furnace-relined/this-week"], ST),
    ("Who is Ottavio Ghezzi?", ["mentor/tavio"], ALIAS),
    ("Dominic 会开车吗？", ["driving/no-licence"], FIX),
    ("Dominic 的手有什么毛病？", ["eczema/hands"], FIX),
    ("Which colours does Dominic have trouble telling apart?", ["colour-blind/red-green"], FIX),
    ("Where did Dominic live before Mestre?", ["home/cannaregio"], BEFORE),
    ("What pet does Chiara have?", ["canary/tiramisu"], FIX),
]
users.append(("dominic", [0, 8, 19, 31, 43], dominic, dominic_q))

# ---------------------------------------------------------------- emit + checks
out = []
errors = []
counts = collections.Counter()
for user, days, mems, qs in users:
    seen_facts = {}  # fact -> first label
    slot_latest = {}
    ids_by_fact = collections.defaultdict(list)
    last_session = 0
    for i, (session, fact, label, kind, content, kw) in enumerate(mems, 1):
        mid = f"{user}-m{i:02d}"
        slot = fact.split("/", 1)[0]
        if session < last_session:
            errors.append(f"{mid} session order")
        last_session = session
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
        if set(kw) - {"topic", "contacts", "contradicts"}:
            errors.append(f"{mid} unknown field {set(kw)}")
        if label in (N, U, S, C):
            slot_latest[slot] = fact
        seen_facts.setdefault(fact, label)
        ids_by_fact[fact].append(mid)
        counts[label] += 1
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
    last = max(s for s, *_ in mems)
    for j, (text, facts, category) in enumerate(qs, 1):
        answers = []
        for f in facts:
            if f not in ids_by_fact:
                errors.append(f"{user}-q{j:02d} unknown fact {f}")
            answers += ids_by_fact[f]
            if category == CUR and slot_latest.get(f.split("/", 1)[0]) != f:
                errors.append(f"{user}-q{j:02d} asks a current value that is not the latest")
            if category == BEFORE and slot_latest.get(f.split("/", 1)[0]) == f:
                errors.append(f"{user}-q{j:02d} asks a value before a change that never changed")
            if category == ST:
                (state,) = [x for x in mems if x[1] == f]
                if state[2] != S or state[0] != last:
                    errors.append(f"{user}-q{j:02d} asks a state not of the last session")
        counts["q:" + category] += 1
        out.append(
            {
                "type": "question",
                "id": f"{user}-q{j:02d}",
                "user": user,
                "text": text,
                "answers": answers,
            }
        )

if errors:
    print("\n".join(errors))
    raise SystemExit(1)
if not write_or_check(OUT, jsonl(out), "Build stream I, a measure for pymem eval."):
    raise SystemExit(1)
print("written", len(out), dict(sorted(counts.items())))
