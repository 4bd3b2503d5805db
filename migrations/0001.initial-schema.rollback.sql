-- Removes everything pymem created. The vector and pg_trgm extensions
-- stay: other schemas of the database may use them.
DROP SCHEMA pymem CASCADE;
