-- Grants for the application role (pymem._grant_app_role, 98_app_role.sql),
-- given last so that every function above exists.

SELECT pymem._grant_app_role();

-- The leaves of a partitioned store get their parents' policies and
-- privileges (sql/95_partitions.sql); nothing to do on a plain store.
SELECT pymem._sync_partition_security();
