-- Rollback of 0018: the evidence goes; so does the function that returns it,
-- which the next migrate re-creates with its earlier signature.
DROP FUNCTION IF EXISTS pymem._term_difference(text, text);
ALTER TYPE pymem.pair_evidence DROP ATTRIBUTE added_detail;
UPDATE pymem.schema_info SET version = 17;
