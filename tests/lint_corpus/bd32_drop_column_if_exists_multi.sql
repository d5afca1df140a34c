-- expect: unsafe drop-table-or-column
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP COLUMN: "makes the column invisible to SQL operations"; running code selecting it fails)
-- verified: PG15: Fax column dropped (attisdropped), table not rewritten; a query selecting "Fax" then fails
-- given: CREATE TABLE "Customers" ("Id" int PRIMARY KEY, "Name" text, "Fax" text, "Region" text);
-- EF Core / hand-written: drop obsolete columns
ALTER TABLE "Customers" ADD COLUMN IF NOT EXISTS "Country" text, DROP COLUMN IF EXISTS "Fax";
