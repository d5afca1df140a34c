-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL: "if a valid CHECK constraint exists (and is not dropped in the same command) which proves no NULL can exist, then the table scan is skipped"; VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE); tablecmds.c NotNullImpliedByRelConstraints (PG 12+)
-- verified: PG15: VALIDATE scanned (seq_scan +1) under ShareUpdateExclusiveLock only; the SET NOT NULL statement did not increase seq_scan (checked separately); relfilenode unchanged
-- given: CREATE TABLE "Shipments" ("Id" bigint PRIMARY KEY, "TrackingCode" text);
ALTER TABLE "Shipments" ADD CONSTRAINT "Shipments_TrackingCode_nn" CHECK ("TrackingCode" IS NOT NULL) NOT VALID;
ALTER TABLE "Shipments" VALIDATE CONSTRAINT "Shipments_TrackingCode_nn";
ALTER TABLE "Shipments" ALTER COLUMN "TrackingCode" SET NOT NULL;
ALTER TABLE "Shipments" DROP CONSTRAINT "Shipments_TrackingCode_nn";
