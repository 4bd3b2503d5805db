"""Build bench/data/memory_dev_stream_p.jsonl: stream P, a measure for `pymem eval`.

Written as a measure nobody tuned on, by a helper that read only the format: docs/eval.md from "The
measures" to the end of its "Format (for `--dataset`)" section (the bundled stream's summary
between them included); pymem/prompts/extract.md; scripts/jsonl_build.py; lines 60-240 of
pymem/eval.py (its targets, the dataclasses, `load_dataset` and the first lines of `Run`);
the module docstring and the ~45 lines after it of scripts/build_memory_dev_stream_o.py for a
builder's shape (its helpers, and of its data the first four memories of its first user and
the start of a fifth, no more); and lines 1-5 and 60-110 of tests/test_eval.py, the test that
rebuilds the streams. Not pymem's decision rules, word lists or SQL, nor any other stream,
builder or doc; the helper never ran pymem on this stream. Names, places and trades were checked absent from the
repository's .jsonl and .py files by case-insensitive file counts only (others picked where
one was found). Six invented users:

- ottoline (English): Ottoline Brackwater from Portsoy, a cooper at a whisky distillery in Campbeltown living in Machrihanish, who moves to Jarnac to build new casks at a cognac cooperage near Segonzac.
- hollis (English): Hollis Fairbrass from Bar Harbor, a sailmaker at a loft in Mystic living in Stonington, who moves to Port Townsend to run a boatyard's sail loft.
- xiaoou (Chinese): 卞晓鸥 from 歙县, a 盾构机 (tunnel boring machine) operator on the 合肥 metro who becomes chief operator on a tunnel under the river at 芜湖 and moves there.
- wingchi (Chinese, traditional characters): 冼詠芝 from 大澳, a neon-sign maker at a 深水埗 workshop living in 大角咀, who opens her own studio in 觀塘 and moves to 將軍澳.
- corinna (both): Corinna Hsu 许可欣 from Kamloops, a tea taster for an importer in Coquitlam who becomes head of quality at a tea factory in 勐海 and moves there.
- bertrand (both): Bertrand Yeo 杨柏川 from Sudbury, an ocularist (he makes artificial eyes) at a clinic in Markham living in Unionville, who joins an eye hospital's prosthetic eye lab in 温州 and moves there.

Each has restatements (in the other language for the two bilingual users, some worded far
apart, some nearly verbatim; an old home, job or vehicle after the change said as a
reminiscence and followed by a restatement of the current one), updates said in varied ways
(a move, a new job, another vehicle, a plan dropped for another, a brother's, wife's, father's,
sister's or mother's new work), temporary states said as people say them (until Friday, this
week, until Monday, 这周, 這個禮拜, 下周三之前, 下週三之前, for ten days, 这十天, 十天, until
Wednesday, all ended by question time; two or three in the last session, for the next three
weeks, 这两个礼拜, 這兩個禮拜, until the end of next month, 到下个月底, 到下個月底, that still
hold and are asked about), a contact named two ways (a full name and a nickname), one
contradiction (no question asks about it), topics on some memories, and questions about current
values, the live states (yes or no, and asking their value), stable facts, a contact named by
the other name and values before they changed; some are asked in words the memory that answers
them does not use. Each question's answers are every memory of the fact it asks about. Every
user's last session is on day 90; the memories are written in the order of their days (a user's
session stays together), and the questions follow all the memories. Each memory's kind is what
an extractor following pymem/prompts/extract.md would emit for its sentence, the same for every
memory of a fact.

No public dataset is copied.

    python scripts/build_memory_dev_stream_p.py           # write the file
    python scripts/build_memory_dev_stream_p.py --check   # fail if it is not current
"""

# ruff: noqa: E501 (a memory, its sentence and its fields stay on one line each)
import sys
from pathlib import Path

from jsonl_build import jsonl, write_or_check

OUT = Path(__file__).resolve().parent.parent / "bench" / "data" / "memory_dev_stream_p.jsonl"


N, P, U, S, C = "new", "paraphrase", "update", "state", "contradiction"
users = []  # (user, days of its sessions, memories, questions)
LAST_DAY = 90  # every user's last session; the questions are asked after it


# memory tuple: (session, fact, label, kind, content, extras dict)
def m(session, fact, label, kind, content, **kw):
    return (session, fact, label, kind, content, kw)


# question tuple: (text, facts it asks about): its answers are every memory of those facts
def q(text, *facts):
    return (text, facts)


# ---------------------------------------------------------------- ottoline (English)
ottoline = [
    m(
        1,
        "ot-job/campbeltown",
        N,
        "profile",
        "Ottoline Brackwater is a cooper at a whisky distillery in Campbeltown, where she repairs and rebuilds the oak casks",
        topic="work:job",
    ),
    m(
        1,
        "ot-home/machrihanish",
        N,
        "profile",
        "Ottoline lives in a rented cottage in Machrihanish, next to the golf links",
        topic="home:city",
    ),
    m(
        1,
        "ot-origin/portsoy",
        N,
        "profile",
        "Ottoline grew up in Portsoy, a small harbour town on the Moray Firth",
    ),
    m(
        1,
        "ot-mentor/lennox",
        N,
        "fact",
        "Ottoline learned coopering from Archibald Lennox, the distillery's former head cooper",
        contacts=["Archibald Lennox"],
    ),
    m(
        1,
        "ot-vehicle/saab",
        N,
        "fact",
        "Ottoline drives a rust-spotted Saab estate with a roof rack for carrying staves",
        topic="vehicle",
    ),
    m(
        1,
        "ot-drink/none",
        N,
        "preference",
        "Ottoline doesn't drink whisky; she says the smell of the warehouses is enough for her",
        topic="drink",
    ),
    m(
        1,
        "ot-brother-job/ferry",
        N,
        "fact",
        "Ottoline's brother Fergus works as a deckhand on the Islay ferry",
        contacts=["Fergus"],
        topic="brother:job",
    ),
    m(
        1,
        "ot-wrist",
        S,
        "state",
        "Ottoline is on light duties until Friday because she strained her wrist driving hoops onto a cask",
    ),
    m(1, "ot-run/sunday", N, "habit", "Ottoline goes for a long run every Sunday morning"),
    m(
        2,
        "ot-job/campbeltown",
        P,
        "profile",
        "Ottoline's work at the Campbeltown distillery is mending and re-charring the barrels the spirit matures in",
    ),
    m(
        2,
        "ot-mentor/lennox",
        P,
        "fact",
        "Archie was the one who taught Ottoline to raise a cask",
        contacts=["Archie"],
    ),
    m(2, "ot-dog/tansy", N, "fact", "Ottoline has a brindle lurcher called Tansy"),
    m(
        2,
        "ot-career-goal/own-cooperage",
        N,
        "goal",
        "Ottoline wants to become a master cooper and one day run her own cooperage",
    ),
    m(
        2,
        "ot-nights",
        S,
        "state",
        "Ottoline is covering the warehouse night shift this week while a colleague is off sick",
    ),
    m(
        2,
        "ot-radio/shipping",
        N,
        "preference",
        "Ottoline likes listening to the shipping forecast on the radio while she works",
    ),
    m(
        2,
        "ot-home/machrihanish",
        P,
        "profile",
        "Ottoline lives in a rented cottage in Machrihanish, beside the golf links",
    ),
    m(
        2,
        "ot-prize/2019",
        N,
        "event",
        "Ottoline won the apprentice coopers' prize at a competition in Speyside in 2019",
    ),
    m(
        3,
        "ot-job/segonzac",
        U,
        "profile",
        "Ottoline has left the distillery and now builds new casks at a cognac cooperage near Segonzac in France",
        topic="work:job",
    ),
    m(
        3,
        "ot-home/jarnac",
        U,
        "profile",
        "Ottoline has moved to Jarnac, in the Charente",
        topic="home:city",
    ),
    m(
        3,
        "ot-guesthouse",
        S,
        "state",
        "Ottoline is staying in a guesthouse in Cognac for ten days until her flat in Jarnac is ready",
    ),
    m(
        3,
        "ot-vehicle/kangoo",
        U,
        "fact",
        "Ottoline sold the Saab and bought a second-hand Kangoo van with French plates",
        topic="vehicle",
    ),
    m(3, "ot-french-goal/fluent", N, "goal", "Ottoline wants to be fluent in French within a year"),
    m(
        3,
        "ot-brother-job/gillie",
        U,
        "fact",
        "Fergus has left the ferry and now works as a gillie on a salmon beat near Braemar",
        contacts=["Fergus"],
        topic="brother:job",
    ),
    m(
        3,
        "ot-run/sunday",
        P,
        "habit",
        "Sunday mornings are for Ottoline's long run, whatever the weather",
    ),
    m(3, "ot-dog/tansy", P, "fact", "Tansy the lurcher came over to France with Ottoline"),
    m(
        4,
        "ot-home/machrihanish",
        P,
        "profile",
        "Ottoline misses the cottage in Machrihanish where she used to live",
    ),
    m(
        4,
        "ot-home/jarnac",
        P,
        "profile",
        "Ottoline's home now is a flat above a bakery in Jarnac",
        topic="home:city",
    ),
    m(
        4,
        "ot-job/segonzac",
        P,
        "profile",
        "At the cooperage near Segonzac, Ottoline raises new barrels from French oak staves",
    ),
    m(
        4,
        "ot-party-drams",
        C,
        "event",
        "Ottoline had two drams of whisky at the cooperage's summer party",
        contradicts="ot-drink/none",
    ),
    m(
        4,
        "ot-toasting",
        S,
        "state",
        "Ottoline is on a cask-toasting course in Bordeaux until Wednesday",
    ),
    m(
        4,
        "ot-career-goal/own-cooperage",
        P,
        "goal",
        "Ottoline still hopes to have a cooperage of her own someday",
    ),
    m(
        4,
        "ot-heat/dislike",
        N,
        "preference",
        "Ottoline can't stand the heat of the Charente summer",
    ),
    m(
        4,
        "ot-archie/sticks",
        N,
        "fact",
        "Archie is retired and spends his days carving walking sticks from old cask staves",
        contacts=["Archie"],
    ),
    m(
        4,
        "ot-prize/2019",
        P,
        "event",
        "In 2019 Ottoline took the prize for apprentice coopers at a Speyside contest",
    ),
    m(
        5,
        "ot-brace",
        S,
        "state",
        "Ottoline has to keep her left arm in a brace for the next three weeks after a stave fell on it",
    ),
    m(
        5,
        "ot-troncais",
        S,
        "state",
        "Until the end of next month Ottoline is selecting oak at a stave mill in the Tronçais forest instead of working in the cooperage",
    ),
    m(
        5,
        "ot-job/segonzac",
        P,
        "profile",
        "Ottoline makes barrels for the cognac houses at a cooperage outside Segonzac",
        topic="work:job",
    ),
    m(5, "ot-vehicle/saab", P, "fact", "Ottoline sometimes misses her old Saab estate"),
    m(5, "ot-vehicle/kangoo", P, "fact", "Ottoline gets around in her Kangoo van these days"),
    m(
        5,
        "ot-brother-job/gillie",
        P,
        "fact",
        "Fergus loves being a gillie, out on the river every day",
        contacts=["Fergus"],
    ),
    m(5, "ot-origin/portsoy", P, "profile", "Ottoline is originally from Portsoy in Banffshire"),
    m(
        5,
        "ot-french-goal/fluent",
        P,
        "goal",
        "Ottoline is determined to speak French fluently within the year",
    ),
    m(5, "ot-heat/dislike", P, "preference", "Ottoline finds the Charente summers far too hot"),
    m(
        5,
        "ot-radio/shipping",
        P,
        "preference",
        "Even in France, Ottoline streams the shipping forecast while she works",
    ),
]
users.append(
    (
        "ottoline",
        [0, 9, 27, 55, LAST_DAY],
        ottoline,
        [
            q("Where does Ottoline live now?", "ot-home/jarnac"),
            q("What does Ottoline do for a living?", "ot-job/segonzac"),
            q("Where did Ottoline live before she moved to France?", "ot-home/machrihanish"),
            q("What was Ottoline's job before she went to France?", "ot-job/campbeltown"),
            q("What car does Ottoline have?", "ot-vehicle/kangoo"),
            q("What did Ottoline use to drive?", "ot-vehicle/saab"),
            q("Is Ottoline's arm still in a brace?", "ot-brace"),
            q("Where is Ottoline working until the end of next month?", "ot-troncais"),
            q("What does Archibald Lennox do with his time now?", "ot-archie/sticks"),
            q("Who taught Ottoline her trade?", "ot-mentor/lennox"),
            q("What does Ottoline's brother do for work?", "ot-brother-job/gillie"),
            q("What job did Fergus have before?", "ot-brother-job/ferry"),
            q("Which town is Ottoline from?", "ot-origin/portsoy"),
            q("What kind of dog does Ottoline have?", "ot-dog/tansy"),
            q("What is Ottoline's long-term career ambition?", "ot-career-goal/own-cooperage"),
        ],
    )
)


# ---------------------------------------------------------------- hollis (English)
hollis = [
    m(
        1,
        "ho-job/mystic",
        N,
        "profile",
        "Hollis Fairbrass is a sailmaker at a loft in Mystic, Connecticut, cutting and stitching sails for classic wooden boats",
        topic="work:job",
    ),
    m(
        1,
        "ho-home/stonington",
        N,
        "profile",
        "Hollis lives in Stonington, in a grey-shingled house near the town dock",
        topic="home:city",
    ),
    m(1, "ho-origin/barharbor", N, "profile", "Hollis grew up in Bar Harbor, Maine"),
    m(
        1,
        "ho-wife-job/teacher",
        N,
        "fact",
        "Hollis's wife Delphine teaches chemistry at a high school in New London",
        contacts=["Delphine"],
        topic="wife:job",
    ),
    m(
        1,
        "ho-mentor/oduya",
        N,
        "fact",
        "Hollis learned to cut sails from Beatrix Oduya, who owns a sail loft in Mystic",
        contacts=["Beatrix Oduya"],
    ),
    m(
        1,
        "ho-vehicle/savana",
        N,
        "fact",
        "Hollis drives an old GMC Savana van with sail bags stacked in the back",
        topic="vehicle",
    ),
    m(1, "ho-seasick", N, "fact", "Hollis gets badly seasick and never goes out sailing himself"),
    m(
        1,
        "ho-plan/falmouth",
        N,
        "goal",
        "Hollis plans a trip to Falmouth in Cornwall next summer to see the old sail lofts there",
        topic="plan:next-summer",
    ),
    m(
        1,
        "ho-loft-closed",
        S,
        "state",
        "The loft is closed until Monday while its floor is refinished, so Hollis is working from home",
    ),
    m(
        1,
        "ho-coffee/black",
        N,
        "preference",
        "Hollis takes his coffee black and strong, from a dented thermos",
    ),
    m(
        2,
        "ho-job/mystic",
        P,
        "profile",
        "Hollis makes and repairs sails for old wooden boats at a loft in Mystic",
    ),
    m(
        2,
        "ho-mentor/oduya",
        P,
        "fact",
        "Trixie is the one who taught Hollis to cut sails, back when he was nineteen",
        contacts=["Trixie"],
    ),
    m(
        2,
        "ho-plan/falmouth",
        P,
        "goal",
        "Next summer Hollis wants to go to Falmouth to look at the old Cornish sail lofts",
    ),
    m(
        2,
        "ho-termites",
        S,
        "state",
        "This week Hollis and Delphine are staying with his brother in Groton while their house is tented for termites",
        contacts=["Delphine"],
    ),
    m(2, "ho-cat/bosun", N, "fact", "Hollis has a one-eyed cat named Bosun"),
    m(
        2,
        "ho-fiddle/thursday",
        N,
        "habit",
        "Hollis plays the fiddle at a pub session every Thursday night",
    ),
    m(
        2,
        "ho-home/stonington",
        P,
        "profile",
        "Hollis lives in Stonington, in a grey shingled house by the town dock",
    ),
    m(
        3,
        "ho-job/porttownsend",
        U,
        "profile",
        "Hollis has taken over the sail loft at a wooden-boat yard in Port Townsend, Washington",
        topic="work:job",
    ),
    m(
        3,
        "ho-home/porttownsend",
        U,
        "profile",
        "Hollis and Delphine have moved across the country to Port Townsend",
        contacts=["Delphine"],
        topic="home:city",
    ),
    m(
        3,
        "ho-wife-job/lab",
        U,
        "fact",
        "Delphine now works as a lab manager at the marine science center in Port Townsend",
        contacts=["Delphine"],
        topic="wife:job",
    ),
    m(
        3,
        "ho-motel",
        S,
        "state",
        "Until Friday Hollis is sleeping at a motel on Water Street because the moving truck is late",
    ),
    m(
        3,
        "ho-vehicle/maverick",
        U,
        "fact",
        "Hollis sold the Savana before the move and drives a Maverick pickup now",
        topic="vehicle",
    ),
    m(
        3,
        "ho-coffee/black",
        P,
        "preference",
        "Hollis drinks his coffee black, no sugar, as strong as it comes",
    ),
    m(
        3,
        "ho-fiddle/thursday",
        P,
        "habit",
        "On Thursday nights Hollis brings his fiddle to a pub session",
    ),
    m(
        3,
        "ho-schooner-race",
        C,
        "event",
        "Hollis crewed on a schooner in a race across Admiralty Inlet last weekend",
        contradicts="ho-seasick",
    ),
    m(
        4,
        "ho-plan/canada",
        U,
        "goal",
        "Hollis has given up on the Cornwall trip; next summer he and Delphine will drive the Alaska Highway instead",
        contacts=["Delphine"],
        topic="plan:next-summer",
    ),
    m(
        4,
        "ho-shoulder",
        S,
        "state",
        "Hollis has been told to rest his shoulder for ten days and can't lift heavy canvas",
    ),
    m(
        4,
        "ho-home/stonington",
        P,
        "profile",
        "Hollis sometimes misses the house in Stonington where they used to live",
    ),
    m(4, "ho-home/porttownsend", P, "profile", "Port Townsend is home for Hollis now"),
    m(
        4,
        "ho-job/porttownsend",
        P,
        "profile",
        "Hollis runs the sail loft at the Port Townsend boatyard, sewing sails for schooners and sloops",
    ),
    m(
        4,
        "ho-trixie/since16",
        N,
        "fact",
        "Trixie has been making sails since she was sixteen",
        contacts=["Trixie"],
    ),
    m(4, "ho-cat/bosun", P, "fact", "Bosun, Hollis's one-eyed cat, made the trip west too"),
    m(
        4,
        "ho-origin/barharbor",
        P,
        "profile",
        "Hollis was raised in Bar Harbor on Mount Desert Island",
    ),
    m(
        4,
        "ho-canvas/handstitched",
        N,
        "preference",
        "Hollis prefers hand-stitched canvas sails to modern Dacron ones",
    ),
    m(
        5,
        "ho-friday-harbor",
        S,
        "state",
        "For the next three weeks Hollis is filling in at a sail repair shop in Friday Harbor, a ferry ride away in the islands",
    ),
    m(
        5,
        "ho-night-class",
        S,
        "state",
        "Until the end of next month Hollis teaches an evening class in sail repair at the boat school",
    ),
    m(
        5,
        "ho-wife-job/teacher",
        P,
        "fact",
        "Delphine used to teach high-school chemistry back in New London",
        contacts=["Delphine"],
    ),
    m(
        5,
        "ho-wife-job/lab",
        P,
        "fact",
        "Delphine runs the labs at the Port Townsend marine science center",
        contacts=["Delphine"],
    ),
    m(5, "ho-vehicle/maverick", P, "fact", "Hollis's truck is a Maverick"),
    m(
        5,
        "ho-plan/canada",
        P,
        "goal",
        "Hollis and Delphine are planning to drive all the way up the Alaska Highway next summer",
        contacts=["Delphine"],
    ),
    m(
        5,
        "ho-canvas/handstitched",
        P,
        "preference",
        "Hollis would rather work with hand-stitched canvas than Dacron",
    ),
    m(5, "ho-seasick", P, "fact", "Hollis says boats make him seasick, so he stays ashore"),
    m(
        5,
        "ho-job/mystic",
        P,
        "profile",
        "Hollis used to cut sails at a loft in Mystic before he went west",
    ),
    m(
        5,
        "ho-job/porttownsend",
        P,
        "profile",
        "These days Hollis is the sailmaker at the boatyard in Port Townsend",
        topic="work:job",
    ),
]
users.append(
    (
        "hollis",
        [0, 15, 33, 61, LAST_DAY],
        hollis,
        [
            q("Where does Hollis live?", "ho-home/porttownsend"),
            q("What is Hollis's job?", "ho-job/porttownsend"),
            q("Where did Hollis work before he moved west?", "ho-job/mystic"),
            q("Which town did Hollis live in before Port Townsend?", "ho-home/stonington"),
            q("What does Delphine do for a living?", "ho-wife-job/lab"),
            q("What did Hollis's wife do before the move?", "ho-wife-job/teacher"),
            q("What is Hollis driving these days?", "ho-vehicle/maverick"),
            q("What are Hollis's plans for next summer?", "ho-plan/canada"),
            q("Where was Hollis hoping to travel before he changed his plans?", "ho-plan/falmouth"),
            q("Is Hollis away from Port Townsend at the moment?", "ho-friday-harbor"),
            q("What is Hollis teaching in the evenings?", "ho-night-class"),
            q("How long has Beatrix Oduya been making sails?", "ho-trixie/since16"),
            q("Who taught Hollis to cut sails?", "ho-mentor/oduya"),
            q("What's the name of Hollis's pet?", "ho-cat/bosun"),
            q("Where is Hollis from?", "ho-origin/barharbor"),
        ],
    )
)


# ---------------------------------------------------------------- xiaoou (Chinese)
xiaoou = [
    m(
        1,
        "xo-job/hefei",
        N,
        "profile",
        "卞晓鸥是合肥地铁工地上的盾构机司机，负责操作盾构机挖隧道",
        topic="work:job",
    ),
    m(
        1,
        "xo-home/hefei",
        N,
        "profile",
        "晓鸥住在合肥蜀山区，和同事合租一套两居室",
        topic="home:city",
    ),
    m(1, "xo-origin/shexian", N, "profile", "晓鸥老家在黄山歙县的一个山村"),
    m(
        1,
        "xo-master/lang",
        N,
        "fact",
        "晓鸥的师傅叫郎德富，是干了二十多年的老盾构司机",
        contacts=["郎德富"],
    ),
    m(1, "xo-vehicle/xiaodianlv", N, "fact", "晓鸥每天骑一辆小电驴上下班", topic="vehicle"),
    m(1, "xo-spicy/no", N, "preference", "晓鸥不吃辣，一点辣椒都受不了", topic="diet"),
    m(1, "xo-dad-job/tea", N, "fact", "晓鸥的爸爸在歙县老家种茶", topic="father:job"),
    m(1, "xo-cold", S, "state", "晓鸥感冒了，医生让她在家休息到周五"),
    m(1, "xo-plan/erjian", N, "goal", "晓鸥打算明年考二级建造师证", topic="plan:exam"),
    m(1, "xo-rope/habit", N, "habit", "晓鸥每天下班后都会去小区旁边的公园跳绳半小时"),
    m(2, "xo-job/hefei", P, "profile", "晓鸥在合肥修地铁，开的是挖隧道的大盾构机"),
    m(2, "xo-master/lang", P, "fact", "老郎手把手教会了晓鸥开盾构机", contacts=["老郎"]),
    m(2, "xo-night", S, "state", "晓鸥这周上夜班，晚上八点到早上八点"),
    m(2, "xo-home/hefei", P, "profile", "晓鸥住在合肥蜀山区，跟同事合租了一套两居室"),
    m(2, "xo-food/daobanxiang", N, "preference", "晓鸥最喜欢吃家乡的刀板香"),
    m(2, "xo-breakthrough", N, "event", "晓鸥去年参与的区间隧道顺利贯通，她还在贯通仪式上发了言"),
    m(2, "xo-plan/erjian", P, "goal", "晓鸥准备明年去考二级建造师"),
    m(
        3,
        "xo-job/wuhu",
        U,
        "profile",
        "晓鸥调到芜湖的过江隧道项目，当上了盾构机主司机",
        topic="work:job",
    ),
    m(3, "xo-home/wuhu", U, "profile", "晓鸥搬到芜湖去了，住在项目部旁边的小区", topic="home:city"),
    m(3, "xo-dorm", S, "state", "下周三之前晓鸥先住在项目部的临时宿舍，等新房子收拾好"),
    m(
        3,
        "xo-dad-job/nongjiale",
        U,
        "fact",
        "晓鸥的爸爸不种茶了，在歙县县城开了一家农家乐",
        topic="father:job",
    ),
    m(3, "xo-rope/habit", P, "habit", "晓鸥下了班总要跳半小时绳"),
    m(3, "xo-spicy/no", P, "preference", "晓鸥一点辣都吃不了"),
    m(
        4,
        "xo-plan/anquan",
        U,
        "goal",
        "晓鸥改主意了，不考二级建造师了，打算先考注册安全工程师",
        topic="plan:exam",
    ),
    m(
        4,
        "xo-vehicle/car",
        U,
        "fact",
        "晓鸥把小电驴卖了，买了一辆二手的蓝色小轿车",
        topic="vehicle",
    ),
    m(
        4,
        "xo-hotpot",
        C,
        "event",
        "晓鸥昨天和同事吃火锅点了特辣锅底，还说越辣越过瘾",
        contradicts="xo-spicy/no",
    ),
    m(4, "xo-training", S, "state", "晓鸥这十天在马鞍山参加盾构安全培训"),
    m(4, "xo-home/hefei", P, "profile", "晓鸥有时候会想起以前在合肥蜀山区和同事合租的日子"),
    m(4, "xo-home/wuhu", P, "profile", "晓鸥现在的家在芜湖，离过江隧道的工地不远"),
    m(
        4,
        "xo-lang/fishpond",
        N,
        "fact",
        "郎德富退休以后回了六安老家，承包了一片鱼塘",
        contacts=["郎德富"],
    ),
    m(4, "xo-food/daobanxiang", P, "preference", "晓鸥最爱的菜是刀板香"),
    m(4, "xo-breakthrough", P, "event", "晓鸥在贯通仪式上发过言，那次是她参与的区间隧道打通了"),
    m(5, "xo-cowork-stay", S, "state", "这两个礼拜晓鸥借住在同事家，因为自己家在重新刷墙"),
    m(5, "xo-apprentice", S, "state", "到下个月底，晓鸥都要带一个刚来的徒弟学开盾构机"),
    m(5, "xo-job/wuhu", P, "profile", "晓鸥在芜湖开盾构机，挖的是江底下的隧道", topic="work:job"),
    m(5, "xo-vehicle/xiaodianlv", P, "fact", "晓鸥还挺怀念以前骑小电驴上班的时候"),
    m(5, "xo-vehicle/car", P, "fact", "晓鸥现在开着那辆蓝色的二手车上下班"),
    m(5, "xo-dad-job/nongjiale", P, "fact", "晓鸥爸爸在县城开的农家乐生意还不错"),
    m(5, "xo-plan/anquan", P, "goal", "晓鸥正在准备注册安全工程师考试"),
    m(5, "xo-origin/shexian", P, "profile", "晓鸥是歙县人，从小在山里长大"),
    m(5, "xo-master/lang", P, "fact", "晓鸥开盾构机的本事是郎德富教的", contacts=["郎德富"]),
    m(5, "xo-fishing/weekend", N, "habit", "晓鸥周末喜欢去江边钓鱼"),
]
users.append(
    (
        "xiaoou",
        [0, 11, 30, 58, LAST_DAY],
        xiaoou,
        [
            q("晓鸥现在住在哪个城市？", "xo-home/wuhu"),
            q("晓鸥是做什么工作的？", "xo-job/wuhu"),
            q("晓鸥以前在哪里上班？", "xo-job/hefei"),
            q("晓鸥搬家之前住在哪儿？", "xo-home/hefei"),
            q("晓鸥现在开什么车？", "xo-vehicle/car"),
            q("晓鸥以前怎么去上班？", "xo-vehicle/xiaodianlv"),
            q("晓鸥的爸爸现在做什么？", "xo-dad-job/nongjiale"),
            q("晓鸥的父亲以前是干什么的？", "xo-dad-job/tea"),
            q("晓鸥准备考什么证书？", "xo-plan/anquan"),
            q("晓鸥这段时间住在哪里？", "xo-cowork-stay"),
            q("晓鸥现在有没有在带徒弟？", "xo-apprentice"),
            q("老郎退休以后在做什么？", "xo-lang/fishpond"),
            q("是谁教会晓鸥开盾构机的？", "xo-master/lang"),
            q("晓鸥是哪里人？", "xo-origin/shexian"),
            q("晓鸥最喜欢吃什么菜？", "xo-food/daobanxiang"),
        ],
    )
)


# ---------------------------------------------------------------- wingchi (Chinese, traditional characters)
wingchi = [
    m(
        1,
        "wc-job/shamshuipo",
        N,
        "profile",
        "冼詠芝是深水埗一間霓虹燈招牌工場的師傅，專門燒玻璃管造招牌",
        topic="work:job",
    ),
    m(1, "wc-home/taikokchui", N, "profile", "詠芝住在大角咀一幢唐樓的四樓", topic="home:city"),
    m(1, "wc-origin/taio", N, "profile", "詠芝在大澳長大，家裡以前做蝦醬"),
    m(1, "wc-master/tang", N, "fact", "詠芝的師傅是鄧耀祖，做了四十年霓虹燈", contacts=["鄧耀祖"]),
    m(1, "wc-vehicle/motorbike", N, "fact", "詠芝騎一架舊電單車穿梭九龍送貨", topic="vehicle"),
    m(1, "wc-heights/afraid", N, "fact", "詠芝很怕高，從來不肯爬梯"),
    m(
        1,
        "wc-sister-job/cabin",
        N,
        "fact",
        "詠芝的妹妹詠琪是航空公司的空中服務員",
        contacts=["詠琪"],
        topic="sister:job",
    ),
    m(1, "wc-burn", S, "state", "詠芝燒玻璃時燙傷了手指，到星期五都不能開火"),
    m(1, "wc-lemontea/habit", N, "habit", "詠芝每朝開工前都會去樓下茶餐廳飲一杯凍檸茶"),
    m(1, "wc-colours/pref", N, "preference", "詠芝最喜歡紅色和粉藍色的霓虹燈"),
    m(2, "wc-job/shamshuipo", P, "profile", "詠芝在深水埗的工場燒霓虹燈管，替店舖造招牌"),
    m(2, "wc-master/tang", P, "fact", "祖哥把整套燒管的手藝都傳了給詠芝", contacts=["祖哥"]),
    m(2, "wc-yuenlong", S, "state", "詠芝這個禮拜都在元朗幫一間茶餐廳修招牌"),
    m(2, "wc-home/taikokchui", P, "profile", "詠芝住在大角咀一幢唐樓的四樓，沒有電梯"),
    m(2, "wc-goal/teach", N, "goal", "詠芝想把霓虹燈手藝教給更多年輕人，不想它失傳"),
    m(2, "wc-museum", N, "event", "詠芝造的一塊招牌去年被一間博物館收藏"),
    m(2, "wc-dog/wutau", N, "fact", "詠芝養了一隻叫芋頭的唐狗"),
    m(
        3,
        "wc-job/kwuntong",
        U,
        "profile",
        "詠芝離開了深水埗的工場，在觀塘的工廈開了自己的霓虹燈工作室",
        topic="work:job",
    ),
    m(3, "wc-home/tko", U, "profile", "詠芝搬到將軍澳了，租了一個有電梯的單位", topic="home:city"),
    m(3, "wc-film-deadline", S, "state", "下週三之前詠芝要趕一批燈管給電影的美術組"),
    m(
        3,
        "wc-sister-job/trainer",
        U,
        "fact",
        "詠琪不再飛了，轉做航空公司的空中服務員培訓導師",
        contacts=["詠琪"],
        topic="sister:job",
    ),
    m(3, "wc-lemontea/habit", P, "habit", "詠芝開工前一定要飲杯凍檸茶"),
    m(3, "wc-goal/teach", P, "goal", "詠芝希望多些年輕人學霓虹燈，讓這門手藝傳下去"),
    m(3, "wc-tang/fishing", N, "fact", "鄧耀祖退休後每天都去海邊釣魚", contacts=["鄧耀祖"]),
    m(4, "wc-vehicle/van", U, "fact", "詠芝賣了電單車，換了一架二手客貨車運燈箱", topic="vehicle"),
    m(
        4,
        "wc-scaffold",
        C,
        "event",
        "詠芝上個禮拜自己爬上三層樓高的竹棚裝招牌",
        contradicts="wc-heights/afraid",
    ),
    m(4, "wc-power-cut", S, "state", "詠芝的工作室這十天停電維修，她暫時在家畫設計圖"),
    m(4, "wc-home/taikokchui", P, "profile", "詠芝有時會懷念以前在大角咀唐樓住的日子"),
    m(4, "wc-home/tko", P, "profile", "詠芝現在的家在將軍澳", topic="home:city"),
    m(4, "wc-job/kwuntong", P, "profile", "詠芝在觀塘工廈有自己的工作室，接訂單也開班教人做霓虹燈"),
    m(4, "wc-colours/pref", P, "preference", "紅色和粉藍色是詠芝最愛的霓虹燈顏色"),
    m(4, "wc-origin/taio", P, "profile", "詠芝是大澳人，在棚屋長大"),
    m(5, "wc-class-pause", S, "state", "這兩個禮拜詠芝的工作室暫停開班，因為在換新的燒管爐頭"),
    m(5, "wc-gallery", S, "state", "到下個月底，詠芝的霓虹作品都在中環一間畫廊展出"),
    m(
        5,
        "wc-sister-job/trainer",
        P,
        "fact",
        "詠琪現在負責培訓新入職的空中服務員",
        contacts=["詠琪"],
    ),
    m(5, "wc-vehicle/motorbike", P, "fact", "詠芝說以前騎電單車送貨雖然辛苦，但很自由"),
    m(5, "wc-vehicle/van", P, "fact", "詠芝現在開客貨車送燈箱給客人"),
    m(5, "wc-museum", P, "event", "去年有博物館收藏了詠芝做的一塊霓虹招牌"),
    m(5, "wc-master/tang", P, "fact", "詠芝的霓虹手藝是跟鄧耀祖學的", contacts=["鄧耀祖"]),
    m(5, "wc-heights/afraid", P, "fact", "詠芝說自己有畏高症，連梯都不敢爬"),
    m(5, "wc-dog/wutau", P, "fact", "詠芝的唐狗芋頭每天都跟她返工作室"),
    m(
        5,
        "wc-job/kwuntong",
        P,
        "profile",
        "詠芝現在自己做老闆，在觀塘的工作室做霓虹燈",
        topic="work:job",
    ),
]
users.append(
    (
        "wingchi",
        [0, 13, 29, 57, LAST_DAY],
        wingchi,
        [
            q("詠芝現在住在哪一區？", "wc-home/tko"),
            q("詠芝靠甚麼謀生？", "wc-job/kwuntong"),
            q("詠芝以前在哪裡工作？", "wc-job/shamshuipo"),
            q("詠芝搬家之前住在哪裡？", "wc-home/taikokchui"),
            q("詠芝現在用甚麼車送貨？", "wc-vehicle/van"),
            q("詠芝以前騎甚麼代步？", "wc-vehicle/motorbike"),
            q("詠芝的妹妹現在做甚麼工作？", "wc-sister-job/trainer"),
            q("詠琪以前是做甚麼的？", "wc-sister-job/cabin"),
            q("詠芝的工作室現在有沒有開班？", "wc-class-pause"),
            q("詠芝的作品現在在哪裡展出？", "wc-gallery"),
            q("祖哥退休之後做甚麼消遣？", "wc-tang/fishing"),
            q("詠芝的手藝是跟誰學的？", "wc-master/tang"),
            q("詠芝在哪裡長大？", "wc-origin/taio"),
            q("詠芝的狗叫甚麼名字？", "wc-dog/wutau"),
            q("詠芝最喜歡甚麼顏色的霓虹燈？", "wc-colours/pref"),
        ],
    )
)


# ---------------------------------------------------------------- corinna (English and Chinese)
corinna = [
    m(
        1,
        "co-job/coquitlam",
        N,
        "profile",
        "Corinna Hsu is a tea taster for a tea importer in Coquitlam, grading every lot before it is bought",
        topic="work:job",
    ),
    m(
        1,
        "co-home/coquitlam",
        N,
        "profile",
        "Corinna lives in a condo in Coquitlam near Lafarge Lake",
        topic="home:city",
    ),
    m(1, "co-origin/kamloops", N, "profile", "Corinna grew up in Kamloops"),
    m(
        1,
        "co-mentor/quon",
        N,
        "fact",
        "Corinna trained under Theodora Quon, the importer's senior tea buyer",
        contacts=["Theodora Quon"],
    ),
    m(1, "co-vehicle/prius", N, "fact", "Corinna drives a silver Prius", topic="vehicle"),
    m(
        1,
        "co-sugar/never",
        N,
        "preference",
        "Corinna never takes sugar in her tea or coffee",
        topic="diet",
    ),
    m(
        1,
        "co-mom-job/accountant",
        N,
        "fact",
        "Corinna's mother works as an accountant for a trucking company in Kamloops",
        topic="mother:job",
    ),
    m(
        1,
        "co-repaint",
        S,
        "state",
        "Corinna is working from home this week while the tasting room is repainted",
    ),
    m(1, "co-taichi/habit", N, "habit", "Corinna does tai chi in the park every morning at seven"),
    m(2, "co-job/coquitlam", P, "profile", "许可欣在高贵林一家茶叶进口公司当评茶员"),
    m(
        2,
        "co-mentor/quon",
        P,
        "fact",
        "Teddy 是带 Corinna 入行的师傅，教她怎么评茶",
        contacts=["Teddy"],
    ),
    m(2, "co-sf-fair", S, "state", "Corinna 这周在旧金山参加茶展"),
    m(2, "co-goal/master", N, "goal", "Corinna 的目标是将来考到高级评茶师的资格"),
    m(2, "co-home/coquitlam", P, "profile", "Corinna 住在高贵林，公寓离 Lafarge Lake 不远"),
    m(2, "co-tea/dianhong", N, "preference", "Corinna 最爱喝的茶是滇红"),
    m(2, "co-taichi/habit", P, "habit", "Corinna 每天早上七点都在公园打太极"),
    m(
        3,
        "co-job/menghai",
        U,
        "profile",
        "Corinna has left the importer and become head of quality at a tea factory in Menghai, Yunnan",
        topic="work:job",
    ),
    m(
        3,
        "co-home/menghai",
        U,
        "profile",
        "Corinna moved to Menghai county in Yunnan",
        topic="home:city",
    ),
    m(
        3,
        "co-guesthouse",
        S,
        "state",
        "Corinna is staying at the factory guesthouse for ten days until her rented house is ready",
    ),
    m(
        3,
        "co-mom-job/milktea",
        U,
        "fact",
        "Corinna's mum quit accounting and opened a bubble tea shop in Kamloops",
        topic="mother:job",
    ),
    m(3, "co-tea/dianhong", P, "preference", "Dian hong black tea is Corinna's favourite"),
    m(3, "co-sugar/never", P, "preference", "Corinna doesn't put sugar in anything she drinks"),
    m(
        3,
        "co-quon/book",
        N,
        "fact",
        "Theodora Quon is writing a book about Taiwanese oolongs",
        contacts=["Theodora Quon"],
    ),
    m(
        4,
        "co-vehicle/motorbike",
        U,
        "fact",
        "Corinna 把 Prius 卖了，在勐海买了一辆二手的红色摩托",
        topic="vehicle",
    ),
    m(
        4,
        "co-milk-tea",
        C,
        "event",
        "Corinna 昨天在茶厂喝了一大杯加了三勺糖的奶茶",
        contradicts="co-sugar/never",
    ),
    m(4, "co-jinghong", S, "state", "Corinna 下周三之前都在景洪开会"),
    m(4, "co-home/coquitlam", P, "profile", "Corinna 有时候会想念以前在高贵林住的公寓"),
    m(4, "co-home/menghai", P, "profile", "Corinna 现在住在勐海县城", topic="home:city"),
    m(4, "co-job/menghai", P, "profile", "Corinna 在勐海的茶厂管品控，每批茶都要她签字才能出厂"),
    m(4, "co-goal/master", P, "goal", "Corinna 还是想考高级评茶师"),
    m(
        5,
        "co-nannuo",
        S,
        "state",
        "For the next three weeks Corinna is up in the tea gardens on Nannuo Mountain overseeing the autumn picking",
    ),
    m(5, "co-throat", S, "state", "这两个礼拜 Corinna 嗓子发炎，医生不让她试茶"),
    m(
        5,
        "co-trainees",
        S,
        "state",
        "Until the end of next month Corinna is training two new tasters at the factory",
    ),
    m(5, "co-mom-job/milktea", P, "fact", "Corinna 的妈妈现在在 Kamloops 开奶茶店"),
    m(5, "co-vehicle/prius", P, "fact", "Corinna sometimes misses her old silver Prius"),
    m(
        5,
        "co-vehicle/motorbike",
        P,
        "fact",
        "Corinna rides her second-hand red motorbike out to the tea gardens",
    ),
    m(
        5,
        "co-mentor/quon",
        P,
        "fact",
        "Corinna 的评茶本事是 Theodora Quon 教的",
        contacts=["Theodora Quon"],
    ),
    m(5, "co-origin/kamloops", P, "profile", "Corinna 是在 Kamloops 长大的"),
    m(5, "co-goal/master", P, "goal", "Corinna hopes to qualify as a senior tea master someday"),
    m(
        5,
        "co-job/menghai",
        P,
        "profile",
        "Corinna runs quality control at a tea factory in Menghai",
        topic="work:job",
    ),
    m(5, "co-taichi/habit", P, "habit", "Corinna still starts every morning with tai chi"),
]
users.append(
    (
        "corinna",
        [0, 10, 31, 60, LAST_DAY],
        corinna,
        [
            q("Where does Corinna live now?", "co-home/menghai"),
            q("Corinna 现在做什么工作？", "co-job/menghai"),
            q("What was Corinna's job before she moved to Yunnan?", "co-job/coquitlam"),
            q("Corinna 以前住在哪里？", "co-home/coquitlam"),
            q("What does Corinna get around on these days?", "co-vehicle/motorbike"),
            q("What car did Corinna use to drive?", "co-vehicle/prius"),
            q("What does Corinna's mother do now?", "co-mom-job/milktea"),
            q("Corinna 的妈妈以前是做什么的？", "co-mom-job/accountant"),
            q("Where is Corinna for the next few weeks?", "co-nannuo"),
            q("Corinna 现在可以试茶吗？", "co-throat"),
            q("Is Corinna training anyone at the moment?", "co-trainees"),
            q("What is Teddy writing?", "co-quon/book"),
            q("Who taught Corinna to taste tea?", "co-mentor/quon"),
            q("Where did Corinna grow up?", "co-origin/kamloops"),
            q("What is Corinna's favourite tea?", "co-tea/dianhong"),
        ],
    )
)


# ---------------------------------------------------------------- bertrand (English and Chinese)
bertrand = [
    m(
        1,
        "be-job/markham",
        N,
        "profile",
        "Bertrand Yeo is an ocularist at a clinic in Markham, Ontario, where he makes custom artificial eyes",
        topic="work:job",
    ),
    m(
        1,
        "be-home/unionville",
        N,
        "profile",
        "Bertrand lives in a townhouse in Unionville",
        topic="home:city",
    ),
    m(1, "be-origin/sudbury", N, "profile", "Bertrand grew up in Sudbury"),
    m(
        1,
        "be-mentor/marchetti",
        N,
        "fact",
        "Bertrand learned to paint irises from Philippa Marchetti, an ocularist with forty years in the trade",
        contacts=["Philippa Marchetti"],
    ),
    m(1, "be-vehicle/bolt", N, "fact", "Bertrand drives a white Chevy Bolt", topic="vehicle"),
    m(
        1,
        "be-coriander/hate",
        N,
        "preference",
        "Bertrand hates coriander and picks it out of everything",
        topic="diet",
    ),
    m(
        1,
        "be-sister-job/nurse",
        N,
        "fact",
        "Bertrand's sister 柏琳 is a nurse on the emergency ward of a hospital in Sudbury",
        contacts=["柏琳"],
        topic="sister:job",
    ),
    m(
        1,
        "be-conference",
        S,
        "state",
        "Bertrand is at a prosthetics conference in Quebec City until Friday",
    ),
    m(1, "be-fencing/habit", N, "habit", "Bertrand fences épée at a club three evenings a week"),
    m(2, "be-job/markham", P, "profile", "杨柏川在万锦的一家诊所做义眼，每只都是手工画的"),
    m(2, "be-mentor/marchetti", P, "fact", "Pippa 教会了柏川怎么画虹膜", contacts=["Pippa"]),
    m(2, "be-clinic-reno", S, "state", "柏川这周在家办公，因为诊所在装修"),
    m(2, "be-home/unionville", P, "profile", "柏川住在 Unionville 的一栋联排别墅里"),
    m(2, "be-goal/studio", N, "goal", "柏川想以后开一家自己的义眼工作室"),
    m(2, "be-food/bakkutteh", N, "preference", "柏川最喜欢吃妈妈做的肉骨茶"),
    m(2, "be-coriander/hate", P, "preference", "柏川一点香菜都不吃"),
    m(2, "be-pet/pistachio", N, "fact", "柏川养了一只叫 Pistachio 的乌龟"),
    m(
        3,
        "be-job/wenzhou",
        U,
        "profile",
        "Bertrand has joined the prosthetic eye lab of an eye hospital in Wenzhou",
        topic="work:job",
    ),
    m(3, "be-home/wenzhou", U, "profile", "Bertrand has moved to Wenzhou", topic="home:city"),
    m(
        3,
        "be-hotel",
        S,
        "state",
        "Bertrand is living in a hotel near the hospital for ten days while he looks for a flat",
    ),
    m(
        3,
        "be-sister-job/manager",
        U,
        "fact",
        "柏琳 has been promoted to nurse manager of the emergency department",
        contacts=["柏琳"],
        topic="sister:job",
    ),
    m(3, "be-fencing/habit", P, "habit", "Bertrand goes to épée practice three nights a week"),
    m(
        3,
        "be-marchetti/alpacas",
        N,
        "fact",
        "Philippa Marchetti has retired to a farm in Prince Edward County, where she keeps alpacas",
        contacts=["Philippa Marchetti"],
    ),
    m(
        4,
        "be-vehicle/ebike",
        U,
        "fact",
        "柏川把 Bolt 卖掉了，在温州骑一辆雅迪电动自行车上下班",
        topic="vehicle",
    ),
    m(
        4,
        "be-fishballs",
        C,
        "event",
        "柏川昨天吃了一大碗放满香菜的温州鱼丸",
        contradicts="be-coriander/hate",
    ),
    m(4, "be-taizhou", S, "state", "柏川下周三之前都在台州培训"),
    m(4, "be-home/unionville", P, "profile", "柏川有时候会想起以前在 Unionville 住的联排别墅"),
    m(4, "be-home/wenzhou", P, "profile", "柏川现在住在温州，离医院走路十分钟", topic="home:city"),
    m(4, "be-job/wenzhou", P, "profile", "柏川在温州的眼科医院给病人定做义眼"),
    m(4, "be-goal/studio", P, "goal", "柏川还是想将来有一间自己的义眼工作室"),
    m(4, "be-pet/pistachio", P, "fact", "柏川的乌龟 Pistachio 也跟着他搬到了温州"),
    m(
        5,
        "be-lishui",
        S,
        "state",
        "For the next three weeks Bertrand is training two technicians at a hospital in Lishui",
    ),
    m(
        5,
        "be-wrist",
        S,
        "state",
        "Until the end of next month Bertrand can't fence because he sprained his wrist",
    ),
    m(
        5,
        "be-sister-job/manager",
        P,
        "fact",
        "柏琳 now runs the emergency nurses at the hospital in Sudbury",
        contacts=["柏琳"],
    ),
    m(5, "be-vehicle/bolt", P, "fact", "Bertrand misses his old Chevy Bolt on rainy days"),
    m(5, "be-vehicle/ebike", P, "fact", "Bertrand gets to the hospital on a Yadea e-bike"),
    m(
        5,
        "be-mentor/marchetti",
        P,
        "fact",
        "Philippa Marchetti taught Bertrand everything he knows about painting irises",
        contacts=["Philippa Marchetti"],
    ),
    m(5, "be-origin/sudbury", P, "profile", "柏川是在 Sudbury 长大的"),
    m(
        5,
        "be-job/wenzhou",
        P,
        "profile",
        "Bertrand makes artificial eyes for patients at a Wenzhou eye hospital",
        topic="work:job",
    ),
    m(
        5,
        "be-food/bakkutteh",
        P,
        "preference",
        "Bak kut teh is Bertrand's favourite dish, especially the way his mum makes it",
    ),
    m(5, "be-coriander/hate", P, "preference", "Bertrand can't stand coriander"),
]
users.append(
    (
        "bertrand",
        [0, 14, 35, 63, LAST_DAY],
        bertrand,
        [
            q("Which city does Bertrand live in?", "be-home/wenzhou"),
            q("What does Bertrand do for a living?", "be-job/wenzhou"),
            q("柏川以前在哪里工作？", "be-job/markham"),
            q("Where did Bertrand live before he moved abroad?", "be-home/unionville"),
            q("How does Bertrand get to work now?", "be-vehicle/ebike"),
            q("柏川以前开什么车？", "be-vehicle/bolt"),
            q("What does Bertrand's sister do now?", "be-sister-job/manager"),
            q("柏琳升职以前是做什么的？", "be-sister-job/nurse"),
            q("Where is Bertrand working for the next few weeks?", "be-lishui"),
            q("柏川现在还去练击剑吗？", "be-wrist"),
            q("What does Pippa do now that she has retired?", "be-marchetti/alpacas"),
            q("Who taught Bertrand to paint irises?", "be-mentor/marchetti"),
            q("柏川是在哪里长大的？", "be-origin/sudbury"),
            q("What pet does Bertrand keep?", "be-pet/pistachio"),
            q("What does Bertrand hope to do in the future?", "be-goal/studio"),
        ],
    )
)


def _check(user, days, memories, questions):
    """What the stream promises (the docstring): fail the build when it does not hold."""
    assert len(days) == 5 and days == sorted(days) and days[-1] == LAST_DAY, user
    kind_of, first, slot_facts, texts = {}, {}, {}, set()
    for session, fact, label, kind, content, kw in memories:
        slot = fact.split("/", 1)[0]
        assert content not in texts, (user, content)
        texts.add(content)
        assert kind_of.setdefault(fact, kind) == kind, (user, fact)
        assert (label == S) == (kind == "state"), (user, fact)
        if fact in first:
            assert label == P, (user, fact, label)
        else:
            first[fact] = session
            assert label != P, (user, fact)
            assert (label == U) == bool(slot_facts.get(slot)), (user, fact, label)
            slot_facts.setdefault(slot, []).append(fact)
        if label == C:
            assert kw["contradicts"] in first, (user, fact)
        if label == S and session < 5:
            assert slot not in [f.split("/", 1)[0] for (_, f, *_r) in memories if f != fact]
    for slot, facts in slot_facts.items():
        last = [f for (_, f, *_r) in memories if f.split("/", 1)[0] == slot][-1]
        assert last == facts[-1], (
            user,
            slot,
            "a reminiscence must be followed by the current value",
        )
    contradicted = {kw["contradicts"] for (*_r, kw) in memories if "contradicts" in kw}
    contradicting = {f for (_, f, label, *_r) in memories if label == C}
    live = {f for (s, f, label, *_r) in memories if label == S and s == 5}
    asked = [f for _, facts in questions for f in facts]
    assert not (contradicted | contradicting) & set(asked), user
    assert all(f in first for f in asked), user
    assert {f for f in asked if kind_of[f] == "state"} == live, user


def build() -> str:
    seen_facts: dict[str, str] = {}
    memories, questions = [], []
    for rank, (user, days, mems, qs) in enumerate(users):
        _check(user, days, mems, qs)
        ids_of: dict[str, list[str]] = {}
        for n, (session, fact, label, kind, content, kw) in enumerate(mems, start=1):
            assert seen_facts.setdefault(fact, user) == user, fact
            mid = f"{user}-m{n:02d}"
            ids_of.setdefault(fact, []).append(mid)
            record = {
                "type": "memory",
                "id": mid,
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
                    record[key] = kw[key]
            memories.append(((days[session - 1], rank, n), record))
        for n, (text, facts) in enumerate(qs, start=1):
            answers = [mid for fact in facts for mid in ids_of[fact]]
            questions.append(
                {
                    "type": "question",
                    "id": f"{user}-q{n:02d}",
                    "user": user,
                    "text": text,
                    "answers": answers,
                }
            )
    memories.sort(key=lambda item: item[0])
    return jsonl([record for _, record in memories] + questions)


if __name__ == "__main__":
    if not write_or_check(OUT, build(), __doc__.splitlines()[0]):
        sys.exit(1)
