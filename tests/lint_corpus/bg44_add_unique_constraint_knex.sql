-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint UNIQUE builds the index inside ALTER TABLE under ACCESS EXCLUSIVE; the USING INDEX form avoids it)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations users_email_unique; seq_scan rose on public.users; locks held (whole file in one test transaction): users AccessExclusiveLock, users ShareLock, users_email_unique AccessExclusiveLock
-- given: CREATE TABLE "users" ("id" bigserial PRIMARY KEY, "email" varchar(255) NOT NULL);
-- Knex: table.unique(['email'])
alter table "users" add constraint "users_email_unique" unique ("email");
