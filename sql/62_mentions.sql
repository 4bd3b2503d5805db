-- People found in text (DESIGN "Contacts"), words compared as in
-- sql/60_people.sql (pymem._normalize_name): mentioned_contacts scans a
-- message, contact_memories a person's memories (the linked ones, then a
-- text fallback that links what it finds), the write path links the names
-- an item carries (pymem._link_memory_contacts), and recent_contacts lists
-- who was mentioned last.

-- The user's contacts whose name or alias occurs in a message, each with the
-- words that named it first and their place (pos); read only (mentioned_contacts
-- stamps them, recall lifts their memories). Words are compared,
-- each Chinese (Japanese, Korean, Thai) character being a word: "小红" is
-- found inside "我和小红去了", "Ann" is not found in "Anna" and case does
-- not matter. Overlapping matches are settled longest first, then earliest:
-- a match is kept when it covers no word of one kept before it, so "小红"
-- does not also fire "红", and of "Ann Lee", "Lee Mary" and "Mary Jones" in
-- "Ann Lee Mary Jones" the first and the last are kept (a match dropped for
-- overlapping one that was itself dropped is not lost).
-- The matches come from one set-based statement: the message's word n-grams
-- (n = the word counts of the user's names, starting where a name's first
-- word stands) joined to the names by equality.
CREATE OR REPLACE FUNCTION pymem._contacts_named_in(user_id text, message text)
RETURNS TABLE (contact_id uuid, matched text, pos integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_words text[];
    v_lengths integer[];
    v_longest integer;
    v_hit record;
    -- which words a kept match covers
    v_taken boolean[];
    v_free boolean;
    v_kept integer := 0;
    v_kept_pos integer[] := '{}';
    v_kept_cid uuid[] := '{}';
    v_kept_label text[] := '{}';
    v_last_pos integer;
    v_last_n integer;
BEGIN
    -- recall asks for every question: most users have no contacts to find
    IF NOT EXISTS (
        SELECT FROM pymem.contacts AS c WHERE c.user_id = _contacts_named_in.user_id
    ) THEN
        RETURN;
    END IF;
    v_words := coalesce(pymem._contact_tokens(message), '{}');
    IF cardinality(v_words) = 0 THEN
        RETURN;
    END IF;
    -- the word counts of the user's names and aliases, and the largest
    SELECT
        array_agg(DISTINCT cardinality(string_to_array(k.key, ' '))),
        max(cardinality(string_to_array(k.key, ' ')))
    INTO v_lengths, v_longest
    FROM (
        SELECT c.normalized_name AS key
        FROM pymem.contacts AS c
        WHERE c.user_id = _contacts_named_in.user_id
        UNION ALL
        SELECT a.normalized_alias
        FROM pymem.contact_aliases AS a
        WHERE a.user_id = _contacts_named_in.user_id
    ) AS k;
    IF v_lengths IS NULL THEN
        RETURN;
    END IF;
    v_taken := array_fill(FALSE, ARRAY[cardinality(v_words)]);
    -- Linear in the message whatever the plan: the message is never joined
    -- with itself, and its n-grams meet the names through the unique
    -- indexes (slicing the word array at every position and comparing every
    -- match with every other took 47 s for 10,000 mentions).
    FOR v_hit IN
        WITH
        -- each word with the words that follow it, as many as the longest name has
        ahead AS (
            SELECT
                w.pos,
                array_agg(w.word) OVER (
                    ORDER BY w.pos
                    ROWS BETWEEN CURRENT ROW AND v_longest - 1 FOLLOWING
                ) AS words
            FROM unnest(v_words) WITH ORDINALITY AS w (word, pos)
        ),
        grams AS MATERIALIZED (
            SELECT a.pos::integer AS pos, l.n, array_to_string(a.words[1:l.n], ' ') AS key
            FROM ahead AS a CROSS JOIN unnest(v_lengths) AS l (n)
            WHERE cardinality(a.words) >= l.n
        )
        SELECT g.pos, g.n, c.id AS cid, c.name AS label
        FROM grams AS g
        INNER JOIN pymem.contacts AS c
            ON c.user_id = _contacts_named_in.user_id AND c.normalized_name = g.key
        UNION ALL
        SELECT g.pos, g.n, a.contact_id, a.alias
        FROM grams AS g
        INNER JOIN pymem.contact_aliases AS a
            ON a.user_id = _contacts_named_in.user_id AND a.normalized_alias = g.key
        ORDER BY n DESC, pos, label
    LOOP
        -- the very words of the match kept last (a name and an alias alike) are kept too
        v_free := v_hit.pos = v_last_pos AND v_hit.n = v_last_n;
        IF NOT v_free THEN
            v_free := TRUE;
            FOR i IN v_hit.pos .. v_hit.pos + v_hit.n - 1 LOOP
                IF v_taken[i] THEN
                    v_free := FALSE;
                    EXIT;
                END IF;
            END LOOP;
        END IF;
        CONTINUE WHEN NOT v_free;
        FOR i IN v_hit.pos .. v_hit.pos + v_hit.n - 1 LOOP
            v_taken[i] := TRUE;
        END LOOP;
        v_last_pos := v_hit.pos;
        v_last_n := v_hit.n;
        v_kept := v_kept + 1;
        v_kept_pos[v_kept] := v_hit.pos;
        v_kept_cid[v_kept] := v_hit.cid;
        v_kept_label[v_kept] := v_hit.label;
    END LOOP;
    RETURN QUERY
    SELECT DISTINCT ON (k.cid) k.cid, k.label, k.pos
    FROM unnest(v_kept_pos, v_kept_cid, v_kept_label) AS k (pos, cid, label)
    ORDER BY k.cid, k.pos;
END;
$$;

-- The user's contacts whose name or alias occurs in a message, in order of
-- first occurrence, and their last_mentioned_at set; found by
-- pymem._contacts_named_in, whose rules they are.
CREATE OR REPLACE FUNCTION pymem.mentioned_contacts(user_id text, message text)
RETURNS TABLE (contact_id uuid, name text, relationship text, matched text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_at timestamptz := clock_timestamp();
    v_cids uuid[];
    v_labels text[];
    v_places integer[];
BEGIN
    PERFORM pymem._check_user(user_id);
    IF coalesce(cardinality(pymem._contact_tokens(message)), 0) > 0 AND EXISTS (
        SELECT FROM pymem.contacts AS c WHERE c.user_id = mentioned_contacts.user_id
    ) THEN
        -- it sets last_mentioned_at: the user's lock first, as every writer takes
        -- it (without it, a merge holding the lock waited on the contacts' rows
        -- held here, and this transaction's next write deadlocked)
        PERFORM pymem._lock_user(user_id);
    END IF;
    -- found first, then stamped from an array: the update reads no function (on
    -- Citus a distributed update may not)
    SELECT array_agg(n.contact_id), array_agg(n.matched), array_agg(n.pos)
    INTO v_cids, v_labels, v_places
    FROM pymem._contacts_named_in(mentioned_contacts.user_id, message) AS n;
    RETURN QUERY
    WITH touched AS (
        UPDATE pymem.contacts AS c SET last_mentioned_at = v_at
        FROM unnest(v_cids, v_labels, v_places) AS f (contact_id, matched, pos)
        WHERE c.user_id = mentioned_contacts.user_id AND c.id = f.contact_id
        RETURNING c.id, c.name, c.relationship, f.matched, f.pos
    )
    SELECT t.id, t.name, t.relationship, t.matched
    FROM touched AS t
    ORDER BY t.pos, t.name;
END;
$$;

-- A person's live memories: linked ones first (found_by 'link'), then a
-- text fallback over the user's other live memories that mention the
-- name or an alias (same word rules as mentioned_contacts), which are
-- linked now (found_by 'text', and 'text' in contact_links), so the
-- fallback finds less over time. Each part by decay score; k rows at most.
CREATE OR REPLACE FUNCTION pymem.contact_memories(user_id text, contact text, k integer DEFAULT 20)
RETURNS TABLE (
    memory_id uuid,
    content text,
    kind text,
    found_by text,
    importance double precision,
    decay_score double precision,
    created_at timestamptz
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_id uuid;
    v_keys text[];
    v_found uuid[];
    v_rates jsonb := pymem._kind_rates();
BEGIN
    PERFORM pymem._check_user(user_id);
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be a positive number of memories, got %', coalesce(k::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    -- it writes links ('text'): a concurrent merge must not remove the
    -- contact between the lookup and the insert
    PERFORM pymem._lock_user(user_id);
    v_id := pymem._contact_id(user_id, contact);
    v_keys := array(
        SELECT c.normalized_name FROM pymem.contacts AS c
        WHERE c.user_id = contact_memories.user_id AND c.id = v_id
        UNION
        SELECT a.normalized_alias FROM pymem.contact_aliases AS a
        WHERE a.user_id = contact_memories.user_id AND a.contact_id = v_id
    );
    -- the memories first, then their links: on Citus an INSERT that selects
    -- from a distributed table cannot run in a function delegated to a worker
    v_found := ARRAY(
        SELECT m.id
        FROM pymem.memories AS m
        WHERE
            m.user_id = contact_memories.user_id
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
            AND NOT EXISTS (
                SELECT FROM pymem.contact_links AS x
                WHERE x.user_id = m.user_id AND x.contact_id = v_id AND x.memory_id = m.id
            )
            AND EXISTS (
                SELECT FROM unnest(v_keys) AS key
                WHERE
                    -- cheap probe first: the key's longest word in the raw text
                    strpos(
                        lower(normalize(m.content, NFKC)),
                        (SELECT w FROM unnest(string_to_array(key, ' ')) AS w
                         ORDER BY char_length(w) DESC LIMIT 1)
                    ) > 0
                    AND strpos(
                        ' ' || pymem._normalize_name(m.content) || ' ', ' ' || key || ' '
                    ) > 0
            )
    );
    WITH found AS (
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT contact_memories.user_id, v_id, f.id, 'text'
        FROM unnest(v_found) AS f (id)
        ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING
        RETURNING l.memory_id
    )
    SELECT coalesce(array_agg(f.memory_id), '{}') INTO v_found FROM found AS f;
    IF cardinality(v_found) > 0 THEN
        PERFORM pymem._contact_profile_due(user_id, v_id);
    END IF;
    RETURN QUERY
    SELECT
        m.id,
        m.content,
        m.kind,
        CASE WHEN m.id = ANY(v_found) THEN 'text' ELSE 'link' END,
        m.importance,
        pymem.decay_score(
            m.importance, coalesce(m.decay_rate, (v_rates ->> m.kind)::double precision),
            m.last_access_at
        ),
        m.created_at
    FROM pymem.contact_links AS l
    INNER JOIN pymem.memories AS m ON l.user_id = m.user_id AND l.memory_id = m.id
    WHERE
        l.user_id = contact_memories.user_id
        AND l.contact_id = v_id
        AND m.consolidated_into IS NULL
        AND m.deleted_at IS NULL
        AND (m.valid_until IS NULL OR m.valid_until > now())
    ORDER BY
        m.id = ANY(v_found),
        pymem.decay_score(
            m.importance, coalesce(m.decay_rate, (v_rates ->> m.kind)::double precision),
            m.last_access_at
        ) DESC,
        m.created_at DESC,
        m.id
    LIMIT k;
END;
$$;

-- The write path's hook (upsert_memory / upsert_memories with
-- `contacts`): each name is synced (created if new), the memory linked
-- (found_by 'write') and the person's last_mentioned_at set; a person who
-- reaches settings.contact_profile_due_count fragments is announced once.
-- NULL and name-less entries are skipped; the caller holds the user lock.
CREATE OR REPLACE FUNCTION pymem._link_memory_contacts(
    user_id text, memory_id uuid, names text[]
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_name text;
    v_id uuid;
    v_now timestamptz;
BEGIN
    PERFORM pymem._check_user(user_id);
    -- the write path holds it already (re-entrant); a direct call takes it
    PERFORM pymem._lock_user(user_id);
    IF coalesce(cardinality(names), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM pymem._check_live_memories(user_id, ARRAY[memory_id]);
    PERFORM pymem._check_contact_name(n, 'name')
    FROM unnest(names) AS n
    WHERE char_length(n) > 200;
    FOR v_name IN
        SELECT DISTINCT ON (pymem._normalize_name(n.name)) btrim(n.name)
        FROM unnest(names) WITH ORDINALITY AS n (name, i)
        WHERE pymem._normalize_name(n.name) <> ''
        ORDER BY pymem._normalize_name(n.name), n.i
    LOOP
        v_id := pymem._contact_upsert(user_id, v_name);
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        VALUES (_link_memory_contacts.user_id, v_id, _link_memory_contacts.memory_id, 'write')
        ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;
        -- the clock read first: Citus refuses a volatile function in an UPDATE
        v_now := clock_timestamp();
        UPDATE pymem.contacts AS c SET last_mentioned_at = v_now
        WHERE c.user_id = _link_memory_contacts.user_id AND c.id = v_id;
        PERFORM pymem._contact_profile_due(user_id, v_id);
    END LOOP;
END;
$$;

-- The user's contacts, most recently mentioned first (never mentioned
-- last): an app resolves "how is she doing?" to the first row.
CREATE OR REPLACE FUNCTION pymem.recent_contacts(user_id text, k integer DEFAULT 10)
RETURNS TABLE (
    contact_id uuid, name text, relationship text, last_mentioned_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._check_user(user_id);
    IF k IS NULL OR k < 1 THEN
        RAISE EXCEPTION 'k must be a positive number of contacts, got %', coalesce(k::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    RETURN QUERY
    SELECT c.id, c.name, c.relationship, c.last_mentioned_at
    FROM pymem.contacts AS c
    WHERE c.user_id = recent_contacts.user_id
    ORDER BY c.last_mentioned_at DESC NULLS LAST, c.name
    LIMIT k;
END;
$$;
