-- expect: unsafe add-column-not-null-without-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN ... NOT NULL without DEFAULT: every existing row would be NULL, the table is scanned and the command fails on a non-empty table); Rails add_timestamps :widgets, null: false emits this single ALTER TABLE
-- verified: PG15: ERROR "column "created_at" of relation "widgets" contains null values" on a table with rows
-- given: CREATE TABLE "widgets" ("id" bigserial primary key, "name" character varying NOT NULL);
ALTER TABLE "widgets" ADD "created_at" timestamp(6) NOT NULL, ADD "updated_at" timestamp(6) NOT NULL;
