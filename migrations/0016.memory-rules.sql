-- pymem 0016: the write path's rules re-fitted on memories (issue 19). Three new
-- pieces of evidence in pymem.pair_evidence, filled by pymem._evidence and read by
-- pymem._decision (sql/20_upsert.sql); thresholds of their own for Chinese text;
-- and the below-band review queue: a setting and an item option.
-- pymem.upsert_memory (the item's new field) and pymem.configure_embedder (the
-- new thresholds) gain a parameter, pymem._term_difference an OUT parameter:
-- sql/ makes them again in its one load transaction (the earlier signatures of
-- the first two go with the load's stale-function drop; sql/00_text.sql drops
-- the third just before making it), so that writers never find them missing.
-- depends: 0015.import-digest

ALTER TYPE pymem.pair_evidence
-- the shared content terms come in an order that exchanges the parties' roles
-- ("Ana mentors Tom" / "Tom mentors Ana"), not a moved clause or another voice
-- ("Tom and Sue are Ana's neighbours" / "Ana's neighbours are Tom and Sue")
ADD ATTRIBUTE role_swap boolean,
-- both name the same people (names, relations: "Jonas" / "Jonas's wife" is
-- FALSE); NULL when neither names anyone
ADD ATTRIBUTE same_people boolean,
-- either text is Chinese (CJK characters): the cjk_ thresholds apply
ADD ATTRIBUTE cjk boolean;

-- The write's new option: queue the nearest neighbour below the related band
-- too, from this cosine up (NULL: the store's settings.review_floor).
ALTER TYPE pymem.memory_item ADD ATTRIBUTE review_floor double precision;

-- Columns and their CHECKs in statements of their own, the CHECKs named as
-- PostgreSQL names a column's: Citus refuses a column added with a
-- constraint on a distributed store (docs/scaling.md).
ALTER TABLE pymem.settings
-- a duplicate by embedding of Chinese text: its own cosine and term change,
-- fitted by pymem calibrate (the embedder scores distinct Chinese questions higher)
ADD COLUMN cjk_dedup_threshold double precision NOT NULL DEFAULT 0.91,
ADD COLUMN cjk_dedup_term_change double precision NOT NULL DEFAULT 0.2,
-- with on_related = 'review': an insert whose nearest neighbour is below the
-- related band, at or above this cosine, queues that pair too (NULL: off)
ADD COLUMN review_floor double precision;

ALTER TABLE pymem.settings ADD CONSTRAINT settings_cjk_dedup_term_change_check
CHECK (cjk_dedup_term_change BETWEEN 0 AND 1);

ALTER TABLE pymem.settings ADD CONSTRAINT settings_review_floor_check
CHECK (review_floor BETWEEN 0 AND 1);

ALTER TABLE pymem.settings ADD CONSTRAINT settings_cjk_dedup_threshold_check
CHECK (cjk_dedup_threshold BETWEEN supersede_threshold AND 1);

UPDATE pymem.schema_info SET version = 16;
