-- What the question's words weigh in recall: a word by how rare it is among
-- the user's memories, the share of the weights a memory's text holds.

-- The text a question's words are looked for in: the wording, lowered, and
-- the memory's topic, the extractor's name of what it is about ("work:job",
-- "home:city"), its parts as words. A question asks in the words of the
-- topic more often than in those of the statement: "what does Yiwen do for
-- work?" of "Yiwen plays cello in a chamber orchestra" (work:job).
CREATE OR REPLACE FUNCTION pymem._searchable(content text, topic text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN lower(content) || coalesce(' ' || translate(lower(topic), ':/_.-', '     '), '');

-- A query token's weight if the lowered content holds it, else 0. Recall's
-- scan adds one call per token slot (below): inlined, a call is a strpos on a
-- text the row lowered once, where a sub-select over the tokens cost a
-- function scan per row (four times as much at 10,000 memories).
CREATE OR REPLACE FUNCTION pymem._found_weight(
    lowered_content text, token text, weight double precision
)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN strpos(lowered_content, token) > 0 THEN weight ELSE 0 END;

-- How many of the query's tokens recall's scan tests with one inline
-- expression each (pymem._found_weight); recall tests the tokens past these,
-- rare (a question has a handful of words, a Chinese one a dozen character
-- pairs), by a sub-select, and pymem._term_weights counts them in another pass.
-- Both spell out this many slots.
CREATE OR REPLACE FUNCTION pymem._token_slots()
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 16;

-- How much each of the query's tokens tells apart the user's memories: its
-- inverse document frequency over the rows recall scores (the live
-- memories of the tier asked for, and the wordings they absorbed), BM25's
-- ln(1 + (N - df + 0.5) / (df + 0.5)). A word in every memory ("Caroline"
-- in a store about Caroline) weighs almost nothing, a word in one weighs
-- most; always above 0. Matching is by substring, as recall's (a token
-- "paint" is found in "painting"), so that the weights are those of the
-- match that is scored. One pass over the rows a window of
-- pymem._token_slots() tokens, a count per slot. The rows are read by plain
-- SQL, not through an SQL function: Citus cannot plan a parameterized SQL
-- function over its distributed tables.
-- (the signature before with_wordings: a call by its three arguments would match both)
DROP FUNCTION IF EXISTS pymem._term_weights(text, text[], boolean);
CREATE OR REPLACE FUNCTION pymem._term_weights(
    of_user text, query_tokens text[], with_cold boolean DEFAULT FALSE,
    with_wordings boolean DEFAULT TRUE
)
RETURNS double precision[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
-- plpgsql: its statement is planned once a session (recall calls it on every question)
AS $$
DECLARE
    v_rows bigint;
    v_counts bigint [] := '{}';
    v_found bigint [];
    v_slots text [];
BEGIN
    -- a pass a window of pymem._token_slots() tokens: one for a question of a few words
    FOR v_from IN 1..coalesce(cardinality(query_tokens), 0) BY pymem._token_slots() LOOP
        v_slots := query_tokens[v_from:v_from + pymem._token_slots() - 1];
        SELECT
            count(*),
            ARRAY[
            count(*) FILTER (WHERE strpos(s.content, v_slots[1]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[2]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[3]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[4]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[5]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[6]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[7]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[8]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[9]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[10]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[11]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[12]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[13]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[14]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[15]) > 0),
            count(*) FILTER (WHERE strpos(s.content, v_slots[16]) > 0)
            ]
        INTO v_rows, v_found
        FROM (
            SELECT pymem._searchable(h.content, h.topic) AS content
            FROM pymem.memories AS h
            WHERE
                h.user_id = of_user
                AND h.consolidated_into IS NULL AND h.deleted_at IS NULL
                AND (with_cold OR h.tier = 'hot')
            UNION ALL
            SELECT pymem._searchable(w.content, h.topic) AS content
            FROM pymem.memories AS h
            -- from the user's memories, a lookup each (OFFSET 0: not flattened), and only
            -- when the user has wordings: planned once for every user, a join from the
            -- wordings read every wording of the store when one user held them all
            CROSS JOIN LATERAL (
                SELECT x.content FROM pymem.memory_wordings AS x
                -- (the user named again: Citus routes a statement every table of which
                -- names its user)
                WHERE x.user_id = of_user AND x.memory_id = h.id
                    AND x.content_md5 = md5(h.content)
                OFFSET 0
            ) AS w
            WHERE
                with_wordings AND h.user_id = of_user
                AND h.consolidated_into IS NULL AND h.deleted_at IS NULL
                AND (with_cold OR h.tier = 'hot')
        ) AS s;
        v_counts := v_counts || v_found[1:cardinality(v_slots)];
    END LOOP;
    RETURN ARRAY(
        SELECT ln(1 + (v_rows - c.df + 0.5) / (c.df + 0.5))
        FROM unnest(v_counts) WITH ORDINALITY AS c (df, ord)
        ORDER BY c.ord
    );
END;
$$;

-- The weighted share of the query's tokens found in the content, 0..1:
-- the weights (pymem._term_weights) of the tokens found over the weights
-- of them all.
CREATE OR REPLACE FUNCTION pymem._lexical_match(
    tokens text[], weights double precision[], content text
)
RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pymem, public, pg_temp
RETURN CASE
    WHEN cardinality(tokens) = 0 THEN 0.0
    ELSE coalesce((
        SELECT sum(x.weight) FILTER (WHERE strpos(lower(content), x.token) > 0) / sum(x.weight)
        FROM unnest(tokens, weights) AS x (token, weight)
    ), 0.0)
END;

-- The share of the query's tokens alone, as recall weighed them before
-- pymem._term_weights; replaced by the weighted share.
DROP FUNCTION IF EXISTS pymem._lexical_match(text[], text);
