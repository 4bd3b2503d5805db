-- pymem 0022: a memory stays findable by every wording it absorbed (issue 34).
-- When a write or a review decides that a text is a duplicate of a memory,
-- the text and its vector stay here as another wording of that memory, and
-- recall scores the memory by its best wording. A wording belongs to the
-- memory's content as it was when the wording came (content_md5): a
-- supersede gives the memory a new value, and the wordings of the old value
-- stop counting (they are history, not a way to find the new value); an undo
-- back to that content brings them back.
-- The vector takes the store's dimension (pymem._set_dimensions keeps them
-- equal afterwards).
-- depends: 0021.restorable

DO $$
BEGIN
    EXECUTE format(
        'CREATE TABLE pymem.memory_wordings ('
        ' user_id text NOT NULL,'
        ' id bigint GENERATED ALWAYS AS IDENTITY,'
        ' memory_id uuid NOT NULL,'
        ' content text NOT NULL,'
        ' embedding vector(%s) NOT NULL,'
        ' content_md5 text NOT NULL,'
        ' added_at timestamptz NOT NULL DEFAULT now(),'
        ' PRIMARY KEY (user_id, id))',
        (SELECT s.embedding_dimensions FROM pymem.settings AS s)
    );
END;
$$;

CREATE INDEX memory_wordings_memory_idx ON pymem.memory_wordings (user_id, memory_id);

ALTER TABLE pymem.memory_wordings ENABLE ROW LEVEL SECURITY;

CREATE POLICY memory_wordings_of_current_user ON pymem.memory_wordings
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

UPDATE pymem.schema_info SET version = 22;
