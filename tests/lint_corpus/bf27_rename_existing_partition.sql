-- expect: unsafe rename
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (RENAME: a partition is a table in its own right; queries naming it directly fail after the rename)
-- verified: PG15: rename succeeds; inside a transaction AccessExclusiveLock on the partition being renamed; SELECT from the old name fails afterwards (relation does not exist)
-- given: CREATE TABLE tenant_data (tenant_id int NOT NULL, key text NOT NULL, value jsonb) PARTITION BY LIST (tenant_id);
-- given: CREATE TABLE tenant_data_t1 PARTITION OF tenant_data FOR VALUES IN (1);
-- given: CREATE TABLE tenant_data_t2 PARTITION OF tenant_data FOR VALUES IN (2);
-- naming convention change: partitions are named after the tenant slug
ALTER TABLE IF EXISTS tenant_data_t1 RENAME TO tenant_data_acme;
