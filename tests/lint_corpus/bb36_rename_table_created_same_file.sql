-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (RENAME TO); the table is created earlier in this file, unused by running code
-- verified: PG15: succeeds; locks only on the new table and a ShareRowExclusiveLock on users for the FK trigger creation (empty referencing table)
-- given: CREATE TABLE users (id bigserial PRIMARY KEY, email varchar(255) NOT NULL, name text, status text NOT NULL DEFAULT 'active', deleted_at timestamptz, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE user_prefs_new (user_id bigint PRIMARY KEY REFERENCES users(id), prefs jsonb NOT NULL DEFAULT '{}');
ALTER TABLE user_prefs_new RENAME TO user_prefs;
