"""Build bench/data/memory_dev_stream_f.jsonl: stream F, the next unseen measure for `pymem eval`.

Written on 2026-12-07 for issue 34 by an AI assistant (a helper session started by the
project's own session) that read only the format: docs/eval.md up to and including its
format section, the first 30 lines and the question lines of stream E, the header and the
helpers of scripts/build_memory_dev_stream_e.py (m(...), the question tuples, the emit and
checks at its end), and the loader in pymem/eval.py (load_dataset and its checks). It did
not read pymem's decision rules (sql/), its word lists, pymem/kinds.py or the contents of
any other stream (to keep the people, places and jobs apart from theirs, it only counted
the lines of streams A-D and the bundled stream that contain a candidate name or word, and
dropped every candidate found there), and it never ran `pymem eval` or a pymem store on
this stream (only the loader, as a format check). Those who tune pymem do not read its
contents or its misses.

Six invented users, other people, places and jobs than streams A-E: two write English
(kofi, Kofi Asante, a stained-glass restorer in Bradford who joins a conservation studio
in York and moves to Haxby; gwen, Gwen Llewellyn, a farrier near Rhayader who becomes an
auctioneer at a saleroom and moves to Llandrindod Wells), two Chinese (yin, 殷秀兰, a metro
dispatcher in 呼和浩特 who moves to the city's emergency centre and to 赛罕区; qiu, 邱志远, a
pottery thrower in 景德镇 who builds his own wood kiln in 浮梁), two both, switching within
sentences (maggie, Maggie Ke, a film gaffer in Montreal who becomes a theatre lighting
designer and moves to Brossard; danny, Danny Wu, a drone-show pilot in 珠海 who turns to
survey drones in 佛山). Each user has restatements (some in the other language, some far
from the first wording, some of an old value after it changed: "back when ..."), updates
of a job, a home, a car or commute and a partner's plan (said in varied ways), temporary
states said as people say them (this Sunday, this week, until Friday, for two weeks,
这两周, 到月底, till the end of the month), three of them in the last session and asked
about, contacts named two ways (a nickname and a full name), one contradiction, and one
question about a value before it changed. The format has no validity field (as in E, a
state's span is in its words and its kind is `state`); a state that has run out by
question time (said in session 2, for that Sunday, Monday or week) is asked about through
the standing habit it interrupted, which holds again and is the answer. Each question's
answers are every memory of the fact it asks about. The third element of a question tuple
is its category, used by the checks below only; it is not written to the file.

No public dataset is copied: every person, place of work, sentence and question was made
up for this file.

    python scripts/build_memory_dev_stream_f.py           # write the file
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import collections
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_f.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days, memories, questions)
# question categories (checks only): the latest value of an updated slot, a state of the
# last session that still holds, the habit an expired state interrupted, a value before
# it changed, a person asked by the other name, a fact a later memory contradicts, a fact
# that never changed
CATEGORIES = ("current", "holds", "expired", "past", "alias", "contradicted", "stable")


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# ---------------------------------------------------------------- kofi (English)
kofi = [
    m(
        1,
        "job/glass-restorer",
        N,
        "profile",
        "Kofi Asante works for himself restoring stained-glass windows in churches and chapels around Bradford",
        topic="work:job",
    ),
    m(
        1,
        "home/manningham",
        N,
        "fact",
        "Kofi rents a stone terraced house in Manningham",
        topic="home:area",
    ),
    m(
        1,
        "car/astra",
        N,
        "fact",
        "Kofi drives a maroon Vauxhall Astra estate with his glass tools in the boot",
        topic="transport:car",
    ),
    m(
        1,
        "wife/optician",
        N,
        "fact",
        "Kofi's wife Abena is an optician at a high-street opticians in Bradford",
        topic="family:partner",
        contacts=["Abena"],
    ),
    m(
        1,
        "abena-plan/salon",
        N,
        "goal",
        "Abena is planning to leave the opticians and open her own hair salon",
        topic="family:plans",
        contacts=["Abena"],
    ),
    m(
        1,
        "brother/cab-driver",
        N,
        "fact",
        "Kofi's younger brother Kwams drives a black cab in Liverpool",
        contacts=["Kwams"],
    ),
    m(1, "alcohol/teetotal", N, "fact", "Kofi doesn't drink alcohol at all"),
    m(
        1,
        "sunday-lunch/mum-heaton",
        N,
        "habit",
        "Kofi has Sunday lunch at his mum's house in Heaton every week",
        topic="family:routine",
    ),
    m(
        1,
        "job/glass-restorer",
        P,
        "profile",
        "Kofi makes his living repairing old leaded windows, mostly for the churches of West Yorkshire",
    ),
    m(
        1,
        "music/highlife",
        N,
        "preference",
        "Kofi loves old Ghanaian highlife records from the sixties",
    ),
    m(
        2,
        "brother/cab-driver",
        P,
        "fact",
        "Kwame Asante, Kofi's brother, is a cabbie in Liverpool",
        contacts=["Kwame Asante"],
    ),
    m(
        2,
        "sunday-lunch-off/ilkley-chapel",
        S,
        "state",
        "Kofi won't make it to his mum's for lunch this Sunday because he has to finish a chapel window in Ilkley before a wedding there",
    ),
    m(
        2,
        "glass-cutter/grandfather",
        N,
        "fact",
        "Kofi still uses the diamond glass cutter his grandfather brought over from Accra",
    ),
    m(
        2,
        "alcohol/teetotal",
        P,
        "fact",
        "Kofi is teetotal and sticks to ginger beer when he goes to the pub",
    ),
    m(
        2,
        "abena-plan/salon",
        P,
        "goal",
        "Abena wants her own salon up and running by next spring",
        contacts=["Abena"],
    ),
    m(
        2,
        "car/astra",
        P,
        "fact",
        "Kofi's Astra estate has done well over two hundred thousand miles",
    ),
    m(
        2,
        "quiz/thursday",
        N,
        "habit",
        "Kofi goes to the pub quiz at the Fleece every Thursday night",
        topic="hobby:quiz",
    ),
    m(
        2,
        "job/glass-restorer",
        P,
        "profile",
        "Kofi spends his days up scaffolding in cold churches, putting old windows back together",
    ),
    m(
        2,
        "rose-window/saltaire",
        N,
        "event",
        "Kofi releaded the rose window of a chapel in Saltaire",
    ),
    m(
        3,
        "job/york-studio",
        U,
        "profile",
        "Kofi has given up working for himself and joined a glass conservation studio in York that looks after medieval windows",
        topic="work:job",
    ),
    m(
        3,
        "home/haxby",
        U,
        "fact",
        "Kofi and Abena bought a cottage in Haxby, just outside York, and left Manningham behind",
        topic="home:area",
        contacts=["Abena"],
    ),
    m(
        3,
        "wife/optician",
        P,
        "fact",
        "Abena still does eye tests at the opticians in Bradford",
        contacts=["Abena"],
    ),
    m(
        3,
        "glass-cutter/grandfather",
        P,
        "fact",
        "The glass cutter Kofi carries everywhere belonged to his grandfather in Ghana",
    ),
    m(3, "quiz/thursday", P, "habit", "Thursday is quiz night for Kofi at the Fleece"),
    m(
        3,
        "job/york-studio",
        P,
        "profile",
        "These days Kofi's work is cleaning and mending medieval stained glass in York",
    ),
    m(
        3,
        "move-help/kwams",
        N,
        "event",
        "Kwams drove over from Liverpool in a hired van to help Kofi move house",
        contacts=["Kwams"],
    ),
    m(
        4,
        "car/transit",
        U,
        "fact",
        "Kofi sold the Astra and bought a second-hand Ford Transit van that can carry whole window panels",
        topic="transport:car",
    ),
    m(
        4,
        "abena-plan/law-degree",
        U,
        "goal",
        "Abena has dropped the salon idea and wants to study law with the Open University instead",
        topic="family:plans",
        contacts=["Abena"],
    ),
    m(
        4,
        "home/manningham",
        P,
        "fact",
        "Back when Kofi lived in Manningham he could walk to Lister Park in five minutes",
    ),
    m(
        4,
        "bitter/quiz-night",
        C,
        "event",
        "Kofi had three pints of bitter at the quiz night",
        contradicts="alcohol/teetotal",
    ),
    m(
        4,
        "home/haxby",
        P,
        "fact",
        "Kofi's place is a brick cottage at the edge of Haxby, a few miles north of York",
    ),
    m(
        4,
        "sunday-lunch/mum-heaton",
        P,
        "habit",
        "Kofi never misses his mother's Sunday roast in Heaton",
    ),
    m(
        4,
        "job/york-studio",
        P,
        "profile",
        "Kofi's employer is Hartley & Finch, a stained-glass conservation studio in York",
    ),
    m(
        4,
        "music/highlife",
        P,
        "preference",
        "Sixties highlife from Ghana is Kofi's favourite music",
    ),
    m(5, "car/transit", P, "fact", "Kofi gets about in a white Transit these days"),
    m(
        5,
        "abena-plan/law-degree",
        P,
        "goal",
        "Abena starts an Open University law degree in February",
        contacts=["Abena"],
    ),
    m(5, "car/astra", P, "fact", "Kofi misses the heated seats of the Vauxhall he used to drive"),
    m(5, "home/haxby", P, "fact", "Kofi lives out in Haxby, a short bus ride from York"),
    m(
        5,
        "cracked-ribs/two-weeks",
        S,
        "state",
        "Kofi cracked two ribs falling off a ladder and can't lift anything for the next two weeks",
    ),
    m(
        5,
        "abena-kumasi/month-end",
        S,
        "state",
        "Abena is in Kumasi visiting her family till the end of the month",
        contacts=["Abena"],
    ),
    m(
        5,
        "kwame-sofa/this-week",
        S,
        "state",
        "Kwame Asante is sleeping on Kofi's sofa this week while his flat in Liverpool is rewired",
        contacts=["Kwame Asante"],
    ),
]
kofi_q = [
    ("Where does Kofi live?", ["home/haxby"], "current"),
    ("What does Kofi do for work these days?", ["job/york-studio"], "current"),
    ("What does Kofi drive?", ["car/transit"], "current"),
    ("What are Abena's plans?", ["abena-plan/law-degree"], "current"),
    ("Can Kofi lift anything heavy at the moment?", ["cracked-ribs/two-weeks"], "holds"),
    ("Is Abena at home in Haxby right now?", ["abena-kumasi/month-end"], "holds"),
    ("Who's staying at Kofi's place this week?", ["kwame-sofa/this-week"], "holds"),
    ("Where does Kofi have Sunday lunch?", ["sunday-lunch/mum-heaton"], "expired"),
    ("What car did Kofi have before the van?", ["car/astra"], "past"),
    ("What does Kwams do for a living?", ["brother/cab-driver"], "alias"),
    ("Does Kofi drink alcohol?", ["alcohol/teetotal"], "contradicted"),
    ("What music does Kofi like?", ["music/highlife"], "stable"),
    ("Where did Kofi's glass cutter come from?", ["glass-cutter/grandfather"], "stable"),
    ("What does Kofi's wife do?", ["wife/optician"], "stable"),
    ("Which night is Kofi's pub quiz?", ["quiz/thursday"], "stable"),
]
users.append(("kofi", [0, 11, 23, 34, 47], kofi, kofi_q))

# ---------------------------------------------------------------- gwen (English)
gwen = [
    m(
        1,
        "job/farrier",
        N,
        "profile",
        "Gwen Llewellyn is a farrier, shoeing horses and ponies on the farms around Rhayader",
        topic="work:job",
    ),
    m(
        1,
        "home/rhayader",
        N,
        "fact",
        "Gwen lives in a rented farm cottage up the valley from Rhayader",
        topic="home:area",
    ),
    m(
        1,
        "car/defender",
        N,
        "fact",
        "Gwen drives an old green Land Rover Defender with her portable forge in the back",
        topic="transport:car",
    ),
    m(
        1,
        "partner/forestry",
        N,
        "fact",
        "Gwen's partner Huw is a forestry contractor felling timber in the Elan Valley",
        topic="family:partner",
        contacts=["Huw"],
    ),
    m(
        1,
        "huw-plan/canada",
        N,
        "goal",
        "Huw is thinking of taking a two-year forestry contract in British Columbia",
        topic="family:plans",
        contacts=["Huw"],
    ),
    m(1, "dog/fly", N, "fact", "Gwen's dog is a rough-coated lurcher called Fly"),
    m(
        1,
        "friend/riding-stables",
        N,
        "fact",
        "Gwen's oldest friend Bethan Pryce runs a riding stables near Builth Wells",
        contacts=["Bethan Pryce"],
    ),
    m(1, "welsh/first-language", N, "fact", "Gwen grew up speaking Welsh at home"),
    m(1, "travel/never-left-wales", N, "fact", "Gwen has never once been outside Wales"),
    m(1, "tea/strong-sweet", N, "preference", "Gwen takes her tea strong with two sugars"),
    m(
        1,
        "job/farrier",
        P,
        "profile",
        "Gwen makes her living going from yard to yard with her anvil, trimming hooves and fitting shoes",
    ),
    m(
        2,
        "friend/riding-stables",
        P,
        "fact",
        "Beth, Gwen's friend from school, keeps a dozen trekking ponies at her stables outside Builth",
        contacts=["Beth"],
    ),
    m(
        2,
        "darts/monday",
        N,
        "habit",
        "Gwen plays darts for the Lion's team in Rhayader on Monday nights",
        topic="hobby:darts",
    ),
    m(
        2,
        "darts-off/tregaron",
        S,
        "state",
        "Gwen is missing darts this Monday because she's shoeing a string of trekking ponies over in Tregaron",
    ),
    m(2, "dog/fly", P, "fact", "Fly the lurcher goes everywhere Gwen goes"),
    m(
        2,
        "huw-plan/canada",
        P,
        "goal",
        "Huw has applied for a two-year job felling timber in British Columbia",
        contacts=["Huw"],
    ),
    m(
        2,
        "tea/strong-sweet",
        P,
        "preference",
        "Gwen likes a builder's brew, sweet, with two spoonfuls of sugar",
    ),
    m(
        2,
        "shoeing-contest/second",
        N,
        "event",
        "Gwen came second in the shoeing competition at the Royal Welsh Show",
    ),
    m(
        2,
        "home/rhayader",
        P,
        "fact",
        "Gwen's cottage sits at the top of a single-track lane above the Wye near Rhayader",
    ),
    m(
        2,
        "birthday/st-davids",
        N,
        "fact",
        "Gwen's birthday falls on St David's Day, the first of March",
    ),
    m(
        3,
        "job/auctioneer",
        U,
        "profile",
        "Gwen has hung up her farrier's apron and become an auctioneer at a saleroom in Llandrindod Wells, selling furniture and farm machinery",
        topic="work:job",
    ),
    m(
        3,
        "home/llandrindod",
        U,
        "fact",
        "To be nearer the saleroom, Gwen has moved into a terraced house in Llandrindod Wells",
        topic="home:area",
    ),
    m(
        3,
        "friend/riding-stables",
        P,
        "fact",
        "Bethan Pryce still runs the riding stables near Builth",
        contacts=["Bethan Pryce"],
    ),
    m(
        3,
        "welsh/first-language",
        P,
        "fact",
        "Welsh is Gwen's mother tongue; she only got comfortable in English at secondary school",
    ),
    m(
        3,
        "job/auctioneer",
        P,
        "profile",
        "On sale days Gwen stands at the rostrum in Llandrindod taking bids on dressers and tractors",
    ),
    m(
        3,
        "first-sale/48k",
        N,
        "event",
        "Gwen's first sale as an auctioneer took £48,000 in a single afternoon",
    ),
    m(3, "darts/monday", P, "habit", "Monday night is darts night for Gwen"),
    m(
        4,
        "car/duster",
        U,
        "fact",
        "Gwen has traded the Defender in for a Dacia Duster that is cheaper on diesel",
        topic="transport:car",
    ),
    m(
        4,
        "huw-plan/firewood",
        U,
        "goal",
        "Huw turned down the Canadian job; he's setting up a firewood business at home instead",
        topic="family:plans",
        contacts=["Huw"],
    ),
    m(
        4,
        "dublin/rugby",
        C,
        "event",
        "Gwen flew to Dublin for a weekend to watch Wales play Ireland",
        contradicts="travel/never-left-wales",
    ),
    m(
        4,
        "home/rhayader",
        P,
        "fact",
        "Back when Gwen lived above Rhayader she had no mobile signal at all",
    ),
    m(
        4,
        "home/llandrindod",
        P,
        "fact",
        "Gwen's house is on a street just off Rock Park in Llandrindod",
    ),
    m(
        4,
        "job/auctioneer",
        P,
        "profile",
        "Gwen works for the saleroom in Llandrindod Wells as one of its auctioneers",
    ),
    m(
        4,
        "dog/fly",
        P,
        "fact",
        "Gwen has kept Fly with her in town even though there's no field for him to run in",
    ),
    m(5, "car/duster", P, "fact", "Gwen gets about in a Duster these days"),
    m(
        5,
        "huw-plan/firewood",
        P,
        "goal",
        "Huw means to sell seasoned logs from the yard rather than go abroad",
        contacts=["Huw"],
    ),
    m(5, "car/defender", P, "fact", "Gwen sometimes misses the old Land Rover she used to have"),
    m(5, "home/llandrindod", P, "fact", "Gwen lives in town these days, in Llandrindod Wells"),
    m(
        5,
        "laryngitis/ten-days",
        S,
        "state",
        "Gwen has laryngitis and the doctor told her not to take any sales for ten days",
    ),
    m(
        5,
        "fly-at-beths/until-saturday",
        S,
        "state",
        "Fly is staying at Beth's stables until Saturday while Gwen's back garden is being fenced",
        contacts=["Beth"],
    ),
    m(
        5,
        "huw-back/fortnight",
        S,
        "state",
        "Huw has put his back out and can't lift a log this fortnight",
        contacts=["Huw"],
    ),
]
gwen_q = [
    ("What does Gwen do for a job?", ["job/auctioneer"], "current"),
    ("Where's Gwen living these days?", ["home/llandrindod"], "current"),
    ("Which car does Gwen have?", ["car/duster"], "current"),
    ("Is Huw moving to Canada?", ["huw-plan/firewood"], "current"),
    ("Can Gwen run a sale at the moment?", ["laryngitis/ten-days"], "holds"),
    ("Where's Fly right now?", ["fly-at-beths/until-saturday"], "holds"),
    ("Is Huw fit to work at the moment?", ["huw-back/fortnight"], "holds"),
    ("What does Gwen do on Monday nights?", ["darts/monday"], "expired"),
    ("Where did Gwen live before she moved into town?", ["home/rhayader"], "past"),
    ("What does Beth do?", ["friend/riding-stables"], "alias"),
    ("Has Gwen ever been abroad?", ["travel/never-left-wales"], "contradicted"),
    ("How does Gwen take her tea?", ["tea/strong-sweet"], "stable"),
    ("What's the name of Gwen's dog?", ["dog/fly"], "stable"),
    ("What language did Gwen grow up speaking?", ["welsh/first-language"], "stable"),
    ("When is Gwen's birthday?", ["birthday/st-davids"], "stable"),
]
users.append(("gwen", [0, 9, 20, 32, 44], gwen, gwen_q))

# ---------------------------------------------------------------- yin (Chinese)
yin = [
    m(
        1,
        "job/metro-dispatcher",
        N,
        "profile",
        "殷秀兰在呼和浩特地铁控制中心当行车调度员",
        topic="work:job",
    ),
    m(1, "home/huimin", N, "fact", "殷秀兰住在呼和浩特回民区的一个老小区", topic="home:area"),
    m(
        1,
        "commute/ebike",
        N,
        "habit",
        "殷秀兰每天骑电动车去控制中心上班",
        topic="transport:commute",
    ),
    m(
        1,
        "husband/mutton-stall",
        N,
        "fact",
        "殷秀兰的丈夫老郝在菜市场摆摊卖羊肉",
        topic="family:partner",
        contacts=["老郝"],
    ),
    m(
        1,
        "laohao-plan/ride-hailing",
        N,
        "goal",
        "老郝打算明年买辆车去跑网约车",
        topic="family:plans",
        contacts=["老郝"],
    ),
    m(
        1,
        "daughter/maths",
        N,
        "fact",
        "殷秀兰的女儿小满读初二，数学特别好",
        topic="family:children",
        contacts=["小满"],
    ),
    m(1, "heights/afraid", N, "fact", "殷秀兰恐高，从来不敢坐摩天轮"),
    m(1, "food/shaomai", N, "preference", "殷秀兰最爱吃羊肉烧麦，一顿能吃三两"),
    m(
        1,
        "morin-khuur/sunday",
        N,
        "habit",
        "殷秀兰每个星期天早上都去青城公园跟一帮老姐妹拉马头琴",
        topic="hobby:music",
    ),
    m(1, "job/metro-dispatcher", P, "profile", "殷秀兰在地铁公司负责列车调度，要倒班"),
    m(
        2,
        "husband/mutton-stall",
        P,
        "fact",
        "郝建国是殷秀兰的老公，在东瓦窑菜市场卖牛羊肉",
        contacts=["郝建国"],
    ),
    m(2, "morin-off/overtime", S, "state", "这个星期天殷秀兰要加班，去不了公园拉琴了"),
    m(2, "hometown/baotou", N, "fact", "殷秀兰老家在包头，爸妈还住在那边"),
    m(2, "food/shaomai", P, "preference", "羊肉烧麦是殷秀兰的心头好，蘸点醋更香"),
    m(
        2,
        "laohao-plan/ride-hailing",
        P,
        "goal",
        "老郝想攒钱买辆电车，专门跑滴滴",
        contacts=["老郝"],
    ),
    m(2, "heights/afraid", P, "fact", "殷秀兰一站到高的地方腿就发软"),
    m(2, "daughter/maths", P, "fact", "小满今年十四岁，数学回回考班上第一", contacts=["小满"]),
    m(2, "award/dispatcher", N, "event", "殷秀兰被评上了今年的优秀调度员"),
    m(
        3,
        "job/emergency-centre",
        U,
        "profile",
        "殷秀兰调去了市应急指挥中心，不在地铁干了",
        topic="work:job",
    ),
    m(3, "home/saihan", U, "fact", "殷秀兰一家在赛罕区买了新房，已经搬过去了", topic="home:area"),
    m(3, "morin-khuur/sunday", P, "habit", "每周日一大早殷秀兰都要去公园拉马头琴"),
    m(3, "hometown/baotou", P, "fact", "殷秀兰是包头人"),
    m(3, "job/emergency-centre", P, "profile", "殷秀兰在应急指挥中心值班，接报警、派人处置"),
    m(3, "renovation/120k", N, "event", "殷秀兰家的新房装修花了十二万"),
    m(3, "milk-tea/salty", N, "preference", "殷秀兰每天早上都要喝一碗咸奶茶"),
    m(
        4,
        "commute/metro",
        U,
        "habit",
        "搬到赛罕区以后，殷秀兰改坐地铁一号线上下班",
        topic="transport:commute",
    ),
    m(
        4,
        "laohao-plan/driving-coach",
        U,
        "goal",
        "老郝不打算跑网约车了，正在考驾校教练的证",
        topic="family:plans",
        contacts=["老郝"],
    ),
    m(
        4,
        "ferris-wheel/two-rounds",
        C,
        "event",
        "上个周末殷秀兰陪小满坐了两圈摩天轮",
        contradicts="heights/afraid",
        contacts=["小满"],
    ),
    m(4, "home/huimin", P, "fact", "以前住回民区的时候，殷秀兰楼下就是菜市场"),
    m(4, "home/saihan", P, "fact", "殷秀兰的新家在赛罕区，离内蒙古大学不远"),
    m(4, "husband/mutton-stall", P, "fact", "老郝的羊肉摊还开着，生意挺好", contacts=["老郝"]),
    m(5, "commute/metro", P, "habit", "殷秀兰每天坐地铁去单位，单程四十来分钟"),
    m(5, "job/emergency-centre", P, "profile", "殷秀兰在市应急指挥中心上班，协调处理突发事件"),
    m(5, "commute/ebike", P, "habit", "以前骑电动车上班那会儿，殷秀兰冬天手都冻裂了"),
    m(5, "laohao-plan/driving-coach", P, "goal", "老郝下个月考驾校教练员资格证", contacts=["老郝"]),
    m(5, "home/saihan", P, "fact", "殷秀兰一家现在住赛罕区"),
    m(5, "langfang-training/two-weeks", S, "state", "殷秀兰这两周在廊坊参加应急管理培训"),
    m(
        5,
        "xiaoman-grandma/month-end",
        S,
        "state",
        "小满放寒假了，到月底都住在包头外婆家",
        contacts=["小满"],
    ),
    m(5, "stall-closed/this-week", S, "state", "老郝腰扭了，这个礼拜羊肉摊没出", contacts=["老郝"]),
    m(5, "milk-tea/salty", P, "preference", "咸奶茶殷秀兰一天不喝就难受"),
]
yin_q = [
    ("殷秀兰在哪儿上班？", ["job/emergency-centre"], "current"),
    ("殷秀兰家在哪个区？", ["home/saihan"], "current"),
    ("殷秀兰每天怎么去上班？", ["commute/metro"], "current"),
    ("老郝以后想干什么？", ["laohao-plan/driving-coach"], "current"),
    ("殷秀兰这阵子在呼和浩特吗？", ["langfang-training/two-weeks"], "holds"),
    ("小满最近住在哪儿？", ["xiaoman-grandma/month-end"], "holds"),
    ("这个礼拜老郝出摊了吗？", ["stall-closed/this-week"], "holds"),
    ("殷秀兰星期天早上一般干什么？", ["morin-khuur/sunday"], "expired"),
    ("殷秀兰搬家以前住哪个区？", ["home/huimin"], "past"),
    ("郝建国是做什么的？", ["husband/mutton-stall"], "alias"),
    ("殷秀兰敢坐摩天轮吗？", ["heights/afraid"], "contradicted"),
    ("殷秀兰爱吃什么？", ["food/shaomai"], "stable"),
    ("殷秀兰老家是哪里的？", ["hometown/baotou"], "stable"),
    ("殷秀兰早上喝什么？", ["milk-tea/salty"], "stable"),
    ("小满哪门课学得好？", ["daughter/maths"], "stable"),
]
users.append(("yin", [0, 10, 22, 33, 45], yin, yin_q))

# ---------------------------------------------------------------- qiu (Chinese)
qiu = [
    m(
        1,
        "job/thrower",
        N,
        "profile",
        "邱志远在景德镇一家陶瓷厂当拉坯师傅，已经干了十五年",
        topic="work:job",
    ),
    m(1, "home/zhushan", N, "fact", "邱志远租住在景德镇珠山区的老城里", topic="home:area"),
    m(
        1,
        "car/wuling",
        N,
        "fact",
        "邱志远开一辆五菱面包车，平时拉泥料和坯子",
        topic="transport:car",
    ),
    m(
        1,
        "wife/cup-shop",
        N,
        "fact",
        "邱志远的老婆阿梅在陶溪川开了家卖茶杯的小店",
        topic="family:partner",
        contacts=["阿梅"],
    ),
    m(
        1,
        "amei-plan/yiwu",
        N,
        "goal",
        "阿梅想明年去义乌开网店卖瓷器",
        topic="family:plans",
        contacts=["阿梅"],
    ),
    m(1, "apprentice/xiaopang", N, "fact", "邱志远带了个徒弟叫小胖，手特别稳", contacts=["小胖"]),
    m(1, "boats/seasick", N, "fact", "邱志远晕船晕得厉害，从来不坐船"),
    m(1, "food/cold-noodle", N, "preference", "邱志远最爱吃景德镇冷粉，辣椒要放足"),
    m(1, "opera/sunday", N, "habit", "邱志远每个礼拜天上午都去票友会唱赣剧", topic="hobby:opera"),
    m(1, "job/thrower", P, "profile", "邱志远是做拉坯的，一天能拉两百多个杯坯"),
    m(
        2,
        "apprentice/xiaopang",
        P,
        "fact",
        "熊浩然跟着邱志远学拉坯，已经学了三年",
        contacts=["熊浩然"],
    ),
    m(2, "opera-off/hall-lent", S, "state", "这个礼拜天票友会的场地被借走了，邱志远唱不成戏"),
    m(2, "wife/cup-shop", P, "fact", "阿梅在陶溪川守着一间茶杯铺子", contacts=["阿梅"]),
    m(2, "amei-plan/yiwu", P, "goal", "阿梅老念叨着要去义乌做电商", contacts=["阿梅"]),
    m(2, "boats/seasick", P, "fact", "邱志远一上船就吐，出门宁可绕远路也不坐船"),
    m(
        2,
        "son/nanchang-archaeology",
        N,
        "fact",
        "邱志远的儿子邱磊在南昌读大学，学考古",
        topic="family:children",
        contacts=["邱磊"],
    ),
    m(2, "food/cold-noodle", P, "preference", "一碗冷粉多加辣椒油，就是邱志远最喜欢的早饭"),
    m(2, "expo/silver", N, "event", "邱志远拉的一只大花瓶在瓷博会上拿了银奖"),
    m(
        3,
        "job/wood-kiln",
        U,
        "profile",
        "邱志远从厂里辞了职，在浮梁自己搭了个柴窑",
        topic="work:job",
    ),
    m(
        3,
        "home/fuliang",
        U,
        "fact",
        "邱志远把家搬到了浮梁县的一个村子，就住在窑边上",
        topic="home:area",
    ),
    m(
        3,
        "apprentice/xiaopang",
        P,
        "fact",
        "小胖也跟着邱志远出来了，在新窑口帮他拉坯",
        contacts=["小胖"],
    ),
    m(
        3,
        "son/nanchang-archaeology",
        P,
        "fact",
        "邱磊在南昌上大学，读的是考古专业",
        contacts=["邱磊"],
    ),
    m(3, "job/wood-kiln", P, "profile", "邱志远如今给自己干，专烧柴窑"),
    m(3, "opera/sunday", P, "habit", "礼拜天上午邱志远总要去跟票友们唱几段赣剧"),
    m(3, "first-firing/half", N, "event", "邱志远的柴窑第一次开窑，成品不到一半"),
    m(
        4,
        "car/pickup",
        U,
        "fact",
        "五菱被邱志远卖掉了，换成一辆二手皮卡，拉柴火方便",
        topic="transport:car",
    ),
    m(
        4,
        "amei-plan/studio",
        U,
        "goal",
        "阿梅不去义乌了，打算在窑边开个陶艺体验馆",
        topic="family:plans",
        contacts=["阿梅"],
    ),
    m(
        4,
        "poyang-boat/birds",
        C,
        "event",
        "邱志远坐船去鄱阳湖看候鸟，在湖上玩了一整天",
        contradicts="boats/seasick",
    ),
    m(4, "home/zhushan", P, "fact", "以前住珠山老城那会儿，邱志远走几步路就到厂里了"),
    m(4, "home/fuliang", P, "fact", "邱志远现在的家在浮梁乡下，门口是一片竹林"),
    m(4, "job/wood-kiln", P, "profile", "邱志远的柴窑在浮梁，一个月烧一窑"),
    m(4, "tea/fuliang-black", N, "preference", "邱志远只喝浮梁红茶"),
    m(5, "car/pickup", P, "fact", "邱志远开着皮卡进城给客人送货"),
    m(
        5,
        "amei-plan/studio",
        P,
        "goal",
        "阿梅准备在自家院子里办陶艺体验馆，让游客来玩泥巴",
        contacts=["阿梅"],
    ),
    m(5, "car/wuling", P, "fact", "邱志远有点舍不得以前那辆开了八年的五菱面包"),
    m(5, "home/fuliang", P, "fact", "邱志远一家在浮梁的村子里安了家"),
    m(5, "kiln-repair/month-end", S, "state", "邱志远的窑顶裂了在修，到月底都烧不了窑"),
    m(5, "son-home/two-weeks", S, "state", "邱磊放寒假回来了，这两周都住在家里", contacts=["邱磊"]),
    m(
        5,
        "xiaopang-burn/few-days",
        S,
        "state",
        "小胖手指头烫伤了，这几天都拉不了坯",
        contacts=["小胖"],
    ),
    m(5, "tea/fuliang-black", P, "preference", "浮梁红茶是邱志远天天都要泡的"),
]
qiu_q = [
    ("邱志远如今在哪儿干活？", ["job/wood-kiln"], "current"),
    ("邱志远住哪儿？", ["home/fuliang"], "current"),
    ("邱志远开什么车？", ["car/pickup"], "current"),
    ("阿梅还去义乌吗？", ["amei-plan/studio"], "current"),
    ("邱志远最近能烧窑吗？", ["kiln-repair/month-end"], "holds"),
    ("邱磊这阵子在南昌吗？", ["son-home/two-weeks"], "holds"),
    ("熊浩然这几天能拉坯吗？", ["xiaopang-burn/few-days"], "holds"),
    ("邱志远礼拜天上午一般干什么？", ["opera/sunday"], "expired"),
    ("邱志远搬去浮梁以前住在哪里？", ["home/zhushan"], "past"),
    ("小胖是谁？", ["apprentice/xiaopang"], "alias"),
    ("邱志远坐得了船吗？", ["boats/seasick"], "contradicted"),
    ("邱志远的儿子在哪里读书？", ["son/nanchang-archaeology"], "stable"),
    ("邱志远喜欢喝什么茶？", ["tea/fuliang-black"], "stable"),
    ("邱志远爱吃什么？", ["food/cold-noodle"], "stable"),
]
users.append(("qiu", [0, 12, 23, 35, 46], qiu, qiu_q))

# ---------------------------------------------------------------- maggie (mixed)
maggie = [
    m(
        1,
        "job/gaffer",
        N,
        "profile",
        "Maggie works as a gaffer on film and TV shoots in Montreal, running the lighting crew",
        topic="work:job",
    ),
    m(
        1,
        "home/cote-des-neiges",
        N,
        "fact",
        "Maggie rents a basement apartment in Côte-des-Neiges",
        topic="home:area",
    ),
    m(1, "car/civic", N, "fact", "Maggie drives a silver 2012 Honda Civic", topic="transport:car"),
    m(
        1,
        "boyfriend/brewer",
        N,
        "fact",
        "Maggie的男朋友Ethan在一家microbrewery做酿酒师",
        topic="family:partner",
        contacts=["Ethan"],
    ),
    m(
        1,
        "ethan-plan/seoul",
        N,
        "goal",
        "Ethan plans to take a job at a craft brewery in Seoul next year",
        topic="family:plans",
        contacts=["Ethan"],
    ),
    m(
        1,
        "mum/herbal-shop",
        N,
        "fact",
        "Maggie的妈妈在Brossard开了一家中药铺",
        topic="family:parents",
    ),
    m(1, "manual/cannot", N, "fact", "Maggie can't drive a manual car"),
    m(1, "food/pickled-fish", N, "preference", "Maggie最喜欢吃酸菜鱼，越酸越好"),
    m(
        1,
        "mahjong/wednesday",
        N,
        "habit",
        "Maggie plays mahjong with her aunties on Wednesday nights",
        topic="hobby:games",
    ),
    m(
        1,
        "friend/makeup",
        N,
        "fact",
        "Maggie's best friend 阿芝 is a makeup artist on the same shoots",
        contacts=["阿芝"],
    ),
    m(1, "job/gaffer", P, "profile", "Maggie是片场的gaffer，管整个灯光组"),
    m(
        2,
        "friend/makeup",
        P,
        "fact",
        "Jessica Tsang does the actors' makeup on the shows Maggie lights",
        contacts=["Jessica Tsang"],
    ),
    m(
        2,
        "mahjong-off/night-shoots",
        S,
        "state",
        "Maggie has night shoots all this week, so she's missing mahjong this Wednesday",
    ),
    m(2, "manual/cannot", P, "fact", "Maggie只会开自动挡，手动挡完全不会"),
    m(2, "ethan-plan/seoul", P, "goal", "Ethan想明年去首尔的brewery工作", contacts=["Ethan"]),
    m(
        2,
        "food/pickled-fish",
        P,
        "preference",
        "Maggie is crazy about Sichuan pickled-cabbage fish",
    ),
    m(2, "rabbit/tangyuan", N, "fact", "Maggie has a white rabbit called Tangyuan"),
    m(
        2,
        "mum/herbal-shop",
        P,
        "fact",
        "Maggie's mum runs a Chinese herbal medicine shop in Brossard",
    ),
    m(
        2,
        "rooftop/rain",
        N,
        "event",
        "Maggie's crew lit a rooftop scene in the pouring rain until four in the morning",
    ),
    m(
        3,
        "job/lighting-designer",
        U,
        "profile",
        "Maggie quit film and is the lighting designer for a theatre company in Old Montreal",
        topic="work:job",
    ),
    m(
        3,
        "home/brossard",
        U,
        "fact",
        "Maggie moved out of Côte-des-Neiges into a condo in Brossard close to her mum",
        topic="home:area",
    ),
    m(3, "rabbit/tangyuan", P, "fact", "汤圆是Maggie养的那只小白兔"),
    m(3, "job/lighting-designer", P, "profile", "Maggie现在在一家theatre company做灯光设计"),
    m(
        3,
        "mahjong/wednesday",
        P,
        "habit",
        "Every Wednesday evening Maggie is at the mahjong table with her aunties",
    ),
    m(3, "friend/makeup", P, "fact", "阿芝还在片场做化妆", contacts=["阿芝"]),
    m(
        3,
        "opening/good-reviews",
        N,
        "event",
        "Maggie's first show as a lighting designer opened to good reviews",
    ),
    m(
        4,
        "car/metro",
        U,
        "fact",
        "Maggie sold her Civic and gets around by métro and the REM train",
        topic="transport:car",
    ),
    m(
        4,
        "ethan-plan/brewpub",
        U,
        "goal",
        "Ethan放弃去首尔了, he's going to open his own brewpub in Montreal instead",
        topic="family:plans",
        contacts=["Ethan"],
    ),
    m(
        4,
        "manual-van/laval",
        C,
        "event",
        "Maggie drove the theatre's old stick-shift van to Laval to pick up lights",
        contradicts="manual/cannot",
    ),
    m(
        4,
        "home/cote-des-neiges",
        P,
        "fact",
        "以前住Côte-des-Neiges的时候，Maggie走路就能到Université de Montréal",
    ),
    m(
        4,
        "home/brossard",
        P,
        "fact",
        "Maggie's condo in Brossard is ten minutes' walk from her mum's shop",
    ),
    m(
        4,
        "job/lighting-designer",
        P,
        "profile",
        "Maggie designs the lights for every play that company puts on",
    ),
    m(5, "car/metro", P, "fact", "Maggie现在没车了，出门都坐地铁"),
    m(
        5,
        "ethan-plan/brewpub",
        P,
        "goal",
        "Ethan is hunting for a building for his brewpub",
        contacts=["Ethan"],
    ),
    m(5, "car/civic", P, "fact", "Maggie still misses her old Civic on rainy nights"),
    m(5, "home/brossard", P, "fact", "Maggie住在Brossard，离她妈的店很近"),
    m(5, "ottawa/two-weeks", S, "state", "Maggie这两周在Ottawa, lighting a touring show"),
    m(
        5,
        "tangyuan-vet/until-friday",
        S,
        "state",
        "Tangyuan is at the animal hospital until Friday after chewing through a phone cable",
    ),
    m(5, "azhi-hk/month-end", S, "state", "阿芝到月底都在Hong Kong探亲", contacts=["阿芝"]),
    m(5, "food/pickled-fish", P, "preference", "吃酸菜鱼Maggie一定要加双倍酸菜"),
]
maggie_q = [
    ("What does Maggie do for work?", ["job/lighting-designer"], "current"),
    ("Maggie住在哪里？", ["home/brossard"], "current"),
    ("How does Maggie get around?", ["car/metro"], "current"),
    ("Is Ethan still moving to Seoul?", ["ethan-plan/brewpub"], "current"),
    ("Is Maggie in Montreal right now?", ["ottawa/two-weeks"], "holds"),
    ("汤圆在家吗？", ["tangyuan-vet/until-friday"], "holds"),
    ("阿芝这个月在不在Montreal？", ["azhi-hk/month-end"], "holds"),
    ("Which night does Maggie play mahjong?", ["mahjong/wednesday"], "expired"),
    ("Where did Maggie live before Brossard?", ["home/cote-des-neiges"], "past"),
    ("What does Jessica Tsang do for a living?", ["friend/makeup"], "alias"),
    ("Can Maggie drive stick?", ["manual/cannot"], "contradicted"),
    ("What does Maggie's mum do?", ["mum/herbal-shop"], "stable"),
    ("Maggie喜欢吃什么？", ["food/pickled-fish"], "stable"),
    ("What's Maggie's rabbit called?", ["rabbit/tangyuan"], "stable"),
]
users.append(("maggie", [0, 8, 19, 31, 42], maggie, maggie_q))

# ---------------------------------------------------------------- danny (mixed)
danny = [
    m(
        1,
        "job/drone-show",
        N,
        "profile",
        "Danny在珠海一家公司做无人机表演的飞手, programming light shows with hundreds of drones",
        topic="work:job",
    ),
    m(
        1,
        "home/xiangzhou",
        N,
        "fact",
        "Danny lives in a shared flat in 香洲区 near 情侣路",
        topic="home:area",
    ),
    m(
        1,
        "commute/shared-bike",
        N,
        "habit",
        "Danny rides a shared bike to the office every morning",
        topic="transport:commute",
    ),
    m(
        1,
        "girlfriend/tattoo",
        N,
        "fact",
        "Danny's girlfriend Kiki is a tattoo artist",
        topic="family:partner",
        contacts=["Kiki"],
    ),
    m(
        1,
        "kiki-plan/own-studio",
        N,
        "goal",
        "Kiki想出来单干，自己开一家纹身工作室",
        topic="family:plans",
        contacts=["Kiki"],
    ),
    m(
        1,
        "boss/founder",
        N,
        "fact",
        "Danny's boss 老麦 is a Scottish engineer who founded the drone company",
        contacts=["老麦"],
    ),
    m(1, "karaoke/never", N, "fact", "Danny从来不唱K，说自己五音不全"),
    m(
        1,
        "food/pork-knuckle",
        N,
        "preference",
        "Danny loves 隆江猪脚饭 and has it for lunch most days",
    ),
    m(1, "kites/sunday", N, "habit", "Danny每个星期天早上去野狸岛放风筝", topic="hobby:kites"),
    m(
        1,
        "birthplace/macau",
        N,
        "fact",
        "Danny was born in Macau and moved to 珠海 when he was twelve",
    ),
    m(1, "job/drone-show", P, "profile", "Danny是drone show pilot，晚上经常在情侣路海边上空飞表演"),
    m(
        2,
        "boss/founder",
        P,
        "fact",
        "Michael McKenzie, the Scot who runs Danny's company, started it in 2016",
        contacts=["Michael McKenzie"],
    ),
    m(2, "kites-off/typhoon", S, "state", "这个星期天有台风预警，Danny的风筝放不成了"),
    m(2, "karaoke/never", P, "fact", "Danny says he's tone-deaf and won't set foot in a KTV"),
    m(
        2,
        "kiki-plan/own-studio",
        P,
        "goal",
        "Kiki is saving up to open her own tattoo studio",
        contacts=["Kiki"],
    ),
    m(2, "food/pork-knuckle", P, "preference", "猪脚饭是Danny午饭的首选"),
    m(2, "birthplace/macau", P, "fact", "Danny在澳门出生，十二岁才搬来珠海"),
    m(
        2,
        "bank-show/800-drones",
        N,
        "event",
        "Danny's team flew 800 drones over the sea off 珠海 for a bank's anniversary show",
    ),
    m(
        2,
        "girlfriend/tattoo",
        P,
        "fact",
        "Kiki在一家店里给人纹身，最擅长画小动物",
        contacts=["Kiki"],
    ),
    m(
        3,
        "job/survey",
        U,
        "profile",
        "Danny跳槽了, now flying survey drones for a mapping company in 佛山",
        topic="work:job",
    ),
    m(
        3,
        "home/shunde",
        U,
        "fact",
        "Danny moved out of the 香洲 flat to 顺德 to be near the new job",
        topic="home:area",
    ),
    m(3, "kites/sunday", P, "habit", "Sunday mornings Danny flies his kites on 野狸岛"),
    m(
        3,
        "boss/founder",
        P,
        "fact",
        "老麦是苏格兰人，Danny那家无人机公司就是他创办的",
        contacts=["老麦"],
    ),
    m(3, "job/survey", P, "profile", "Danny现在用无人机给工地和农田做测绘"),
    m(3, "licence/bvlos", N, "event", "Danny考过了民航局的超视距无人机驾驶员执照"),
    m(
        4,
        "commute/aion",
        U,
        "habit",
        "Danny bought a 广汽埃安 EV and drives himself to work",
        topic="transport:commute",
    ),
    m(
        4,
        "kiki-plan/milan",
        U,
        "goal",
        "Kiki不开纹身工作室了; she's applying for an illustration master's in Milan",
        topic="family:plans",
        contacts=["Kiki"],
    ),
    m(
        4,
        "karaoke-contra/team-dinner",
        C,
        "event",
        "Danny在同事聚会上唱了三个小时K，还一直抢麦",
        contradicts="karaoke/never",
    ),
    m(
        4,
        "home/xiangzhou",
        P,
        "fact",
        "Back when he lived in 香洲, Danny could walk to the seafront in ten minutes",
    ),
    m(4, "home/shunde", P, "fact", "Danny现在住在顺德，天天有双皮奶吃"),
    m(
        4,
        "job/survey",
        P,
        "profile",
        "Danny's new company maps construction sites around 佛山 from the air",
    ),
    m(4, "kites/sunday", P, "habit", "Danny still drives back to 珠海 on Sundays to fly his kites"),
    m(5, "commute/aion", P, "habit", "Danny开他的埃安上下班，二十分钟就到"),
    m(
        5,
        "kiki-plan/milan",
        P,
        "goal",
        "Kiki is putting together her portfolio for the Milan illustration course",
        contacts=["Kiki"],
    ),
    m(5, "commute/shared-bike", P, "habit", "以前骑共享单车上班的时候，Danny一下雨就迟到"),
    m(5, "home/shunde", P, "fact", "Danny's home is in 顺德, over in 佛山"),
    m(5, "qinghai/this-month", S, "state", "Danny这个月都在青海出差，给一个光伏电站做测绘"),
    m(
        5,
        "kiki-mum/month-end",
        S,
        "state",
        "Kiki's mum is staying with them till the end of the month",
        contacts=["Kiki"],
    ),
    m(5, "wisdom-teeth/this-week", S, "state", "Danny拔了两颗智齿，这个星期只能喝粥"),
    m(5, "food/pork-knuckle", P, "preference", "Danny lunch几乎天天吃猪脚饭"),
]
danny_q = [
    ("Danny现在做什么工作？", ["job/survey"], "current"),
    ("Where does Danny live?", ["home/shunde"], "current"),
    ("How does Danny get to work?", ["commute/aion"], "current"),
    ("Kiki以后有什么打算？", ["kiki-plan/milan"], "current"),
    ("Danny这几天在佛山吗？", ["qinghai/this-month"], "holds"),
    ("Who's staying with Danny and Kiki right now?", ["kiki-mum/month-end"], "holds"),
    ("Can Danny eat normally this week?", ["wisdom-teeth/this-week"], "holds"),
    ("What does Danny do on Sunday mornings?", ["kites/sunday"], "expired"),
    ("Danny以前住在珠海哪个区？", ["home/xiangzhou"], "past"),
    ("Who is Michael McKenzie?", ["boss/founder"], "alias"),
    ("Danny喜欢唱K吗？", ["karaoke/never"], "contradicted"),
    ("Where was Danny born?", ["birthplace/macau"], "stable"),
    ("Danny午饭一般吃什么？", ["food/pork-knuckle"], "stable"),
    ("What does Kiki do for a living?", ["girlfriend/tattoo"], "stable"),
]
users.append(("danny", [0, 10, 21, 32, 43], danny, danny_q))

# ---------------------------------------------------------------- emit + checks
out = []
errors = []
for user, days, mems, qs in users:
    seen_facts = {}  # fact -> first label
    slot_latest = {}
    slot_facts = collections.defaultdict(list)  # slot -> its facts in order
    ids_by_fact = collections.defaultdict(list)
    mem_by_fact = collections.defaultdict(list)  # fact -> (session, label, kind, contacts)
    contradicted = set()
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
        if label == C:
            if kw.get("contradicts") not in seen_facts:
                errors.append(f"{mid} contradicts unknown")
            contradicted.add(kw.get("contradicts"))
        if label in (N, U, S, C):
            slot_latest[slot] = fact
            slot_facts[slot].append(fact)
        seen_facts.setdefault(fact, label)
        ids_by_fact[fact].append(mid)
        mem_by_fact[fact].append((session, label, kind, tuple(kw.get("contacts", ()))))
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
    if len(days) != last_session:
        errors.append(f"{user} days do not match its sessions")
    for j, (text, facts, cat) in enumerate(qs, 1):
        qid = f"{user}-q{j:02d}"
        answers = []
        for f in facts:
            if f not in ids_by_fact:
                errors.append(f"{qid} unknown fact {f}")
            answers += ids_by_fact[f]
        # the category's checks: what the question asks must hold of its answering fact
        fact = facts[0]
        slot = fact.split("/", 1)[0]
        ms = mem_by_fact[fact]
        later_states = [
            f
            for f, fm in mem_by_fact.items()
            if fm[0][1] == S and fm[0][0] < last_session and fm[0][0] >= ms[0][0]
        ]
        ok = {
            "current": len(slot_facts[slot]) > 1 and slot_latest[slot] == fact,
            "holds": all(s == last_session and lab == S for s, lab, _, _ in ms),
            "expired": ms[0][2] in ("habit", "fact")
            and len(slot_facts[slot]) == 1
            and bool(later_states),
            "past": slot_latest[slot] != fact
            and any(lab == P and s > mem_by_fact[slot_latest[slot]][0][0] for s, lab, _, _ in ms),
            "alias": len({c for *_, cs in ms for c in cs}) > 1,
            "contradicted": fact in contradicted,
            "stable": len(slot_facts[slot]) == 1 and fact not in contradicted and ms[0][1] != S,
        }.get(cat)
        if not ok:
            errors.append(f"{qid} is not a {cat!r} question")
        out.append(
            {
                "type": "question",
                "id": qid,
                "user": user,
                "text": text,
                "answers": answers,
            }
        )
    # every state of the last session is asked about, at least three of them
    last_states = [f for f, fm in mem_by_fact.items() if fm[0][1] == S and fm[0][0] == last_session]
    asked = {f for _, fs, _ in qs for f in fs}
    if len(last_states) < 3 or not set(last_states) <= asked:
        errors.append(f"{user} states of the last session not all asked about")

if errors:
    print("\n".join(errors))
    raise SystemExit(1)
if not write_or_check(OUT, jsonl(out), "Build stream F, a measure for pymem eval."):
    raise SystemExit(1)
print("written", len(out))
