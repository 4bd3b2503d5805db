-- pymem 0010: what 0004 gained after it shipped, where it is missing. 0004
-- was edited three times after stores applied it (pymem.memory_item, the
-- settings dedup_term_change and trigram_min_similarity; 0008 adds the
-- last), and yoyo never runs an applied migration again: a store created
-- by a release with the first 0004 (the facts release, say) failed every
-- later `pymem migrate` loading sql/ ("type pymem.memory_item does not
-- exist"), after its migrations had committed. On a store whose 0004 made
-- them this does nothing; rolling back 0004 drops them.
-- depends: 0009.finite-rates

ALTER TABLE pymem.settings
ADD COLUMN IF NOT EXISTS dedup_term_change double precision NOT NULL DEFAULT 0.34
CHECK (dedup_term_change BETWEEN 0 AND 1);

DO $$
BEGIN
    IF to_regtype('pymem.memory_item') IS NULL THEN
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
    END IF;
END;
$$;

UPDATE pymem.schema_info SET version = 10;
