-- pymem 0004: the one review queue, on_related, and a schema version kept
-- by the migrations themselves.
-- A pair the write path finds related but cannot decide on (cause
-- 'related'), a contradiction flagged by the app's LLM ('conflict') and a
-- structured fact whose sources disagree ('fact') wait here until the app
-- resolves them; pymem.pending_reviews(user_id) reads the open ones.
-- depends: 0003.goal-metrics

-- Each migration sets its own number; pymem.schema_version() reads it
-- and the Python package expects the highest migration it ships.
CREATE TABLE pymem.schema_info (
    singleton boolean PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    version integer NOT NULL
);

INSERT INTO pymem.schema_info (version) VALUES (4);

-- on_related: what a neighbour in the related band (similarity >=
-- supersede_threshold) without evidence of the same slot does: queue the
-- pair for review, supersede it, or just insert.
-- dedup_term_change: a duplicate by embedding may change at most this
-- share of the content terms of the two texts (terms only one side has,
-- over all terms): "花呗怎么还款" / "借呗怎么还款" change 2 of 5.
ALTER TABLE pymem.settings
ADD COLUMN on_related text NOT NULL DEFAULT 'review'
CHECK (on_related IN ('review', 'supersede', 'insert')),
ADD COLUMN dedup_term_change double precision NOT NULL DEFAULT 0.34
CHECK (dedup_term_change BETWEEN 0 AND 1),
-- near-identical text (trigram) needs at least this cosine: an embedding that
-- disagrees more is not the same text restated, and the trigram of far
-- neighbours is not worth computing on every write
ADD COLUMN trigram_min_similarity double precision NOT NULL DEFAULT 0.5
CHECK (trigram_min_similarity BETWEEN 0 AND 1);

-- The one definition of what a write carries: upsert_memory's options
-- and upsert_memories' item keys are this type's attributes (a batch is
-- read with jsonb_populate_recordset), and pymem.MemoryItem mirrors it.
CREATE TYPE pymem.memory_item AS (
    content text,
    embedding vector,
    kind text,
    importance double precision,
    source text,
    pinned boolean,
    metadata jsonb,
    details jsonb,
    topic text,
    canonical text,
    valid_until timestamptz,
    decay_rate double precision,
    contacts text [],
    dedup_threshold double precision,
    supersede_threshold double precision,
    on_related text
);

CREATE TABLE pymem.reviews (
    user_id text NOT NULL,
    id uuid NOT NULL DEFAULT gen_random_uuid(),
    cause text NOT NULL CHECK (cause IN ('related', 'conflict', 'fact')),
    -- related: the newer memory (the one the write returned) and its
    -- neighbour; conflict: the two memories the app flagged
    memory_id uuid,
    matched_id uuid,
    -- fact: the key of pymem.facts whose values disagree
    fact_key text,
    similarity double precision,
    note text,
    created_at timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    decision text,
    -- the memory that survived the decision
    resolved_id uuid,
    PRIMARY KEY (user_id, id),
    FOREIGN KEY (user_id, memory_id)
    REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE,
    FOREIGN KEY (user_id, matched_id)
    REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE,
    CHECK ((cause = 'fact') = (fact_key IS NOT NULL)),
    CHECK (cause = 'fact' OR (memory_id IS NOT NULL AND matched_id IS NOT NULL))
);

-- one open review per pair and cause, one per fact key: an event is
-- announced once per cause
CREATE UNIQUE INDEX reviews_open_pair_idx
ON pymem.reviews (user_id, cause, memory_id, matched_id)
WHERE resolved_at IS NULL AND cause <> 'fact';

CREATE UNIQUE INDEX reviews_open_fact_idx
ON pymem.reviews (user_id, fact_key)
WHERE resolved_at IS NULL AND cause = 'fact';

CREATE INDEX reviews_pending_idx ON pymem.reviews (user_id, created_at)
WHERE resolved_at IS NULL;

CREATE INDEX reviews_matched_idx ON pymem.reviews (user_id, matched_id);

ALTER TABLE pymem.reviews ENABLE ROW LEVEL SECURITY;

CREATE POLICY reviews_of_current_user ON pymem.reviews
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

-- The write path's functions changed shape (sql/20_upsert.sql re-creates
-- them): upsert_memory and upsert_memories return the rule that decided.
DROP FUNCTION IF EXISTS pymem.upsert_memory(
    text, text, vector, text, double precision, text, boolean, jsonb, jsonb, text, text,
    timestamptz, double precision, double precision, double precision
);
DROP FUNCTION IF EXISTS pymem.upsert_memories(text, jsonb, double precision, double precision);
DROP FUNCTION IF EXISTS pymem._upsert(
    text, text, vector, text, double precision, text, boolean, jsonb, jsonb, text, text,
    timestamptz, double precision, double precision, double precision, pymem.settings, text
);
DROP FUNCTION IF EXISTS pymem.configure_embedder(
    text, double precision, double precision, double precision, boolean
);
