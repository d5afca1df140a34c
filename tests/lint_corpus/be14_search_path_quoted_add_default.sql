-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: ADD COLUMN with a non-volatile DEFAULT is stored in the catalog, no rewrite, NOT NULL then needs no scan)
-- verified: PG15+16: app."Users" relfilenode unchanged, no seq scan
-- given: CREATE SCHEMA app;
-- given: CREATE TABLE app."Users" ("Id" uuid PRIMARY KEY, "Email" text NOT NULL);
SET search_path TO app, public;
ALTER TABLE "Users" ADD COLUMN "IsActive" boolean NOT NULL DEFAULT true;
ALTER TABLE "Users" ADD COLUMN "Locale" varchar(10) NOT NULL DEFAULT 'en-US';
RESET search_path;
