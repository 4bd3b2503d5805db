"""The suite's Citus pass: the store's contract tests through a Citus coordinator.

``PYMEM_TEST_CITUS_DSN`` names the coordinator's admin database of a running
cluster (``python scripts/citus_cluster.py start --tarball ...`` prints it); the
cluster's workers are read from its ``pg_dist_node``. ``.ci/run`` starts the
cluster and runs::

    PYMEM_TEST_CITUS_DSN=... python -m pytest tests/test_citus.py <the contract modules>

Citus cannot clone a database from a template, so the conftest's fixtures work
differently in this pass: each xdist worker makes two databases on every node and
migrates them with ``pymem migrate --citus`` once, one behind ``conn`` (each test's
work rolled back, as in the plain pass) and one behind ``fresh_dsn``, whose
committed rows are truncated after each test and whose shared tables (settings,
kinds, ...) are put back as they were. ``empty_dsn`` is a new database on every
node. Tests that depend on what a Citus store does differently are skipped here
with the reason (:data:`SKIP`); tests/test_citus.py checks those differences.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

DSN = os.environ.get("PYMEM_TEST_CITUS_DSN") or None
# few shards: every migrate distributes each table in this many (and two workers
# still each hold some users)
SHARDS = 4
EXTENSIONS = ("citus", "vector", "pg_trgm")
SHARED_TABLES = ("settings", "kinds", "goal_metrics", "fact_policies", "schema_info", "history_key")

# The contract modules of the pass and what in them a Citus store does differently
# (tests/test_citus.py covers each difference).
MODULES = (
    "tests/test_citus.py",
    "tests/test_upsert.py",
    "tests/test_recall.py",
    "tests/test_decay.py",
    "tests/test_facts.py",
    "tests/test_contacts.py",
    "tests/test_consolidation.py",
    "tests/test_reviews.py",
    "tests/test_security.py",
    "tests/test_calibration.py",
    "tests/test_quality.py",
    "tests/test_wordings.py",
    "tests/test_text_ranking.py",
    "tests/test_explain.py",
    "tests/test_languages.py",
    "tests/test_remember.py",
    "tests/test_job_claims.py",
    "tests/test_worker.py",
    "tests/test_llm_script.py",
    "tests/test_recall_filters.py",
    "tests/test_said_before.py",
    "tests/test_recall_history.py",
    "tests/test_recall_people.py",
)
_SETTINGS_ROW = (
    "passes a row read from pymem.settings to a function in one query: Citus runs it on the"
    " reference table's shard, whose rows are of the shard's type (pymem's functions read"
    " the settings themselves)"
)
_EVENTS = (
    "listens for NOTIFY on the coordinator: on Citus an event waits in the outbox until"
    " pymem.relay_events() sends it there (tests/test_citus.py)"
)
_ROLES = (
    "writes as the owner, then reads as pymem_app in the same transaction: Citus refuses to"
    " touch shards a transaction changed as another role (tests/test_citus.py checks row"
    " security with each role in a transaction of its own)"
)
_PRIVATE = (
    "calls a private writing helper directly: on Citus only the public functions run on the"
    " user's worker, and such a call on the coordinator is refused with PM060"
    " (tests/test_citus.py)"
)
_COORDINATOR_LOCKS = (
    "reads the coordinator's pg_locks or pg_stat_activity: on Citus a user's lock is taken,"
    " and waited for, on the user's worker (the 8-writer races check what it serializes)"
)
_PLANTED = (
    "plants a function in schema public as pymem_app: Citus sends it to the workers, where"
    " the test's own grant on schema public was never made"
)
_TERMINATE = (
    "ends a backend with pg_terminate_backend(smallint), which Citus's own overload makes ambiguous"
)
_HEAP = (
    "measures the coordinator's heap: on Citus the rows are in the workers' shards"
    " (tests/test_citus.py sweeps them in small batches)"
)
_STABLE_UPDATE = (
    "its own UPDATE moves a timestamp column by an interval, a STABLE expression over a column"
    " that Citus refuses in an UPDATE of a distributed table"
)
_WORKER_PLANS = (
    "reads the plan or the statistics of the coordinator's session: on Citus recall and"
    " touch run on the user's worker, against a shard"
)
_CLOCKS = (
    "compares a decay score to 1e-9 with the coordinator's now(): on Citus the rows were"
    " written at the worker's now(), that transaction's own, some milliseconds later"
)
# Tests of the contract modules that depend on what a Citus store does differently,
# by module, with the reason.
SKIP: dict[str, dict[str, str]] = {
    "tests/test_worker.py": {
        "test_run_forever_wakes_on_consolidation_due_not_the_poll": _EVENTS,
    },
    "tests/test_consolidation.py": {
        "test_a_record_absorbs_more_sources_keeping_its_id_and_its_guards": _PRIVATE,
        "test_a_record_consolidated_again_keeps_its_alternatives": _STABLE_UPDATE,
        "test_consolidation_due_is_announced_once_per_topic": _EVENTS,
        "test_details_only_grow": _STABLE_UPDATE,
        "test_the_app_role_consolidates_its_own_user_only": _ROLES,
    },
    "tests/test_contacts.py": {
        "test_a_call_that_waited_for_a_merge_sees_its_result": _COORDINATOR_LOCKS,
        "test_a_transaction_that_found_mentions_then_writes_does_not_deadlock_a_merge": (
            _COORDINATOR_LOCKS
        ),
        "test_a_profile_is_a_consolidation_that_unconsolidate_reverses": _STABLE_UPDATE,
        "test_a_profile_of_fragments_that_cancel_out_takes_the_newest_direction": _PRIVATE,
        "test_a_profile_written_before_it_was_recorded_is_recorded_when_it_grows": _PRIVATE,
        "test_a_question_naming_her_gets_her_card_and_all_five_facts": _PRIVATE,
        "test_another_users_memories_are_refused_and_nothing_is_written": _PRIVATE,
        "test_app_role_never_sees_another_users_contacts": _ROLES,
        "test_card_order_is_total_so_two_stores_built_alike_give_the_same_card": _STABLE_UPDATE,
        "test_consolidate_makes_one_profile_memory_and_never_twice": _PRIVATE,
        "test_contacts_work_with_an_empty_search_path": _PRIVATE,
        "test_empty_and_null_arrays_are_safe": _PRIVATE,
        "test_one_fragment_is_enough_for_a_profile": _PRIVATE,
        "test_profile_due_is_announced_once": _EVENTS,
    },
    "tests/test_decay.py": {
        "test_a_touch_beside_a_writer_of_the_same_rows_does_not_deadlock": _COORDINATOR_LOCKS,
        "test_small_batches_give_the_same_result_as_the_default": _HEAP,
    },
    "tests/test_facts.py": {
        "test_an_answer_to_a_conflict_whose_values_expired_is_believed": _PRIVATE,
        "test_app_role_cannot_undo_or_flag_another_users_memory": _ROLES,
        "test_app_role_sees_only_its_users_facts": _ROLES,
        "test_as_of_after_a_resolved_conflict": _PRIVATE,
        "test_as_of_reads_between_changes": _PRIVATE,
        "test_fact_conflict_is_announced_once": _EVENTS,
        "test_flag_conflict_announces_conflict_flagged": _EVENTS,
        "test_history_lists_values_in_the_order_they_arrived": _PRIVATE,
        "test_sleep_habit_and_last_nights_state_do_not_conflict": _PRIVATE,
    },
    "tests/test_recall.py": {
        "test_the_scan_reads_the_users_rows_in_heap_order_and_no_end_of_validity": (_WORKER_PLANS),
        # on Citus the plan cache chooses (test_citus.py: no node's recall forces the generic)
        "test_the_ranking_statement_is_planned_once_per_session": _WORKER_PLANS,
        "test_only_the_plain_question_takes_the_plain_statement": _WORKER_PLANS,
        "test_one_users_many_rows_never_make_another_users_recall_read_the_whole_table": (
            _WORKER_PLANS
        ),
        "test_touches_and_decay_are_still_hot_updates": _WORKER_PLANS,
        "test_floor_keeps_a_highly_similar_old_memory_above_an_unrelated_fresh_one": _CLOCKS,
        "test_higher_importance_ranks_higher_at_equal_similarity_and_age": _CLOCKS,
        "test_old_untouched_memory_ranks_below_fresh_one_of_same_similarity": _CLOCKS,
        "test_recall_at_a_later_time_decays_scores": _CLOCKS,
    },
    "tests/test_reviews.py": {
        "test_review_due_is_announced_once_after_commit": _EVENTS,
    },
    "tests/test_quality.py": {
        "test_the_app_role_sees_only_its_user": _ROLES,
    },
    "tests/test_security.py": {
        "test_a_look_alike_function_cannot_vouch_for_a_reason": _PLANTED,
        "test_a_reason_cannot_be_forged_through_a_helper_or_a_sql_function": _PRIVATE,
        "test_api_with_another_users_ids_changes_nothing": _ROLES,
        "test_direct_writes_of_another_users_rows_are_refused_on_every_table": _ROLES,
        "test_every_memory_not_found_reads_alike_and_names_the_ids": _ROLES,
        "test_history_reasons_come_only_from_pymem_functions": _ROLES,
        "test_history_trigger_ignores_functions_planted_in_public": _PLANTED,
        "test_sql_for_another_user_is_refused_or_empty": _ROLES,
        "test_tables_show_only_the_current_user": _ROLES,
        "test_the_async_store_sets_the_user_per_call_too": _TERMINATE,
        "test_the_write_check_catches_a_policy_without_with_check": _ROLES,
        "test_wrapper_sets_the_user_per_call_and_restores_the_callers": _ROLES,
        "test_writer_helpers_called_directly_take_the_user_lock": _COORDINATOR_LOCKS,
    },
    "tests/test_upsert.py": {
        "test_decision_table": _SETTINGS_ROW,
        "test_the_step_needs_the_cosine_floor_for_near_identical_text": _SETTINGS_ROW,
    },
}


def skip_reason(nodeid: str) -> str | None:
    """Why the Citus pass skips a test (None: it runs)."""
    if nodeid.split("::", 1)[0] not in MODULES:
        return "not a contract module of the Citus pass"
    module, _, test = nodeid.partition("::")
    reason = SKIP.get(module, {}).get(test.split("[", 1)[0])
    return f"Citus: {reason}" if reason else None


def _nodes(admin_dsn: str) -> list[str]:
    """Admin DSNs of the coordinator, then each worker."""
    params = {k: v for k, v in conninfo_to_dict(admin_dsn).items() if v is not None}
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        workers = conn.execute(
            "SELECT nodename, nodeport FROM pg_dist_node"
            " WHERE groupid <> 0 AND noderole = 'primary' AND isactive ORDER BY nodeid"
        ).fetchall()
    if not workers:
        raise RuntimeError(f"PYMEM_TEST_CITUS_DSN={admin_dsn}: the coordinator has no workers")
    return [admin_dsn] + [
        make_conninfo(**{**params, "host": h, "port": str(p)}) for h, p in workers
    ]


def create_database(admin_dsn: str, name: str) -> str:
    """``name`` on every node with Citus set up in it; the coordinator's DSN of it."""
    with cluster_lock():
        return _create_database(admin_dsn, name)


def _create_database(admin_dsn: str, name: str) -> str:
    nodes = _nodes(admin_dsn)
    for node in nodes:
        with psycopg.connect(node, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        with psycopg.connect(make_conninfo(node, dbname=name), autocommit=True) as conn:
            for extension in EXTENSIONS:
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {extension}")
    dsn = make_conninfo(admin_dsn, dbname=name)
    coordinator = conninfo_to_dict(admin_dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "SELECT citus_set_coordinator_host(%s, %s)",
            (coordinator.get("host") or "127.0.0.1", int(coordinator.get("port") or 5432)),
        )
        for node in nodes[1:]:
            _add_node(conn, conninfo_to_dict(node))
    return dsn


def _add_node(conn: psycopg.Connection, params: dict) -> None:
    """``citus_add_node``, tried again (with a warning in the test summary) when one of
    its remote commands fails on the worker: a CI run saw that once ("failure on
    connection marked as essential") and kept nothing that said why; a role changed by
    another test process at that moment is the likely cause, which :func:`cluster_lock`
    now keeps apart. .ci/run prints the nodes' logs when the pass fails."""
    for attempt in range(3):
        try:
            conn.execute("SELECT citus_add_node(%s, %s)", (params["host"], int(params["port"])))
            return
        except psycopg.errors.InternalError as error:
            if attempt == 2:
                raise
            warnings.warn(
                f"citus_add_node {params['host']}:{params['port']}: {error}; again",
                stacklevel=2,
            )
            time.sleep(2)


def drop_database(admin_dsn: str, name: str) -> None:
    for node in _nodes(admin_dsn):
        with psycopg.connect(node, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def worker_name() -> str:
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def store_database(admin_dsn: str, role: str) -> str:
    """A database on every node migrated with ``pymem migrate --citus`` (for this xdist
    worker and ``role``); its shared tables are saved for :func:`reset`."""
    from pymem.migrate import migrate

    with cluster_lock():
        dsn = create_database(admin_dsn, f"pymem_citus_{role}_{worker_name()}")
        migrate(dsn, citus=True, shard_count=SHARDS)
    with psycopg.connect(dsn, autocommit=True) as conn:
        _saved[dsn] = {
            t: conn.execute(
                f"SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]') FROM pymem.{t} AS x"
            ).fetchone()[0]
            for t in SHARED_TABLES
        }
    return dsn


_saved: dict[str, dict[str, list]] = {}


def reset(dsn: str) -> None:
    """What a test committed in ``dsn`` taken back: every user's rows, the shared tables
    as they were after the migration."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '30s'")
        users = [
            r[0]
            for r in conn.execute(
                "SELECT format('pymem.%I', c.relname) FROM pg_class AS c"
                " WHERE c.relnamespace = 'pymem'::regnamespace AND c.relkind = 'r'"
                " AND EXISTS (SELECT FROM pg_attribute AS a WHERE a.attrelid = c.oid"
                "   AND a.attname = 'user_id' AND NOT a.attisdropped)"
            )
        ]
        with conn.transaction():
            conn.execute("SET LOCAL citus.multi_shard_modify_mode = 'sequential'")
            conn.execute(f"TRUNCATE {', '.join(users)} CASCADE")
            for table, rows in _saved[dsn].items():
                now = conn.execute(
                    f"SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]') FROM pymem.{table} AS x"
                ).fetchone()[0]
                if now != rows:
                    conn.execute(f"DELETE FROM pymem.{table}")
                    conn.execute(
                        f"INSERT INTO pymem.{table} SELECT * FROM"
                        f" jsonb_populate_recordset(NULL::pymem.{table}, %s::jsonb)",
                        (json.dumps(rows),),
                    )


def empty_database(admin_dsn: str) -> str:
    return create_database(admin_dsn, f"pymem_citus_empty_{uuid.uuid4().hex[:10]}")


_lock_depth = 0


@contextmanager
def cluster_lock() -> Iterator[None]:
    """One test process at a time changes what the whole cluster shares: a migration
    sends the roles (pymem_app, cluster-wide) to the workers, ``citus_add_node`` syncs
    them to a new database, and two at once collide on a worker (a remote command's
    error, reported as "failure on connection marked as essential"). Held again by the
    process that holds it, it is held once."""
    global _lock_depth
    if _lock_depth:
        _lock_depth += 1
        try:
            yield
        finally:
            _lock_depth -= 1
        return
    with open(os.path.join(tempfile.gettempdir(), "pymem-citus-tests.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _lock_depth = 1
        try:
            yield
        finally:
            _lock_depth = 0
