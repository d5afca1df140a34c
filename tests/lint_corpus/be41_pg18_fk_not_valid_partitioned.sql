-- expect: safe
-- pg-version: 18
-- doc: https://www.postgresql.org/docs/18/sql-altertable.html (ADD FOREIGN KEY ... NOT VALID, then VALIDATE CONSTRAINT; PostgreSQL 18 allows NOT VALID foreign keys on partitioned tables)
-- verified: PG18: ADD ... NOT VALID no scan, separate VALIDATE scanned each partition; PG16 refuses ("cannot add NOT VALID foreign key on partitioned table")
-- given: CREATE TABLE merchants (id bigint PRIMARY KEY, name text);
-- given: CREATE TABLE charges (id bigint NOT NULL, merchant_id bigint, created_at date NOT NULL, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at);
-- given: CREATE TABLE charges_2025 PARTITION OF charges FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE charges_2026 PARTITION OF charges FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE charges ADD CONSTRAINT charges_merchant_fk FOREIGN KEY (merchant_id) REFERENCES merchants (id) NOT VALID;
ALTER TABLE charges VALIDATE CONSTRAINT charges_merchant_fk;
