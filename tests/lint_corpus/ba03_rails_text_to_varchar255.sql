-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); text -> varchar(n) needs the length coercion function varchar(varchar,int,bool) on every row (no typmod on text, varchar_support cannot prove it a no-op)
-- verified: users and users_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE "users" ("id" bigserial primary key, "bio" text, "created_at" timestamp(6) NOT NULL);
ALTER TABLE "users" ALTER COLUMN "bio" TYPE character varying(255);
