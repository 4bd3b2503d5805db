-- pymem 0005: structured facts with versions and per-key conflict
-- policies (DESIGN: "Facts and contradictions").
-- A fact is one value per (user, key, scope): 'habit' is the standing
-- value, 'state' a temporary one that shadows the habit while valid.
-- Every earlier or refused value is kept in fact_history with why.
-- Functions: sql/50_facts.sql.
-- depends: 0004.review-queue

CREATE TABLE pymem.facts (
    user_id text NOT NULL CHECK (user_id <> ''),
    key text NOT NULL CHECK (btrim(key) <> ''),
    scope text NOT NULL CHECK (scope IN ('habit', 'state')),
    value jsonb NOT NULL CHECK (jsonb_typeof(value) <> 'null'),
    confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    source text NOT NULL CHECK (source IN ('inferred', 'stated', 'confirmed')),
    valid_until timestamptz,
    -- when this value became current; updated_at: last restated
    set_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- under the 'confirm' policy: a disagreeing candidate of equal or
    -- higher confidence waits here for the user's answer
    conflict_pending boolean NOT NULL DEFAULT FALSE,
    pending_value jsonb,
    pending_confidence double precision CHECK (pending_confidence BETWEEN 0 AND 1),
    pending_source text CHECK (pending_source IN ('inferred', 'stated', 'confirmed')),
    pending_valid_until timestamptz,
    pending_since timestamptz,
    PRIMARY KEY (user_id, key, scope),
    CHECK (conflict_pending = (pending_value IS NOT NULL))
);

CREATE INDEX facts_pending_idx ON pymem.facts (user_id, key)
WHERE conflict_pending;

-- Earlier values of a fact and values that never became current.
-- reason: replaced (a newer value won), expired (a state past its
-- valid_until, followed by a new value), resolved (replaced by the
-- user's answer to a conflict), rejected (lower confidence than the
-- current value: never current), conflict (a disagreeing candidate under
-- 'confirm', recorded when it arrived: never current unless chosen).
-- A value was believed from set_at until replaced_at (and valid_until).
CREATE TABLE pymem.fact_history (
    user_id text NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    key text NOT NULL,
    scope text NOT NULL,
    value jsonb NOT NULL,
    confidence double precision NOT NULL,
    source text NOT NULL,
    valid_until timestamptz,
    set_at timestamptz NOT NULL,
    replaced_at timestamptz NOT NULL,
    reason text NOT NULL
    CHECK (reason IN ('replaced', 'expired', 'resolved', 'rejected', 'conflict')),
    PRIMARY KEY (user_id, id),
    FOREIGN KEY (user_id, key, scope)
    REFERENCES pymem.facts (user_id, key, scope) ON DELETE CASCADE,
    CHECK (replaced_at >= set_at)
);

CREATE INDEX fact_history_key_idx
ON pymem.fact_history (user_id, key, scope, set_at);

-- Conflict policy per key pattern ('*' matches any run of characters;
-- the most specific matching pattern wins; no match: latest_wins).
-- A reference table like pymem.kinds: global configuration without
-- user_id, to be created as a reference table when the store is
-- distributed by user_id.
CREATE TABLE pymem.fact_policies (
    key_pattern text PRIMARY KEY CHECK (btrim(key_pattern) <> ''),
    policy text NOT NULL CHECK (policy IN ('latest_wins', 'confirm')),
    created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE pymem.facts ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.fact_history ENABLE ROW LEVEL SECURITY;

CREATE POLICY facts_of_current_user ON pymem.facts
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY fact_history_of_current_user ON pymem.fact_history
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

UPDATE pymem.schema_info SET version = 5;
