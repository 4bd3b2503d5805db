-- Contacts (DESIGN "Contacts"): the people in a user's life as entities,
-- found by name, with the memories about them linked, so that "how is
-- Xiaohong doing?" reaches every fact about her even when no embedding is
-- close. Tables: migrations/0006.contacts.sql. Names are matched on their
-- normalized form (pymem._normalize_name: NFKC, lowercase, words, each
-- Chinese/Japanese/Korean/Thai character a word of its own).
--
-- This file: the people themselves (checks; lookups by id, name or alias;
-- sync_contact, resolve_contact, merge_contacts). People found in text:
-- sql/62_mentions.sql; the card and the profile memory: sql/64_profiles.sql.

CREATE OR REPLACE FUNCTION pymem._check_contact_name(name text, what text DEFAULT 'name')
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    IF char_length(val) > (SELECT s.max_content_chars FROM pymem.settings AS s) THEN
        RAISE EXCEPTION '% is % characters long, the maximum is %', what, char_length(val),
            (SELECT s.max_content_chars FROM pymem.settings AS s)
            USING ERRCODE = 'PM003';
    END IF;
END;
$$;

-- A contact named by its id, its name or an alias (no fuzzy match: that
-- is resolve_contact's, and only the app decides on it). PM030 if none.
CREATE OR REPLACE FUNCTION pymem._contact_id(user_id text, contact text)
RETURNS uuid
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    -- the names taken first: on Citus an INSERT that selects from a
    -- distributed table cannot run in a function delegated to a worker
    v_names text [] := ARRAY(
        SELECT c.normalized_name FROM pymem.contacts AS c
        WHERE c.user_id = _contact_add_aliases.user_id
            AND c.normalized_name = ANY(ARRAY(
                SELECT pymem._normalize_name(x) FROM unnest(aliases) AS x
            ))
    );
BEGIN
    INSERT INTO pymem.contact_aliases AS a (user_id, contact_id, alias)
    SELECT DISTINCT ON (pymem._normalize_name(n.alias))
        _contact_add_aliases.user_id, _contact_add_aliases.contact_id, btrim(n.alias)
    FROM unnest(aliases) WITH ORDINALITY AS n (alias, i)
    WHERE
        pymem._normalize_name(n.alias) <> ''
        AND pymem._normalize_name(n.alias) <> ALL(v_names)
    ORDER BY pymem._normalize_name(n.alias), n.i
    ON CONFLICT ON CONSTRAINT contact_aliases_pkey DO NOTHING;
END;
$$;

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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_id uuid;
    v_linked integer;
    v_too_long text;
    v_now timestamptz;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_contact_name(name);
    PERFORM pymem._check_contact_attributes(attributes);
    PERFORM pymem._check_contact_text(relationship, 'relationship');
    PERFORM pymem._check_contact_text(description, 'description');
    PERFORM pymem._check_one_dimension(memory_ids, 'memory_ids');
    PERFORM pymem._check_one_dimension(aliases, 'aliases');
    SELECT a INTO v_too_long FROM unnest(aliases) AS a WHERE char_length(a) > 200 LIMIT 1;
    IF v_too_long IS NOT NULL THEN
        PERFORM pymem._check_contact_name(v_too_long, 'alias');
    END IF;
    -- like every writer: a concurrent merge_contacts cannot remove the
    -- contact between its lookup here and the links written below
    PERFORM pymem._lock_user(user_id);
    -- NULL ids link nothing
    PERFORM pymem._check_live_memories(user_id, array_remove(memory_ids, NULL));

    v_id := pymem._contact_upsert(user_id, name);
    PERFORM pymem._contact_update(user_id, v_id, relationship, description, attributes, 'sync');
    PERFORM pymem._contact_add_aliases(user_id, v_id, aliases);
    INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by)
    SELECT DISTINCT sync_contact.user_id, v_id, i.id, 'sync'
    FROM unnest(memory_ids) AS i (id)
    WHERE i.id IS NOT NULL
    ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;
    GET DIAGNOSTICS v_linked = ROW_COUNT;
    -- the clock read first: Citus refuses a volatile function in an UPDATE
    v_now := clock_timestamp();
    UPDATE pymem.contacts AS c SET last_mentioned_at = v_now
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
-- the smaller name's >= settings.contact_cjk_fuzzy_threshold (0.6). The
-- characters are compared when both names have such characters, and then
-- only those: over Latin letters, "Ava" shared all of its with "David 王".
-- Only the first tier that matches is returned.
CREATE OR REPLACE FUNCTION pymem.resolve_contact(user_id text, name text)
RETURNS SETOF pymem.contact_match
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_key text;
    v_settings pymem.settings := pymem._settings();
    v_spaceless text := '[' || pymem._spaceless_chars() || ']';
    v_other text := '[^' || pymem._spaceless_chars() || ']';
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
                WHEN k.spaceless THEN pymem._shared_chars(
                    regexp_replace(v_key, v_other, '', 'g'), regexp_replace(k.key, v_other, '', 'g')
                )
                ELSE similarity(v_key, k.key)::double precision
            END AS score
        FROM pymem.contacts AS c
        CROSS JOIN LATERAL (
            SELECT n.key, (v_key ~ v_spaceless AND n.key ~ v_spaceless) AS spaceless
            FROM (
                SELECT c.normalized_name AS key
                UNION ALL
                SELECT a.normalized_alias
                FROM pymem.contact_aliases AS a
                -- (the user named: Citus keeps a subquery on the user's shard
                -- only when it is filtered by the user itself)
                WHERE a.user_id = resolve_contact.user_id AND a.contact_id = c.id
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
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_keep_id uuid;
    v_merge_id uuid;
    v_keep pymem.contacts;
    v_merge pymem.contacts;
    v_moved jsonb;
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
    -- the links read first: on Citus an INSERT that selects from a
    -- distributed table cannot run in a function delegated to a worker
    v_moved := coalesce((
        SELECT jsonb_agg(jsonb_build_object('memory_id', l.memory_id, 'linked_at', l.linked_at))
        FROM pymem.contact_links AS l
        WHERE l.user_id = merge_contacts.user_id AND l.contact_id = v_merge_id
    ), '[]');
    INSERT INTO pymem.contact_links AS l (user_id, contact_id, memory_id, found_by, linked_at)
    SELECT merge_contacts.user_id, v_keep_id, m.memory_id, 'moved', m.linked_at
    FROM jsonb_to_recordset(v_moved) AS m (memory_id uuid, linked_at timestamptz)
    ON CONFLICT ON CONSTRAINT contact_links_pkey DO NOTHING;
    -- the links a consolidation moved to its record, which unconsolidate gives
    -- back: under keep's id (a link of a deleted contact is dropped there)
    UPDATE pymem.consolidations AS c
    SET moved_links = (
        SELECT jsonb_agg(
            CASE WHEN e.link ->> 'contact_id' = v_merge_id::text
                THEN jsonb_set(e.link, '{contact_id}', to_jsonb(v_keep_id)) ELSE e.link END
            ORDER BY e.n
        )
        FROM jsonb_array_elements(c.moved_links) WITH ORDINALITY AS e (link, n)
    )
    WHERE c.user_id = merge_contacts.user_id
        AND c.moved_links @> jsonb_build_array(jsonb_build_object('contact_id', v_merge_id));

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
