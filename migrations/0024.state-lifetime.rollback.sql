-- Rollback of 0024: a state without a stated end holds for one day again.
UPDATE pymem.kinds
SET default_lifetime = INTERVAL '1 day'
WHERE kind = 'state' AND default_lifetime = INTERVAL '3 days';

UPDATE pymem.schema_info SET version = 23;
