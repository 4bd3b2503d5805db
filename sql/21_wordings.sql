-- A memory stays findable by every wording it absorbed (migration 0022).
-- A duplicate keeps one text; the words and the vector of the other are
-- often what a question matches ("Nadia's car these days is a Yaris" merged
-- into "Nadia replaced her Fiesta with a Toyota Yaris"). Recall scores a
-- memory by its best wording (sql/30_recall.sql). Wordings belong to the
-- content the memory had when they came (content_md5): after a supersede
-- they no longer count, after an undo back to that content they count again.

-- The most wordings a memory keeps for one content: each is a row recall
-- scores, and a fact said twenty ways is found by the first few.
CREATE OR REPLACE FUNCTION pymem._max_wordings()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 16;

-- Keeps a text found to be a duplicate of a memory as a wording of it, unless
-- it adds no words: the same normalized text as the memory's or as a wording it
-- has. The caller holds the user's lock.
CREATE OR REPLACE FUNCTION pymem._add_wording(
    user_id text, memory_id uuid, content text, embedding vector
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    v_memory pymem.memories;
    v_fingerprint uuid := pymem._fingerprint(content);
    v_md5 text;
BEGIN
    SELECT m.* INTO v_memory FROM pymem.memories AS m
    WHERE m.user_id = _add_wording.user_id AND m.id = _add_wording.memory_id;
    IF NOT found OR v_memory.content = content
        OR v_memory.fingerprint IS NOT DISTINCT FROM v_fingerprint THEN
        RETURN;
    END IF;
    v_md5 := md5(v_memory.content);
    IF (
        SELECT count(*) >= pymem._max_wordings()
            OR bool_or(pymem._fingerprint(w.content) IS NOT DISTINCT FROM v_fingerprint)
        FROM pymem.memory_wordings AS w
        WHERE w.user_id = _add_wording.user_id AND w.memory_id = _add_wording.memory_id
            AND w.content_md5 = v_md5
    ) THEN
        RETURN;
    END IF;
    INSERT INTO pymem.memory_wordings (user_id, memory_id, content, embedding, content_md5)
    VALUES (user_id, memory_id, content, embedding, v_md5);
END;
$$;

-- A memory retired into another (a review's duplicate or supersede) leaves
-- its text and the wordings of its current content to the survivor.
CREATE OR REPLACE FUNCTION pymem._move_wordings(
    user_id text, retired_id uuid, survivor_id uuid, content text, embedding vector
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_wording record;
BEGIN
    PERFORM pymem._add_wording(user_id, survivor_id, content, embedding);
    -- a loop, not INSERT ... SELECT: on Citus an INSERT that selects from a
    -- distributed table cannot run in a function delegated to a worker
    FOR v_wording IN
        SELECT w.content, w.embedding FROM pymem.memory_wordings AS w
        WHERE w.user_id = _move_wordings.user_id AND w.memory_id = _move_wordings.retired_id
            AND w.content_md5 = md5(_move_wordings.content)
        ORDER BY w.id
    LOOP
        PERFORM pymem._add_wording(user_id, survivor_id, v_wording.content, v_wording.embedding);
    END LOOP;
END;
$$;
