-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD UNIQUE builds the index inside ALTER TABLE; on a partitioned table it builds one index per partition, and CONCURRENTLY is not available for partitioned tables: ddl-partitioning.html)
-- verified: PG15+16: both partitions scanned to build their indexes; inside a block pg_locks showed AccessExclusiveLock on the parent orders (every query through it waits) and ShareLock on each partition (writes blocked) during the builds
-- given: CREATE TABLE orders (id bigint NOT NULL, tenant_id bigint NOT NULL, external_ref text, created_on date NOT NULL) PARTITION BY RANGE (created_on);
-- given: CREATE TABLE orders_2025_h1 PARTITION OF orders FOR VALUES FROM ('2025-01-01') TO ('2025-07-01');
-- given: CREATE TABLE orders_2025_h2 PARTITION OF orders FOR VALUES FROM ('2025-07-01') TO ('2026-01-01');
ALTER TABLE orders ADD CONSTRAINT orders_tenant_external_ref_key UNIQUE (tenant_id, external_ref, created_on);
