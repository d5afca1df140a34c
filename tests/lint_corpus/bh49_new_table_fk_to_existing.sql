-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtable.html (REFERENCES on a new, empty table: nothing to validate; brief SHARE ROW EXCLUSIVE on the referenced table); index on the new table
-- verified: PG15: inside BEGIN, ShareRowExclusiveLock on users (no scan); users relfilenode unchanged
-- given: CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
CREATE TABLE "user_api_keys" (
    "id" bigserial NOT NULL PRIMARY KEY,
    "user_id" bigint NOT NULL REFERENCES "users" ("id") DEFERRABLE INITIALLY DEFERRED,
    "hashed_key" varchar(128) NOT NULL UNIQUE
);
CREATE INDEX "user_api_keys_user_id_idx" ON "user_api_keys" ("user_id");
