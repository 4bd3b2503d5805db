-- pymem 0011: how far `pymem import` got with a file, per user, committed with
-- the batch that got there, so that a re-run after an interrupted import goes on
-- from the next line instead of counting every committed line as mentioned again.
-- depends: 0010.repair-0004

CREATE TABLE pymem.import_progress (
    user_id text NOT NULL,
    -- what identifies the file: the SHA-256 of its bytes, or the importer's --source
    source text NOT NULL CHECK (char_length(source) BETWEEN 1 AND 200),
    lines_done integer NOT NULL CHECK (lines_done >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, source)
);

ALTER TABLE pymem.import_progress ENABLE ROW LEVEL SECURITY;

CREATE POLICY import_progress_of_current_user ON pymem.import_progress
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

UPDATE pymem.schema_info SET version = 11;
