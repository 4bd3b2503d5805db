-- A memory mentioned again: the one way a duplicate write, touch() and a
-- re-mention through a consolidated record reinforce what the user said.

-- Reinforce memories that were mentioned again: the one code path for
-- touch() and for a duplicate upsert. Resets the decay clock, revives
-- cold memories, never lowers importance or source, never unpins. A
-- restatement's topic and canonical are taken when the memory had none (a
-- later value of that slot then supersedes it), its decay_rate when given
-- (as a supersede takes it).
CREATE OR REPLACE FUNCTION pymem._reinforce(
    user_id text,
    memory_ids uuid[],
    mentioned boolean,
    importance double precision DEFAULT NULL,
    source text DEFAULT NULL,
    pinned boolean DEFAULT FALSE,
    details jsonb DEFAULT '{}',
    metadata jsonb DEFAULT '{}',
    valid_until timestamptz DEFAULT NULL,
    topic text DEFAULT NULL,
    canonical text DEFAULT NULL,
    decay_rate double precision DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_count integer;
    -- a value, not now() in the CASE below: Citus allows no volatile call there
    v_now timestamptz := now();
BEGIN
    -- a writer: the user's lock first, as every writer takes it (it nests under the
    -- callers' own). touch and recall(touch) took none, and locked rows in their own
    -- order against a writer's: a deadlock (40P01)
    PERFORM pymem._lock_user(user_id);
    UPDATE pymem.memories AS m
    SET last_access_at = greatest(m.last_access_at, now()),
        tier = 'hot',
        mention_count = m.mention_count + _reinforce.mentioned::integer,
        access_count = m.access_count + (NOT _reinforce.mentioned)::integer,
        importance = greatest(m.importance, _reinforce.importance),
        source = pymem._stronger_source(m.source, _reinforce.source),
        pinned = m.pinned OR coalesce(_reinforce.pinned, false),
        -- new keys are added; values already known are kept
        details = _reinforce.details || m.details,
        metadata = _reinforce.metadata || m.metadata,
        topic = coalesce(m.topic, _reinforce.topic),
        canonical = coalesce(m.canonical, _reinforce.canonical),
        decay_rate = coalesce(_reinforce.decay_rate, m.decay_rate),
        valid_until = CASE
            WHEN m.valid_until IS NULL THEN NULL
            -- an ended memory said again holds again, to the new statement's end (none
            -- for a fact): kept at its past end it stayed hidden from recall
            WHEN _reinforce.mentioned AND m.valid_until <= v_now THEN _reinforce.valid_until
            ELSE greatest(m.valid_until, _reinforce.valid_until)
        END
    WHERE m.user_id = _reinforce.user_id
        AND m.id = ANY(_reinforce.memory_ids)
        AND m.deleted_at IS NULL;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    -- keys merged into a memory count against its limit like the ones it came with
    IF _reinforce.details <> '{}' OR _reinforce.metadata <> '{}' THEN
        PERFORM pymem._check_json_size(m.details, 'details merged into the memory'),
            pymem._check_json_size(m.metadata, 'metadata merged into the memory')
        FROM pymem.memories AS m
        WHERE m.user_id = _reinforce.user_id AND m.id = ANY(_reinforce.memory_ids);
    END IF;
    RETURN v_count;
END;
$$;

-- The live record a memory stands for: itself, or the record it was
-- consolidated into (followed through at most 16 consolidations). NULL
-- when that record is deleted or the chain does not end: the caller then
-- treats the fact as new rather than reinforcing nothing.
CREATE OR REPLACE FUNCTION pymem._live_record(user_id text, memory_id uuid)
RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_id uuid := memory_id;
    v_row record;
BEGIN
    FOR step IN 1..16 LOOP
        SELECT m.consolidated_into, m.deleted_at INTO v_row
        FROM pymem.memories AS m
        WHERE m.user_id = _live_record.user_id AND m.id = v_id;
        IF NOT found OR v_row.deleted_at IS NOT NULL THEN
            RETURN NULL;
        END IF;
        IF v_row.consolidated_into IS NULL THEN
            RETURN v_id;
        END IF;
        v_id := v_row.consolidated_into;
    END LOOP;
    RETURN NULL;
END;
$$;

-- Re-mention: resets the decay clock, counts an access, revives a cold
-- memory. The same code path as a duplicate upsert (pymem._reinforce).
-- Ids that are not live memories of this user are refused (PM011).
CREATE OR REPLACE FUNCTION pymem.touch(user_id text, memory_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_count integer;
BEGIN
    PERFORM pymem._check_user(user_id);
    IF memory_ids IS NULL OR cardinality(memory_ids) = 0 THEN
        RETURN 0;
    END IF;
    PERFORM pymem._check_one_dimension(memory_ids, 'memory_ids');
    -- a consolidated fragment is mentioned through the record it lives on, as a
    -- duplicate of it is (the hidden fragment was reinforced, the record decayed);
    -- _reinforce takes the user's lock
    v_count := pymem._reinforce(
        user_id,
        array(SELECT pymem._live_record(user_id, x) FROM unnest(memory_ids) AS x WHERE x IS NOT NULL),
        false
    );
    -- fewer touched than given: name the missing ones (NULL ids touch nothing), and
    -- the fragments of a record that is gone (deleted): they are no live memory either
    IF v_count < (SELECT count(DISTINCT x) FROM unnest(memory_ids) AS x WHERE x IS NOT NULL) THEN
        PERFORM pymem._check_live_memories(user_id, array_remove(memory_ids, NULL));
        PERFORM pymem._check_live_memories(
            user_id,
            array(
                SELECT x FROM unnest(memory_ids) AS x
                WHERE x IS NOT NULL AND pymem._live_record(user_id, x) IS NULL
            ),
            include_consolidated => FALSE
        );
    END IF;
    RETURN v_count;
END;
$$;
