-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL: "SET NOT NULL may only be applied to a column provided none of the records in the table contain a NULL value for the column. Ordinarily this is checked during the ALTER TABLE by scanning the entire table"); Rails change_column_null(:users, :locale, false, "en") emits a bounded UPDATE (WHERE ... IS NULL, not a finding) then SET NOT NULL
-- verified: PG15: UPDATE touched only NULL rows; SET NOT NULL increased seq_scan of users by 1 under AccessExclusiveLock; relfilenode unchanged
-- given: CREATE TABLE "users" ("id" bigserial primary key, "email" character varying DEFAULT '' NOT NULL, "locale" character varying, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL);
UPDATE "users" SET "locale"='en' WHERE "locale" IS NULL;
ALTER TABLE "users" ALTER COLUMN "locale" SET NOT NULL;
