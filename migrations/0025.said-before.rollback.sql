-- Rollback of 0025: the evidence of what a memory said before, and the note
-- of a claimed review, go.
ALTER TYPE pymem.claimed_review DROP ATTRIBUTE note;
ALTER TYPE pymem.pair_evidence DROP ATTRIBUTE by_topic;
ALTER TYPE pymem.pair_evidence DROP ATTRIBUTE said_before;
-- (the vectors' storage stays: inline or toasted, the rows read the same)
UPDATE pymem.schema_info SET version = 24;
