-- pymem 0012: the record the write path decides on. Every piece of evidence
-- two statements give about each other is one named field of
-- pymem.pair_evidence, filled by pymem._evidence (sql/20_upsert.sql) and read
-- by the one decision step pymem._decision with the store's settings row, so
-- that a new kind of evidence is a field, the function that measures it, and
-- the rule that reads it.
-- depends: 0011.import-progress

CREATE TYPE pymem.pair_evidence AS (
    -- cosine similarity of the two embeddings
    similarity double precision,
    -- both have a canonical statement, and they are the same
    same_canonical boolean,
    -- the same normalized text with the same values (numbers, dates, negation)
    same_text boolean,
    -- pg_trgm similarity of the texts (0 below settings.trigram_min_similarity)
    trigram double precision,
    -- the same values (numbers, dates, times, negation) in both
    same_markers boolean,
    -- equal once their values are masked, with different values
    masked_equal boolean,
    -- content terms changed, of all content terms (pymem._term_difference)
    changed_terms integer,
    total_terms integer,
    -- the shared content terms in another order ("A mentors B" / "B mentors A")
    reordered boolean,
    -- both have a topic and it is the same (NULL when either has none)
    same_topic boolean,
    -- two goals: only the goal rule and the related band apply
    goal boolean,
    -- goals: the older goal's metrics when the newer one names all of them
    goal_metrics text [],
    -- goals: overlap of the words around the metric names
    goal_overlap double precision
);

UPDATE pymem.schema_info SET version = 12;
