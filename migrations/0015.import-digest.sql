-- pymem 0015: what a resumed import checks before it goes on: the digest of the
-- lines an import committed for a user (the file's lines of that user up to
-- lines_done, in order). A re-run whose file differs there is another file under
-- the same source name: refused, not silently skipped.
-- depends: 0014.review-claims

ALTER TABLE pymem.import_progress ADD COLUMN digest text;

UPDATE pymem.schema_info SET version = 15;
