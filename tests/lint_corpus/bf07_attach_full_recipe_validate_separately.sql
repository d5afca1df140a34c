-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE ("create a CHECK constraint matching the expected partition constraint on the table prior to attaching it"); ALTER TABLE VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE
-- verified: PG15 with client_min_messages=debug1: "partition constraint for table "invoices_legacy" is implied by existing constraints" on ATTACH; parent has no DEFAULT partition; VALIDATE runs as its own statement
-- given: CREATE TABLE invoices (id bigint NOT NULL, issued_on date NOT NULL, amount numeric(12,2)) PARTITION BY RANGE (issued_on);
-- given: CREATE TABLE invoices_2026 PARTITION OF invoices FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE invoices_legacy (id bigint NOT NULL, issued_on date NOT NULL, amount numeric(12,2));
ALTER TABLE invoices_legacy
    ADD CONSTRAINT invoices_legacy_range CHECK (issued_on IS NOT NULL AND issued_on >= DATE '2000-01-01' AND issued_on < DATE '2026-01-01') NOT VALID;

ALTER TABLE invoices_legacy VALIDATE CONSTRAINT invoices_legacy_range;

ALTER TABLE invoices ATTACH PARTITION invoices_legacy FOR VALUES FROM ('2000-01-01') TO ('2026-01-01');

ALTER TABLE invoices_legacy DROP CONSTRAINT invoices_legacy_range;
