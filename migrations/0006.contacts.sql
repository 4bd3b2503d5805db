-- pymem 0006: contacts (DESIGN "Contacts"): people in the user's life as
-- entities with aliases, links to the memories about them and a history of
-- their changed attributes. Functions live in sql/60_contacts.sql.
-- The name tokenizer is defined here, not in sql/, because the stored
-- normalized names (and their unique keys) are computed from it: changing
-- it needs a data migration.
-- depends: 0005.facts

-- The characters of scripts written without spaces (Chinese, Japanese,
-- Korean, Thai, Lao, Myanmar, Khmer), as the inside of a regex bracket.
CREATE FUNCTION pymem._spaceless_chars() RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '\u1100-\u11ff\u3040-\u30ff\u3100-\u312f\u3131-\u318e\u3400-\u4dbf\u4e00-\u9fff'
|| '\uac00-\ud7af\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff'
|| '\U00020000-\U0003134f';

-- The words of a name or a message, for matching names: NFKC, lowercase,
-- every character of a script written without spaces is a word of its
-- own, other words are runs of letters, digits and combining marks. So
-- "小红" is '小 红' and matches inside "我和小红去了" (substring), while
-- "Ann" is 'ann' and does not match inside "Anna" (word boundary);
-- "Mary-Jane" is 'mary jane'.
CREATE FUNCTION pymem._contact_tokens(content text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN array(
    SELECT m.match[1]
    FROM
        regexp_matches(
            regexp_replace(
                lower(normalize(content, nfkc)),
                '([' || pymem._spaceless_chars() || '])',
                ' \1 ', 'g'
            ),
            '[[:alnum:]_\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f'
            || '\u0670\u06d6-\u06ed\u0900-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff'
            || '\ufe20-\ufe2f]+',
            'g'
        ) WITH ORDINALITY AS m (match, i)
    ORDER BY m.i
);

-- The key a name is stored and matched under: its words joined by one space.
CREATE FUNCTION pymem._normalize_name(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN array_to_string(pymem._contact_tokens(name), ' ');

ALTER TABLE pymem.settings
ADD COLUMN contact_fuzzy_threshold double precision NOT NULL DEFAULT 0.5
CHECK (contact_fuzzy_threshold BETWEEN 0 AND 1),
ADD COLUMN contact_cjk_fuzzy_threshold double precision NOT NULL DEFAULT 0.6
CHECK (contact_cjk_fuzzy_threshold BETWEEN 0 AND 1),
ADD COLUMN contact_profile_due_count integer NOT NULL DEFAULT 5
CHECK (contact_profile_due_count >= 1);

CREATE TABLE pymem.contacts (
    user_id text NOT NULL CHECK (user_id <> ''),
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    name text NOT NULL,
    normalized_name text GENERATED ALWAYS AS (pymem._normalize_name(name)) STORED,
    relationship text,
    description text,
    attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
    last_mentioned_at timestamptz,
    -- the person's profile memory (kind 'profile'), written by consolidate_contact
    consolidated_into uuid,
    -- set when contact_profile_due was sent, cleared by consolidate_contact
    profile_due_announced_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, id),
    UNIQUE (user_id, normalized_name),
    CHECK (normalized_name <> ''),
    FOREIGN KEY (user_id, consolidated_into) REFERENCES pymem.memories (user_id, id)
);

CREATE INDEX contacts_recent_idx ON pymem.contacts (user_id, last_mentioned_at DESC);

CREATE TABLE pymem.contact_aliases (
    user_id text NOT NULL,
    contact_id uuid NOT NULL,
    alias text NOT NULL,
    normalized_alias text GENERATED ALWAYS AS (pymem._normalize_name(alias)) STORED,
    PRIMARY KEY (user_id, normalized_alias),
    CHECK (normalized_alias <> ''),
    FOREIGN KEY (user_id, contact_id) REFERENCES pymem.contacts (user_id, id) ON DELETE CASCADE
);

CREATE INDEX contact_aliases_contact_idx ON pymem.contact_aliases (user_id, contact_id);

CREATE TABLE pymem.contact_links (
    user_id text NOT NULL,
    contact_id uuid NOT NULL,
    memory_id uuid NOT NULL,
    found_by text NOT NULL CHECK (found_by IN ('write', 'sync', 'text', 'moved')),
    linked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, contact_id, memory_id),
    FOREIGN KEY (user_id, contact_id) REFERENCES pymem.contacts (user_id, id) ON DELETE CASCADE,
    FOREIGN KEY (user_id, memory_id) REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE
);

CREATE INDEX contact_links_memory_idx ON pymem.contact_links (user_id, memory_id);

-- Every replaced value of a contact: an attribute (key), the description
-- or the relationship; the losing value of a merge too. Nothing is lost.
CREATE TABLE pymem.contact_history (
    user_id text NOT NULL,
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    contact_id uuid NOT NULL,
    field text NOT NULL CHECK (field IN ('attributes', 'description', 'relationship')),
    key text,
    old_value jsonb,
    new_value jsonb,
    reason text NOT NULL CHECK (reason IN ('sync', 'merge', 'consolidate')),
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, id),
    CHECK ((field = 'attributes') = (key IS NOT NULL)),
    FOREIGN KEY (user_id, contact_id) REFERENCES pymem.contacts (user_id, id) ON DELETE CASCADE
);

CREATE INDEX contact_history_contact_idx
ON pymem.contact_history (user_id, contact_id, changed_at);

ALTER TABLE pymem.contacts ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.contact_aliases ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.contact_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.contact_history ENABLE ROW LEVEL SECURITY;

CREATE POLICY contacts_of_current_user ON pymem.contacts
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY contact_aliases_of_current_user ON pymem.contact_aliases
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY contact_links_of_current_user ON pymem.contact_links
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY contact_history_of_current_user ON pymem.contact_history
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

-- A row of pymem.resolve_contact: match is 'exact', 'alias' or 'fuzzy'.
CREATE TYPE pymem.contact_match AS (
    contact_id uuid,
    name text,
    match text,
    score double precision
);

UPDATE pymem.schema_info SET version = 6;
