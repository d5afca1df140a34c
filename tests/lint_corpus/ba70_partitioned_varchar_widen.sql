-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: binary-coercible change, no rewrite, recursing to every partition); varchar_support; https://www.postgresql.org/docs/15/ddl-partitioning.html
-- verified: relfilenodes of measurements_2025/2026 unchanged, no scans; AccessExclusiveLock on parent and partitions, brief
-- given: CREATE TABLE measurements (id bigint NOT NULL, sensor varchar(20) NOT NULL, taken_at date NOT NULL, value double precision) PARTITION BY RANGE (taken_at);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE measurements ALTER COLUMN sensor TYPE varchar(64);
