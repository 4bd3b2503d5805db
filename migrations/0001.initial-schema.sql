-- pymem 0001: the memory store.
-- Functions live in sql/ and are re-applied on every migrate; only the
-- text normalization is defined here, because stored fingerprints are
-- computed from it and changing it needs a data migration.

CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE SCHEMA pymem;

COMMENT ON SCHEMA pymem IS
'pymem: long-term memory for AI assistants. Functions are the public API; tables are private.';

-- One row of global settings. Not per user: in a distributed (Citus)
-- deployment this is a reference table.
CREATE TABLE pymem.settings (
    singleton boolean PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    embedding_dimensions integer NOT NULL DEFAULT 512
    CHECK (embedding_dimensions BETWEEN 1 AND 16000),
    embedding_model text,
    dedup_threshold double precision NOT NULL DEFAULT 0.92,
    supersede_threshold double precision NOT NULL DEFAULT 0.75,
    topic_supersede_threshold double precision NOT NULL DEFAULT 0.5,
    trigram_threshold double precision NOT NULL DEFAULT 0.8,
    max_content_chars integer NOT NULL DEFAULT 4000 CHECK (max_content_chars > 0),
    -- recall: score = (similarity + lexical_weight * lexical + state boost)
    --                 * (decay_floor + (1 - decay_floor) * decay_score)
    recall_decay_floor double precision NOT NULL DEFAULT 0.5,
    recall_lexical_weight double precision NOT NULL DEFAULT 0.3,
    recall_state_boost double precision NOT NULL DEFAULT 0.1,
    CHECK (
        dedup_threshold BETWEEN 0 AND 1
        AND supersede_threshold BETWEEN 0 AND dedup_threshold
        AND topic_supersede_threshold BETWEEN 0 AND 1
        AND trigram_threshold BETWEEN 0 AND 1
        AND recall_decay_floor BETWEEN 0 AND 1
        AND recall_lexical_weight >= 0
        AND recall_state_boost >= 0
    )
);

INSERT INTO pymem.settings DEFAULT VALUES;

-- Kinds of memory and their default decay (per day) and lifetime.
-- A reference table like settings; add rows to add kinds.
CREATE TABLE pymem.kinds (
    kind text PRIMARY KEY CHECK (kind ~ '^[a-z][a-z0-9_]*$'),
    decay_rate double precision NOT NULL CHECK (decay_rate >= 0),
    default_lifetime interval,
    description text NOT NULL
);

INSERT INTO pymem.kinds (kind, decay_rate, default_lifetime, description) VALUES
('fact', 0.01, NULL, 'a standing fact about the user or their world'),
('preference', 0.02, NULL, 'a like, dislike or way the user wants things done'),
('habit', 0.01, NULL, 'something the user usually does'),
('state', 0.08, interval '1 day', 'a temporary state that overrides habits while valid'),
('inference', 0.03, NULL, 'something the assistant concluded, not stated'),
('goal', 0.01, NULL, 'something the user wants to achieve'),
('profile', 0.005, NULL, 'identity facts: name, birthday, job'),
('event', 0.02, NULL, 'something that happened at a point in time');

-- Lowercase with intensifiers removed: "very"/"非常" add no fact.
CREATE FUNCTION pymem._strip_intensifiers(content text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(
    regexp_replace(
        lower(content),
        '\m(very|really|truly|quite|extremely|absolutely|totally|super|so|pretty|highly)\M',
        '', 'g'
    ),
    '(非常|特别|十分|超级|极其|相当|格外|真的|很|挺)', '', 'g'
);

-- Punctuation and spaces removed too: "用户非常喜欢喝美式。" and
-- "用户喜欢喝美式" normalize alike.
CREATE FUNCTION pymem._normalize(content text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(
    pymem._strip_intensifiers(content),
    '[[:space:][:punct:]，。、；：？！“”‘’（）《》【】…—～·「」『』]', '', 'g'
);

CREATE FUNCTION pymem._fingerprint(content text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN md5(pymem._normalize(content))::uuid;

-- Memories. No vector index: per-user exact search over a btree on
-- user_id beats filtered ANN, which misses neighbours (PERF-NOTES.md).
-- fillfactor leaves room so touches and decay are HOT updates; the
-- vector is stored inline (PLAIN) because detoasting dominates scans.
CREATE TABLE pymem.memories (
    user_id text NOT NULL CHECK (user_id <> ''),
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    kind text NOT NULL REFERENCES pymem.kinds (kind),
    content text NOT NULL CHECK (btrim(content) <> ''),
    fingerprint uuid GENERATED ALWAYS AS (pymem._fingerprint(content)) STORED,
    canonical text,
    canonical_fingerprint uuid GENERATED ALWAYS AS (pymem._fingerprint(canonical)) STORED,
    topic text,
    embedding vector(512) NOT NULL,
    importance double precision NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    decay_rate double precision CHECK (decay_rate >= 0),
    source text NOT NULL DEFAULT 'stated'
    CHECK (source IN ('inferred', 'stated', 'confirmed')),
    pinned boolean NOT NULL DEFAULT FALSE,
    tier text NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'cold')),
    consolidated_into uuid,
    details jsonb NOT NULL DEFAULT '{}',
    metadata jsonb NOT NULL DEFAULT '{}',
    mention_count integer NOT NULL DEFAULT 1,
    access_count integer NOT NULL DEFAULT 0,
    last_access_at timestamptz NOT NULL DEFAULT now(),
    valid_until timestamptz,
    deleted_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version integer NOT NULL DEFAULT 1,
    PRIMARY KEY (user_id, id),
    FOREIGN KEY (user_id, consolidated_into) REFERENCES pymem.memories (user_id, id)
) WITH (fillfactor = 70);

ALTER TABLE pymem.memories
ALTER COLUMN embedding SET STORAGE PLAIN,
ALTER COLUMN content SET STORAGE MAIN;

COMMENT ON COLUMN pymem.memories.decay_rate IS
'per-day decay; null follows the kind''s rate in pymem.kinds';

-- The live set of one user and kind: what dedup and recall scan.
CREATE INDEX memories_live_idx ON pymem.memories (user_id, kind)
WHERE consolidated_into IS NULL AND deleted_at IS NULL;

CREATE INDEX memories_fingerprint_idx ON pymem.memories (user_id, kind, fingerprint)
WHERE deleted_at IS NULL;

CREATE INDEX memories_canonical_idx
ON pymem.memories (user_id, kind, canonical_fingerprint)
WHERE canonical_fingerprint IS NOT NULL AND deleted_at IS NULL;

-- Every earlier state of a memory, written by trigger on any change of
-- its content, embedding or structure, and on delete.
CREATE TABLE pymem.memory_versions (
    user_id text NOT NULL,
    memory_id uuid NOT NULL,
    version integer NOT NULL,
    content text NOT NULL,
    embedding vector(512),
    previous jsonb NOT NULL,
    reason text NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, memory_id, version)
);
