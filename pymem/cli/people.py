"""`pymem facts` and `contacts`: structured facts and the people a user mentions."""

from __future__ import annotations

import argparse

from pymem.cli.common import _needs_user, _store, _user_option

# -- facts ----------------------------------------------------------------


def _fact_value(text: str):
    """VALUE on the command line: JSON when it parses (42, true, {"a": 1}), else a string."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


# JSON leaves DEL and the C1 controls raw, which the terminal escaping would then write as
# \xNN, not JSON: written as \u escapes here, the value prints as valid JSON
_JSON_CONTROLS = {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0))}


def _show(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False).translate(_JSON_CONTROLS)


def cmd_facts(args: argparse.Namespace) -> int:
    if args.facts_action == "policy":  # the store's, not a user's: no --user
        with _store(args) as store:
            stored = store.set_fact_policy(
                args.key_pattern, None if args.policy == "none" else args.policy
            )
        print(f"{args.key_pattern}: {stored or 'no policy (latest_wins)'}")
        return 0
    if not _needs_user(args):
        return 2
    store = _store(args)
    with store:
        if args.facts_action == "set":
            action = store.set_fact(
                args.user,
                args.key,
                _fact_value(args.value),
                confidence=args.confidence,
                scope=args.scope,
                source=args.source,
            )
            now = _show(store.get_fact(args.user, args.key))
            print(f"{action}: {args.key} ({args.scope}) = {now}")
            return 0
        if args.facts_action == "history":
            rows = store.fact_history(args.user, args.key)
            if not rows:
                print(f"no fact {args.key}")
            for h in rows:
                until = f" -> {h.replaced_at:%Y-%m-%d %H:%M:%S}" if h.replaced_at else " -> now"
                print(
                    f"{h.scope:<6} {h.reason:<9} {_show(h.value)}  (confidence {h.confidence:.2f},"
                    f" {h.source}, {h.set_at:%Y-%m-%d %H:%M:%S}{until})"
                )
            return 0
        facts = store.current_facts(args.user)
        conflicts = store.pending_conflicts(args.user)
    if not facts:
        print("no facts")
    for f in facts:
        flag = "  [conflict pending]" if f.conflict_pending else ""
        print(f"{f.key} ({f.scope}) = {_show(f.value)}  {f.confidence:.2f} {f.source}{flag}")
    if conflicts:
        print("pending conflicts:")
    for c in conflicts:
        if c.cause == "fact":
            print(
                f"  {c.fact_key} ({c.scope}): {_show(c.value)} ({c.confidence:.2f}, {c.source})"
                f" vs {_show(c.candidate_value)} ({c.candidate_confidence:.2f},"
                f" {c.candidate_source})"
            )
        else:
            print(f"  memories {c.memory_id} vs {c.other_id}: {c.note or ''}")
    return 0


def _add_facts_parser(sub) -> None:
    p = sub.add_parser(
        "facts", help="structured facts: list, set, history, policy", description=_FACTS_DESCRIPTION
    )
    p.set_defaults(func=cmd_facts, facts_action="list")
    actions = p.add_subparsers(dest="facts_action")
    s = actions.add_parser("set", help="set a fact; VALUE is JSON when it parses, else a string")
    s.add_argument("--confidence", default="medium", help="high, medium, low or 0..1")
    s.add_argument(
        "--scope",
        default="habit",
        choices=["habit", "state"],
        help="habit (lasting) or state (temporary)",
    )
    s.add_argument("--source", default="stated", help="inferred, stated or confirmed")
    s.add_argument("key", help="the fact's key, e.g. user_city")
    s.add_argument("value", help="JSON when it parses (42, true, {...}), else a string")
    h = actions.add_parser("history", help="every value a fact has had")
    h.add_argument("key", help="the fact's key")
    _user_option(p, [s, h])
    policy = actions.add_parser(
        "policy",
        help="how a disagreeing value of the keys matching a pattern is settled, for every "
        "user (the store's owner only)",
    )
    policy.add_argument("key_pattern", help="a key, or a pattern where * matches (likes_*)")
    policy.add_argument(
        "policy",
        choices=["latest_wins", "confirm", "none"],
        help="latest_wins: the newer value replaces; confirm: it waits as a conflict for the "
        "user; none: remove the pattern",
    )


_FACTS_DESCRIPTION = (
    'A user\'s structured facts (user_city = "Shanghai"): list them with their pending '
    "conflicts, set one, or show every value one has had; `facts policy` sets how the store "
    "settles a disagreeing value of some keys (confirm: it waits as a conflict)."
)


# -- contacts ------------------------------------------------------------------


def cmd_contacts(args: argparse.Namespace) -> int:
    if not _needs_user(args):
        return 2
    user = args.user
    store = _store(args)
    with store:
        if args.action == "card":
            print(store.contact_card(user, args.name, max_chars=args.max_chars))
            return 0
        people = store.recent_contacts(user, k=args.limit)
    if not people:
        print("no contacts")
        return 0
    for person in people:
        when = person.last_mentioned_at
        seen = when.strftime("%Y-%m-%d %H:%M") if when else "never"
        relationship = f" ({person.relationship})" if person.relationship else ""
        print(f"{seen:<16}  {person.name}{relationship}")
    return 0


def _add_contacts_parser(sub) -> None:
    p = sub.add_parser(
        "contacts",
        help="people in a user's life: list them, or `card NAME`",
        description="The people in a user's life, most recently mentioned first, or one "
        "person's card (what the assistant knows of them, for a prompt).",
    )
    p.add_argument("--limit", type=int, default=100, help="at most this many people")
    p.set_defaults(func=cmd_contacts, action="list")
    actions = p.add_subparsers(dest="action")
    card = actions.add_parser("card", help="print a person's card")
    card.add_argument("--max-chars", type=int, default=600, help="card length in characters")
    card.add_argument("name", help="the person: name, alias or id")
    _user_option(p, [card])


def add_parsers(sub) -> None:
    """This group's commands, on the `pymem` parser's subcommands."""
    _add_facts_parser(sub)
    _add_contacts_parser(sub)
