-- Events: work that needs the app's LLM is announced on the NOTIFY
-- channel pymem_events with a small JSON payload
-- {"user_id": ..., "event": ..., "ids": [...], ...} of ids and counts, never
-- content (a topic, a name, a fact key): any role that can connect may LISTEN
-- on any channel, and the listener reads the rest through the API, which
-- row-level security scopes. NOTIFY is
-- transactional: a listener hears it only after the commit, and never
-- for a rolled-back write. Every event is also readable without LISTEN
-- (pymem.pending_reviews and the capability's own queries).

CREATE OR REPLACE FUNCTION pymem._notify(
    user_id text, event text, ids uuid[], extra jsonb DEFAULT '{}'
)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
DECLARE
    -- NOTIFY payloads are capped at 8000 bytes: long id lists are cut,
    -- with the total kept, and the queue query has the rest.
    v_payload jsonb := jsonb_build_object(
        'user_id', user_id,
        'event', event,
        'ids', to_jsonb(ids[1:100]),
        'count', cardinality(ids)
    ) || coalesce(extra, '{}');
BEGIN
    -- On Citus this runs on a worker, whose NOTIFY no listener on the
    -- coordinator hears (and which a transaction writing two workers could
    -- not commit): the event waits in the outbox, in the same transaction,
    -- until pymem.relay_events() sends it on the coordinator.
    IF pymem._citus_outbox() THEN
        INSERT INTO pymem.event_outbox (user_id, event, payload)
        VALUES (_notify.user_id, _notify.event, v_payload);
        RETURN;
    END IF;
    PERFORM pg_notify('pymem_events', v_payload::text);
END;
$$;

-- A new open review announces itself once: review_due for a related
-- pair, conflict_flagged for a flagged or structured contradiction.
CREATE OR REPLACE FUNCTION pymem._announce_review()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pymem, public, pg_temp
AS $$
BEGIN
    PERFORM pymem._notify(
        NEW.user_id,
        CASE NEW.cause WHEN 'related' THEN 'review_due' ELSE 'conflict_flagged' END,
        array_remove(ARRAY[NEW.memory_id, NEW.matched_id], NULL),
        jsonb_build_object('review_id', NEW.id, 'cause', NEW.cause)
    );
    RETURN NULL;
END;
$$;

-- In a DO block: Citus sends a trigger's statement to the shards as the
-- text it came in, and a file's many statements are refused there.
DO $$
BEGIN
    CREATE OR REPLACE TRIGGER reviews_announce
    AFTER INSERT ON pymem.reviews
    FOR EACH ROW
    EXECUTE FUNCTION pymem._announce_review();
END;
$$;
