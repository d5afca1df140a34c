-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN; Notes: "When a column is added with ADD COLUMN and a non-volatile DEFAULT is specified, the default is evaluated at the time of the statement and the result stored in the table's metadata"); CURRENT_TIMESTAMP is stable, and the NOT NULL is satisfied by the stored missing value (no scan)
-- verified: users relfilenode unchanged, no scan (missing value stored in pg_attribute); AccessExclusiveLock only
-- given: CREATE TABLE "users" ("id" bigserial primary key, "email" character varying NOT NULL);
ALTER TABLE "users" ADD "confirmed_at" timestamp(6) DEFAULT CURRENT_TIMESTAMP NOT NULL;
