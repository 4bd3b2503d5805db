-- pymem 0002: row-level security for an application role.
-- pymem_app may only see and change the rows of the user named by the
-- session setting pymem.user_id. The owner (the role that migrates)
-- is not subject to these policies. Grants live in sql/99_grants.sql.
-- depends: 0001.initial-schema

DO $$
BEGIN
    CREATE ROLE pymem_app NOLOGIN;
EXCEPTION WHEN duplicate_object THEN
    NULL;  -- roles are cluster-wide: another database created it
END;
$$;

ALTER TABLE pymem.memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.memory_versions ENABLE ROW LEVEL SECURITY;

CREATE POLICY memories_of_current_user ON pymem.memories
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));

CREATE POLICY memory_versions_of_current_user ON pymem.memory_versions
FOR ALL TO pymem_app
USING (user_id = current_setting('pymem.user_id', TRUE))
WITH CHECK (user_id = current_setting('pymem.user_id', TRUE));
