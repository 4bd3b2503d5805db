-- pymem 0007: consolidation (DESIGN: "Consolidation"). Fragments of one
-- subject become one structured record; the fragments stay, pointing at it
-- (memories.consolidated_into). Each consolidation is recorded with what it
-- changed, so unconsolidate can reverse it, and the same source set is never
-- consolidated twice. Topics that gathered enough fragments are announced
-- once (consolidation_due) until a consolidation consumes them.
-- depends: 0006.contacts

ALTER TABLE pymem.settings
ADD COLUMN consolidation_group_size integer NOT NULL DEFAULT 3
CHECK (consolidation_group_size >= 2),
ADD COLUMN consolidation_similarity double precision NOT NULL DEFAULT 0.7
CHECK (consolidation_similarity BETWEEN 0 AND 1);

CREATE TABLE pymem.consolidations (
    user_id text NOT NULL,
    -- the consolidated record
    id uuid NOT NULL,
    -- its sources, sorted and distinct
    source_ids uuid[] NOT NULL,
    -- {"<source id>": importance before the consolidation, ...}
    previous_importance jsonb NOT NULL,
    -- the sources' contact links moved to the record:
    -- [{"contact_id", "memory_id", "found_by", "linked_at"}, ...]
    moved_links jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL DEFAULT now(),
    undone_at timestamptz,
    PRIMARY KEY (user_id, id),
    FOREIGN KEY (user_id, id) REFERENCES pymem.memories (user_id, id) ON DELETE CASCADE
);

-- one active consolidation per source set: the same call again finds it
CREATE UNIQUE INDEX consolidations_sources_idx
ON pymem.consolidations (user_id, source_ids)
WHERE undone_at IS NULL;

-- Topics announced as due; a consolidation of any of the topic's fragments
-- clears the row, so a topic that fills up again is announced again.
CREATE TABLE pymem.consolidation_announcements (
    user_id text NOT NULL,
    topic text NOT NULL,
    member_ids uuid[] NOT NULL,
    announced_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, topic)
);

-- What the consolidation_due trigger counts: a user's live, unconsolidated
-- memories of one topic. Partial: rows without a topic cost nothing.
CREATE INDEX memories_topic_idx ON pymem.memories (user_id, topic)
WHERE topic IS NOT NULL AND consolidated_into IS NULL AND deleted_at IS NULL;

ALTER TABLE pymem.consolidations ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.consolidation_announcements ENABLE ROW LEVEL SECURITY;

CREATE POLICY consolidations_of_current_user ON pymem.consolidations
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY consolidation_announcements_of_current_user
ON pymem.consolidation_announcements
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

UPDATE pymem.schema_info SET version = 7;
