-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP COLUMN [IF EXISTS] ... CASCADE drops the column and dependent objects such as the index); the column exists from an earlier migration
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); dropped/renamed profiles_legacy_avatar_idx; seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): profiles AccessExclusiveLock
-- given: CREATE TABLE profiles (id bigint PRIMARY KEY, avatar_url text, legacy_avatar text);
-- given: CREATE INDEX profiles_legacy_avatar_idx ON profiles (legacy_avatar);
ALTER TABLE profiles DROP COLUMN IF EXISTS legacy_avatar CASCADE;
