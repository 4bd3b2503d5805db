-- Contacts (DESIGN "Contacts"): the people in a user's life as entities,
-- found by name, with the memories about them linked, so that "how is
-- Xiaohong doing?" reaches every fact about her even when no embedding is
-- close. Tables: migrations/0006.contacts.sql. Names are matched on their
-- normalized form (pymem._normalize_name: NFKC, lowercase, words, each
-- Chinese/Japanese/Korean/Thai character a word of its own).

-- ---------------------------------------------------------------- checks

CREATE OR REPLACE FUNCTION pymem._check_contact_name(name text, what text DEFAULT 'name')
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    IF name IS NULL OR pymem._normalize_name(name) = '' THEN
        RAISE EXCEPTION 'contact % must contain a letter or a digit, got %',
            what, coalesce(quote_literal(name), 'NULL')
            USING ERRCODE = 'PM031',
                HINT = 'Pass the person''s name as the user calls them ("小红", "John Smith").';
    END IF;
    IF char_length(name) > 200 THEN
        RAISE EXCEPTION 'contact % is % characters long, the maximum is 200',
            what, char_length(name)
            USING ERRCODE = 'PM031';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_contact_attributes(attributes jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    IF attributes IS NOT NULL AND jsonb_typeof(attributes) <> 'object' THEN
        RAISE EXCEPTION 'attributes must be a JSON object, got a JSON %', jsonb_typeof(attributes)
            USING ERRCODE = 'PM032',
                HINT = 'Pass {"company": "Tencent", "city": "Shenzhen"}.';
    END IF;
END;
$$;

-- relationship and description: optional text within the content limit
CREATE OR REPLACE FUNCTION pymem._check_contact_text(val text, what text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    IF char_length(val) > (SELECT s.max_content_chars FROM pymem.settings AS s) THEN
        RAISE EXCEPTION '% is % characters long, the maximum is %', what, char_length(val),
            (SELECT s.max_content_chars FROM pymem.settings AS s)
            USING ERRCODE = 'PM003';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION pymem._check_memory_ids(user_id text, memory_ids uuid[])
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_missing uuid;
BEGIN
    SELECT i.id INTO v_missing
    FROM unnest(memory_ids) AS i (id)
    WHERE i.id IS NOT NULL AND NOT EXISTS (
        SELECT FROM pymem.memories AS m
        WHERE m.user_id = _check_memory_ids.user_id AND m.id = i.id AND m.deleted_at IS NULL
    )
    LIMIT 1;
    IF v_missing IS NOT NULL THEN
        RAISE EXCEPTION 'memory % is not a memory of user %', v_missing, quote_literal(user_id)
            USING ERRCODE = 'PM011',
                HINT = 'Link only the user''s own, not deleted, memories.';
    END IF;
END;
$$;

-- ------------------------------------------------------------- lookups

-- A contact named by its id, its name or an alias (no fuzzy match: that
-- is resolve_contact's, and only the app decides on it). PM030 if none.
CREATE OR REPLACE FUNCTION pymem._contact_id(user_id text, contact text)
RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_key text := pymem._normalize_name(contact);
    v_id uuid;
BEGIN
    IF contact ~* '^\s*[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\s*$' THEN
        SELECT c.id INTO v_id FROM pymem.contacts AS c
        WHERE c.user_id = _contact_id.user_id AND c.id = btrim(contact)::uuid;
    END IF;
    IF v_id IS NULL THEN
        SELECT c.id INTO v_id FROM pymem.contacts AS c
        WHERE c.user_id = _contact_id.user_id AND c.normalized_name = v_key;
    END IF;
    IF v_id IS NULL THEN
        SELECT a.contact_id INTO v_id FROM pymem.contact_aliases AS a
        WHERE a.user_id = _contact_id.user_id AND a.normalized_alias = v_key;
    END IF;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'user % has no contact named %', quote_literal(user_id),
            coalesce(quote_literal(contact), 'NULL')
            USING ERRCODE = 'PM030',
                HINT = 'Pass the contact''s id, name or an alias; resolve_contact finds near names.';
    END IF;
    RETURN v_id;
END;
$$;

-- The contact for a name: by exact normalized name, then alias, else a
-- new one. Race-free: the unique key (user_id, normalized_name) and
-- INSERT ... ON CONFLICT make concurrent first syncs of one person meet on
-- one row (the later ones wait for the first to commit and take its id).
CREATE OR REPLACE FUNCTION pymem._contact_upsert(user_id text, name text)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_key text := pymem._normalize_name(name);
    v_id uuid;
BEGIN
    SELECT c.id INTO v_id FROM pymem.contacts AS c
    WHERE c.user_id = _contact_upsert.user_id AND c.normalized_name = v_key;
    IF v_id IS NULL THEN
        SELECT a.contact_id INTO v_id FROM pymem.contact_aliases AS a
        WHERE a.user_id = _contact_upsert.user_id AND a.normalized_alias = v_key;
    END IF;
    IF v_id IS NULL THEN
        INSERT INTO pymem.contacts AS c (user_id, name)
        VALUES (_contact_upsert.user_id, btrim(_contact_upsert.name))
        ON CONFLICT ON CONSTRAINT contacts_user_id_normalized_name_key
        DO UPDATE SET updated_at = c.updated_at
        RETURNING c.id INTO v_id;
    END IF;
    RETURN v_id;
END;
$$;

-- The person's fragments: linked live memories that are about this person
-- alone (a memory linked to two people stays live for both), not pinned,
-- not the person's own profile memory. What consolidate_contact absorbs
-- and what contact_profile_due counts.
CREATE OR REPLACE FUNCTION pymem._contact_fragments(user_id text, contact_id uuid)
RETURNS uuid[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    RETURN array(
        SELECT l.memory_id
        FROM pymem.contact_links AS l
        INNER JOIN pymem.memories AS m ON l.user_id = m.user_id AND l.memory_id = m.id
        INNER JOIN pymem.contacts AS c ON l.user_id = c.user_id AND l.contact_id = c.id
        WHERE
            l.user_id = _contact_fragments.user_id
            AND l.contact_id = _contact_fragments.contact_id
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
            AND NOT m.pinned
            AND m.id IS DISTINCT FROM c.consolidated_into
            AND NOT EXISTS (
                SELECT FROM pymem.contact_links AS o
                WHERE
                    o.user_id = l.user_id AND o.memory_id = l.memory_id
                    AND o.contact_id <> l.contact_id
            )
        ORDER BY m.created_at, m.id
    );
END;
$$;

-- contact_profile_due, once: when the person has gathered
-- settings.contact_profile_due_count fragments and no announcement is
-- outstanding (consolidate_contact clears it).
CREATE OR REPLACE FUNCTION pymem._contact_profile_due(user_id text, contact_id uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_fragments uuid[] := pymem._contact_fragments(user_id, contact_id);
    v_name text;
BEGIN
    IF cardinality(v_fragments) < (SELECT s.contact_profile_due_count FROM pymem.settings AS s) THEN
        RETURN;
    END IF;
    UPDATE pymem.contacts AS c SET profile_due_announced_at = now()
    WHERE
        c.user_id = _contact_profile_due.user_id AND c.id = _contact_profile_due.contact_id
        AND c.profile_due_announced_at IS NULL
    RETURNING c.name INTO v_name;
    IF found THEN
        PERFORM pymem._notify(
            user_id, 'contact_profile_due', v_fragments,
            jsonb_build_object('contact_id', contact_id, 'name', v_name)
        );
    END IF;
END;
$$;

-- Merges relationship, description and attributes into a contact: new
-- attribute keys are added, a changed value replaces the old one and the
-- old one goes to contact_history; keys are never removed (null values are
-- ignored). A new relationship or description replaces the old, which is
-- kept in the history too.
CREATE OR REPLACE FUNCTION pymem._contact_update(
    user_id text, contact_id uuid, relationship text, description text, attributes jsonb,
    reason text
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_old pymem.contacts;
    v_new jsonb := (
        SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}')
        FROM jsonb_each(coalesce(attributes, '{}')) AS e
        WHERE jsonb_typeof(e.value) <> 'null'
    );
    v_relationship text := nullif(btrim(relationship), '');
    v_description text := nullif(btrim(description), '');
BEGIN
    SELECT * INTO v_old FROM pymem.contacts AS c
    WHERE c.user_id = _contact_update.user_id AND c.id = _contact_update.contact_id
    FOR UPDATE;
    INSERT INTO pymem.contact_history (user_id, contact_id, field, key, old_value, new_value, reason)
    SELECT _contact_update.user_id, _contact_update.contact_id, 'attributes', e.key,
        v_old.attributes -> e.key, e.value, _contact_update.reason
    FROM jsonb_each(v_new) AS e
    WHERE v_old.attributes ? e.key AND v_old.attributes -> e.key <> e.value
    UNION ALL
    SELECT _contact_update.user_id, _contact_update.contact_id, 'relationship', NULL,
        to_jsonb(v_old.relationship), to_jsonb(v_relationship), _contact_update.reason
    WHERE v_old.relationship <> v_relationship
    UNION ALL
    SELECT _contact_update.user_id, _contact_update.contact_id, 'description', NULL,
        to_jsonb(v_old.description), to_jsonb(v_description), _contact_update.reason
    WHERE v_old.description <> v_description;
    UPDATE pymem.contacts AS c
    SET attributes = c.attributes || v_new,
        relationship = coalesce(v_relationship, c.relationship),
        description = coalesce(v_description, c.description),
        updated_at = now()
    WHERE
        c.user_id = _contact_update.user_id AND c.id = _contact_update.contact_id
        AND (v_new <> '{}' OR v_relationship IS NOT NULL OR v_description IS NOT NULL);
END;
$$;

-- Adds aliases; NULL, blank and name-less ones are skipped, and an alias
-- that is already a name or an alias of another person stays theirs
-- (merge_contacts joins two people).
CREATE OR REPLACE FUNCTION pymem._contact_add_aliases(
    user_id text, contact_id uuid, aliases text[]
)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    INSERT INTO pymem.contact_aliases AS a (user_id, contact_id, alias)
    SELECT DISTINCT ON (pymem._normalize_name(n.alias))
        _contact_add_aliases.user_id, _contact_add_aliases.contact_id, btrim(n.alias)
    FROM unnest(aliases) WITH ORDINALITY AS n (alias, i)
    WHERE
        pymem._normalize_name(n.alias) <> ''
        AND NOT EXISTS (
            SELECT FROM pymem.contacts AS c
            WHERE
                c.user_id = _contact_add_aliases.user_id
                AND c.normalized_name = pymem._normalize_name(n.alias)
        )
    ORDER BY pymem._normalize_name(n.alias), n.i
    ON CONFLICT ON CONSTRAINT contact_aliases_pkey DO NOTHING;
END;
$$;

-- The card's first lines: name (relationship), aliases, description,
-- attributes. Also the text of the person's profile memory.
CREATE OR REPLACE FUNCTION pymem._contact_header(user_id text, contact_id uuid)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
BEGIN
    RETURN (
        SELECT array_remove(ARRAY[
            c.name || coalesce(' (' || c.relationship || ')', ''),
            (
                SELECT 'also: ' || string_agg(a.alias, ', ' ORDER BY a.alias)
                FROM pymem.contact_aliases AS a
                WHERE a.user_id = c.user_id AND a.contact_id = c.id
            ),
            c.description,
            (
                SELECT string_agg(
                    e.key || ': ' || CASE jsonb_typeof(e.value)
                        WHEN 'string' THEN e.value #>> '{}' ELSE e.value::text
                    END,
                    '; ' ORDER BY e.key
                )
                FROM jsonb_each(c.attributes) AS e
            )
        ], NULL)
        FROM pymem.contacts AS c
        WHERE c.user_id = _contact_header.user_id AND c.id = _contact_header.contact_id
    );
END;
$$;

-- ------------------------------------------------------------ public API

-- Creates or updates a person (by normalized name, then alias), links the
-- given memories (idempotent), merges attributes and adds aliases. Every
-- check runs before anything is written. Returns the contact's id.
CREATE OR REPLACE FUNCTION pymem.sync_contact(
    user_id text,
    name text,
    memory_ids uuid[] DEFAULT NULL,
    relationship text DEFAULT NULL,
    attributes jsonb DEFAULT NULL,
    aliases text[] DEFAULT NULL,
    description text DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_id uuid;
    v_linked integer;
    v_too_long text;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_contact_name(name);
    PERFORM pymem._check_contact_attributes(attributes);
    PERFORM pymem._check_contact_text(relationship, 'relationship');
    PERFORM pymem._check_contact_text(description, 'description');
    SELECT a INTO v_too_long FROM unnest(aliases) AS a WHERE char_length(a) > 200 LIMIT 1;
    IF v_too_long IS NOT NULL THEN
        PERFORM pymem._check_contact_name(v_too_long, 'alias');
    END IF;
    -- like every writer: a concurrent merge_contacts cannot remove the
    -- contact between its lookup here and the links written below
    PERFORM pymem._lock_user(user_id);
    PERFORM pymem._check_memory_ids(user_id, memory_ids);

    v_id := pymem._contact_upsert(user_id, name);
    PERFORM pymem._contact_update(user_id, v_id, relationship, description, attributes, 'sync');
    PERFORM pymem._contact_add_aliases(user_id, v_id, aliases);
    INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
    SELECT DISTINCT sync_contact.user_id, v_id, i.id, 'sync'
    FROM unnest(memory_ids) AS i (id)
    WHERE i.id IS NOT NULL
    ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;
    GET DIAGNOSTICS v_linked = ROW_COUNT;
    UPDATE pymem.contacts AS c SET last_mentioned_at = clock_timestamp()
    WHERE c.user_id = sync_contact.user_id AND c.id = v_id;
    IF v_linked > 0 THEN
        PERFORM pymem._contact_profile_due(user_id, v_id);
    END IF;
    RETURN v_id;
END;
$$;

-- Who is meant by a name: the exact normalized name, else an alias, else
-- fuzzy candidates (never merged here). Fuzzy: pg_trgm similarity >=
-- settings.contact_fuzzy_threshold (0.5) for names in spaced scripts;
-- for Chinese/Japanese/Korean names, which share no trigram
-- (similarity('小红', '红红') = 0), the shared distinct characters over
-- the smaller name's >= settings.contact_cjk_fuzzy_threshold (0.6).
-- Only the first tier that matches is returned.
CREATE OR REPLACE FUNCTION pymem.resolve_contact(user_id text, name text)
RETURNS SETOF pymem.contact_match
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_key text;
    v_settings pymem.settings := pymem._settings();
    v_spaceless text := '[' || pymem._spaceless_chars() || ']';
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_contact_name(resolve_contact.name);
    v_key := pymem._normalize_name(resolve_contact.name);
    RETURN QUERY
    SELECT c.id, c.name, 'exact'::text, 1.0::double precision
    FROM pymem.contacts AS c
    WHERE c.user_id = resolve_contact.user_id AND c.normalized_name = v_key;
    IF found THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c.id, c.name, 'alias'::text, 1.0::double precision
    FROM pymem.contact_aliases AS a
    INNER JOIN pymem.contacts AS c ON a.user_id = c.user_id AND a.contact_id = c.id
    WHERE a.user_id = resolve_contact.user_id AND a.normalized_alias = v_key;
    IF found THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT f.id, f.name, 'fuzzy'::text, max(f.score)
    FROM (
        SELECT
            c.id,
            c.name,
            k.spaceless,
            CASE
                WHEN k.spaceless THEN pymem._shared_chars(v_key, k.key)
                ELSE similarity(v_key, k.key)::double precision
            END AS score
        FROM pymem.contacts AS c
        CROSS JOIN LATERAL (
            SELECT n.key, (v_key ~ v_spaceless OR n.key ~ v_spaceless) AS spaceless
            FROM (
                SELECT c.normalized_name AS key
                UNION ALL
                SELECT a.normalized_alias
                FROM pymem.contact_aliases AS a
                WHERE a.user_id = c.user_id AND a.contact_id = c.id
            ) AS n
        ) AS k
        WHERE c.user_id = resolve_contact.user_id
    ) AS f
    WHERE f.score >= CASE
        WHEN f.spaceless THEN v_settings.contact_cjk_fuzzy_threshold
        ELSE v_settings.contact_fuzzy_threshold
    END
    GROUP BY f.id, f.name
    ORDER BY max(f.score) DESC, f.name;
END;
$$;

-- Distinct characters shared by two names over the smaller name's distinct
-- characters (spaces ignored): '小红' / '红红' = 1, '张伟' / '张三' = 0.5.
CREATE OR REPLACE FUNCTION pymem._shared_chars(a text, b text)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public
RETURN (
    WITH
    ca AS (SELECT DISTINCT ch FROM regexp_split_to_table(replace(a, ' ', ''), '') AS ch),

    cb AS (SELECT DISTINCT ch FROM regexp_split_to_table(replace(b, ' ', ''), '') AS ch),

    shared AS (
        SELECT ch FROM ca
        INTERSECT
        SELECT ch FROM cb
    )

    SELECT
        (SELECT count(*) FROM shared)::double precision
        / nullif(least((SELECT count(*) FROM ca), (SELECT count(*) FROM cb)), 0)
);

-- Joins two records of one person: keep receives merge's aliases, links
-- (found_by 'moved'), history and the attributes it lacks; where both
-- have a value, keep's wins and merge's goes to contact_history. merge's
-- name becomes an alias of keep; merge is removed. Returns keep's id.
CREATE OR REPLACE FUNCTION pymem.merge_contacts(user_id text, keep text, merge text)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_keep_id uuid;
    v_merge_id uuid;
    v_keep pymem.contacts;
    v_merge pymem.contacts;
BEGIN
    PERFORM pymem._check_user(user_id);
    -- before the lookups: a merge that waited for another one sees its
    -- result (the merged name is an alias of keep now: PM033), never a
    -- contact deleted under it
    PERFORM pymem._lock_user(user_id);
    v_keep_id := pymem._contact_id(user_id, keep);
    v_merge_id := pymem._contact_id(user_id, merge);
    IF v_keep_id = v_merge_id THEN
        RAISE EXCEPTION '% and % are the same contact', quote_literal(keep), quote_literal(merge)
            USING ERRCODE = 'PM033',
                HINT = 'merge_contacts joins two different contacts.';
    END IF;
    -- both rows locked, in id order so two opposite merges cannot deadlock
    PERFORM FROM pymem.contacts AS c
    WHERE c.user_id = merge_contacts.user_id AND c.id IN (v_keep_id, v_merge_id)
    ORDER BY c.id
    FOR UPDATE;
    SELECT * INTO v_keep FROM pymem.contacts AS c
    WHERE c.user_id = merge_contacts.user_id AND c.id = v_keep_id;
    SELECT * INTO v_merge FROM pymem.contacts AS c
    WHERE c.user_id = merge_contacts.user_id AND c.id = v_merge_id;

    INSERT INTO pymem.contact_history (user_id, contact_id, field, key, old_value, new_value, reason)
    SELECT merge_contacts.user_id, v_keep_id, 'attributes', e.key, e.value,
        v_keep.attributes -> e.key, 'merge'
    FROM jsonb_each(v_merge.attributes) AS e
    WHERE v_keep.attributes ? e.key AND v_keep.attributes -> e.key <> e.value
    UNION ALL
    SELECT merge_contacts.user_id, v_keep_id, 'relationship', NULL,
        to_jsonb(v_merge.relationship), to_jsonb(v_keep.relationship), 'merge'
    WHERE v_keep.relationship <> v_merge.relationship
    UNION ALL
    SELECT merge_contacts.user_id, v_keep_id, 'description', NULL,
        to_jsonb(v_merge.description), to_jsonb(v_keep.description), 'merge'
    WHERE v_keep.description <> v_merge.description;

    UPDATE pymem.contact_history AS h SET contact_id = v_keep_id
    WHERE h.user_id = merge_contacts.user_id AND h.contact_id = v_merge_id;
    UPDATE pymem.contact_aliases AS a SET contact_id = v_keep_id
    WHERE a.user_id = merge_contacts.user_id AND a.contact_id = v_merge_id;
    INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by, linked_at)
    SELECT l.user_id, v_keep_id, l.memory_id, 'moved', l.linked_at
    FROM pymem.contact_links AS l
    WHERE l.user_id = merge_contacts.user_id AND l.contact_id = v_merge_id
    ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;

    -- merge's profile memory, if keep has none, becomes keep's; if keep has
    -- one, merge's stays linked as a fragment for the next consolidation
    UPDATE pymem.contacts AS c
    SET attributes = v_merge.attributes || c.attributes,
        relationship = coalesce(c.relationship, v_merge.relationship),
        description = coalesce(c.description, v_merge.description),
        last_mentioned_at = greatest(c.last_mentioned_at, v_merge.last_mentioned_at),
        consolidated_into = coalesce(c.consolidated_into, v_merge.consolidated_into),
        created_at = least(c.created_at, v_merge.created_at),
        updated_at = now()
    WHERE c.user_id = merge_contacts.user_id AND c.id = v_keep_id;
    DELETE FROM pymem.contacts AS c
    WHERE c.user_id = merge_contacts.user_id AND c.id = v_merge_id;
    INSERT INTO pymem.contact_aliases AS a (user_id, contact_id, alias)
    VALUES (merge_contacts.user_id, v_keep_id, v_merge.name)
    ON CONFLICT ON CONSTRAINT contact_aliases_pkey DO NOTHING;
    PERFORM pymem._contact_profile_due(user_id, v_keep_id);
    RETURN v_keep_id;
END;
$$;

-- The user's contacts whose name or alias occurs in a message, in order of
-- first occurrence, and their last_mentioned_at set. Words are compared,
-- each Chinese (Japanese, Korean, Thai) character being a word: "小红" is
-- found inside "我和小红去了", "Ann" is not found in "Anna" and case does
-- not matter. A match overlapping a longer one (or an equally long one
-- that starts earlier) is dropped: "小红" does not also fire "红".
-- One set-based statement: the message's word n-grams (n = the word counts
-- of the user's names, starting where a name's first word stands) joined to
-- the names by equality.
CREATE OR REPLACE FUNCTION pymem.mentioned_contacts(user_id text, message text)
RETURNS TABLE (contact_id uuid, name text, relationship text, matched text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_words text[] := coalesce(pymem._contact_tokens(message), '{}');
    v_lengths integer[];
    v_longest integer;
    v_at timestamptz := clock_timestamp();
BEGIN
    PERFORM pymem._check_user(user_id);
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
        WHERE c.user_id = mentioned_contacts.user_id
        UNION ALL
        SELECT a.normalized_alias
        FROM pymem.contact_aliases AS a
        WHERE a.user_id = mentioned_contacts.user_id
    ) AS k;
    IF v_lengths IS NULL THEN
        RETURN;
    END IF;
    -- Linear in the message whatever the plan: the message is never joined
    -- with itself, and its n-grams meet the names through the unique
    -- indexes (slicing the word array at every position and comparing every
    -- match with every other took 47 s for 10,000 mentions).
    RETURN QUERY
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
        SELECT a.pos, l.n, array_to_string(a.words[1:l.n], ' ') AS key
        FROM ahead AS a CROSS JOIN unnest(v_lengths) AS l (n)
        WHERE cardinality(a.words) >= l.n
    ),
    hits AS (
        SELECT g.pos, g.n, c.id AS cid, c.name AS label
        FROM grams AS g
        INNER JOIN pymem.contacts AS c
            ON c.user_id = mentioned_contacts.user_id AND c.normalized_name = g.key
        UNION ALL
        SELECT g.pos, g.n, a.contact_id, a.alias
        FROM grams AS g
        INNER JOIN pymem.contact_aliases AS a
            ON a.user_id = mentioned_contacts.user_id AND a.normalized_alias = g.key
    ),
    -- two matches overlap when they cover a word in common: per covered
    -- word, the longest match there and the first start of each length
    covered AS (
        SELECT
            h.pos,
            h.n,
            h.cid,
            h.label,
            max(h.n) OVER (PARTITION BY h.pos + c.k) AS longest_here,
            min(h.pos) OVER (PARTITION BY h.pos + c.k, h.n) AS first_here
        FROM hits AS h
        CROSS JOIN LATERAL generate_series(0, h.n - 1) AS c (k)
    ),
    kept AS (
        SELECT v.pos, v.cid, v.label
        FROM covered AS v
        GROUP BY v.pos, v.n, v.cid, v.label
        HAVING NOT bool_or(v.longest_here > v.n OR v.first_here < v.pos)
    ),
    firsts AS (
        SELECT DISTINCT ON (k.cid) k.cid, k.label, k.pos
        FROM kept AS k
        ORDER BY k.cid, k.pos
    ),
    touched AS (
        UPDATE pymem.contacts AS c SET last_mentioned_at = v_at
        FROM firsts AS f
        WHERE c.user_id = mentioned_contacts.user_id AND c.id = f.cid
        RETURNING c.id, c.name, c.relationship, f.label, f.pos
    )
    SELECT t.id, t.name, t.relationship, t.label
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
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_id uuid;
    v_keys text[];
    v_found uuid[];
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
    WITH found AS (
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        SELECT m.user_id, v_id, m.id, 'text'
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
        pymem.decay_score(m.importance, coalesce(m.decay_rate, kd.decay_rate), m.last_access_at),
        m.created_at
    FROM pymem.contact_links AS l
    INNER JOIN pymem.memories AS m ON l.user_id = m.user_id AND l.memory_id = m.id
    INNER JOIN pymem.kinds AS kd ON m.kind = kd.kind
    WHERE
        l.user_id = contact_memories.user_id
        AND l.contact_id = v_id
        AND m.consolidated_into IS NULL
        AND m.deleted_at IS NULL
        AND (m.valid_until IS NULL OR m.valid_until > now())
    ORDER BY
        m.id = ANY(v_found),
        pymem.decay_score(m.importance, coalesce(m.decay_rate, kd.decay_rate), m.last_access_at) DESC,
        m.created_at DESC,
        m.id
    LIMIT k;
END;
$$;

-- A ready prompt block about a person: name (relationship), aliases,
-- description, attributes, then their linked live facts by decay score
-- ("- fact" lines); ties (memories written in one transaction share its
-- clock) newest first, then by text in code point order, then kind and
-- id: the same store built twice gives the same card (ids are random).
-- At most max_chars characters: whole lines while they fit, then the
-- first line that does not fit cut on a grapheme boundary
-- (pymem._truncate_graphemes) and ended with '…'.
CREATE OR REPLACE FUNCTION pymem.contact_card(
    user_id text, contact text, max_chars integer DEFAULT 600
)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_id uuid;
    v_lines text[];
    v_line text;
    v_out text := '';
    v_sep integer;
    v_room integer;
BEGIN
    PERFORM pymem._check_user(user_id);
    IF max_chars IS NULL OR max_chars < 1 THEN
        RAISE EXCEPTION 'max_chars must be a positive number of characters, got %',
            coalesce(max_chars::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    v_id := pymem._contact_id(user_id, contact);
    v_lines := pymem._contact_header(user_id, v_id) || array(
        SELECT '- ' || m.content
        FROM pymem.contact_links AS l
        INNER JOIN pymem.memories AS m ON l.user_id = m.user_id AND l.memory_id = m.id
        INNER JOIN pymem.kinds AS kd ON m.kind = kd.kind
        INNER JOIN pymem.contacts AS c ON l.user_id = c.user_id AND l.contact_id = c.id
        WHERE
            l.user_id = contact_card.user_id
            AND l.contact_id = v_id
            AND m.consolidated_into IS NULL
            AND m.deleted_at IS NULL
            AND (m.valid_until IS NULL OR m.valid_until > now())
            -- the profile memory repeats the header
            AND m.id IS DISTINCT FROM c.consolidated_into
        ORDER BY
            pymem.decay_score(m.importance, coalesce(m.decay_rate, kd.decay_rate), m.last_access_at)
            DESC,
            m.created_at DESC,
            m.content COLLATE "C",
            m.kind,
            m.id
        LIMIT 50
    );
    FOREACH v_line IN ARRAY v_lines LOOP
        v_sep := CASE WHEN v_out = '' THEN 0 ELSE 1 END;
        IF char_length(v_out) + v_sep + char_length(v_line) <= max_chars THEN
            v_out := v_out || repeat(E'\n', v_sep) || v_line;
            CONTINUE;
        END IF;
        v_room := max_chars - char_length(v_out) - v_sep - 1;
        v_line := rtrim(pymem._truncate_graphemes(v_line, greatest(v_room, 0)));
        IF v_line <> '' THEN
            v_out := v_out || repeat(E'\n', v_sep) || v_line || '…';
        END IF;
        EXIT;
    END LOOP;
    RETURN v_out;
END;
$$;

-- Stores the profile the app's LLM wrote about a person. The description
-- replaces the old one and the attributes merge as in sync_contact (keys
-- only grow; replaced values go to contact_history). The person's
-- fragments (pymem._contact_fragments: linked live memories about this
-- person alone, not pinned) are consolidated into one memory of kind
-- 'profile' holding the card's header text, its embedding the normalized
-- mean of the embeddings of every memory it consolidates, its details the
-- union of theirs (keys only grow). The fragments keep existing with
-- consolidated_into set and importance 0.05. A later call reuses the same
-- profile memory (its previous text goes to memory_versions) and absorbs
-- only the fragments linked since: nothing is consolidated twice. The
-- contact records the profile memory (contacts.consolidated_into) and its
-- contact_profile_due announcement is cleared. Returns the profile
-- memory's id, or NULL when the person never had fragments.
CREATE OR REPLACE FUNCTION pymem.consolidate_contact(
    user_id text, contact text, description text DEFAULT NULL, attributes jsonb DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_id uuid;
    v_fragments uuid[];
    v_profile uuid;
    v_existed boolean;
    v_text text;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_contact_attributes(attributes);
    PERFORM pymem._check_contact_text(description, 'description');
    PERFORM pymem._lock_user(user_id);
    v_id := pymem._contact_id(user_id, contact);
    PERFORM pymem._contact_update(user_id, v_id, NULL, description, attributes, 'consolidate');
    v_fragments := pymem._contact_fragments(user_id, v_id);
    SELECT m.id INTO v_profile
    FROM pymem.contacts AS c
    INNER JOIN pymem.memories AS m ON c.user_id = m.user_id AND c.consolidated_into = m.id
    WHERE
        c.user_id = consolidate_contact.user_id AND c.id = v_id
        AND m.consolidated_into IS NULL AND m.deleted_at IS NULL;
    v_existed := v_profile IS NOT NULL;
    v_text := pymem._truncate_graphemes(
        array_to_string(pymem._contact_header(user_id, v_id), E'\n'),
        (SELECT s.max_content_chars FROM pymem.settings AS s)
    );

    IF NOT v_existed AND cardinality(v_fragments) > 0 THEN
        INSERT INTO pymem.memories AS p
            (user_id, kind, content, embedding, importance, source, details, metadata)
        SELECT
            consolidate_contact.user_id, 'profile', v_text, l2_normalize(avg(m.embedding)),
            greatest(0.5, max(m.importance)), 'inferred',
            (
                SELECT coalesce(jsonb_object_agg(e.key, e.value ORDER BY d.created_at, d.id), '{}')
                FROM pymem.memories AS d
                CROSS JOIN LATERAL jsonb_each(d.details) AS e
                WHERE d.user_id = consolidate_contact.user_id AND d.id = ANY(v_fragments)
            ),
            jsonb_build_object('contact_id', v_id)
        FROM pymem.memories AS m
        WHERE m.user_id = consolidate_contact.user_id AND m.id = ANY(v_fragments)
        RETURNING p.id INTO v_profile;
    END IF;

    IF v_profile IS NOT NULL THEN
        PERFORM pymem._set_change_reason('consolidate_contact');
        UPDATE pymem.memories AS m SET consolidated_into = v_profile, importance = 0.05
        WHERE m.user_id = consolidate_contact.user_id AND m.id = ANY(v_fragments);
        IF v_existed THEN
            UPDATE pymem.memories AS p
            SET content = v_text,
                embedding = CASE
                    WHEN cardinality(v_fragments) = 0 THEN p.embedding
                    ELSE (
                        SELECT l2_normalize(avg(f.embedding))
                        FROM pymem.memories AS f
                        WHERE f.user_id = p.user_id AND f.consolidated_into = p.id
                    )
                END,
                details = p.details || (
                    SELECT coalesce(jsonb_object_agg(e.key, e.value ORDER BY d.created_at, d.id), '{}')
                    FROM pymem.memories AS d
                    CROSS JOIN LATERAL jsonb_each(d.details) AS e
                    WHERE d.user_id = consolidate_contact.user_id AND d.id = ANY(v_fragments)
                )
            WHERE p.user_id = consolidate_contact.user_id AND p.id = v_profile;
        END IF;
        PERFORM pymem._set_change_reason(NULL);
        INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
        VALUES (consolidate_contact.user_id, v_id, v_profile, 'sync')
        ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;
    END IF;
    UPDATE pymem.contacts AS c
    SET consolidated_into = coalesce(v_profile, c.consolidated_into),
        profile_due_announced_at = NULL,
        updated_at = now()
    WHERE c.user_id = consolidate_contact.user_id AND c.id = v_id;
    RETURN v_profile;
END;
$$;

-- The user's contacts, most recently mentioned first (never mentioned
-- last): an app resolves "how is she doing?" to the first row.
CREATE OR REPLACE FUNCTION pymem.recent_contacts(user_id text, k integer DEFAULT 10)
RETURNS TABLE (
    contact_id uuid, name text, relationship text, last_mentioned_at timestamptz
)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public
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
SET search_path = pg_catalog, pymem, public
AS $$
DECLARE
    v_name text;
    v_id uuid;
BEGIN
    PERFORM pymem._check_user(user_id);
    -- the write path holds it already (re-entrant); a direct call takes it
    PERFORM pymem._lock_user(user_id);
    IF coalesce(cardinality(names), 0) = 0 THEN
        RETURN;
    END IF;
    IF memory_id IS NULL THEN
        RAISE EXCEPTION 'memory_id must not be null' USING ERRCODE = 'PM011';
    END IF;
    PERFORM pymem._check_memory_ids(user_id, ARRAY[memory_id]);
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
        UPDATE pymem.contacts AS c SET last_mentioned_at = clock_timestamp()
        WHERE c.user_id = _link_memory_contacts.user_id AND c.id = v_id;
        PERFORM pymem._contact_profile_due(user_id, v_id);
    END LOOP;
END;
$$;
