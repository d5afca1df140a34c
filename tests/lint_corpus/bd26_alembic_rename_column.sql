-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (RENAME COLUMN); the running application still selects the old column name
-- verified: PG15: block succeeds; column displayName renamed (old name no longer resolves)
-- given: CREATE TABLE alembic_version (version_num varchar(32) NOT NULL PRIMARY KEY);
-- given: INSERT INTO alembic_version VALUES ('3f2a9c1d7b10');
-- given: CREATE TABLE "userProfile" (id serial PRIMARY KEY, "displayName" varchar(80), bio text);
BEGIN;

-- Running upgrade 3f2a9c1d7b10 -> 8e4b7a2c5d31

ALTER TABLE "userProfile" RENAME "displayName" TO display_name;

UPDATE alembic_version SET version_num='8e4b7a2c5d31' WHERE alembic_version.version_num = '3f2a9c1d7b10';

COMMIT;
