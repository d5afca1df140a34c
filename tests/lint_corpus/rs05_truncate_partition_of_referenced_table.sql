-- expect: unsafe rejected-by-schema
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html (TRUNCATE cannot be used on a table that has foreign-key references from other tables, unless all such tables are also truncated in the same command); src/backend/catalog/heap.c heap_truncate_check_FKs (a foreign key onto a partitioned table references each partition)
-- verified: PG15: SQLSTATE 0A000 (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TABLE regions (id int NOT NULL, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
-- given: CREATE TABLE regions_2024 PARTITION OF regions FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
-- given: CREATE TABLE shops (id int PRIMARY KEY, region_id int, region_at date, FOREIGN KEY (region_id, region_at) REFERENCES regions (id, at));
TRUNCATE regions_2024;
