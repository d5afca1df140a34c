-- expect: unsafe attach-partition
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION: only a *valid* CHECK constraint avoids the scan); partbounds.c/tablecmds.c PartConstraintImpliedByRelConstraint ignores constraints with convalidated = false
-- verified: PG15 with client_min_messages=debug1: no "is implied by existing constraints" for invoices_legacy after the NOT VALID check; with a VALIDATE first the message appears; ATTACH holds AccessExclusiveLock on invoices_legacy
-- given: CREATE TABLE invoices (id bigint NOT NULL, issued_on date NOT NULL, amount numeric(12,2)) PARTITION BY RANGE (issued_on);
-- given: CREATE TABLE invoices_2026 PARTITION OF invoices FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE invoices_legacy (id bigint NOT NULL, issued_on date NOT NULL, amount numeric(12,2));
-- Move the legacy table under the partitioned parent.
ALTER TABLE invoices_legacy
    ADD CONSTRAINT invoices_legacy_range CHECK (issued_on >= DATE '2000-01-01' AND issued_on < DATE '2026-01-01') NOT VALID;
ALTER TABLE invoices ATTACH PARTITION invoices_legacy FOR VALUES FROM ('2000-01-01') TO ('2026-01-01');
ALTER TABLE invoices_legacy DROP CONSTRAINT invoices_legacy_range;
