-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP NOT NULL, SET/DROP DEFAULT, SET STATISTICS, SET STORAGE, SET (n_distinct), REPLICA IDENTITY, fillfactor: catalog changes, no rewrite)
-- verified: PG15+16: no relfilenode changed, no seq scan
-- given: CREATE TABLE profiles (id bigint PRIMARY KEY, display_name text NOT NULL, bio text, country text);
ALTER TABLE profiles
    ALTER COLUMN display_name DROP NOT NULL,
    ALTER COLUMN bio SET STORAGE EXTERNAL,
    ALTER COLUMN country SET STATISTICS 1000,
    ALTER COLUMN country SET (n_distinct = 250),
    ALTER COLUMN country SET DEFAULT 'US';
ALTER TABLE profiles SET (fillfactor = 90, autovacuum_vacuum_scale_factor = 0.02);
ALTER TABLE profiles REPLICA IDENTITY FULL;
