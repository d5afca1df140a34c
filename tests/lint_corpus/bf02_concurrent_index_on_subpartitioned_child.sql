-- expect: unsafe require-concurrent-index
-- doc: https://www.postgresql.org/docs/current/sql-createindex.html ("Concurrent builds for indexes on partitioned tables are currently not supported"); indexcmds.c DefineIndex; the child orders_eu is itself partitioned (PARTITION OF ... PARTITION BY)
-- verified: PG15: ERROR: cannot create index on partitioned table "orders_eu" concurrently
-- given: CREATE TABLE orders (id bigint NOT NULL, region text NOT NULL, placed_at date NOT NULL, total numeric(12,2)) PARTITION BY LIST (region);
-- given: CREATE TABLE orders_eu PARTITION OF orders FOR VALUES IN ('eu') PARTITION BY RANGE (placed_at);
-- given: CREATE TABLE orders_eu_2026 PARTITION OF orders_eu FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
-- given: CREATE TABLE orders_us PARTITION OF orders FOR VALUES IN ('us');
-- EU reporting needs an index on placed_at; only the EU sub-tree is indexed.
CREATE INDEX CONCURRENTLY orders_eu_placed_at_idx ON orders_eu (placed_at);
