-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL: "requires a scan of the entire table"; recurses to every partition); tablecmds.c ATExecSetNotNull / ATRewriteTables verify_not_null
-- verified: PG15: inside a transaction AccessExclusiveLock on shipments, shipments_2025 and shipments_2026; an inserted NULL row in shipments_2025 makes it fail ("column "carrier" of relation "shipments_2025" contains null values"), i.e. the partition is scanned
-- given: CREATE TABLE shipments (id bigint NOT NULL, shipped_on date NOT NULL, carrier text, tracking_no text) PARTITION BY RANGE (shipped_on);
-- given: CREATE TABLE shipments_2025 PARTITION OF shipments FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE shipments_2026 PARTITION OF shipments FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- Django 5 sqlmigrate shipping 0014
BEGIN;
--
-- Alter field carrier on shipment
--
ALTER TABLE "shipments" ALTER COLUMN "carrier" SET DEFAULT 'unknown';
UPDATE "shipments" SET "carrier" = 'unknown' WHERE "carrier" IS NULL;
ALTER TABLE "shipments" ALTER COLUMN "carrier" SET NOT NULL;
ALTER TABLE "shipments" ALTER COLUMN "carrier" DROP DEFAULT;
COMMIT;
