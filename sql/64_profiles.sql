-- A person as prompt text and as one memory (DESIGN "Contacts"):
-- contact_card, the ready prompt block; consolidate_contact, the profile
-- memory the person's fragments are consolidated into; and the
-- contact_profile_due event that says a profile is due.

-- The person's fragments: linked live memories that are about this person
-- alone (a memory linked to two people stays live for both), not pinned,
-- not the person's own profile memory. What consolidate_contact absorbs
-- and what contact_profile_due counts.
CREATE OR REPLACE FUNCTION pymem._contact_fragments(user_id text, contact_id uuid)
RETURNS uuid[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_fragments uuid[] := pymem._contact_fragments(user_id, contact_id);
BEGIN
    IF cardinality(v_fragments) < (SELECT s.contact_profile_due_count FROM pymem.settings AS s) THEN
        RETURN;
    END IF;
    UPDATE pymem.contacts AS c SET profile_due_announced_at = now()
    WHERE
        c.user_id = _contact_profile_due.user_id AND c.id = _contact_profile_due.contact_id
        AND c.profile_due_announced_at IS NULL;
    IF found THEN
        PERFORM pymem._notify(
            user_id, 'contact_profile_due', v_fragments,
            jsonb_build_object('contact_id', contact_id)
        );
    END IF;
END;
$$;

-- The card's first lines: name (relationship), aliases, description,
-- attributes. Also the text of the person's profile memory.
CREATE OR REPLACE FUNCTION pymem._contact_header(user_id text, contact_id uuid)
RETURNS text[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    RETURN (
        SELECT array_remove(ARRAY[
            c.name || coalesce(' (' || c.relationship || ')', ''),
            (
                SELECT 'also: ' || string_agg(a.alias, ', ' ORDER BY a.alias)
                FROM pymem.contact_aliases AS a
                -- (the user named: Citus keeps a subquery on the user's shard
                -- only when it is filtered by the user itself)
                WHERE a.user_id = _contact_header.user_id AND a.contact_id = c.id
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
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_id uuid;
    v_lines text[];
    v_line text;
    v_out text := '';
    v_sep integer;
    v_room integer;
    v_rates jsonb := pymem._kind_rates();
BEGIN
    PERFORM pymem._check_user(user_id);
    IF max_chars IS NULL OR max_chars < 1 THEN
        RAISE EXCEPTION 'max_chars must be a positive number of characters, got %',
            coalesce(max_chars::text, 'NULL')
            USING ERRCODE = 'PM006';
    END IF;
    v_id := pymem._contact_id(user_id, contact);
    -- the header first, in a statement of its own: on Citus a function that
    -- reads a distributed table cannot run inside a query on one
    v_lines := pymem._contact_header(user_id, v_id);
    v_lines := v_lines || array(
        SELECT '- ' || m.content
        FROM pymem.contact_links AS l
        INNER JOIN pymem.memories AS m ON l.user_id = m.user_id AND l.memory_id = m.id
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
            pymem.decay_score(
                m.importance, coalesce(m.decay_rate, (v_rates ->> m.kind)::double precision),
                m.last_access_at
            ) DESC,
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
-- person alone, not pinned) are consolidated by the consolidation engine
-- (pymem._consolidate, sql/72_consolidate.sql: its guards, details that
-- only grow, contact links moved, a pymem.consolidations row that
-- unconsolidate reverses) into one memory of kind 'profile' holding the
-- card's header text, its embedding the normalized mean of the embeddings
-- of every memory it consolidates, its importance at least 0.5 and its
-- contact in metadata.contact_id. A later call reuses the same profile
-- memory (its previous text goes to memory_versions) and absorbs only the
-- fragments linked since: nothing is consolidated twice. The contact
-- records the profile memory (contacts.consolidated_into) and its
-- contact_profile_due announcement is cleared. Returns the profile
-- memory's id, or NULL when the person never had fragments.
DROP FUNCTION IF EXISTS pymem.consolidate_contact(text, text, text, jsonb);

CREATE OR REPLACE FUNCTION pymem.consolidate_contact(
    user_id text,
    contact text,
    description text DEFAULT NULL,
    attributes jsonb DEFAULT NULL,
    relationship text DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    v_cfg pymem.settings := pymem._settings();
    v_id uuid;
    v_fragments uuid[];
    v_profile uuid;
    v_text text;
BEGIN
    PERFORM pymem._check_user(user_id);
    PERFORM pymem._check_contact_attributes(attributes);
    PERFORM pymem._check_contact_text(description, 'description');
    PERFORM pymem._lock_user(user_id);
    v_id := pymem._contact_id(user_id, contact);
    PERFORM pymem._contact_update(
        user_id, v_id, relationship, description, attributes, 'consolidate'
    );
    v_fragments := pymem._contact_fragments(user_id, v_id);
    SELECT m.id INTO v_profile
    FROM pymem.contacts AS c
    INNER JOIN pymem.memories AS m ON c.user_id = m.user_id AND c.consolidated_into = m.id
    WHERE
        c.user_id = consolidate_contact.user_id AND c.id = v_id
        AND m.consolidated_into IS NULL AND m.deleted_at IS NULL;
    v_text := pymem._truncate_graphemes(
        array_to_string(pymem._contact_header(user_id, v_id), E'\n'), v_cfg.max_content_chars
    );

    IF cardinality(v_fragments) > 0 THEN
        SELECT c.memory_id INTO v_profile
        FROM pymem._consolidate(
            user_id, v_fragments, v_text,
            (
                -- the fragments' mean direction; fragments that cancel out (v and -v)
                -- have none, and the newest one's stands for them
                SELECT CASE WHEN vector_norm(a.mean) > 0 THEN l2_normalize(a.mean) ELSE a.newest END
                FROM (
                    SELECT
                        avg(m.embedding) AS mean,
                        (array_agg(m.embedding ORDER BY m.created_at DESC, m.id DESC))[1] AS newest
                    FROM pymem.memories AS m
                    WHERE
                        m.user_id = consolidate_contact.user_id
                        AND (m.id = ANY(v_fragments) OR m.consolidated_into = v_profile)
                ) AS a
            ),
            '{}', v_cfg,
            record_id => v_profile, kind => 'profile', reason => 'consolidate_contact',
            min_sources => 1
        ) AS c;
        UPDATE pymem.memories AS m
        SET importance = greatest(m.importance, 0.5),
            metadata = m.metadata || jsonb_build_object('contact_id', v_id)
        WHERE m.user_id = consolidate_contact.user_id AND m.id = v_profile;
    ELSIF v_profile IS NOT NULL THEN
        PERFORM pymem._set_change_reason('consolidate_contact');
        UPDATE pymem.memories AS m SET content = v_text
        WHERE m.user_id = consolidate_contact.user_id AND m.id = v_profile;
        PERFORM pymem._set_change_reason(NULL);
    END IF;

    IF v_profile IS NOT NULL THEN
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
