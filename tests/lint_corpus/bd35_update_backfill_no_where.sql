-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-update.html (without WHERE every row is updated); explicit-locking.html 13.3.2 (row locks held until the transaction ends)
-- verified: PG15: with 1000 rows the UPDATE reports UPDATE 1000 (every row, one transaction)
-- given: CREATE TABLE "users" ("id" bigserial PRIMARY KEY, "email" varchar(255) NOT NULL, "email_normalized" varchar(255));
-- Knex migration 20261201_normalize_email
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "email_verified" boolean;
UPDATE "users" SET "email_normalized" = lower(trim("email"));
