-- The role stays: it is cluster-wide and other databases may use it.
DROP POLICY memory_versions_of_current_user ON pymem.memory_versions;
DROP POLICY memories_of_current_user ON pymem.memories;
ALTER TABLE pymem.memory_versions DISABLE ROW LEVEL SECURITY;
ALTER TABLE pymem.memories DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA pymem FROM pymem_app;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pymem FROM pymem_app;
REVOKE ALL ON ALL PROCEDURES IN SCHEMA pymem FROM pymem_app;
REVOKE ALL ON SCHEMA pymem FROM pymem_app;
