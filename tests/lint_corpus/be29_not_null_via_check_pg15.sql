-- expect: safe
-- pg-version: 15
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET NOT NULL: "if a valid CHECK constraint exists ... which proves no NULL can exist, then the table scan is skipped")
-- verified: PG15: only VALIDATE scanned (seq_scan +1, SHARE UPDATE EXCLUSIVE); SET NOT NULL did not scan
-- given: CREATE SCHEMA crm;
-- given: CREATE TABLE crm."Lead" (id bigint PRIMARY KEY, "ownerId" bigint);
ALTER TABLE crm."Lead" ADD CONSTRAINT "Lead_ownerId_not_null" CHECK ("ownerId" IS NOT NULL) NOT VALID;
ALTER TABLE crm."Lead" VALIDATE CONSTRAINT "Lead_ownerId_not_null";
ALTER TABLE crm."Lead" ALTER COLUMN "ownerId" SET NOT NULL;
ALTER TABLE crm."Lead" DROP CONSTRAINT "Lead_ownerId_not_null";
